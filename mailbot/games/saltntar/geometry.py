# SPDX-License-Identifier: GPL-3.0-or-later
"""Grids, compass points and relative bearings for Salt'n'Tar (seed 001).

Seed 001, "Initial Wind strength and direction": a square grid uses 8 points
(1 = North ... 8 = Northwest); a hexagonal grid uses 6, numbered differently
for hexagons "aligned vertically" (1 = North, 2 = Northeast, 3 = Southeast,
4 = South, 5 = Southwest, 6 = Northwest) and "aligned horizontally"
(1 = Northwest, 2 = Northeast, 3 = East, 4 = Southeast, 5 = Southwest, 6 = West).

Coordinates: on the square grid ``(x, y)`` with x growing east and y growing
north. Both hex grids use axial coordinates ``(q, r)``; the six unit steps
are the six axial neighbours, only their compass names differ. Every step to
a neighbouring cell counts as one cell of movement, diagonals included:
the seed gives the square grid 8 equal points, which only works if each of
them is a one-cell step (and distance is then the king's-move distance).

Points are numbered clockwise from 1 in both systems, so "clockwise" is +1.
"""

from __future__ import annotations

from dataclasses import dataclass

from mailbot.errors import GameError

Cell = tuple[int, int]

_SQUARE_STEPS: tuple[Cell, ...] = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_SQUARE_NAMES = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
# Axial neighbours in clockwise order; the vertical grid starts at North.
_HEX_STEPS: tuple[Cell, ...] = ((0, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1))
_HEX_V_NAMES = ("North", "Northeast", "Southeast", "South", "Southwest", "Northwest")
# The horizontal grid's point 1 (Northwest) is the axial step (-1, 1).
_HEX_H_STEPS: tuple[Cell, ...] = _HEX_STEPS[5:] + _HEX_STEPS[:5]
_HEX_H_NAMES = ("Northwest", "Northeast", "East", "Southeast", "Southwest", "West")

_ABBREVIATIONS = {"North": "N", "Northeast": "NE", "East": "E", "Southeast": "SE"}
_ABBREVIATIONS |= {"South": "S", "Southwest": "SW", "West": "W", "Northwest": "NW"}


@dataclass(frozen=True)
class Grid:
    """One of the three grids of seed 001; points are 1-based and clockwise."""

    kind: str
    steps: tuple[Cell, ...]
    names: tuple[str, ...]

    @property
    def points(self) -> int:
        return len(self.steps)

    @property
    def hexagonal(self) -> bool:
        return self.points == 6

    def check_point(self, point: int) -> int:
        if not 1 <= point <= self.points:
            raise GameError(f"{self.kind} grid: direction {point} is not 1..{self.points}")
        return point

    def name(self, point: int) -> str:
        return self.names[self.check_point(point) - 1]

    def short(self, point: int) -> str:
        return _ABBREVIATIONS[self.name(point)]

    def point_named(self, word: str) -> int | None:
        """The point for ``3``, ``East`` or ``E`` (any case); None if the grid has no such point."""
        text = word.strip().lower()
        if text.isdigit():
            value = int(text)
            return value if 1 <= value <= self.points else None
        for index, name in enumerate(self.names, start=1):
            if text in (name.lower(), _ABBREVIATIONS[name].lower()):
                return index
        return None

    def rotate(self, point: int, by: int) -> int:
        """``by`` points clockwise (negative: counter-clockwise)."""
        return (self.check_point(point) - 1 + by) % self.points + 1

    def opposite(self, point: int) -> int:
        return self.rotate(point, self.points // 2)

    def difference(self, start: int, end: int) -> int:
        """The signed shortest change from ``start`` to ``end`` (ties of half a circle are +)."""
        change = (end - start) % self.points
        return change - self.points if change > self.points // 2 else change

    def off(self, a: int, b: int) -> int:
        """How many points apart two directions are, 0 .. points/2."""
        return abs(self.difference(a, b))

    def step(self, cell: Cell, point: int) -> Cell:
        dx, dy = self.steps[self.check_point(point) - 1]
        return (cell[0] + dx, cell[1] + dy)

    def distance(self, a: Cell, b: Cell) -> int:
        """Cells between two cells: king's moves on squares, hex steps on hexes."""
        dx, dy = b[0] - a[0], b[1] - a[1]
        if self.hexagonal:
            return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
        return max(abs(dx), abs(dy))

    def line(self, start: Cell, end: Cell) -> tuple[Cell, ...]:
        """The cells of a straight grid line from start to end (both included)."""
        length = self.distance(start, end)
        for point in range(1, self.points + 1):
            dx, dy = self.steps[point - 1]
            if (start[0] + dx * length, start[1] + dy * length) == end:
                return tuple((start[0] + dx * i, start[1] + dy * i) for i in range(length + 1))
        raise GameError(f"{self.kind} grid: no straight line from {start} to {end}")


GRIDS: dict[str, Grid] = {
    "square": Grid("square", _SQUARE_STEPS, _SQUARE_NAMES),
    "hex-vertical": Grid("hex-vertical", _HEX_STEPS, _HEX_V_NAMES),
    "hex-horizontal": Grid("hex-horizontal", _HEX_H_STEPS, _HEX_H_NAMES),
}


def find_grid(kind: str) -> Grid:
    grid = GRIDS.get(kind.strip().lower())
    if grid is None:
        raise GameError(f"unknown grid {kind!r}; known: {', '.join(GRIDS)}")
    return grid


def downwind(grid: Grid, wind_from: int) -> int:
    """Wind directions name where the wind blows from (a North wind blows south)."""
    return grid.opposite(wind_from)


def bearing_index(grid: Grid, heading: int, wind_from: int) -> int:
    """0 = wind dead astern (Running) ... points/2 = head to wind (Luffing/Backing)."""
    return grid.off(heading, downwind(grid, wind_from))
