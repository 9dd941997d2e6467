# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top map's labels once placed, and the printed board drawn once per game."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import drawsvg as dw

from mailbot.games.flattop.drawing.board import ID_SIZE, LABEL, SHEET
from mailbot.games.flattop.drawing.symbols import (
    LEADER,
)
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import num

#: a label's place as :meth:`cv.Labels.free` gives it: x, first baseline, anchor and its box
Spot = tuple[float, float, str, tuple[float, float, float, float]]
#: a window on the sheet: x, y, width and height, in units
Window = tuple[float, float, float, float]


@dataclass(frozen=True)
class Scale:
    """What a map's labels are placed for: their sizes and the pads round a symbol, in units,
    and the window they stand in. The theatre's (:data:`THEATRE`) covers the sheet, a unit a
    pixel; an inset's labels are as many pixels high on its picture, so fewer units, and only
    the hexes inside its window get one (their key numbers inside it too)."""

    label: float = LABEL
    hex_id: float = ID_SIZE
    pad: float = 1.0  # a pixel of the picture, in units
    window: Window | None = None
    #: also a gap a symbol wide (``near``) before the far ones, within which a label stands
    #: beside its symbol without a leader line: an inset's labels are small beside its
    #: symbols (their size in units is the theatre's)
    between: bool = False

    def gaps(self, half: float, near: float, far: float) -> list[float]:
        """From a symbol of half-width ``half`` to its label's box, nearest first."""
        return [half + 2 * self.pad, *([half + near] if self.between else []), half + far, half + far * 1.6]

    def leader(self, half: float, near: float) -> float:
        """How far from a symbol a label may stand without a leader line to it: with
        ``between``, a label at either near gap, even a corner of the box
        (:meth:`cv.Labels.free` sets those 0.7 of the gap aside, 1.22 of it away)."""
        return 1.25 * (half + near) + self.pad if self.between else half + 3 * self.pad

    def shows(self, at: tuple[float, float]) -> bool:
        """Whether a hex centred ``at`` gets a label: inside the window, if there is one."""
        if self.window is None:
            return True
        x, y, wide, high = self.window
        return x <= at[0] <= x + wide and y <= at[1] <= y + high


THEATRE = Scale()


@dataclass
class Placed:
    """The labels placed, drawn after the symbols; and the key of those with no room."""

    parts: list[dw.Group] = field(default_factory=list)
    key: list[tuple[str, str, list[str], str]] = field(default_factory=list)

    def add(  # noqa: PLR0917 (each label's parts, in reading order)
        self,
        cls: str,
        hex_id: str,
        lines: Sequence[str],
        inks: Sequence[str],
        spot: Spot,
        at: tuple[float, float],
        near: float,
        opacity: float = 1.0,
        *,
        size: float,
    ) -> None:
        """``lines`` of ``size`` at ``spot`` (:meth:`cv.Labels.free`), each in its ink, a line
        of its box apart; a leader line from ``at`` when the label stands farther than
        ``near`` from it."""
        x, baseline, anchor, box = spot
        group = dw.Group(class_=cls, data_hex=hex_id)
        left, top, width, height = box
        bx, by = min(max(at[0], left), left + width), min(max(at[1], top), top + height)
        if math.hypot(bx - at[0], by - at[1]) > near:
            group.append(
                dw.Path(
                    f"M{num(at[0])},{num(at[1])}L{num(bx)},{num(by)}",
                    stroke=LEADER,
                    stroke_width=0.8,
                    fill="none",
                    class_="leader",
                )
            )
        pitch = height / len(lines)
        if cls == "grid-id":  # in a free place by construction: no halo (half the text to paint)
            group.append(
                dw.Text(
                    lines[0],
                    num(size),
                    num(x),
                    num(baseline),
                    fill=inks[0],
                    text_anchor=anchor,
                )
            )
            self.parts.append(group)
            return
        for index, (line, ink) in enumerate(zip(lines, inks, strict=True)):
            cv.text(group, line, size, x, baseline + index * pitch, fill=ink, anchor=anchor, opacity=opacity)
        self.parts.append(group)

    def draw(self, d: dw.Drawing | dw.Group) -> None:
        for part in self.parts:
            d.append(part)


@dataclass(frozen=True)
class Printed:
    """The printed board drawn once (:func:`printed_board`): SVG fragments and label room."""

    under: str  # sea, land and grid: a group the weather is laid over
    over: str  # hexsides, sections, base rings, compass, scale, names and grid ids
    placed: cv.Labels = field(repr=False, compare=False)  # the names' and ids' boxes
    #: (hex id, name) of each base printed with its hex id beside it: a map's own base there
    #: needs no label of its own
    bases: frozenset[tuple[str, str]] = frozenset()
    #: each grid id printed, with its place (a storm over it has it printed again, haloed)
    grid: tuple[tuple[str, Spot], ...] = ()

    def labels(self) -> cv.Labels:
        """A fresh placer with the board's names and ids already in the way."""
        return self.placed.copy()

    def grid_under(self, boxes: Sequence[tuple[float, float, float, float]]) -> list[tuple[str, Spot]]:
        """The grid ids whose boxes share some area with one of ``boxes``, in the grid's order:
        only the ids in the boxes' cells are looked at (a storm's box against each of a
        board's two thousand ids was a quarter of a map's drawing)."""
        hit: set[int] = set()
        for box in boxes:
            for cell in cv.cells_of(box):
                near = self._grid_cells.get(cell, ())
                hit.update(i for i in near if cv.overlap(self.grid[i][1][3], box) > 0)
        return [self.grid[i] for i in sorted(hit)]

    @cached_property
    def _grid_cells(self) -> dict[tuple[int, int], list[int]]:
        """Each cell (:func:`canvas.cells_of`) with the grid ids whose boxes reach it, by index."""
        found: dict[tuple[int, int], list[int]] = {}
        for index, (_, spot) in enumerate(self.grid):
            for cell in cv.cells_of(spot[3]):
                found.setdefault(cell, []).append(index)
        return found


def fragment(group: dw.Group) -> str:
    """``group`` as the SVG text drawsvg writes for it inside a drawing."""
    d = dw.Drawing(SHEET, SHEET, id_prefix="board")
    d.append(group)
    svg = str(d.as_svg())
    start = svg.index("</defs>") + len("</defs>")
    return svg[start : svg.rindex("</svg>")].strip("\n")
