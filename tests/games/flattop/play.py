# SPDX-License-Identifier: GPL-3.0-or-later
"""Playing Flat Top turns through the plugin contract, for the game-level tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Line, Outcome, Parsed, Setup
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.orders.types import FtOrder
from mailbot.games.flattop.state import FlatTopState

from .conftest import load_scenario_data, load_tables

GAME = FlatTopGame()
SEED = b"flat top test seed".ljust(32, b".")


def game_data() -> dict[str, Any]:
    """``Setup.data`` as the edge builds it: every table, both shipped scenarios."""
    scenarios = {name: load_scenario_data(name) for name in ("test-small", "coral-sea-demo")}
    return {"tables": load_tables(), "scenarios": scenarios}


def new(data: dict[str, Any], scenario: str = "test-small", clear: bool = True) -> FlatTopState:
    state = GAME.new_game(
        Setup(scenario, ("allied", "japanese"), data=data), dice=DiceStream(SEED, "", "setup")
    )
    # Clear skies make the scripted paths independent of the cloud dice.
    return replace(state, weather=replace(state.weather, clouds=())) if clear else state


def lines(*texts: str) -> list[Line]:
    return [Line(i + 1, t) for i, t in enumerate(texts)]


def parse(state: FlatTopState, seat: str, *texts: str) -> Parsed[FtOrder]:
    return GAME.parse(state, seat, lines(*texts))


def play(state: FlatTopState, orders: dict[str, list[str]]) -> Outcome[FlatTopState]:
    """Resolve one turn; every order line must be accepted."""
    step = GAME.step(state)
    assert step is not None
    parsed = {seat: parse(state, seat, *texts) for seat, texts in orders.items()}
    for seat, p in parsed.items():
        assert p.problems == (), (seat, p.problems)
    digest = order_digest({seat: list(p.normalised) for seat, p in parsed.items()})
    dice = DiceStream(SEED, digest, step.key)
    return GAME.resolve(state, {seat: p.orders for seat, p in parsed.items()}, dice=dice)
