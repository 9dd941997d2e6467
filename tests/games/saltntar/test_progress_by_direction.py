# SPDX-License-Identifier: GPL-3.0-or-later
"""Inches towards the next cell count one way only (issue 37; seed 001, "Movement").

Seed 001 gives the head-to-wind row of every ship "(backwards)", e.g. the Cutter's
"Luffing & 1 (backwards)", and "Furl: drop sails, the vessel is now adrift, down wind
at Wind Speed". On a grid the inches left over after the last whole cell are kept
along the way they were made (``data/defaults.toml``, ``progress``): moving the
opposite way (backwards, or adrift downwind) subtracts them first; moving any other
way starts afresh, so an earlier heading's inches never count toward a new heading.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mailbot.games.saltntar.state import FURLED, REEFED, State
from tests.games.saltntar.conftest import new_state, play, race, ship, texts

NORTH, NORTHEAST, EAST, SOUTH = 1, 2, 3, 5


def _set_wind(state: State, direction: int, speed: int) -> None:
    state.wind.direction, state.wind.speed = direction, speed


def test_one_inch_back_then_two_and_a_half_forward_gains_no_cell(data: dict[str, Any]) -> None:
    """The demo's case: a cutter went 1'' backwards then 2 1/2'' forwards and was given a
    whole 3'' cell. Luffing (BN 1) at WS 1 into a North wind: 1'' south; then beating
    north reefed at WS 1 (BN 5 x 1 / 2 = 2 1/2''): 2 1/2 - 1 = 1 1/2'' north, no cell."""
    state = new_state(data, race(ship("Kite", "a", "cutter", heading=NORTH)), wind=(NORTH, 1))
    first = play(state).state
    kite = first.ships[0]
    assert (kite.cell, kite.progress, kite.progress_way) == ((0, 0), Fraction(1), SOUTH)
    _set_wind(first, NORTHEAST, 1)
    first.ships[0].rig = REEFED
    second = play(first)
    kite = second.state.ships[0]
    assert (kite.cell, kite.progress, kite.progress_way) == ((0, 0), Fraction(3, 2), NORTH)
    assert "the 1'' made S come off first" in texts(second, "move")[0]


def test_four_back_then_five_north_is_not_credited_six(data: dict[str, Any]) -> None:
    """The hand-played race: 4'' backwards (a longship Backing, BN 2 at WS 2) is one cell
    south and 1'' more; 5'' north then undoes the 1'' and makes one cell and 1'' on:
    back at the start with 1'' north, not two cells north of where she backed to."""
    state = new_state(data, race(ship("Amazon", "a", "viking-longship", heading=NORTH)), wind=(NORTH, 2))
    first = play(state).state
    amazon = first.ships[0]
    assert (amazon.cell, amazon.progress, amazon.progress_way) == ((0, -1), Fraction(1), SOUTH)
    _set_wind(first, NORTHEAST, 2)
    first.ships[0].speed_loss = 3  # Beating BN 4 x WS 2 = 8'', damage -3'': 5'' north
    amazon = play(first).state.ships[0]
    assert (amazon.cell, amazon.progress, amazon.progress_way) == ((0, 0), Fraction(1), NORTH)


def test_an_earlier_headings_inches_do_not_count_toward_a_new_one(data: dict[str, Any]) -> None:
    """14'' east is 4 cells and 2'' east; a turn of 2'' north then starts from 0, no cell."""
    state = new_state(data, race(ship("Test", "a", "small-galley", heading=EAST)), wind=(NORTH, 2))
    first = play(state).state
    assert (first.ships[0].cell, first.ships[0].progress) == ((4, 0), Fraction(2))
    _set_wind(first, NORTHEAST, 1)
    first.ships[0].heading, first.ships[0].speed_loss = NORTH, 0  # Beating BN 2 x WS 1 = 2''
    second = play(first)
    moved = second.state.ships[0]
    assert (moved.cell, moved.progress, moved.progress_way) == ((4, 0), Fraction(2), NORTH)
    assert "the 2'' made E do not count N" in texts(second, "move")[0]


def test_drift_subtracts_inches_made_upwind(data: dict[str, Any]) -> None:
    """2'' made north, then furled in a North wind at WS 1: adrift 1'' south leaves 1'' north."""
    state = new_state(data, race(ship("Test", "a", "cutter", heading=NORTHEAST)), wind=(NORTH, 1))
    state.ships[0].progress, state.ships[0].progress_way = Fraction(2), NORTH
    state.ships[0].rig = FURLED
    moved = play(state).state.ships[0]
    assert (moved.cell, moved.progress, moved.progress_way) == ((0, 0), Fraction(1), NORTH)


def test_going_on_the_same_way_still_adds_up(data: dict[str, Any]) -> None:
    """14'' + 14'' east: 9 cells and 1'' (the seed's speeds are kept on a straight course)."""
    state = new_state(data, race(ship("Test", "a", "small-galley", heading=EAST)), wind=(NORTH, 2))
    second = play(play(state).state).state.ships[0]
    assert (second.cell, second.progress, second.progress_way) == ((9, 0), Fraction(1), EAST)
