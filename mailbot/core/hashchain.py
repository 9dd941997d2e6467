# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice nobody can steer: the server's seed chain and each seat's reveal chain (issue 31).

A hash chain ``x, H(x), H(H(x)), ..., H^n(x)`` is published by its top, the
*anchor* ``H^n(x)``; its elements are then given out from the top down, and
each one is checked by hashing it up to the last one known. Nobody, not even
the chain's owner, can choose an element once the anchor is out: there is
exactly one preimage of each element that links.

* The **server chain** is drawn when a game is created; its anchor is the
  set-up step's commitment, logged in the ``game-created`` entry and printed
  in every welcome letter, before any player's letter counts for anything.
  The ``k``-th step attempt the game opens (``round`` k: the set-up is 1, a
  rollback's new attempt the next round) gets the element
  ``seed_k = H^(n-k)(root)``. Its published commitment is NOT ``H(seed_k)``:
  that is ``seed_(k-1)``, and a hidden-information game keeps every seed
  secret until the end. It is ``seed_commitment(seed_k)``, a hash with a tag
  of its own. A revealed seed is checked against its commitment and against
  the anchor (``H^k(seed_k) == anchor``), and the rounds of the step
  attempts run 1, 2, 3... in the chain: the GM cannot pick, skip or re-draw a
  step seed (a hidden-information game shows it when its seeds open).
* A **seat chain** is the player's own: ``root = PBKDF2(passphrase, game,
  seat)`` computed by the shipped ``verify.py`` (``verify.py chain``); its
  anchor goes to the bot in a ``CHAIN <anchor>`` line (the JOIN letter is the
  place), and for round ``k`` the player reveals ``H^(n-k)(root)`` in a
  ``REVEAL k <value>`` line (``verify.py reveal``). One value per round, fixed
  since the anchor: revealing is the only choice a seat has.

Byte-exact specification (notation as in ``mailbot.core.dice``; ``H`` is
SHA-256 of the raw 32 bytes, elements are written as lower-case hex)::

    seat_root = PBKDF2-HMAC-SHA256(password = utf8(passphrase),
                                   salt = s("mailbot-seat-chain-v1") || s(game) || s(lower(seat)),
                                   iterations = 200000, length = 32)
    element(root, k) = H^(n - k)(root)          n = CHAIN_LENGTH, 0 <= k <= n
    anchor = element(root, 0) = H^n(root)
    seed_commitment(seed) = hex(SHA-256( s("mailbot-seed-commitment-v1") || seed ))

Dice of a step whose round has chained seats (dice version 3): only the
server element and the seats' reveals count; letters' Message-IDs, NONCE
lines and the orders are left out of the dice, because whoever writes last
could otherwise try wordings until the dice suit him. A seat is chained for
a step when its anchor was logged before the step opened; a seat that sent
no reveal for the round counts as ``""``::

    reveals = hex(SHA-256( s("mailbot-reveals-v1") || u32(m)
                           || for each chained seat, sorted: s(seat) || s(reveal or "") ))
    key = dice_key(seed_k, reveals)             (``mailbot.core.dice``)
    blocks as in ``mailbot.core.dice`` with orders_digest = ""

With no chained seat the step's dice are version 2 (``mailbot.core.dice``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

CHAIN_LENGTH = 10_000  # rounds a game (or a seat) can play: step attempts, set-up included
PBKDF2_ROUNDS = 200_000  # a guessed passphrase costs this much to test against an anchor
SEAT_TAG = "mailbot-seat-chain-v1"
REVEALS_TAG = "mailbot-reveals-v1"
SEED_TAG = "mailbot-seed-commitment-v1"
DICE_VERSION = 3
HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def hashed(value: bytes, times: int) -> bytes:
    """``H^times(value)``."""
    for _ in range(times):
        value = hashlib.sha256(value).digest()
    return value


def element(root: bytes, k: int, length: int = CHAIN_LENGTH) -> bytes:
    """The chain's element for round ``k`` (0 is the anchor)."""
    if not 0 <= k <= length:
        raise ValueError(f"round {k} is outside a chain of {length}")
    return hashed(root, length - k)


STRIDE = 100  # hashes between two kept checkpoints of a chain (``checkpoints``)


def checkpoints(root: bytes, length: int = CHAIN_LENGTH) -> list[bytes]:
    """``H^(i*STRIDE)(root)`` for every i up to ``length``: kept beside the root, they make a
    round's element a hundred hashes away instead of up to ten thousand."""
    found, value = [root], root
    for _ in range(length // STRIDE):
        value = hashed(value, STRIDE)
        found.append(value)
    return found


def element_from(kept: Sequence[bytes] | Sequence[str], k: int, length: int = CHAIN_LENGTH) -> bytes:
    """``element(root, k, length)`` from the root's ``checkpoints`` (as bytes, or as stored: hex)."""
    if not 0 <= k <= length:
        raise ValueError(f"round {k} is outside a chain of {length}")
    times = length - k
    index = min(times // STRIDE, len(kept) - 1)
    start = kept[index]
    return hashed(bytes.fromhex(start) if isinstance(start, str) else start, times - index * STRIDE)


def anchor(root: bytes, length: int = CHAIN_LENGTH) -> str:
    return element(root, 0, length).hex()


def seed_commitment(seed: bytes) -> str:
    """A chained step seed's published commitment; ``H(seed)`` would give away the seed before."""
    return hashlib.sha256(_s(SEED_TAG) + seed).hexdigest()


def seat_root(passphrase: str, game: str, seat: str) -> bytes:
    """A seat chain's root from the player's passphrase (module docstring)."""
    salt = _s(SEAT_TAG) + _s(game) + _s(seat.lower())
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode("utf-8"), salt, PBKDF2_ROUNDS)


def links(value: str, k: int, known: str, j: int) -> bool:
    """Whether ``value`` (round ``k``) hashes up to ``known`` (round ``j`` < ``k``; 0: the anchor)."""
    if not HEX64.match(value) or not HEX64.match(known) or not 0 <= j < k <= CHAIN_LENGTH:
        return False
    return hashed(bytes.fromhex(value), k - j).hex() == known


def reveals_digest(reveals: Mapping[str, str]) -> str:
    """The mixed reveals of a step's chained seats, ``""`` where a seat revealed nothing."""
    h = hashlib.sha256(_s(REVEALS_TAG) + len(reveals).to_bytes(4, "big"))
    for seat in sorted(reveals):
        h.update(_s(seat) + _s(reveals[seat]))
    return h.hexdigest()
