# SPDX-License-Identifier: GPL-3.0-or-later
"""The hashes and chain rules a mailbot archive is checked by, from the published byte-exact
specification (NOT by importing mailbot): the event chain's entries, orders digests, the
players' entropy, dice faces, salted commitments and the dice chains of seats and seeds.
Each function is the specification of one value; every check in ``steps.py`` and
``checker.py`` computes with them."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct
from typing import Any

GENESIS = "0" * 64
ORDERS_TAG = "mailbot-orders-v1"
DICE_TAG = "mailbot-dice-v1"
ENTROPY_TAG = "mailbot-entropy-v2"
SALT_TAG = "mailbot-salted-v1"
STEP_SALT_TAG = "mailbot-step-salt-v1"
SEAT_TAG = "mailbot-seat-chain-v1"
REVEALS_TAG = "mailbot-reveals-v1"
SEED_TAG = "mailbot-seed-commitment-v1"
CHAIN_LENGTH = 10_000
PBKDF2_ROUNDS = 200_000
CHUNKS = struct.Struct(">8I")
#: a logged roll's bounds (``mailbot.core.dice``: the moderator rolls no other): faces come from
#: 32-bit values, a counter is a u64, and at most MAX_COUNT dice a roll. A roll outside them is
#: refused before it is derived: a hand-edited count of 10**9 kept the checker busy for hours,
#: and more sides than 2**32 for ever (no value is ever below the rejection limit).
MAX_SIDES = 2**32
MAX_COUNT = 1_000
MAX_COUNTER = 2**64 - 1
DICE_KINDS = ("entropy", "reveal", "dice-chain")  # entries that count a letter for a seat's dice
ORDER_KINDS = ("orders", "orders-replaced", "orders-carried")


def s(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def orders_digest(orders: dict[str, list[str]]) -> str:
    parts = [s(ORDERS_TAG)]
    for seat in sorted(orders):
        lines = orders[seat]
        parts.append(s(seat) + len(lines).to_bytes(4, "big"))
        parts.extend(hashlib.sha256(line.encode("utf-8")).digest() for line in lines)
    return sha(b"".join(parts))


def player_entropy(contributions: list[tuple[str, str, str]]) -> str:
    data = s(ENTROPY_TAG) + len(contributions).to_bytes(4, "big")
    return sha(data + b"".join(s(seat) + s(mid) + s(nonce) for seat, mid, nonce in sorted(contributions)))


def dice_key(seed: bytes, entropy: str) -> bytes:
    return hmac.new(seed, s(ENTROPY_TAG) + s(entropy), hashlib.sha256).digest()


def hashed(value: bytes, times: int) -> bytes:
    for _ in range(times):
        value = hashlib.sha256(value).digest()
    return value


def seat_root(passphrase: str, game: str, seat: str) -> bytes:
    salt = s(SEAT_TAG) + s(game) + s(seat.lower())
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode("utf-8"), salt, PBKDF2_ROUNDS)


def reveals_digest(reveals: dict[str, str]) -> str:
    data = s(REVEALS_TAG) + len(reveals).to_bytes(4, "big")
    return sha(data + b"".join(s(seat) + s(reveals[seat]) for seat in sorted(reveals)))


def links(value: str, k: int, known: str, j: int) -> bool:
    """``value`` (round ``k``) hashes up to ``known`` (round ``j`` < ``k``, 0: the anchor)."""
    hex64 = re.compile(r"^[0-9a-f]{64}$")
    if not (isinstance(value, str) and hex64.match(value) and hex64.match(known) and 0 <= j < k):
        return False
    return hashed(bytes.fromhex(value), k - j).hex() == known


def salted(content: str, salt: bytes) -> str:
    return sha(s(SALT_TAG) + salt + content.encode("utf-8"))


def step_salt(seed: bytes, step: str) -> bytes:
    return hmac.new(seed, s(STEP_SALT_TAG) + s(step), hashlib.sha256).digest()


def faces(
    seed: bytes, key: tuple[str, str, str], sides: int, count: int, counter: int
) -> tuple[list[int], int]:
    """The faces of one roll: ``seed`` is the HMAC key, ``key`` is (step, orders digest, label)."""
    step, digest, label = key
    limit = 2**32 - (2**32 % sides)
    prefix = s(DICE_TAG) + s(step) + s(digest) + s(label)
    found: list[int] = []
    while len(found) < count:
        block = hmac.new(seed, prefix + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
        for x in CHUNKS.unpack(block):
            if x < limit:
                found.append(x % sides + 1)
                if len(found) == count:
                    break
    return found, counter


def part_hash(data: bytes, maintype: str) -> str:
    """One part of a letter; a text part's line ends do not count (mail rewrites them)."""
    return sha(b"\n".join(data.splitlines()) if maintype == "text" else data)


def entry_hash(index: int, kind: str, payload: Any, prev: str) -> str:
    return sha(canonical([index, kind, prev, payload]).encode("utf-8"))
