# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's Salt'n'Tar skippers take a luck roll on the first turn, then sail on."""

from __future__ import annotations

from mailbot.core.demo import DemoScript, orders


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    return orders(step, "LUCK") if n == 0 else orders(step)


DEMO = DemoScript("race", "Demo Salt'n'Tar race", _answer, stop_after=2)
