# SPDX-License-Identifier: GPL-3.0-or-later
"""What every map drawer shares: the sheet's size, fonts, readable labels and the legend.

Sizes are in drawing units; the SVG scales to its box, and a letter's PNG is
:data:`WIDTH` units drawn over 900 pixels. Fonts are sized so a picture shown
360 CSS pixels wide (a phone) still reads: 11 units there are about 8 pixels.
Every number written into the SVG is rounded (:func:`num`), so a picture is
the same bytes on every machine and run, whatever the float noise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import drawsvg as dw

WIDTH = 480
PAD = 10
TITLE_SIZE = 15
TITLE_MIN = 12
LABEL_SIZE = 12
LEGEND_SIZE = 12
LEGEND_ROW = 18
LEGEND_COLUMN = 230
#: the average advance of a DejaVu Sans character, as a share of the font size (a title's or
#: a key line's length in characters; a label's width is :func:`text_width`)
CHAR_WIDTH = 0.6
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
#: DejaVu Sans's advance of each printable ASCII character, " " to "~", in 2048ths of the size:
#: its hmtx table (``tests/render/test_map_text.py`` reads them from the font file). Labels are
#: placed before any font is at hand, so their width is worked out from these.
ADVANCES = (
    651,
    821,
    942,
    1716,
    1303,
    1946,
    1597,
    563,
    799,
    799,
    1024,
    1716,
    651,
    739,
    651,
    690,
    1303,
    1303,
    1303,
    1303,
    1303,
    1303,
    1303,
    1303,
    1303,
    1303,
    690,
    690,
    1716,
    1716,
    1716,
    1087,
    2048,
    1401,
    1405,
    1430,
    1577,
    1294,
    1178,
    1587,
    1540,
    604,
    604,
    1343,
    1141,
    1767,
    1532,
    1612,
    1235,
    1612,
    1423,
    1300,
    1251,
    1499,
    1401,
    2025,
    1403,
    1251,
    1403,
    799,
    690,
    799,
    1716,
    1024,
    1024,
    1255,
    1300,
    1126,
    1300,
    1260,
    721,
    1300,
    1298,
    569,
    569,
    1186,
    569,
    1995,
    1298,
    1253,
    1300,
    1300,
    842,
    1067,
    803,
    1298,
    1212,
    1675,
    1212,
    1212,
    1075,
    1303,
    690,
    1303,
    1716,
)
UNITS_PER_EM = 2048
#: a character outside the table counts as wide as the widest in it ("@", a whole em)
WIDEST = max(ADVANCES)
#: DejaVu Sans's line box above and below the baseline (hhea ascender, descender): the box a
#: browser gives a line of text, a share of the size
ASCENT, DESCENT = 1901 / UNITS_PER_EM, 483 / UNITS_PER_EM
#: What a browser adds to those boxes, in screen pixels, measured in Chromium from 320 to 1280
#: pixels wide: it rounds a line's ascent and descent to whole pixels (a 3.9-pixel letter gets
#: a 5-pixel box, not 4.5) and its ends outward (a one-letter label is a pixel wider). Worst
#: cases seen: 1.2 at an end, 0.53 above, 0.85 below.
ROUND_END, ROUND_ABOVE, ROUND_BELOW = 1.25, 0.55, 0.85
#: the narrowest screen, in CSS pixels, a map is drawn to be read on (a phone): a placer
#: keeps its labels' boxes apart as a browser lays them out there, where a pixel is most units
NARROWEST = 360
PAPER = "#ffffff"
INK = "#1f2937"
HALO = "#ffffff"


def num(value: float) -> float:
    """A coordinate rounded to 0.1 unit (plenty at 900 pixels), never ``-0.0``."""
    rounded = round(value, 1)
    return rounded + 0.0 if rounded else 0.0


def polygon(points: Sequence[tuple[float, float]]) -> str:
    """An SVG path command for a closed polygon, numbers rounded."""
    head, *rest = points
    parts = [f"M{num(head[0])},{num(head[1])}", *(f"L{num(x)},{num(y)}" for x, y in rest), "Z"]
    return "".join(parts)


def polyline(points: Sequence[tuple[float, float]]) -> str:
    """An SVG path command for an open line through ``points``, numbers rounded."""
    head, *rest = points
    return "".join([f"M{num(head[0])},{num(head[1])}", *(f"L{num(x)},{num(y)}" for x, y in rest)])


def relative_path(pieces: Sequence[tuple[Sequence[tuple[float, float]], bool]]) -> str:
    """``pieces`` (each its points and whether it is closed) as one SVG path, each piece from its
    first point (absolute) by relative steps: the same rounded points as :func:`polygon` and
    :func:`polyline` write, in two thirds of the characters (a hex grid's steps are a few
    short numbers over and over).

    Each step is worked out in whole tenths between two rounded points, so the points a reader
    adds up are the rounded ones exactly; a piece is a few steps, so a reader's rounding
    (cairo adds in fixed point) never adds up along the path."""
    parts: list[str] = []
    for points, closed in pieces:
        tenths = [(round(num(x) * 10), round(num(y) * 10)) for x, y in points]
        start = tenths[0]
        steps = " ".join(_step(b, a) for a, b in itertools.pairwise(tenths))
        parts.append(f"M{_tenths(start[0])},{_tenths(start[1])}l{steps}" + ("z" if closed else ""))
    return "".join(parts)


def _step(to: tuple[int, int], since: tuple[int, int]) -> str:
    return f"{_tenths(to[0] - since[0])},{_tenths(to[1] - since[1])}"


def _tenths(value: int) -> str:
    """``value`` tenths as the shortest decimal: 40 -> "4", -5 -> "-.5", 81 -> "8.1"."""
    whole, tenth = divmod(abs(value), 10)
    sign = "-" if value < 0 else ""
    if not tenth:
        return f"{sign}{whole}"
    return f"{sign}{whole or ''}.{tenth}"


def hexagon(x: float, y: float, radius: float, *, pointy: bool = False) -> list[tuple[float, float]]:
    """Corners of a regular hexagon: flat-topped (corners east and west) unless ``pointy``."""
    start = 30 if pointy else 0
    return [
        (
            x + radius * math.cos(math.radians(start + 60 * k)),
            y + radius * math.sin(math.radians(start + 60 * k)),
        )
        for k in range(6)
    ]


def text_width(text: str, size: float) -> float:
    """How far ``text`` advances in DejaVu Sans of ``size``, kerning left out (it only narrows)."""
    return _ems(text) * size


@lru_cache(maxsize=4096)
def _ems(text: str) -> float:
    """``text``'s advance in ems: kept, since a map's labels come back hour after hour."""
    first, last = ord(" "), ord(" ") + len(ADVANCES)
    return sum(ADVANCES[o - first] if first <= (o := ord(c)) < last else WIDEST for c in text) / UNITS_PER_EM


def line_pitch(size: float, pixel: float) -> float:
    """From one baseline to the next in a block of labels: a line's box as a browser lays it out
    where a screen pixel is ``pixel`` units (:data:`ROUND_ABOVE`), so two lines' boxes never meet."""
    return (ASCENT + DESCENT) * size + (ROUND_ABOVE + ROUND_BELOW) * pixel


