# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's World in Flames sides: weather 2 every impulse; the Axis pass with Italy every third;
the Axis open both turns."""

from __future__ import annotations

from mailbot.core.demo import DemoScript, orders


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    # The pass bonus then shows in the dice.
    if seat == "Axis" and n % 3 == 2:
        return orders(step, "WEATHER 2", "PASS Italy", "LAST 2")
    return orders(step, "WEATHER 2")


# Two turns; the GM's game options have the Axis open both (first_by_turn), which every
# letter states as the source of who moves first.
DEMO = DemoScript(
    "standard",
    "Demo World in Flames turn end",
    _answer,
    {"turns": 2, "first_by_turn": ["Axis", "Axis"]},
)
