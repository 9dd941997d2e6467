# SPDX-License-Identifier: GPL-3.0-or-later
"""What makes a demo game replay exactly: its step seeds and its players' Message-IDs from one demo seed.

A game's dice depend on three things (``core/dice.py``): each step's secret seed,
the orders, and the players' entropy (each letter's Message-ID and NONCE). The
scripted players write the same orders for the same letters, and the entropy is
mixed sorted, so the order the mail server delivers letters in does not count;
what is left is the step seeds and the Message-IDs. Here both come from the demo
seed: the n-th seed drawn is HMAC-SHA256(demo seed, "step seed" n), the n-th
letter of a player gets ``<n.local-part.demo-seed-tag@demo.localhost>``. Every
seed is still committed to in the letter that opens its step, so the game
verifies like any other; it is only predictable to whoever knows the demo seed,
which the demo prints.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from itertools import count

#: the seed ``mailbot demo`` plays with unless told otherwise. Chosen because its Flat Top game
#: shows every part of a carrier battle (strikes both ways, a delayed sinking, the victory report);
#: the e2e test checks that it still does. A rule change that moves the dice moves the game: after
#: 14.11 (the attack follows the altitude) "coral-sea" no longer showed a delayed sinking, of
#: "coral-sea-1" to "-3" the first does. Since the step seeds come from a seed chain (issue 31) the
#: dice are others again: of "coral-sea-2" to "-5" only "-3" shows a delayed sinking. After issue 36's
#: last rules (no landing or take-off at LF 0, storm landings, grounded decks) "-3" shows none; of
#: "-3" to "-6" only "-6" shows every part.
DEFAULT_SEED = "coral-sea-6"
RANDOM = "random"  # ``--seed random``: fresh dice, a game nobody has seen


def demo_seed(text: str) -> str:
    """The seed to play with: ``text`` itself, or a fresh one for ``random``."""
    return secrets.token_hex(8) if text == RANDOM else text


def step_seeds(seed: str) -> Callable[[], bytes]:
    """The step seeds of a replayable game: the n-th call returns HMAC(seed, "step seed" n)."""
    key, numbers = seed.encode("utf-8"), count(1)

    def draw() -> bytes:
        return hmac.new(key, f"step seed {next(numbers)}".encode(), hashlib.sha256).digest()

    return draw


def message_ids(seed: str, address: str) -> Callable[[], str]:
    """A player's Message-IDs, numbered: the same letters get the same IDs in every replay."""
    local, _, domain = address.partition("@")
    tag = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:12]
    numbers = count(1)
    return lambda: f"<{next(numbers)}.{local}.{tag}@{domain}>"
