# SPDX-License-Identifier: GPL-3.0-or-later
"""Scripted demo players: what a game package declares so ``mailbot demo --game`` can play it.

A game package may hold a ``demo`` module with a ``DEMO`` :class:`DemoScript`.
The demo's players act only on what their letters say: when a letter names an
open step they owe ("Send: ORDERS <step>" or "Send: SEAL ... for <step>"),
the script's ``answer`` gives the body of their reply. Scripts are pure: they
read the letter's text and return text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the plug-in API of this module (docs/writing-a-game.md); the rest is the moderator's own
__all__ = [
    "Answer",
    "Concedes",
    "DemoScript",
    "orders",
]

#: (seat, step key, step kind "orders"/"sealed"/"choice", steps this seat answered before,
#: the text of the letter that asked) -> the body of the player's answer
Answer = Callable[[str, str, str, int, str], str]

#: (seat, step key, the text of every letter the player has read, oldest first: the last one asks
#: for the step) -> whether the player gives the game up by mail (CONCEDE) instead of answering.
#: All his letters, not the last alone: what a side did to the enemy is told in letters that ask
#: for nothing (a strike's results), and only its own notes can remember it.
Concedes = Callable[[str, str, Sequence[str]], bool]


def orders(step: str, *lines: str) -> str:
    """An ORDERS block for ``step`` holding ``lines``."""
    return "\n".join([f"ORDERS {step}", *lines, "END"]) + "\n"


@dataclass(frozen=True)
class DemoScript:
    """How the embedded demo plays one game: scenario, options and the players' answers."""

    scenario: str
    title: str
    answer: Answer
    options: Mapping[str, Any] = field(default_factory=dict)
    stop_after: int | None = None  # stop after this many resolved steps (None: play to the end)
    mistake: str = ""  # a wrong first order from the joining player, to show the reply
    concedes: Concedes | None = None  # asked before each answer; None: the players never concede
