# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top map's symbols, colours and legend entries (``flattop.py`` places them).

Own units in their side's colour: a task force a disc (with a white flight deck
when it has carriers), a base a square, an air formation a triangle (hollow
when searching, filled for a strike, dotted otherwise). A contact is a diamond
in the enemy's colour holding its condition (1-3); older contacts are fainter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import drawsvg as dw

from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import num

SEA, GRID, CLOUD, STORM = "#e8f1fa", "#b8cadb", "#c9ced4", "#6b7480"
SEARCH, STRIKE, ID_INK = "#0f766e", "#c2410c", "#475569"
LAND, COAST, LAND_INK = "#d8c8a0", "#ebe2c8", "#7c6a43"  # all-land, partial land, island names
GRID_INK, SECTION_INK, BASE_INK, LEADER = "#8193a8", "#7d8da1", "#57534e", "#64748b"
HEXSIDE_INK = {"reef": "#0e7490", "land": "#a16207", "mountain": "#78350f"}
SIDES = {"Allied": "#1d4ed8", "Japanese": "#b91c1c"}
UNKNOWN = "#7e22ce"  # contacts on the referee's map: whose they are is not in the record

#: draws one symbol centred at (x, y), ``m`` units from centre to side, in a colour
Draw = Callable[[dw.Group, float, float, float, str], None]


def polyline(
    points: Sequence[tuple[float, float]], colour: str, width: float, *, dashed: bool, cls: str
) -> dw.Path:
    if len(points) == 1:  # a search of its own hex: a ring
        x, y = points[0]
        points = cv.hexagon(x, y, 6)
        points = [*points, points[0]]
    head, *rest = points
    d = f"M{num(head[0])},{num(head[1])}" + "".join(f"L{num(x)},{num(y)}" for x, y in rest)
    dash = {"stroke_dasharray": "5,4"} if dashed else {}
    return dw.Path(
        d,
        fill="none",
        stroke=colour,
        stroke_width=num(width),
        stroke_linejoin="round",
        stroke_linecap="round",
        class_=cls,
        **dash,
    )


def _circle(g: dw.Group, x: float, y: float, m: float, colour: str) -> None:
    g.append(dw.Circle(num(x), num(y), num(m), fill=colour, stroke="#ffffff", stroke_width=1))


def _carrier(g: dw.Group, x: float, y: float, m: float, colour: str) -> None:
    _circle(g, x, y, m, colour)
    g.append(dw.Rectangle(num(x - m * 0.75), num(y - m * 0.22), num(m * 1.5), num(m * 0.44), fill="#ffffff"))


def _base(g: dw.Group, x: float, y: float, m: float, colour: str) -> None:
    g.append(dw.Rectangle(num(x - m), num(y - m), num(2 * m), num(2 * m), fill=colour, stroke="#ffffff"))


def _plane(filled: bool, dashed: bool = False) -> Draw:
    def draw(g: dw.Group, x: float, y: float, m: float, colour: str) -> None:
        corners = [(x, y - m * 1.1), (x + m, y + m * 0.8), (x - m, y + m * 0.8)]
        extra = {"stroke_dasharray": "2,1.5"} if dashed else {}
        g.append(
            dw.Path(
                cv.polygon(corners),
                fill=colour if filled else "#ffffff",
                stroke=colour,
                stroke_width=1.5,
                **extra,
            )
        )

    return draw


def _diamond(g: dw.Group, x: float, y: float, m: float, colour: str) -> None:
    """Hollow, where own units are solid: told apart in grey print too."""
    corners = [(x, y - m * 1.2), (x + m * 1.2, y), (x, y + m * 1.2), (x - m * 1.2, y)]
    g.append(dw.Path(cv.polygon(corners), fill="#ffffff", stroke=colour, stroke_width=2))


SYMBOLS: dict[str, Draw] = {
    "tf": _circle,
    "carrier": _carrier,
    "base": _base,
    "air-search": _plane(filled=False),
    "air-strike": _plane(filled=True),
    "air-other": _plane(filled=False, dashed=True),
    "contact": _diamond,
}
LEGEND = (
    ("tf", "Task force (ships)"),
    ("carrier", "Task force with carriers"),
    ("base", "Base"),
    ("air-search", "Air formation, searching"),
    ("air-strike", "Air formation, strike"),
    ("air-other", "Air formation, other"),
)


def legend_symbol(kind: str, colour: str) -> cv.Symbol:
    def symbol(g: dw.Group, x: float, y: float) -> None:
        SYMBOLS[kind](g, x, y, 6, colour)
        if kind == "contact":
            g.append(
                dw.Text(
                    "2",
                    7,
                    num(x),
                    num(y + 2.5),
                    fill=colour,
                    font_weight="bold",
                    text_anchor="middle",
                )
            )

    return symbol


def swatch(colour: str) -> cv.Symbol:
    def symbol(g: dw.Group, x: float, y: float) -> None:
        g.append(dw.Path(cv.polygon(cv.hexagon(x, y, 7)), fill=colour, stroke=GRID))

    return symbol


def path_symbol(colour: str, *, dashed: bool) -> cv.Symbol:
    def symbol(g: dw.Group, x: float, y: float) -> None:
        points = [(x - 9, y), (x + 9, y)]
        g.append(polyline(points, colour, 2, dashed=dashed, cls="legend-line"))
        if not dashed:
            g.append(dw.Path(cv.polygon(cv.arrowhead(x + 10, y, 0.0, 7)), fill=colour))

    return symbol
