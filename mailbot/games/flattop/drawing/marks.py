# SPDX-License-Identifier: GPL-3.0-or-later
"""The printed marks of a Flat Top map that follow from the board alone: the compass and the
scale beside the title, and the printed hexsides (reefs, all-land, mountains)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import drawsvg as dw

from mailbot.games.flattop.drawing.board import SHEET, Board
from mailbot.games.flattop.drawing.symbols import HEXSIDE_INK
from mailbot.games.flattop.map.hexes import Hex
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import num


def compass_and_scale(d: dw.Drawing | dw.Group, board: Board) -> None:
    """North up (columns run north-south) and five hexes' length, right of the title."""
    group = dw.Group(class_="compass")
    x, y = SHEET - cv.PAD - 8, cv.PAD + 12
    group.append(dw.Path(cv.polygon([(x, y - 10), (x + 5, y + 6), (x, y + 2), (x - 5, y + 6)]), fill=cv.INK))
    cv.text(group, "N", 10, x - 9, y + 1, anchor="end", weight="bold")
    d.append(group)
    step = 2 * board.rise  # centre to centre of two hexes one above the other
    right, length = x - 32, 5 * step
    left = right - length
    scale = dw.Group(class_="scale")
    ticks = "".join(f"M{num(left + i * step)},{num(y)}V{num(y + (5 if i % 5 == 0 else 3))}" for i in range(6))
    scale.append(
        dw.Path(f"M{num(left)},{num(y)}H{num(right)}{ticks}", fill="none", stroke=cv.INK, stroke_width=1.2)
    )
    cv.text(scale, "5 hexes", 10, left - 4, y + 4, anchor="end")
    d.append(scale)


def hexsides(d: dw.Drawing | dw.Group, board: Board, sides: Sequence[tuple[Hex, Hex, str]]) -> None:
    """A printed hexside (reef, all-land, mountain) as a heavy stroke on the edge two hexes share."""
    strokes: dict[str, list[str]] = {}
    for a, b, kind in sides:
        (ax, ay), (bx, by) = board.centre(a), board.centre(b)
        mx, my, dx, dy = (ax + bx) / 2, (ay + by) / 2, bx - ax, by - ay
        length = math.hypot(dx, dy) or 1.0
        half = board.size / 2
        ux, uy = -dy / length * half, dx / length * half
        strokes.setdefault(kind, []).append(f"M{num(mx - ux)},{num(my - uy)}L{num(mx + ux)},{num(my + uy)}")
    for kind, parts in sorted(strokes.items()):
        colour = HEXSIDE_INK.get(kind, cv.INK)
        d.append(
            dw.Path("".join(parts), fill="none", stroke=colour, stroke_width=2.5, class_=f"hexside-{kind}")
        )
