# SPDX-License-Identifier: GPL-3.0-or-later
"""Salt'n'Tar's ``wind_direction``/``wind_speed`` options are the first turn's wind (seed 001,
"Initial Wind strength and direction"): turn 1's Wind Roll no longer replaces them at once; the
Wind Roll changes the wind from turn 2 on. A set first speed is one of the Initial Wind Speed
table's (1 to 3): Calm and Gale come only "by way of a cumulation of luck rolls"."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.core.dice import FixedDice
from mailbot.core.game import Setup
from mailbot.core.options import OptionProblem
from mailbot.errors import GameError
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import State
from tests.games.saltntar.conftest import load_data, play, race, ship

runner = CliRunner()
EAST, SOUTHEAST = 3, 4


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return load_data()


def race_with(data: dict[str, Any], dice: FixedDice, **options: Any) -> State:
    setup = Setup("race", ("red", "blue"), options=options, data=data)
    return SaltNTarGame().new_game(setup, dice=dice)


@pytest.mark.parametrize("speed", [1, 2, 3])
def test_the_gms_wind_is_the_first_turns(data: dict[str, Any], speed: int) -> None:
    """No die at all is rolled: a FixedDice with no faces fails any roll."""
    state = race_with(data, FixedDice(), wind_direction="E", wind_speed=speed)
    assert (state.wind.direction, state.wind.speed) == (EAST, speed)
    assert state.wind.note == (
        "set for the game: the first Wind Roll is turn 2's (design default: a set first wind is turn 1's)"
    )
    step = SaltNTarGame().step(state)
    assert step is not None and f"wind from the East (3), Wind Speed {speed}" in step.title


def test_a_set_direction_keeps_its_point_and_the_speed_is_rolled_on_the_initial_table(
    data: dict[str, Any],
) -> None:
    dice = FixedDice(by_label={"wind/initial/speed": [6]})  # "6 & Wind Speed = 3"; no "wind/T1"
    state = race_with(data, dice, wind_direction="E")
    assert (state.wind.direction, state.wind.speed) == (EAST, 3)
    assert dice.leftover() == {}


def test_a_set_speed_keeps_its_value_and_the_direction_is_rolled(data: dict[str, Any]) -> None:
    dice = FixedDice(by_label={"wind/initial/direction": [5]})  # no "wind/T1" either
    state = race_with(data, dice, wind_speed=1)
    assert (state.wind.direction, state.wind.speed) == (5, 1)


def test_a_wind_left_to_the_dice_still_takes_turn_1s_wind_roll(data: dict[str, Any]) -> None:
    dice = FixedDice(by_label={"wind/initial/direction": [3], "wind/initial/speed": [1], "wind/T1": [1]})
    state = race_with(data, dice)
    assert (state.wind.direction, state.wind.speed) == (SOUTHEAST, 1)  # clockwise from the East
    assert "Wind Roll 1" in state.wind.note


def test_the_wind_roll_changes_the_set_wind_from_turn_2(data: dict[str, Any]) -> None:
    state = race_with(data, FixedDice(), wind_direction="E", wind_speed=3)
    second = play(state, next_wind=2)  # "2 & Wind Speed = 1"
    assert (second.state.turn, second.state.wind.direction, second.state.wind.speed) == (2, EAST, 1)
    assert second.state.wind.note == "Wind Roll 2: Wind Speed = 1"


def test_a_scenario_that_sets_the_wind_is_played_with_it_on_turn_1(data: dict[str, Any]) -> None:
    scenario = race(ship("Test", "a", "cutter"), wind={"direction": 7, "speed": 3})
    setup = Setup("t", ("a",), data={**data, "scenarios": {"t": scenario}})
    state = SaltNTarGame().new_game(setup, dice=FixedDice())
    assert (state.wind.direction, state.wind.speed) == (7, 3)


@pytest.mark.parametrize("speed", [0, 4, -1, True, "2"])
def test_a_first_speed_off_the_initial_table_is_refused(data: dict[str, Any], speed: object) -> None:
    with pytest.raises(GameError, match=r"the first wind speed is a whole number 1\.\.3"):
        race_with(data, FixedDice(), wind_direction="E", wind_speed=speed)
    scenario = race(ship("Test", "a", "cutter"), wind={"direction": 1, "speed": speed})
    with pytest.raises(GameError, match=r"the first wind speed is a whole number 1\.\.3"):
        SaltNTarGame().new_game(
            Setup("t", ("a",), data={**data, "scenarios": {"t": scenario}}), dice=FixedDice()
        )


def test_the_option_says_and_keeps_its_bounds() -> None:
    option = next(o for o in SaltNTarGame.options if o.name == "wind_speed")
    assert (option.low, option.high) == (1, 3)
    assert "1..3" in option.describe() and "first wind speed" in option.describe()
    for text in ("0", "4"):
        refused = option.read(text)
        assert isinstance(refused, OptionProblem) and "wind_speed is a whole number 1..3" in refused.reason
    assert option.read("3") == 3


@pytest.mark.usefixtures("cli_store")
def test_game_create_refuses_a_wind_speed_of_0_in_one_line() -> None:
    args = ["game", "create", "--game", "salt-n-tar", "--title", "T", "--deadline", "4m"]
    result = runner.invoke(app, [*args, "-o", "wind_direction=E", "-o", "wind_speed=0"])
    assert result.exit_code == 1 and "wind_speed is a whole number 1..3, not '0'" in result.output
