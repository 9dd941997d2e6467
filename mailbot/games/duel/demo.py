# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's duellists: north splits 2/1 and bids 1, south attacks with all three and bids 0."""

from __future__ import annotations

from mailbot.core.demo import DemoScript, orders


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    if kind == "sealed":
        return f"SEAL bid {1 if seat == 'north' else 0}\n"
    return orders(step, "ATTACK 2", "DEFEND 1") if seat == "north" else orders(step, "ATTACK 3")


DEMO = DemoScript("standard", "Demo duel", _answer, mistake="ATTACK 4")
