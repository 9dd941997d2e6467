# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a Flat Top board's hexes fall on the map sheet, and the outlines drawn from them
(the grid, clouds and storms): pure functions of immutable inputs, kept by value."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from mailbot.games.flattop.map.hexes import Hex, within
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import num

ROOT3 = math.sqrt(3)
SHEET = 960  # the sheet's width in units: the whole theatre, drawn a pixel a unit (PNG_WIDTH)
PNG_WIDTH = SHEET
MAP_TOP = 34
MAX_MAP_HEIGHT = 720
MAX_HEX = 28  # circumradius: a small board need not fill the page
LABEL = 10  # a named hex's label block: its id, then what is there
ID_SIZE = 9  # a named hex's id alone (a path's hexes)
PLACE_SIZE = 9  # bases and islands printed on the board
GRID_SIZE = 7  # the regular grid of ids
KEY_COLUMNS = 2
#: a contact's opacity by age in hours (0 = seen this hour); older ones fade
FADE = (1.0, 0.7, 0.5, 0.35)


@dataclass(frozen=True)
class Board:
    """Where the bounds' hexes fall on the sheet.

    On the pixel grid (:func:`board_for`): a whole circumradius, a corner's rise above the
    centre rounded to a whole unit (a hex is then a little flatter or taller than a regular one:
    1% at Coral Sea's radius of 8 units),
    and the board's corner on a whole unit. Every two columns and every row the grid's pixels
    repeat exactly, so its lines are the same few pixels over and over: a PNG's deflate finds
    each row of sea and grid again a period back: a Coral Sea map's PNG is 55 kB
    (``raster.encode``), where it was 112 kB when the grid's pixels differed hex by hex (its size
    held in
    ``tests/render/test_flattop_map_reads.py``)."""

    bounds: tuple[int, int, int, int]
    size: float  # hex circumradius
    left: float
    top: float

    @property
    def rise(self) -> float:
        """From a hex's centre to its top edge: half a row."""
        return float(max(1, round(self.size * ROOT3 / 2)))

    @property
    def width(self) -> float:
        c0, _, c1, _ = self.bounds
        return self.size * (1.5 * (c1 - c0) + 2)

    @property
    def height(self) -> float:
        _, r0, _, r1 = self.bounds
        return 2 * self.rise * (r1 - r0 + 1.5)

    def centre(self, h: Hex) -> tuple[float, float]:
        c0, r0, _, _ = self.bounds
        x = self.left + self.size * (1 + 1.5 * (h.col - c0))
        y = self.top + 2 * self.rise * (h.row - r0 + 0.5 + 0.5 * (h.col & 1))
        return x, y

    def corners(self, h: Hex) -> list[tuple[float, float]]:
        """The hex's six corners, east first, clockwise on the sheet (y down)."""
        x, y = self.centre(h)
        half, rise = self.size / 2, self.rise
        return [
            (x + self.size, y),
            (x + half, y + rise),
            (x - half, y + rise),
            (x - self.size, y),
            (x - half, y - rise),
            (x + half, y - rise),
        ]

    def inside(self, h: Hex) -> bool:
        c0, r0, c1, r1 = self.bounds
        return c0 <= h.col <= c1 and r0 <= h.row <= r1

    def hexes(self) -> list[Hex]:
        c0, r0, c1, r1 = self.bounds
        return [Hex(c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)]

    def outline(self, hexes: Iterable[Hex]) -> str:
        """The hexes' outlines, one closed piece each, in relative steps (:func:`canvas.relative_path`)."""
        return cv.relative_path([(self.corners(h), True) for h in hexes])


