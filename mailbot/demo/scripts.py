# SPDX-License-Identifier: GPL-3.0-or-later
"""What the demo's scripted players write, game by game.

Players act only on what their letters say: when a letter names an open step
they owe ("Send: ORDERS <step>" or "Send: SEAL ... for <step>"), they answer
with the letter body their game's script gives.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# (seat, step key, step kind "orders"/"sealed", steps this seat answered before, the letter's text) -> body
Answer = Callable[[str, str, str, int, str], str]


def orders(step: str, *lines: str) -> str:
    return "\n".join([f"ORDERS {step}", *lines, "END"]) + "\n"


def _duel(seat: str, step: str, kind: str, n: int, text: str) -> str:
    if kind == "sealed":
        return f"SEAL bid {1 if seat == 'north' else 0}\n"
    return orders(step, "ATTACK 2", "DEFEND 1") if seat == "north" else orders(step, "ATTACK 3")


def _wif(seat: str, step: str, kind: str, n: int, text: str) -> str:
    # The Axis pass with Italy every third impulse: the pass bonus then shows in the dice.
    if seat == "Axis" and n % 3 == 2:
        return orders(step, "WEATHER 2", "PASS Italy", "LAST 2")
    return orders(step, "WEATHER 2")


def _atlantic(seat: str, step: str, kind: str, n: int, text: str) -> str:
    return orders(step, "PASS")


def _sailing(seat: str, step: str, kind: str, n: int, text: str) -> str:
    return orders(step, "LUCK") if n == 0 else orders(step)


FLATTOP_SCRIPT = "mailbot.demo.script_flattop"


def _flattop(seat: str, step: str, kind: str, n: int, text: str) -> str:
    # Looked up by name: the Flat Top script ships with the Flat Top plugin. It reads the report.
    script = importlib.import_module(FLATTOP_SCRIPT)
    return orders(step, *script.flattop_orders(seat, step, text, n + 1))


@dataclass(frozen=True)
class DemoGame:
    plugin: str
    scenario: str
    answer: Answer
    title: str
    options: Mapping[str, Any] = field(default_factory=dict)
    stop_after: int | None = None  # stop after this many resolved steps (None: play to the end)
    mistake: str = ""  # a wrong first order from the joining player, to show the reply


DEMOS: dict[str, DemoGame] = {
    "duel": DemoGame("duel", "standard", _duel, "Demo duel", mistake="ATTACK 4"),
    "wif": DemoGame("wif-turn-end", "standard", _wif, "Demo World in Flames turn end", {"turns": 1}),
    "atlantic-storm": DemoGame("atlantic-storm", "2p", _atlantic, "Demo Atlantic Storm", stop_after=2),
    "salt-n-tar": DemoGame("salt-n-tar", "race", _sailing, "Demo Salt'n'Tar race", stop_after=2),
    "flattop": DemoGame("flattop", "coral-sea-demo", _flattop, "Demo Flat Top: Coral Sea", stop_after=3),
}
ALIASES = {"wif-turn-end": "wif", "atlantic": "atlantic-storm", "saltntar": "salt-n-tar", "ft": "flattop"}


def find_demo(name: str) -> DemoGame | None:
    key = ALIASES.get(name.lower(), name.lower())
    demo = DEMOS.get(key)
    if (
        demo is not None
        and key == "flattop"
        and importlib.util.find_spec("mailbot.demo.script_flattop") is None
    ):
        return None
    return demo
