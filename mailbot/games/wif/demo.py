# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's World in Flames sides: weather 2 every impulse; the Axis pass with Italy every third."""

from __future__ import annotations

from mailbot.core.demo import DemoScript, orders


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    # The pass bonus then shows in the dice.
    if seat == "Axis" and n % 3 == 2:
        return orders(step, "WEATHER 2", "PASS Italy", "LAST 2")
    return orders(step, "WEATHER 2")


DEMO = DemoScript("standard", "Demo World in Flames turn end", _answer, {"turns": 1})
