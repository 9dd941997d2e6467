# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's Atlantic Storm players pass every convoy."""

from __future__ import annotations

from mailbot.core.demo import DemoScript, orders


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    return orders(step, "PASS")


DEMO = DemoScript("2p", "Demo Atlantic Storm", _answer)