# The outlines are pure functions of immutable inputs, and the same board comes back every hour
# (bounds follow a side's units): kept, they cost a lookup instead of trigonometry and rounding
# per corner, which was most of drawing a map. Keyed by value, so nothing of one map reaches another.
@lru_cache(maxsize=32)
def grid_outline(board: Board) -> str:
    """Every hex of the board: the grid's one path (a few thousand hexes on a whole-sea map).

    Each edge is written once: a hex gives its north, north-west and south-west edges as one
    open line, the others being its neighbours' (a stroke covers the union of its lines, so
    the picture is the same); a hex on the board's east, south or (an even column's) north
    edge, whose neighbours there are not drawn, gives its whole outline. Written hex by hex the
    grid was seven tenths of a Coral Sea map's SVG (249 kB); so it is a third shorter, and in
    relative steps (:func:`canvas.relative_path`) a third again (167 kB -> 107 kB).
    """
    _, r0, c1, r1 = board.bounds
    pieces: list[tuple[Sequence[tuple[float, float]], bool]] = []
    for h in board.hexes():
        corners = board.corners(h)
        if h.col == c1 or h.row == r1 or (h.col % 2 == 0 and h.row == r0):
            pieces.append((corners, True))
        else:
            pieces.append(([corners[5], corners[4], corners[3], corners[2]], False))
    return cv.relative_path(pieces)


@lru_cache(maxsize=16)
def weather_outline(board: Board, centres: tuple[tuple[int, int], ...], radius: int) -> str:
    """The outline of every hex of ``board`` within ``radius`` of one of ``centres`` (col, row),
    in (col, row) order: the hour's clouds or storms, the same for every side's map of the hour,
    kept by value."""
    hexes = {h for c, r in centres for h in _disc(c, r, radius)}
    return union_outline(board, sorted((h for h in hexes if board.inside(h)), key=lambda h: (h.col, h.row)))


@lru_cache(maxsize=1024)
def _disc(col: int, row: int, radius: int) -> tuple[Hex, ...]:
    """The hexes within ``radius`` of (col, row): a cloud's, kept (clouds drift a hex or two an hour)."""
    return tuple(within(Hex(col, row), radius))


def union_outline(board: Board, hexes: Sequence[Hex]) -> str:
    """One path filling what the outlines of ``hexes`` fill: each hex's edges with every edge two
    of them share (once each way, so adding nothing to the winding) left out, chained into
    closed loops. A cloud bank of 450 hexes is 8 loops: a quarter of the points to paint and
    to keep in the SVG."""
    edges: dict[tuple[str, str], None] = {}
    for h in hexes:
        for a, b in hex_edges(board, h):
            if (b, a) in edges:
                del edges[(b, a)]
            else:
                edges[(a, b)] = None
    onward: dict[str, list[str]] = {}
    for a, b in edges:
        onward.setdefault(a, []).append(b)
    loops = []
    for start in list(onward):
        while onward[start]:  # every corner has as many edges in as out: a walk comes back
            loop, at = [start], onward[start].pop(0)
            while at != start:
                loop.append(at)
                at = onward[at].pop(0)
            loops.append("M" + "L".join(loop) + "Z")
    return "".join(loops)


@lru_cache(maxsize=8192)
def hex_edges(board: Board, h: Hex) -> tuple[tuple[str, str], ...]:
    """The six edges of ``h`` as pairs of written corners, in order round the hex: kept, since
    most of an hour's cloud hexes were under cloud the hour before (trigonometry and rounding
    for each corner were two thirds of an outline's time)."""
    corners = [f"{num(x)},{num(y)}" for x, y in board.corners(h)]
    return tuple(zip(corners, corners[1:] + corners[:1], strict=True))


def board_for(bounds: Sequence[int]) -> Board:
    c0, r0, c1, r1 = (int(v) for v in bounds)
    if c1 < c0 or r1 < r0:
        raise ValueError(f"bounds {list(bounds)} are empty")
    box = (c0, r0, c1, r1)
    units = Board(box, 1.0, 0.0, 0.0)
    fits = min((SHEET - 2 * cv.PAD) / units.width, MAX_MAP_HEIGHT / (ROOT3 * (r1 - r0 + 1.5)), MAX_HEX)
    # A whole unit a radius (see Board), and its rise rounded up must still fit the height
    size = max(1, math.floor(fits))
    while size > 1 and Board(box, size, 0.0, 0.0).height > MAX_MAP_HEIGHT:
        size -= 1
    left = math.floor((SHEET - units.width * size) / 2)
    return Board(box, float(size), float(left), MAP_TOP)
