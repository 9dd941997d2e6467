# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 37: every design default Salt'n'Tar applies is listed in one place
(``data/defaults.toml``, marked ``default = true``), listed in every letter, and named
by the event it shaped; the letter gives a skipper his bearing card."""

from __future__ import annotations

import itertools
import re
import tomllib
from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import FURLED, REEFED, SET
from mailbot.games.saltntar.strain import strain_roll
from mailbot.games.saltntar.view import bearing_card, syntax_help
from tests.games.saltntar.conftest import CONFIG, new_state, play, race, ship, texts

NORTH, NORTHEAST, EAST, WEST, NORTHWEST = 1, 2, 3, 7, 8


def test_the_defaults_file_is_marked_and_lists_the_issues_four(data: dict[str, Any]) -> None:
    table = tomllib.loads((CONFIG / "defaults.toml").read_text("utf-8"))
    assert table["default"] is True
    keys = [entry["key"] for entry in table["defaults"]]
    assert {"bearings", "mast_at_12", "diagonal", "gust_drift", "progress"} <= set(keys)
    assert len(keys) == len(set(keys))


def test_every_letter_lists_every_default(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Kite", "a", "cutter")), wind=(WEST, 2))
    view = SaltNTarGame().view(state, (), "a")
    titles = [entry["title"] for entry in data["defaults"]["defaults"]]
    for title in titles:
        assert any(note.startswith(title) for note in view["defaults"]), title
    bearing = next(note for note in view["defaults"] if note.startswith("bearing to point of sail"))
    assert bearing.endswith(
        "points 0 off downwind Running, 1 Broad Reaching, 2 Quarter Reaching, 3 Beating, "
        "4 head to wind (Luffing/Backing, backwards)"
    )


def test_a_diagonal_move_names_its_default(data: dict[str, Any]) -> None:
    """Wind from the North, heading Northeast: Beating, cells taken diagonally."""
    state = new_state(data, race(ship("Kite", "a", "cutter", heading=NORTHEAST)), wind=(NORTH, 2))
    moved = play(state)
    assert "(design default: a diagonal cell costs the same)" in texts(moved, "move")[0]
    straight = new_state(data, race(ship("Kite", "a", "cutter", heading=EAST)), wind=(NORTH, 2))
    assert "design default" not in texts(play(straight), "move")[0]


def test_a_strain_roll_of_12_names_the_broken_mast_default(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Kite", "a", "schooner", heading=EAST)), wind=(NORTH, 2))
    state.ships[0].strain = 6
    dice = FixedDice(by_label={"strain/T1/Kite": [6], "sinking/T1/Kite": [3]})
    text = strain_roll(state, state.ships[0], dice, "strain/T1/Kite").text
    assert "(design default: Strain 12+ also breaks a mast)" in text


def test_a_gust_that_speeds_a_drift_is_named(data: dict[str, Any]) -> None:
    """Furled in WS 2 with a gust of +1 (luck 5): adrift at 3'', and the letter says why."""
    state = new_state(data, race(ship("Kite", "a", "cutter", heading=EAST)), wind=(NORTH, 2))
    state.ships[0].rig = FURLED
    outcome = play(state, {"a": ["LUCK"]}, rolls={"luck/T1/a": [5]})
    assert outcome.state.ships[0].cell == (0, -1)
    move = texts(outcome, "move")[0]
    assert "adrift downwind at Wind Speed, 3''" in move
    assert "(her Luck Roll; design default: luck moves a drift too)" in move


def test_the_bearing_card_lists_each_heading_with_its_point_of_sail_and_speed(data: dict[str, Any]) -> None:
    """The issue's example: wind from the Northwest, heading Northeast is Quarter Reaching (two
    points off dead downwind, the Southeast). A cutter at WS 2 makes 14'' on it."""
    state = new_state(data, race(ship("Kite", "a", "cutter", heading=NORTH)), wind=(NORTHWEST, 2))
    card = bearing_card(state, state.ships[0])
    rows = {row["heading"]: row for row in card["rows"]}
    assert (rows["NE"]["bearing"], rows["NE"]["speed"], rows["NE"]["turn"]) == (
        "Quarter Reaching",
        "14''",
        "TURN +1",
    )
    assert (rows["SE"]["off"], rows["SE"]["bearing"], rows["SE"]["speed"]) == (0, "Running", "12''")
    assert (rows["NW"]["bearing"], rows["NW"]["speed"]) == ("Luffing", "2'' towards SE")
    assert (
        rows["N"]["turn"] == "now"
        and rows["NW"]["turn"] == "TURN -1"
        and rows["E"]["turn"] == "TURN +2 (1 Strain)"
    )
    assert rows["S"]["turn"] == ""  # four points away: not one turn's change
    assert "TURN +1 turns one point clockwise (N to NE), -1 counter-clockwise (to NW)" in card["note"]
    view = SaltNTarGame().view(state, (), "a")
    assert [c["ship"] for c in view["cards"]] == ["Kite"]
    assert SaltNTarGame().view(state, (), None)["cards"] == []


def test_a_heading_she_would_drift_on_keeps_its_row_in_columns(data: dict[str, Any]) -> None:
    """A trial's reefed cutter with 3'' of damage read
    "W 4 head to wind\\n (Luffing/Backing, backwards)2'' towards E": the long name of the point
    of sail overran its column, the speed ran into it and the letter's wrap broke the row. Her
    type's own word, and the speed says she drifts."""
    state = new_state(data, race(ship("Amazon", "a", "cutter", heading=NORTH)), wind=(WEST, 2))
    state.ships[0].rig, state.ships[0].speed_loss = REEFED, 3
    card = bearing_card(state, state.ships[0])
    rows = {row["heading"]: row for row in card["rows"]}
    assert (rows["W"]["bearing"], rows["W"]["speed"]) == ("Luffing", "2'' adrift towards E")
    row = next(line for line in card["lines"] if line.startswith("W "))
    assert re.split(r" {2,}", row) == ["W", "4", "Luffing", "2'' adrift towards E", "TURN -2 (1 Strain)"]


