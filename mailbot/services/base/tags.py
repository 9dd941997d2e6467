# SPDX-License-Identifier: GPL-3.0-or-later
"""Game tags in subjects (``[DU-3 secret]``), seat secrets, salts and dice seeds.

The vocabulary every layer above shares when it writes to a seat or reads a reply.
"""

from __future__ import annotations

import re
import secrets

from mailbot.store.game_tables import Game

TOKEN_ALPHABET = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no look-alikes


def new_token(length: int = 6) -> str:
    return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(length))


def new_salt() -> str:
    """32 random bytes as hex: the salt of one piece of hidden content's chain commitment."""
    return secrets.token_hex(32)


#: a seat's tag as it stands in a subject: game code, game number, secret (and anything after)
TAG = re.compile(r"\[([A-Za-z]{2})-(\d{1,9})\s+([A-Za-z0-9]+)(?:\s+[^\]]*)?\]")  # 9: NUMBER_DIGITS
SUBJECT_TAG = re.compile(r"\[[A-Z]{2}-\d+ [A-Za-z0-9]+\]\s*")


def untagged(subject: str) -> str:
    """A subject without its [XX-n secret] tag: for letters that may reach someone else."""
    return SUBJECT_TAG.sub("", subject)


def tag(game: Game) -> str:
    """The short game code used in subjects, e.g. ``DU-3``."""
    return f"{game.plugin[:2].upper()}-{game.id}"


def fresh_seed() -> bytes:
    """A step's secret dice seed: 256 bits from the operating system."""
    return secrets.token_bytes(32)
