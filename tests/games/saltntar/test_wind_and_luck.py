# SPDX-License-Identifier: GPL-3.0-or-later
"""The Wind Roll, the initial wind and the Luck Roll (seed 001, "Playing the Game")."""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Setup
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.wind import wind_roll
from tests.games.saltntar.conftest import new_state, play, race, ship, texts

# A ship heading East in a North wind is Quarter Reaching: a cutter's BN is 7.
EAST = 3


@pytest.mark.parametrize(
    ("face", "direction", "speed"),
    [
        (1, 4, 2),  # "1 & Direction change clockwise": East -> Southeast, speed kept
        (2, 3, 1),  # "2 & Wind Speed = 1"
        (3, 3, 2),  # "3 & Wind Speed = 2"
        (4, 3, 2),  # "4 & Wind Speed = 2"
        (5, 3, 3),  # "5 & Wind Speed = 3"
        (6, 2, 2),  # "6 & Direction change counter clockwise": East -> Northeast
    ],
)
def test_wind_roll(data: dict[str, Any], face: int, direction: int, speed: int) -> None:
    state = new_state(data, race(ship("Test", "a", "cutter")), wind=(3, 2))
    event = wind_roll(state, FixedDice(by_label={"wind/T1": [face]}))
    assert (state.wind.direction, state.wind.speed) == (direction, speed)
    assert event.kind == "wind"


