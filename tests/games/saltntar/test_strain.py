# SPDX-License-Identifier: GPL-3.0-or-later
"""The Strain Roll (seed 001): "roll a d6 every turn and add their current Strain to the roll"."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.games.saltntar.movement import DRIFT, SAIL, motion
from mailbot.games.saltntar.state import State
from mailbot.games.saltntar.strain import strain_roll
from tests.games.saltntar.conftest import new_state, play, race, ship, texts

EAST = 3  # Quarter Reaching in a North wind


def one_ship(data: dict[str, Any], kind: str = "cutter", strain: int = 0) -> State:
    state = new_state(data, race(ship("Hull", "a", kind, heading=EAST)), wind=(1, 2))
    state.ships[0].strain = strain
    return state


def roll(state: State, face: int, **more: list[int]) -> str:
    dice = FixedDice(by_label={"strain/T1/Hull": [face], **more})
    return strain_roll(state, state.ships[0], dice, "strain/T1/Hull").text


def test_5_or_less_no_effect_not_yet(data: dict[str, Any]) -> None:
    """ "5- & no effect ... not yet!": and the Strain stays marked."""
    state = one_ship(data, strain=1)
    assert "= 5, no effect ... not yet!" in roll(state, 4)
    hull = state.ships[0]
    assert (hull.strain, hull.speed_loss, hull.crew, hull.masts) == (1, 0, 100, 1)


def test_6_spars_and_stays_creak(data: dict[str, Any]) -> None:
    """ "6 & spars and stays creak: mark 1 extra strain" """
    state = one_ship(data, strain=1)
    roll(state, 5)
    assert state.ships[0].strain == 2


def test_7_ship_makes_water(data: dict[str, Any]) -> None:
    """ "7 & ship makes water: reduce all speed by 3'' ongoing": Quarter Reaching 14'' becomes 11''."""
    state = one_ship(data, strain=1)
    roll(state, 6)
    assert state.ships[0].speed_loss == 3
    assert motion(state, state.ships[0], 2).speed == 11


def test_8_stays_snap(data: dict[str, Any]) -> None:
    """ "8 & stays snap, mark 1 extra strain" """
    state = one_ship(data, strain=2)
    roll(state, 6)
    assert state.ships[0].strain == 3


def test_9_decks_awash(data: dict[str, Any]) -> None:
    """ "9 & deck's awash, reduce active crew by 10%" """
    state = one_ship(data, strain=3)
    roll(state, 6)
    assert state.ships[0].crew == 90


def test_10_sails_tear(data: dict[str, Any]) -> None:
    """ "10 & sails tear, reduce all speed by 3'' ongoing" """
    state = one_ship(data, strain=4)
    roll(state, 6)
    assert state.ships[0].speed_loss == 3


def test_11_a_mast_breaks_on_a_one_master_she_drifts(data: dict[str, Any]) -> None:
    """ "11 & a mast breaks, reduce all speed by 3'' or drift": a cutter has one mast."""
    state = one_ship(data, "cutter", strain=5)
    roll(state, 6)
    hull = state.ships[0]
    assert hull.masts == 0
    way = motion(state, hull, 2)
    assert (way.mode, way.speed, way.direction) == (DRIFT, Fraction(2), 5)  # downwind at Wind Speed


def test_11_a_mast_breaks_on_a_schooner_she_sails_slower(data: dict[str, Any]) -> None:
    state = one_ship(data, "schooner", strain=5)
    roll(state, 6)
    hull = state.ships[0]
    assert (hull.masts, hull.speed_loss) == (1, 3)
    assert motion(state, hull, 2).speed == 2 * 11 - 3


def test_12_one_master_sinks_and_can_only_drift(data: dict[str, Any]) -> None:
    """ "12+ & it's over, ship's sinking in 1d6 turns" ... "Naturally one masted ships without a mast
    can only drift." """
    state = one_ship(data, "cutter", strain=6)
    text = roll(state, 6, **{"sinking/T1/Hull": [3]})
    hull = state.ships[0]
    assert "sinking in 3 turn(s)" in text
    assert (hull.sinks_after, hull.masts) == (3, 0)
    assert motion(state, hull, 2).mode == DRIFT


def test_12_more_masts_may_still_sail_downwind_at_reduced_speed(data: dict[str, Any]) -> None:
    """ "A ship with more masts may still sail downwind at reduced speed." A sailed warship (3 masts)
    loses one, 3'' and may only run: WS 2 x Running BN 10 - 3 = 17''."""
    state = one_ship(data, "sailed-warship", strain=6)
    roll(state, 6, **{"sinking/T1/Hull": [2]})
    hull = state.ships[0]
    assert (hull.masts, hull.speed_loss, hull.sinks_after) == (2, 3, 2)
    hull.strain = 0  # only to keep this turn to the move: no second Strain Roll
    outcome = play(state)
    hull = outcome.state.ships[0]
    assert hull.heading == 5  # swung downwind
    assert any("Running: WS 2 x BN 10 = 20'', damage -3''" in text for text in texts(outcome, "move"))


def test_strain_over_12_is_still_12_plus(data: dict[str, Any]) -> None:
    state = one_ship(data, "cutter", strain=10)
    assert "= 16, it's over" in roll(state, 6, **{"sinking/T1/Hull": [1]})


def test_a_sinking_ship_goes_down_after_her_turns(data: dict[str, Any]) -> None:
    """Sinking "in 1d6 turns", counting the turn of the roll: a 2 means she sinks at the end of turn 2."""
    state = one_ship(data, "cutter", strain=6)
    first = play(state, rolls={"strain/T1/Hull": [6], "sinking/T1/Hull": [2]})
    assert not first.state.ships[0].sunk
    second = play(first.state, rolls={"strain/T2/Hull": [1]})
    assert second.state.ships[0].sunk
    assert texts(second, "sunk") == ["Hull (a) goes down."]
    assert second.finished  # the only ship of the race is gone
    assert "nobody wins" in second.result


def test_a_ship_with_marked_strain_must_roll_every_turn(data: dict[str, Any]) -> None:
    state = one_ship(data, strain=1)
    first = play(state, rolls={"strain/T1/Hull": [2]})
    second = play(first.state, rolls={"strain/T2/Hull": [3]})
    assert [e.data["total"] for e in second.events if e.kind == "strain"] == [4]


@pytest.mark.parametrize(("loss", "mode"), [(9, SAIL), (10, DRIFT), (15, DRIFT)])
def test_speed_at_zero_or_less_drifts(data: dict[str, Any], loss: int, mode: str) -> None:
    """ "Whenever the resultant speed reaches 0 or less, the ship can only drift downwind at Wind Speed."
    Cutter beating at WS 2: 10''."""
    state = new_state(data, race(ship("Hull", "a", "cutter", heading=2)), wind=(1, 2))
    state.ships[0].speed_loss = loss
    way = motion(state, state.ships[0], 2)
    assert way.mode == mode
    assert way.speed == (10 - loss if mode == SAIL else 2)
