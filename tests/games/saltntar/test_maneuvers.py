# SPDX-License-Identifier: GPL-3.0-or-later
"""Maneuvers (seed 001): "Optionally, at the end of each game turn ships may declare a maneuver".

A cutter heading East in a North wind at Wind Speed 2 is Quarter Reaching: 14''.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mailbot.core.game import Line
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import FURLED, REEFED, State
from tests.games.saltntar.conftest import new_state, play, race, ship, texts, ways

EAST = 3


def cutter(data: dict[str, Any]) -> State:
    return new_state(data, race(ship("Hull", "a", "cutter", heading=EAST)), wind=(1, 2))


def voyage(state: State, orders: Sequence[Sequence[str]]) -> list[tuple[str, str]]:
    """Play one turn per entry of ``orders`` (lines for seat a); the ship's way each turn."""
    made = []
    for lines in orders:
        outcome = play(state, {"a": list(lines)})
        made += ways(outcome, "Hull")
        state = outcome.state
    return made


SAIL, HALF, DRIFT, STOP = ("sail", "14"), ("sail", "7"), ("drift", "2"), ("stopped", "0")


def test_reef_halves_speed_from_the_next_turn(data: dict[str, Any]) -> None:
    """ "Reef: reduce speed by half." Declared at the end of turn 1."""
    assert voyage(cutter(data), [["REEF Hull"], [], []]) == [SAIL, HALF, HALF]


def test_unreef_takes_another_turn(data: dict[str, Any]) -> None:
    """ "It takes another turn to unreef the sails." UNREEF at the end of turn 2: still reefed in 3."""
    assert voyage(cutter(data), [["REEF"], ["UNREEF"], [], []]) == [SAIL, HALF, HALF, SAIL]


def test_furl_drifts_and_setting_sail_takes_two_turns(data: dict[str, Any]) -> None:
    """ "Furl: drop sails, the vessel is now adrift, down wind at Wind Speed. It takes two game turns
    to set sails again." """
    made = voyage(cutter(data), [["FURL"], ["SET SAIL"], [], [], []])
    assert made == [SAIL, DRIFT, DRIFT, DRIFT, SAIL]


def test_anchor_two_turns_to_stop_three_to_weigh(data: dict[str, Any]) -> None:
    """ "It takes two game turns to thus come to a full stop, and three game turns to light the anchor
    and set sail again." """
    made = voyage(cutter(data), [["FURL"], ["ANCHOR"], [], [], ["WEIGH"], [], [], [], []])
    assert made == [SAIL, DRIFT, DRIFT, DRIFT, STOP, STOP, STOP, STOP, SAIL]


def test_anchoring_under_sail_costs_an_immediate_strain_roll(data: dict[str, Any]) -> None:
    """ "Only ships with furled sails can anchor, lest they have to do an immediate Strain Roll." """
    outcome = play(cutter(data), {"a": ["ANCHOR Hull"]}, rolls={"strain/T1/Hull/anchor": [6]})
    assert texts(outcome, "strain") == [
        "Strain Roll for Hull (anchoring with her sails not furled; seed 001: only ships with furled "
        "sails can anchor, lest they have to do an immediate Strain Roll): 6 + 0 Strain = 6, spars "
        "and stays creak: mark 1 extra strain: Strain now 1."
    ]
    assert outcome.state.ship("Hull").strain == 1


def test_a_reefed_ship_anchoring_is_told_why_she_rolls_for_strain(data: dict[str, Any]) -> None:
    """A trial's reefed ship anchored and read only "Strain Roll for Amazon: 6 + 0 Strain = 6":
    reefed is not furled, and the roll says so."""
    state = cutter(data)
    state.ships[0].rig = REEFED
    outcome = play(state, {"a": ["ANCHOR"]}, rolls={"strain/T1/Hull/anchor": [2]})
    [roll] = texts(outcome, "strain")
    assert roll.startswith("Strain Roll for Hull (anchoring with her sails not furled; seed 001: ")


def test_anchoring_furled_needs_no_strain_roll(data: dict[str, Any]) -> None:
    state = cutter(data)
    state.ships[0].rig = FURLED
    outcome = play(state, {"a": ["ANCHOR"]})  # play() fails on any roll not listed
    assert texts(outcome, "strain") == []


def problems(state: State, *lines: str) -> list[str]:
    parsed = SaltNTarGame().parse(state, "a", [Line(n, text) for n, text in enumerate(lines, start=1)])
    return [problem.reason for problem in parsed.problems]


def test_maneuvers_that_do_not_fit_the_rig_are_refused(data: dict[str, Any]) -> None:
    state = cutter(data)
    assert problems(state, "UNREEF") == ["Hull is not reefed"]
    assert problems(state, "SET SAIL") == ["Hull's sails are already set"]
    assert problems(state, "WEIGH") == ["Hull is not at anchor"]
    state.ships[0].rig = FURLED
    assert problems(state, "REEF") == ["Hull has no full sails to reef (she is furled)"]
    assert problems(state, "FURL") == ["Hull's sails are already furled"]


def test_a_busy_ship_cannot_start_another_maneuver(data: dict[str, Any]) -> None:
    after = play(play(cutter(data), {"a": ["FURL"]}).state, {"a": ["SET SAIL"]}).state
    assert problems(after, "ANCHOR") == ["Hull is still setting sail, 2 turn(s) to go"]


def test_anchored_ships_cannot_turn(data: dict[str, Any]) -> None:
    state = cutter(data)
    state.ships[0].anchored = True
    assert problems(state, "TURN Hull +1", "SET SAIL") == [
        "Hull lies at anchor: WEIGH first",
        "Hull's sails are already set",
    ]
