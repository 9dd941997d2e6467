# SPDX-License-Identifier: GPL-3.0-or-later
"""Calm and Gale (seed 001, "The Luck Roll"): "By way of a cumulation of luck rolls, wind speeds
of 0 = Calm, or 4+ = Storm are possible. In case no other rules are provided for these situations
use these:" """

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mailbot.games.saltntar.state import FURLED, REEFED, State
from tests.games.saltntar.conftest import new_state, play, race, ship, texts, ways

EAST, SOUTH = 3, 5  # in a North wind: Quarter Reaching, Running


def fleet(data: dict[str, Any], speed: int) -> State:
    ships = [
        ship("Up", "a", "cutter", heading=EAST),
        ship("Furled", "b", "cutter", at=(0, 10), heading=EAST),
        ship("Reefed", "c", "cutter", at=(0, 20), heading=EAST),
    ]
    state = new_state(data, race(*ships), wind=(1, speed))
    state.ship("Furled").rig = FURLED
    state.ship("Reefed").rig = REEFED
    return state


def test_calm_no_sailing_ships_drift(data: dict[str, Any]) -> None:
    """ "Calm no sailing is possible, ships drift." At Wind Speed 0 drifting goes nowhere."""
    state = fleet(data, 0)
    outcome = play(state, {"a": ["TURN Up +1"]}, next_wind=1)
    assert ways(outcome, "Up") == [("drift", "0")]
    assert [ship.cell for ship in outcome.state.ships] == [(0, 0), (0, 10), (0, 20)]
    assert outcome.state.ship("Up").heading == 4  # she may still put her helm over
    assert "Calm: no sailing is possible" in texts(outcome, "move")[0]


def test_gale_furled_ships_drift_downwind_at_wind_speed(data: dict[str, Any]) -> None:
    """ "With sails furled or masts broken, ships drift downwind at Wind Speed." """
    outcome = play(fleet(data, 4), next_wind=1, rolls={})
    assert ways(outcome, "Furled") == [("drift", "4")]
    furled = outcome.state.ship("Furled")
    assert (furled.cell, furled.progress, furled.strain) == ((0, 9), Fraction(1), 0)


def test_gale_sails_up_run_downwind_at_ws_plus_running_bn_and_mark_strain(data: dict[str, Any]) -> None:
    """ "Ships with their sails still up may sail downwind at Wind Speed plus (!) Bearing Number for
    Running, but have to mark 1 Strain every round." Cutter: 4 + 6 = 10''."""
    outcome = play(fleet(data, 4), {"a": ["TURN Up +1"]}, next_wind=1)
    up = outcome.state.ship("Up")
    assert ways(outcome, "Up") == [("gale", "10")]
    assert (up.heading, up.cell, up.progress, up.strain) == (SOUTH, (0, -3), Fraction(1), 1)
    assert "turn +1 lapses" in texts(outcome, "move")[0]
    # Reefed sails are still up: half of 10'', and the Strain all the same.
    assert ways(outcome, "Reefed") == [("gale", "5")]
    assert outcome.state.ship("Reefed").strain == 1


def test_gale_strain_is_marked_every_round(data: dict[str, Any]) -> None:
    first = play(fleet(data, 5), next_wind=1)
    second = play(first.state, next_wind=1, rolls={"strain/T2/Up": [1], "strain/T2/Reefed": [1]})
    assert second.state.ship("Up").strain == 2


def test_a_personal_luck_roll_is_a_gust_not_a_gale(data: dict[str, Any]) -> None:
    """Issue 19, checked against the seed's words: "A gust of wind might prove fortuitous", "Wind
    Changes due to Luck Rolls usually only apply to the ship the die was rolled for", and Calm or
    Storm come "By way of a cumulation of luck rolls" (the overall wind). WS 3 and a luck 6: that
    ship sails at WS 5 x BN (and marks the six's Strain), not thrown alone into a gale."""
    state = fleet(data, 3)
    outcome = play(state, {"a": ["LUCK"]}, rolls={"luck/T1/a": [6], "strain/T1/Up": [1]}, next_wind=1)
    assert ways(outcome, "Up") == [("sail", str(5 * 7))]
    assert ways(outcome, "Reefed") == [("sail", str(Fraction(3 * 7, 2)))]  # the others sail on
    assert outcome.state.ship("Up").strain == 1  # the six's Strain only: no gale Strain
