# SPDX-License-Identifier: GPL-3.0-or-later
"""Scenario data: the shipped scenarios, and setup mistakes reported as GameError (not player input)."""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Setup
from mailbot.errors import GameError
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import CHASE, RACE
from tests.games.saltntar.conftest import race, ship


def build(
    data: dict[str, Any], scenario: dict[str, Any], seats: tuple[str, ...] = ("a",), **options: Any
) -> Any:
    setup = Setup(
        "s",
        seats,
        options={"wind_direction": 1, "wind_speed": 2, **options},
        data={**data, "scenarios": {"s": scenario}},
    )
    return SaltNTarGame().new_game(setup, dice=FixedDice(by_label={"wind/T1": [3]}))


def test_shipped_scenarios(data: dict[str, Any]) -> None:
    game = SaltNTarGame()
    race_state = game.new_game(Setup("race", ("red", "blue"), data=data), dice=FixedDice([3, 2, 4]))
    assert (race_state.course.kind, race_state.course.grid, race_state.course.inches_per_cell) == (
        RACE,
        "square",
        3,
    )
    assert len(race_state.course.finish) == 13
    chase = game.new_game(Setup("Hex-Chase", ("viking", "merchant"), data=data), dice=FixedDice([3, 2, 4]))
    assert (chase.course.kind, chase.course.grid, chase.course.escape_after) == (CHASE, "hex-vertical", 10)
    assert [ship.role for ship in chase.ships] == ["quarry", "chaser"]


def test_options_override_the_scenario(data: dict[str, Any]) -> None:
    state = build(
        data,
        race(ship("A", "a", "cutter", heading="NE")),
        inches_per_cell=5,
        combat=True,
        wind_direction="SW",
    )
    assert (state.course.inches_per_cell, state.course.combat, state.wind.direction) == (5, True, 6)
    assert state.ships[0].heading == 2


@pytest.mark.parametrize(
    ("scenario", "seats", "options", "message"),
    [
        (race(ship("A", "a", "cutter")) | {"finish": {}}, ("a",), {}, "a race needs a finish line"),
        (race(ship("A", "a", "galleon")), ("a",), {}, "unknown ship type 'galleon'"),
        (race(ship("Two words", "a", "cutter")), ("a",), {}, "must be one word"),
        (race(ship("A", "a", "cutter"), ship("a", "b", "cutter")), ("a", "b"), {}, "distinct names"),
        (race(ship("A", "a", "cutter")), ("a", "b"), {}, "has seats"),
        (race(ship("A", "a", "cutter"), kind="chase", chase={"escape_after": 5}), ("a",), {}, "role"),
        (race(ship("A", "a", "cutter", role="quarry"), kind="chase"), ("a",), {}, "escape_after"),
        (race(ship("A", "a", "cutter")), ("a",), {"inches_per_cell": 0}, "inches_per_cell"),
        (race(ship("A", "a", "cutter")), ("a",), {"combat": "yes"}, "combat"),
        (
            race(ship("A", "a", "cutter"), grid="hex-vertical"),
            ("a",),
            {"wind_direction": 7},
            "wind direction",
        ),
        (
            race(ship("A", "a", "cutter"), finish={"from": [0, 0], "to": [1, 3]}),
            ("a",),
            {},
            "no straight line",
        ),
    ],
)
def test_setup_mistakes(
    data: dict[str, Any],
    scenario: dict[str, Any],
    seats: tuple[str, ...],
    options: dict[str, Any],
    message: str,
) -> None:
    with pytest.raises(GameError, match=message):
        build(data, scenario, seats, **options)


def test_unknown_scenario(data: dict[str, Any]) -> None:
    with pytest.raises(GameError, match="no Salt'n'Tar scenario 'armada'"):
        SaltNTarGame().seats("armada", data)


def test_bad_tables_are_refused(data: dict[str, Any]) -> None:
    broken = {**data, "tables": {**data["tables"], "strain": {"rows": [{"roll": "6+", "effect": "explode"}]}}}
    with pytest.raises(GameError, match="unknown effect 'explode'"):
        build(broken, race(ship("A", "a", "cutter")))
    ships = {
        **data["ships"],
        "raft": {"name": "Raft", "masts": 1, "bearings": [{"bearing": "Running", "bn": 2}]},
    }
    with pytest.raises(GameError, match="each bearing once"):
        build({**data, "ships": ships}, race(ship("A", "a", "cutter")))