def text_box(lines: Sequence[str], size: float, pixel: float) -> tuple[float, float]:
    """The width and height ``lines`` of ``size`` take as a browser lays them out where a screen
    pixel is ``pixel`` units: the font's advances and line boxes, and the browser's rounding."""
    width = max(text_width(line, size) for line in lines) + 2 * ROUND_END * pixel
    return width, line_pitch(size, pixel) * len(lines)


def text(
    d: dw.Drawing | dw.Group,
    lines: str | Sequence[str],
    size: float,
    x: float,
    y: float,
    *,
    fill: str = INK,
    anchor: str = "start",
    weight: str = "normal",
    opacity: float = 1.0,
) -> None:
    """Text with a white halo underneath, so it reads over grid lines, clouds and paths.

    The halo is a second, stroked copy drawn first (cairosvg ignores ``paint-order``). The font
    is the sheet's (:func:`sheet`), or a board layer's own.
    """
    rows = [lines] if isinstance(lines, str) else list(lines)
    common = {"text_anchor": anchor, "font_weight": weight}
    if opacity < 1:
        common["opacity"] = str(num(opacity))
    for index, row in enumerate(rows):
        baseline = num(y + index * size * 1.2)
        halo = {"stroke": HALO, "stroke_width": num(size / 4), "stroke_linejoin": "round"}
        d.append(dw.Text(row, num(size), num(x), baseline, fill=HALO, **halo, **common))
        d.append(dw.Text(row, num(size), num(x), baseline, fill=fill, **common))


