# SPDX-License-Identifier: GPL-3.0-or-later
"""Grids, compass points and relative bearings (seed 001, "Initial Wind strength and direction").

"use 8 points of wind directions: 1 = North, 2 = Northeast, 3 = East, 4 = Southeast,
5 = South, 6 = Southwest, 7 = West, 8 = Northwest, on a hexagonal grid, use 6 points
of wind directions, if hexagons are aligned vertically: 1 = North, 2 = Northeast,
3 = Southeast, 4 = South, 5 = Southwest, 6 = Northwest, or, if hexagons are aligned
horizontally: 1 = Northwest, 2 = Northeast, 3 = East, 4 = Southeast, 5 = Southwest, 6 = West"
"""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.saltntar.geometry import GRIDS, bearing_index, downwind, find_grid
from mailbot.games.saltntar.movement import bearing_of
from tests.games.saltntar.conftest import new_state, race, ship


def test_point_names_follow_the_seed() -> None:
    assert GRIDS["square"].names == (
        "North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest",
    )  # fmt: skip
    assert GRIDS["hex-vertical"].names == (
        "North",
        "Northeast",
        "Southeast",
        "South",
        "Southwest",
        "Northwest",
    )
    assert GRIDS["hex-horizontal"].names == (
        "Northwest",
        "Northeast",
        "East",
        "Southeast",
        "Southwest",
        "West",
    )


@pytest.mark.parametrize("kind", sorted(GRIDS))
def test_every_step_is_one_cell_and_opposites_cancel(kind: str) -> None:
    grid = GRIDS[kind]
    for point in range(1, grid.points + 1):
        there = grid.step((0, 0), point)
        assert grid.distance((0, 0), there) == 1
        assert grid.step(there, grid.opposite(point)) == (0, 0)
    assert len({grid.step((0, 0), p) for p in range(1, grid.points + 1)}) == grid.points


@pytest.mark.parametrize("kind", sorted(GRIDS))
def test_clockwise_neighbours_are_adjacent(kind: str) -> None:
    """Points are numbered clockwise, so point p and p+1 are neighbouring directions."""
    grid = GRIDS[kind]
    for point in range(1, grid.points + 1):
        a, b = grid.step((0, 0), point), grid.step((0, 0), grid.rotate(point, 1))
        assert grid.distance(a, b) == 1


def test_compass_geometry_of_the_hex_grids() -> None:
    vertical, horizontal = GRIDS["hex-vertical"], GRIDS["hex-horizontal"]
    # Vertically aligned hexes have a North neighbour; horizontally aligned ones an East neighbour.
    assert vertical.step((0, 0), vertical.point_named("N") or 0) == (0, 1)
    assert horizontal.step((0, 0), horizontal.point_named("E") or 0) == (1, 0)
    # Northeast lies between North and East on both.
    assert horizontal.step((0, 0), 2) == (0, 1)
    assert vertical.step((0, 0), 2) == (1, 0)


def test_rotation_wraps_and_differences_are_shortest() -> None:
    square, hexes = GRIDS["square"], GRIDS["hex-vertical"]
    assert (square.rotate(8, 1), square.rotate(1, -1), hexes.rotate(6, 1), hexes.rotate(1, -2)) == (
        1,
        8,
        1,
        5,
    )
    assert (square.difference(8, 2), square.difference(2, 8), square.difference(1, 5)) == (2, -2, 4)
    assert (hexes.difference(6, 1), hexes.off(1, 4)) == (1, 3)


def test_point_names_are_read_leniently() -> None:
    square = GRIDS["square"]
    assert [square.point_named(w) for w in ("3", "east", "E", "se", "Northwest", "9", "up")] == [
        3,
        3,
        3,
        4,
        8,
        None,
        None,
    ]
    assert GRIDS["hex-vertical"].point_named("E") is None


def test_distances() -> None:
    assert GRIDS["square"].distance((0, 0), (3, -5)) == 5  # king's moves: diagonals are one step
    assert GRIDS["hex-vertical"].distance((0, 0), (2, -1)) == 2
    assert GRIDS["hex-vertical"].distance((0, 0), (2, 1)) == 3


def test_lines() -> None:
    assert GRIDS["square"].line((-1, 5), (1, 5)) == ((-1, 5), (0, 5), (1, 5))
    assert GRIDS["hex-horizontal"].line((0, 0), (2, -2)) == ((0, 0), (1, -1), (2, -2))
    with pytest.raises(GameError):
        GRIDS["square"].line((0, 0), (1, 2))
    with pytest.raises(GameError):
        find_grid("triangles")


# Bearings: "Bearings in the 8 point wind system" / "in the 6 point wind system" are
# diagrams in the seed; the mapping is documented in mailbot/games/saltntar/data/tables.toml.
SQUARE_NORTH_WIND = {
    5: "running",  # wind from astern
    4: "broad reaching",
    6: "broad reaching",
    3: "quarter reaching",  # wind abeam
    7: "quarter reaching",
    2: "beating",
    8: "beating",
    1: "head to wind",  # Luffing / Backing
}
HEX_VERTICAL_NORTH_WIND = {
    4: "running",
    3: "broad reaching",
    5: "broad reaching",
    2: "beating",
    6: "beating",
    1: "head to wind",
}
HEX_HORIZONTAL_WEST_WIND = {
    3: "running",  # a West wind blows East
    2: "broad reaching",
    4: "broad reaching",
    1: "beating",
    5: "beating",
    6: "head to wind",
}


@pytest.mark.parametrize(
    ("grid", "wind_from", "expected"),
    [
        ("square", 1, SQUARE_NORTH_WIND),
        ("hex-vertical", 1, HEX_VERTICAL_NORTH_WIND),
        ("hex-horizontal", 6, HEX_HORIZONTAL_WEST_WIND),
    ],
)
def test_bearings(data: dict[str, Any], grid: str, wind_from: int, expected: dict[int, str]) -> None:
    state = new_state(data, race(ship("Test", "a", "cutter"), grid=grid), wind=(wind_from, 2))
    assert {heading: bearing_of(state, heading) for heading in expected} == expected


def test_bearings_turn_with_the_wind() -> None:
    square = GRIDS["square"]
    # Wind from the East (3) blows West (7): heading West is Running, heading East head to wind.
    assert downwind(square, 3) == 7
    assert (bearing_index(square, 7, 3), bearing_index(square, 3, 3), bearing_index(square, 1, 3)) == (
        0,
        4,
        2,
    )