def test_wind_direction_wraps_round_the_hex_compass(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Test", "a", "cutter"), grid="hex-horizontal"), wind=(6, 2))
    wind_roll(state, FixedDice(by_label={"wind/T1": [1]}))
    assert state.wind.direction == 1  # West -> Northwest


def test_wind_roll_keeps_a_shared_luck_speed_until_a_speed_face(data: dict[str, Any]) -> None:
    """The overall Wind Speed set by shared luck lasts through direction changes (faces 1 and 6)."""
    state = new_state(data, race(ship("A", "a", "cutter"), ship("B", "b", "cutter")), wind=(1, 3))
    rolls = {"luck/T1/a": [6], "luck/T1/b": [6], "strain/T1/A": [1], "strain/T1/B": [1]}
    after = play(state, {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert (after.state.wind.direction, after.state.wind.speed) == (2, 4)


@pytest.mark.parametrize(("grid", "sides"), [("square", 8), ("hex-vertical", 6)])
def test_initial_wind_is_diced(data: dict[str, Any], grid: str, sides: int) -> None:
    """ "the initial Wind Direction may be diced for with a d6 or d8"; speed from the Initial table."""
    scenario = race(ship("Test", "a", "cutter"), grid=grid)
    dice = FixedDice(by_label={"wind/initial/direction": [5], "wind/initial/speed": [4], "wind/T1": [1]})
    setup = Setup("test", ("a",), data={**data, "scenarios": {"test": scenario}})
    state = SaltNTarGame().new_game(setup, dice=dice)
    direction_roll = next(roll for roll in dice.log if roll.label == "wind/initial/direction")
    assert direction_roll.sides == sides
    # "4 & Wind Speed = 2", then turn 1's Wind Roll 1 turns the wind clockwise.
    assert (state.wind.direction, state.wind.speed) == (6, 2)
    assert "initial speed rolled 1d6: 4" in state.wind.note


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_initial_wind_speed_table(data: dict[str, Any], face: int) -> None:
    scenario = race(ship("Test", "a", "cutter"), wind={"direction": 1})
    dice = FixedDice(by_label={"wind/initial/speed": [face], "wind/T1": [1]})
    state = SaltNTarGame().new_game(
        Setup("t", ("a",), data={**data, "scenarios": {"t": scenario}}), dice=dice
    )
    assert state.wind.speed == {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}[face]


def three_sides(data: dict[str, Any]) -> Any:
    ships = [ship(name, seat, "cutter", at=(0, 5 * i), heading=EAST) for i, (name, seat) in enumerate(
        [("Ann", "a"), ("Bea", "b"), ("Cid", "c")])]  # fmt: skip
    return new_state(data, race(*ships), wind=(1, 2))


def speeds(outcome: Any) -> dict[str, str]:
    """Each ship's move text starts with her bearing and WS x BN."""
    return {
        e.data["ship"]: e.text.split(": ", 1)[1].split(";")[0] for e in outcome.events if e.kind == "move"
    }


@pytest.mark.parametrize(
    ("face", "ws", "strain"),
    [(1, 1, 0), (2, 2, 0), (3, 2, 0), (4, 2, 0), (5, 3, 0), (6, 4, 1)],
)
def test_single_luck_roll_is_personal(data: dict[str, Any], face: int, ws: int, strain: int) -> None:
    """ "Wind Changes due to Luck Rolls usually only apply to the ship the die was rolled for." """
    strain_roll = {"strain/T1/Ann": [1]} if face == 6 else {}  # 1 + 1 Strain: no effect
    outcome = play(three_sides(data), {"a": ["LUCK Ann"]}, rolls={"luck/T1/a": [face], **strain_roll})
    got = speeds(outcome)
    # A personal WS of 4 is a fortuitous gust, not a gale: gales are the overall wind (issue 19).
    expected_ann = f"Quarter Reaching: WS {ws} x BN 7"
    assert got["Ann"].startswith(expected_ann)
    assert got["Bea"].startswith("Quarter Reaching: WS 2 x BN 7")
    assert outcome.state.ship("Ann").strain == strain  # no gale, so no gale Strain on top
    assert outcome.state.wind.speed == 2


def test_two_ones_reduce_the_wind_for_everyone(data: dict[str, Any]) -> None:
    """ "Two or more rolls of a 1: ``Sails luff ...'' cause the wind to reduce by 1 for everyone."

    The ones are part of the shared change: the sides that rolled them end at WS - 1 like everybody."""
    rolls = {"luck/T1/a": [1], "luck/T1/b": [1]}
    outcome = play(three_sides(data), {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert outcome.state.wind.speed == 1
    assert {name: text[:24] for name, text in speeds(outcome).items()} == {
        "Ann": "Quarter Reaching: WS 1 x",
        "Bea": "Quarter Reaching: WS 1 x",
        "Cid": "Quarter Reaching: WS 1 x",
    }
    assert any("for everyone" in text for text in texts(outcome, "luck-shared"))


def test_two_sixes_raise_the_wind_and_the_sixes_keep_their_advantage(data: dict[str, Any]) -> None:
    """ "Two or more rolls of a 6: ``Wind Speed +2 ...'' increases the overall windspeed by 1 for
    everyone (thus, those who rolled a six still have the advantage of Wind Speed +1 compared to
    those who didn't roll a 6)." At WS 1: everyone 2, the sixes 3, and both sixes mark Strain."""
    state = three_sides(data)
    state.wind.speed = 1
    rolls = {"luck/T1/a": [6], "luck/T1/b": [6], "strain/T1/Ann": [1], "strain/T1/Bea": [1]}
    outcome = play(state, {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert outcome.state.wind.speed == 2
    got = {name: text[:24] for name, text in speeds(outcome).items()}
    assert got == {
        "Ann": "Quarter Reaching: WS 3 x",
        "Bea": "Quarter Reaching: WS 3 x",
        "Cid": "Quarter Reaching: WS 2 x",
    }
    assert (outcome.state.ship("Ann").strain, outcome.state.ship("Bea").strain) == (1, 1)
    assert outcome.state.ship("Cid").strain == 0


def test_a_six_and_a_one_share_nothing(data: dict[str, Any]) -> None:
    rolls = {"luck/T1/a": [6], "luck/T1/b": [1], "strain/T1/Ann": [1]}
    outcome = play(three_sides(data), {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert outcome.state.wind.speed == 2
    assert texts(outcome, "luck-shared") == []


def test_shared_ones_and_sixes_both_apply(data: dict[str, Any]) -> None:
    """Four sides: two ones and two sixes. Overall -1 +1 = unchanged; the sixes keep +1 of theirs."""
    ships = [ship(n, s, "cutter", at=(0, 5 * i), heading=EAST) for i, (n, s) in enumerate(
        [("Ann", "a"), ("Bea", "b"), ("Cid", "c"), ("Dan", "d")])]  # fmt: skip
    state = new_state(data, race(*ships), wind=(1, 2))
    rolls = {"luck/T1/a": [1], "luck/T1/b": [1], "luck/T1/c": [6], "luck/T1/d": [6]}
    rolls |= {"strain/T1/Cid": [1], "strain/T1/Dan": [1]}
    outcome = play(state, {seat: ["LUCK"] for seat in "abcd"}, rolls=rolls, next_wind=1)
    got = {name: text[:24] for name, text in speeds(outcome).items()}
    assert outcome.state.wind.speed == 2
    assert got["Ann"] == got["Bea"] == "Quarter Reaching: WS 2 x"
    assert got["Cid"] == got["Dan"] == "Quarter Reaching: WS 3 x"


def test_side_luck_applies_to_every_ship_of_the_side(data: dict[str, Any]) -> None:
    ships = [ship("Ann", "a", "cutter", heading=EAST), ship("Amy", "a", "cutter", at=(0, 4), heading=EAST)]
    outcome = play(new_state(data, race(*ships), wind=(1, 2)), {"a": ["LUCK"]}, rolls={"luck/T1/a": [5]})
    assert all(text.startswith("Quarter Reaching: WS 3") for text in speeds(outcome).values())


def test_wind_never_drops_below_calm(data: dict[str, Any]) -> None:
    state = three_sides(data)
    state.wind.speed = 0
    rolls = {"luck/T1/a": [1], "luck/T1/b": [1]}
    outcome = play(state, {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert outcome.state.wind.speed == 0