@pytest.mark.parametrize("kind", ["large-galley", "viking-longship", "sailed-warship", "cutter", "schooner"])
def test_every_bearing_card_row_fits_the_letter_in_columns(data: dict[str, Any], kind: str) -> None:
    """Each row within the letter's 72 columns (indented by four), and every entry two spaces or
    more from the next, whatever the rig, the damage and the wind."""
    for rig, loss, speed, heading in itertools.product((SET, REEFED, FURLED), (0, 3, 9), (1, 3), (1, 2, 5)):
        state = new_state(data, race(ship("Ark", "a", kind, heading=heading)), wind=(WEST, speed))
        state.ships[0].rig, state.ships[0].speed_loss = rig, loss
        card = bearing_card(state, state.ships[0])
        starts = [card["lines"][0].index(word) for word in ("off", "point", "speed", "order")]
        for line in card["lines"]:
            assert len("    " + line) <= 72, line
            assert all(line[at - 2 : at] == "  " for at in starts if at < len(line)), line


def test_the_order_help_says_which_way_a_turn_goes(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Kite", "a", "cutter")), wind=(WEST, 2))
    assert any("+1 | -1" in line and "clockwise | counter-clockwise" in line for line in syntax_help(state))


def test_a_state_saved_before_defaults_were_data_still_loads(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Kite", "a", "cutter", heading=EAST)), wind=(NORTH, 2))
    state.ships[0].progress = Fraction(1)
    dumped = SaltNTarGame().dump(state)
    del dumped["rules"]["defaults"]
    del dumped["ships"][0]["progress_way"]
    loaded = SaltNTarGame().load(dumped)
    assert loaded.ships[0].progress_way == EAST  # her heading: the old single count
    assert "design default: diagonal" in loaded.rules.cite("diagonal")


def test_a_hex_grids_bearing_card_uses_its_six_points(data: dict[str, Any]) -> None:
    """6-point system (tables.toml, points6): Running, Broad Reaching, Beating, head to wind."""
    state = new_state(
        data, race(ship("Kite", "a", "cutter", heading=2), grid="hex-vertical"), wind=(NORTH, 2)
    )
    rows = {row["heading"]: row for row in bearing_card(state, state.ships[0])["rows"]}
    assert [(rows[h]["off"], rows[h]["bearing"]) for h in ("S", "SE", "NE", "N")] == [
        (0, "Running"),
        (1, "Broad Reaching"),
        (2, "Beating"),
        (3, "Luffing"),
    ]
    assert (rows["NE"]["turn"], rows["SE"]["turn"], rows["N"]["turn"], rows["SW"]["turn"]) == (
        "now",
        "TURN +1",
        "TURN -1",
        "",
    )


def test_in_a_gale_the_bearing_card_says_she_can_only_run_downwind(data: dict[str, Any]) -> None:
    state = new_state(data, race(ship("Kite", "a", "cutter", heading=EAST)), wind=(NORTH, 4))
    card = bearing_card(state, state.ships[0])
    assert card["rows"] == [] and card["lines"][0].startswith("S: 10'' (gale, Wind Speed 4: downwind")
    assert "whatever her TURN orders" in card["note"]