@dataclass
class Labels:
    """Greedy label placement: beside a marker where no earlier label (or the frame) is in the way.

    Deterministic: the same markers in the same order get the same places.
    """

    left: float
    top: float
    right: float
    bottom: float
    #: a screen pixel in drawing units on the narrowest screen the map is read on (:data:`NARROWEST`):
    #: :meth:`free` keeps boxes apart as a browser lays the text out there (0: the font's boxes)
    pixel: float = 0.0
    taken: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: :meth:`free`'s index of ``taken`` by :data:`CELL`-unit squares (hundreds of labels on a
    #: whole theatre: each tried against its neighbours only); ``indexed`` boxes are in it
    cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = field(default_factory=dict)
    indexed: int = 0

    def index(self) -> None:
        """Bring :attr:`cells` up to date with :attr:`taken`."""
        cells = self.cells
        for other in self.taken[self.indexed :]:
            for cell in cells_of(other):
                cells[cell] = [*cells.get(cell, ()), other]  # a new list: a copy may share the old one
        self.indexed = len(self.taken)

    def copy(self) -> Labels:
        """Another placer with the same boxes taken; placing with one leaves the other as it is
        (the cells' lists are shared, never changed in place: :meth:`index` replaces them)."""
        self.index()
        cells = dict(self.cells)
        return Labels(
            self.left, self.top, self.right, self.bottom, self.pixel, list(self.taken), cells, self.indexed
        )

    def zoomed(self, left: float, top: float, right: float, bottom: float, pixel: float) -> Labels:
        """A placer for a window of this one's drawing seen larger, a screen pixel ``pixel``
        units (less than :attr:`pixel`): the boxes taken inside the window, each less the
        browser's rounding it no longer needs there (a line's worth: a block of lines keeps
        a little more than it needs)."""
        less = max(0.0, self.pixel - pixel)
        dx, above, below = ROUND_END * less, ROUND_ABOVE * less, ROUND_BELOW * less
        window = (left, top, right - left, bottom - top)
        taken = [
            (x + dx, y + above, w - 2 * dx, h - above - below)
            for x, y, w, h in self.taken
            if overlap((x, y, w, h), window) > 0
        ]
        return Labels(left, top, right, bottom, pixel, taken)

    def _near(self, box: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
        self.index()
        return [other for cell in cells_of(box) for other in self.cells.get(cell, ())]

    def block(self, x: float, y: float, half_width: float, half_height: float) -> None:
        """Keep labels off a marker centred at (x, y)."""
        self.taken.append((x - half_width, y - half_height, 2 * half_width, 2 * half_height))

    def place(
        self, x: float, y: float, lines: Sequence[str], size: float, gap: float
    ) -> tuple[float, float, str]:
        """(x, first baseline, anchor) for ``lines`` next to a marker at (x, y) of half-size ``gap``."""
        width = max(text_width(line, size) for line in lines)
        height = size * 1.2 * len(lines)
        below, above = y + gap, y - gap - height
        candidates = [
            (x + gap, y - height / 2, "start"),  # right
            (x - gap - width, y - height / 2, "end"),  # left
            (x - width / 2, below, "middle"),
            (x - width / 2, above, "middle"),
            (x - gap, below, "start"),  # below, running east
            (x + gap - width, below, "end"),  # below, running west
            (x - gap, above, "start"),
            (x + gap - width, above, "end"),
        ]
        best = min(
            candidates, key=lambda c: (self._overlap((c[0], c[1], width, height)), candidates.index(c))
        )
        box = (best[0], best[1], width, height)
        self.taken.append(box)
        anchor_x = {"start": best[0], "end": best[0] + width, "middle": best[0] + width / 2}[best[2]]
        return anchor_x, best[1] + size * 0.9, best[2]

    def free(
        self,
        x: float,
        y: float,
        lines: Sequence[str],
        size: float,
        gaps: Sequence[float],
        *,
        edge: bool = True,
    ) -> tuple[float, float, str, tuple[float, float, float, float]] | None:
        """Like :meth:`place`, but only where nothing is in the way, trying each gap in turn
        (the farther ones want a leader line); None when no place is free. ``edge``: the
        frame counts as in the way. The box is each line's as a browser lays it out
        (:func:`text_box`), the first baseline under the first line's ascent."""
        width, height = text_box(lines, size, self.pixel)
        for gap in gaps:
            below, above = y + gap, y - gap - height
            for left, top, anchor in (
                (x + gap, y - height / 2, "start"),
                (x - gap - width, y - height / 2, "end"),
                (x - width / 2, below, "middle"),
                (x - width / 2, above, "middle"),
                (x + gap * 0.7, below, "start"),
                (x - gap * 0.7 - width, below, "end"),
                (x + gap * 0.7, above, "start"),
                (x - gap * 0.7 - width, above, "end"),
            ):
                box = (left, top, width, height)
                inside = self.left <= left and left + width <= self.right
                inside = inside and self.top <= top and top + height <= self.bottom
                if (inside or not edge) and not any(overlap(box, other) > 0 for other in self._near(box)):
                    self.taken.append(box)
                    end = ROUND_END * self.pixel
                    anchor_x = {"start": left + end, "end": left + width - end, "middle": left + width / 2}
                    return anchor_x[anchor], top + ASCENT * size + ROUND_ABOVE * self.pixel, anchor, box
        return None

    def _overlap(self, box: tuple[float, float, float, float]) -> float:
        x, y, w, h = box
        outside = max(0.0, self.left - x) + max(0.0, x + w - self.right)
        outside += max(0.0, self.top - y) + max(0.0, y + h - self.bottom)
        covered = sum(overlap(box, other) for other in self.taken)
        return covered + outside * h * 4


CELL = 48.0


def cells_of(box: tuple[float, float, float, float]) -> list[tuple[int, int]]:
    """The squares of :data:`CELL` units ``box`` reaches: two boxes that share some area share one."""
    x, y, w, h = box
    return [
        (i, j)
        for i in range(math.floor(x / CELL), math.floor((x + w) / CELL) + 1)
        for j in range(math.floor(y / CELL), math.floor((y + h) / CELL) + 1)
    ]


def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """The area two boxes (left, top, width, height) share."""
    wide = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    high = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, wide) * max(0.0, high)


