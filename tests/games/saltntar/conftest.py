# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers for the Salt'n'Tar conformance tests (seed 001)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Line, Outcome, Setup
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.orders import Order
from mailbot.games.saltntar.state import State

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "mailbot" / "games" / "saltntar" / "data"


def load_data() -> dict[str, Any]:
    """What the edge hands in as ``Setup.data``: the config folder as a mapping."""
    scenarios = {
        path.stem: tomllib.loads(path.read_text("utf-8")) for path in (CONFIG / "scenarios").glob("*.toml")
    }
    return {
        "ships": tomllib.loads((CONFIG / "ships.toml").read_text("utf-8")),
        "tables": tomllib.loads((CONFIG / "tables.toml").read_text("utf-8")),
        "defaults": tomllib.loads((CONFIG / "defaults.toml").read_text("utf-8")),
        "scenarios": scenarios,
    }


@pytest.fixture(scope="session")
def data() -> dict[str, Any]:
    return load_data()


@pytest.fixture
def game() -> SaltNTarGame:
    return SaltNTarGame()


def ship(
    name: str, seat: str, kind: str, at: tuple[int, int] = (0, 0), heading: int | str = 1, **more: Any
) -> dict[str, Any]:
    return {"name": name, "seat": seat, "type": kind, "at": list(at), "heading": heading, **more}


def race(*ships: dict[str, Any], grid: str = "square", **more: Any) -> dict[str, Any]:
    """A race scenario with a far-away finish line unless one is given."""
    scenario = {"title": "test", "kind": "race", "grid": grid, "finish": {"cells": [[1000, 1000]]}}
    return scenario | {"ships": list(ships)} | more


def new_state(
    data: Mapping[str, Any],
    scenario: Mapping[str, Any],
    *,
    wind: tuple[int, int] = (1, 2),
    options: Mapping[str, Any] | None = None,
) -> State:
    """A new game with the wind fixed at (direction, speed) for turn 1."""
    seats = tuple(dict.fromkeys(entry["seat"] for entry in scenario["ships"]))
    # A game starts at Wind Speed 1 to 3; Calm (0) and Gale (4+) come in play, so set them after.
    first = min(max(wind[1], 1), 3)
    setup = Setup(
        "test",
        seats,
        options={"wind_direction": wind[0], "wind_speed": first, **(options or {})},
        data={**data, "scenarios": {"test": scenario}},
    )
    state = SaltNTarGame().new_game(setup, dice=FixedDice(by_label={"wind/T1": [1]}))
    state.wind.direction, state.wind.speed = wind
    return state


def parse_all(state: State, orders: Mapping[str, Sequence[str]]) -> dict[str, tuple[Order, ...]]:
    """Parse each seat's lines; any problem fails the test."""
    parsed = {}
    for seat, lines in orders.items():
        result = SaltNTarGame().parse(state, seat, [Line(n, text) for n, text in enumerate(lines, start=1)])
        assert result.problems == (), result.problems
        parsed[seat] = result.orders
    return parsed


def play(
    state: State,
    orders: Mapping[str, Sequence[str]] | None = None,
    *,
    rolls: Mapping[str, Sequence[int]] | None = None,
    next_wind: int | None = 3,
) -> Outcome[State]:
    """Resolve one step. Every roll must be listed by label (``rolls``), except the
    next turn's Wind Roll, which is ``next_wind`` (3: Wind Speed 2; None: no Wind Roll,
    for the first two steps of a naval-combat turn). Leftover faces fail."""
    by_label = {
        **({f"wind/T{state.turn + 1}": [next_wind]} if next_wind is not None else {}),
        **(rolls or {}),
    }
    dice = FixedDice(by_label=by_label)
    outcome = SaltNTarGame().resolve(state, parse_all(state, orders or {}), dice=dice)
    left = dice.leftover()
    if outcome.finished:
        left.pop(f"wind/T{state.turn + 1}", None)
    assert left == {}, f"unused faces: {left}"
    return outcome


def texts(outcome: Outcome[State], kind: str | None = None) -> list[str]:
    return [event.text for event in outcome.events if kind is None or event.kind == kind]


def ways(outcome: Outcome[State], name: str) -> list[tuple[str, str]]:
    """(mode, speed in inches) of each (half) move the ship made this turn."""
    for event in outcome.events:
        if event.kind == "move" and event.data["ship"] == name:
            return [(way["mode"], way["speed"]) for way in event.data["ways"]]
    raise AssertionError(f"{name} did not move")
