# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 001, "Movement", "Examples": speed = Wind Speed x Bearing Number.

"At Wind Speed 2 a quarter reaching small galley would sail at speed 14'' per
round. At that same wind speed a viking long ship would be at an advantage and
make 18'' per round. At Wind Speed 3 a proud Galleon would have a hard time
beating with no more then 12'', while the fore-n-aft rigged Schooner would race
to windward making 24''."
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mailbot.games.saltntar.movement import motion
from tests.games.saltntar.conftest import new_state, play, race, ship

# Wind from the North (1) blows south: heading East is Quarter Reaching
# (two points off dead downwind), heading Northeast is Beating (three).
NORTH_WIND = 1
EAST, NORTHEAST = 3, 2


def speed_of(data: dict[str, Any], kind: str, heading: int, wind_speed: int) -> Fraction:
    state = new_state(data, race(ship("Test", "a", kind, heading=heading)), wind=(NORTH_WIND, wind_speed))
    return motion(state, state.ships[0], wind_speed).speed


def test_quarter_reaching_small_galley_at_ws2_makes_14(data: dict[str, Any]) -> None:
    """ "At Wind Speed 2 a quarter reaching small galley would sail at speed 14'' per round." """
    assert speed_of(data, "small-galley", EAST, 2) == 14


def test_viking_longship_at_same_wind_makes_18(data: dict[str, Any]) -> None:
    """ "At that same wind speed a viking long ship would be at an advantage and make 18'' per round." """
    assert speed_of(data, "viking-longship", EAST, 2) == 18


def test_galleon_beating_at_ws3_makes_12(data: dict[str, Any]) -> None:
    """ "At Wind Speed 3 a proud Galleon would have a hard time beating with no more then 12''"

    The Galleon is the Sailed Warship type ("A Galleon or Man-'o-War"): Beating BN 4 x WS 3."""
    assert speed_of(data, "sailed-warship", NORTHEAST, 3) == 12


def test_schooner_beating_at_ws3_makes_24(data: dict[str, Any]) -> None:
    """ "while the fore-n-aft rigged Schooner would race to windward making 24''": Beating BN 8 x WS 3."""
    assert speed_of(data, "schooner", NORTHEAST, 3) == 24


def test_schooner_example_on_the_grid_moves_eight_cells(data: dict[str, Any]) -> None:
    """24'' at the default 3'' a cell is 8 cells to windward in one turn."""
    state = new_state(data, race(ship("Test", "a", "schooner", heading=NORTHEAST)), wind=(NORTH_WIND, 3))
    outcome = play(state, next_wind=5)
    moved = outcome.state.ships[0]
    assert (moved.cell, moved.progress) == ((8, 8), Fraction(0))


def test_fractional_progress_is_kept(data: dict[str, Any]) -> None:
    """14'' at 3'' a cell: 4 cells and 2'' towards the fifth, which the next turn completes."""
    state = new_state(data, race(ship("Test", "a", "small-galley", heading=EAST)), wind=(NORTH_WIND, 2))
    first = play(state).state
    assert (first.ships[0].cell, first.ships[0].progress) == ((4, 0), Fraction(2))
    second = play(first).state
    assert (second.ships[0].cell, second.ships[0].progress) == ((9, 0), Fraction(1))


def test_inches_per_cell_is_an_option(data: dict[str, Any]) -> None:
    scenario = race(ship("Test", "a", "small-galley", heading=EAST))
    state = new_state(data, scenario, wind=(NORTH_WIND, 2), options={"inches_per_cell": 7})
    moved = play(state).state.ships[0]
    assert (moved.cell, moved.progress) == ((2, 0), Fraction(0))


def test_head_to_wind_goes_backwards(data: dict[str, Any]) -> None:
    """Longship "Backing & 2 (backwards)": heading into a North wind she makes 2 x WS southward."""
    state = new_state(data, race(ship("Test", "a", "viking-longship", heading=1)), wind=(NORTH_WIND, 3))
    way = motion(state, state.ships[0], 3)
    assert (way.speed, way.direction, way.bearing) == (Fraction(6), 5, "head to wind")
    assert play(state).state.ships[0].cell == (0, -2)