#: a legend entry's symbol: draws itself centred at (x, y) into the group
Symbol = Callable[[dw.Group, float, float], None]


@dataclass(frozen=True)
class Entry:
    symbol: Symbol
    text: str


def legend_height(entries: Sequence[Entry], width: float = WIDTH) -> float:
    columns = max(1, int((width - 2 * PAD) // LEGEND_COLUMN))
    rows = math.ceil(len(entries) / columns)
    return rows * LEGEND_ROW + PAD if entries else 0.0


def legend(d: dw.Drawing, entries: Sequence[Entry], top: float, width: float = WIDTH) -> None:
    """The entries in columns, row by row from ``top``; each a symbol and a few words."""
    columns = max(1, int((width - 2 * PAD) // LEGEND_COLUMN))
    group = dw.Group(class_="legend")
    for index, entry in enumerate(entries):
        row, column = divmod(index, columns)
        x = PAD + column * LEGEND_COLUMN
        y = top + row * LEGEND_ROW + LEGEND_ROW / 2
        entry.symbol(group, x + 9, y)
        group.append(dw.Text(entry.text, LEGEND_SIZE, x + 22, num(y + LEGEND_SIZE * 0.35), fill=INK))
    d.append(group)


def sheet(height: float, title: str, background: str = PAPER, width: float = WIDTH) -> dw.Drawing:
    """A drawing ``width`` wide with a white ground and the title line on top."""
    # The font once, on the root, for every text to inherit (a Coral Sea game's archive held it
    # 0.5 MB of times); a group kept apart from the sheet (a board layer) names it itself.
    d = dw.Drawing(width, num(height), id_prefix="map", font_family=FONT)
    d.append(dw.Rectangle(0, 0, width, num(height), fill=background))
    # A long title shrinks to the width, then loses its tail: it must stay one line.
    size = max(TITLE_MIN, min(TITLE_SIZE, (width - 2 * PAD) / (max(len(title), 1) * CHAR_WIDTH)))
    fits = int((width - 2 * PAD) / (size * CHAR_WIDTH))
    line = title if len(title) <= fits else title[: fits - 1].rstrip() + "…"
    d.append(dw.Text(line, num(size), PAD, PAD + TITLE_SIZE, fill=INK, font_weight="bold"))
    return d


def arrowhead(x: float, y: float, angle: float, size: float) -> list[tuple[float, float]]:
    """A triangle pointing along ``angle`` (radians, SVG axes: y down) with its tip at (x, y)."""
    back, wing = size, size * 0.55
    bx, by = x - back * math.cos(angle), y - back * math.sin(angle)
    nx, ny = -math.sin(angle) * wing, math.cos(angle) * wing
    return [(x, y), (bx + nx, by + ny), (bx - nx, by - ny)]
