# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's Salt'n'Tar skippers race two cutters in naval-combat turns, to the finish.

Each turn takes three letters: the opening step (a luck roll on the first
turn, then holding course), the missile step (each fires at the other; the
moderator records it) and the closing step (the result their own combat
system gave, recorded). The wind starts from the West at Wind Speed 2, so the
cutters reach north towards the line; the race ends at the line or at the
scenario's turn limit.
"""

from __future__ import annotations

from mailbot.core.demo import DemoScript, orders

SHIPS = {"red": ("Swallow", "Amazon"), "blue": ("Amazon", "Swallow")}


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    mine, other = SHIPS.get(seat, ("", ""))
    if step.endswith(".fire") and mine:
        return orders(step, f"FIRE {mine} {other} with a volley of arrows")
    if step.endswith(".close") and mine:
        return orders(step, f"RESULT {other} out of range: no hits")
    return orders(step, "LUCK") if n == 0 else orders(step)


DEMO = DemoScript(
    "race",
    "Demo Salt'n'Tar race",
    _answer,
    options={"combat": True, "wind_direction": 7, "wind_speed": 2},
)
