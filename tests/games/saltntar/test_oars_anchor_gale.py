# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 19: oars in a calm (a data column), the anchor-weighing report, the gust that is not a gale."""

from __future__ import annotations

from typing import Any

from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.maneuvers import WEIGH
from mailbot.games.saltntar.state import FURLED, State
from tests.games.saltntar.conftest import new_state, play, race, ship, texts, ways


def calm(data: dict[str, Any]) -> State:
    ships = [ship("Oars", "a", "small-galley", heading=3), ship("Sails", "b", "cutter", at=(0, 5), heading=3)]
    return new_state(data, race(*ships), wind=(1, 0))


def test_the_oars_column_is_a_marked_default(data: dict[str, Any]) -> None:
    oars = {key: entry.get("oars", 0) for key, entry in data["ships"].items()}
    assert oars == {
        "large-galley": 5,
        "small-galley": 4,
        "viking-longship": 6,
        "large-merchant": 0,
        "small-merchant": 0,
        "sailed-warship": 0,
        "cutter": 0,
        "schooner": 0,
    }
    view = SaltNTarGame().view(calm(data), (), "a")
    assert any(
        note.startswith("oars in a Calm (the seed gives no rowing speed)") for note in view["defaults"]
    )


def test_in_a_calm_oared_ships_row_and_the_others_lie_still(data: dict[str, Any]) -> None:
    """Seed 001, Calm: "no sailing is possible, ships drift. Oared movement ... may be possible." """
    outcome = play(calm(data), {"a": ["TURN Oars +1"]}, next_wind=1)
    assert ways(outcome, "Oars") == [("row", "4")]
    assert outcome.state.ship("Oars").cell == (1, -1)  # turned to SE, one cell and 1'' over
    assert ways(outcome, "Sails") == [("drift", "0")]
    assert "rowing 4''" in texts(outcome, "move")[0]


def test_a_dismasted_ship_that_weighs_anchor_is_not_reported_with_sails_set(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Hulk", "a", "cutter")), wind=(1, 2))
    hulk = state.ships[0]
    hulk.anchored, hulk.masts, hulk.rig = True, 0, FURLED
    hulk.maneuver, hulk.maneuver_left = WEIGH, 1
    outcome = play(state)
    hulk = outcome.state.ship("Hulk")
    assert not hulk.anchored and hulk.rig == FURLED
    assert "Hulk has her anchor up; dismasted, she has no sail to set and drifts." in texts(
        outcome, "maneuver"
    )
    assert "sails set" not in " ".join(texts(outcome))
    view = SaltNTarGame().view(outcome.state, (), "a")
    assert view["ships"][0]["rig"] == "none (dismasted)"


def test_shared_sixes_can_still_make_a_gale_for_everyone(data: dict[str, Any]) -> None:
    """ "By way of a cumulation of luck rolls, wind speeds of ... 4+ = Storm are possible": two sixes at
    WS 3 raise the overall wind to 4, a gale for every ship."""
    ships = [ship("A", "a", "cutter", heading=3), ship("B", "b", "cutter", at=(0, 9), heading=3)]
    state = new_state(data, race(*ships), wind=(1, 3))
    rolls = {"luck/T1/a": [6], "luck/T1/b": [6], "strain/T1/A": [1], "strain/T1/B": [1]}
    outcome = play(state, {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert outcome.state.wind.speed == 4  # the next Wind Roll (1) turns the wind and keeps its speed
    assert [way[0] for way in ways(outcome, "A") + ways(outcome, "B")] == ["gale", "gale"]
