# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top map's zoomed inset: the theatre's drawing seen through a window at 1.5x to 2x
where the action is compact, with labels of its own placed for that scale.

The window (:func:`window`) holds the side's task forces, air formations, contacts and this
hour's paths; its labels (:func:`inset_labels`) are a second group of the map's SVG, hidden on
the theatre map and shown in place of the theatre's by the inset's PNG (:func:`inset`) and by
a browser through the map's ``#inset`` view (:func:`inset_view`). The map itself
(``drawing.Map``) decides what is in the window and places the labels; this module sizes,
keys and shows them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import drawsvg as dw

from mailbot.games.flattop.drawing.board import Board
from mailbot.games.flattop.drawing.labels import Placed, Printed, Scale, Window
from mailbot.games.flattop.drawing.symbols import LEADER
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import num

#: the inset (:func:`inset`): a PNG this many pixels, the theatre's sheet seen through a window
#: of one of :data:`INSET_WINDOWS` units wide (2x, 1.875x or 1.5x the theatre's scale); wider
#: (zooming by less than 1.5x), it is left out
INSET_WIDTH, INSET_HEIGHT = 480, 360
INSET_WINDOWS = (240.0, 256.0, 320.0)
#: around the action's hexes, in units: a symbol and most of its label
INSET_PAD = 36.0
#: the window's corner stands on whole steps of this many units: the action moving a hex mostly
#: keeps the frame, and at those scales (exact binary fractions) the corner falls on a whole
#: pixel, so the PNG's board layer is the whole board's, painted once and shifted
#: (``render.maps.raster``)
INSET_STEP = 16.0
#: the inset's labels, in pixels of its picture: a little larger than the theatre's on its own
#: (10 and 9), since a phone shows the inset's 480 pixels in about 360; its key's lines
INSET_LABEL, INSET_ID, INSET_KEY = 13.0, 12.0, 12.0
#: the inset's key, when it has one, makes its picture taller by whole steps of this many pixels:
#: at each of :data:`INSET_WINDOWS` a step is a whole tenth of a unit (the SVG's numbers) and the
#: picture keeps its window's proportions exactly
INSET_KEY_STEP = 15
#: the inset's view (``<map>.svg#inset``): through it a browser shows the inset's labels in
#: place of the theatre's (:func:`inset_view`), as :func:`inset` does for the PNG
INSET_VIEW = "inset"
THEATRE_LABELS, INSET_LABELS = "labels", "inset-labels"

#: how the map places its labels for a scale, on a placer holding the board's names and ids
Place = Callable[[cv.Labels, Scale], Placed]


def window(board: Board, points: Sequence[tuple[float, float]]) -> Window | None:
    """The inset's window around ``points`` (the action's hexes' centres on the sheet), padded,
    its corner snapped to :data:`INSET_STEP`, in the aspect of the inset's PNG and on the board;
    None when no window of :data:`INSET_WINDOWS` holds them (the action spans most of the
    theatre)."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    aspect = INSET_WIDTH / INSET_HEIGHT
    need = max(max(xs) - min(xs) + 2 * INSET_PAD, (max(ys) - min(ys) + 2 * INSET_PAD) * aspect)
    # One step more than needed: snapping the corner to a step moves the window by up to one.
    wide = next((w for w in INSET_WINDOWS if w >= need + INSET_STEP), None)
    if wide is None or wide > board.width or wide / aspect > board.height:
        return None
    high = wide / aspect
    x = _snap((min(xs) + max(xs) - wide) / 2, board.left, board.left + board.width - wide)
    y = _snap((min(ys) + max(ys) - high) / 2, board.top, board.top + board.height - high)
    return x, y, wide, high


def inset_labels(printed: Printed, frame: Window, place: Place) -> tuple[dw.Group, Window]:
    """The labels of the hexes inside the inset's window, placed anew for its scale by the map's
    ``place`` (:class:`Scale`: as many pixels high on its picture as the theatre's on its own,
    so nearer their symbols), never over the board's names and ids: hidden on the theatre map,
    shown in the inset (:func:`inset`; ``#inset`` in a browser, :func:`inset_view`). With them
    the window the inset shows: ``frame``, or, when a label has no room even there (it is
    numbered), ``frame`` and the key under it, the inset's picture taller by whole steps of
    :data:`INSET_KEY_STEP` pixels."""
    x, y, wide, high = frame
    pixel = wide / INSET_WIDTH
    scale = Scale(INSET_LABEL * pixel, INSET_ID * pixel, pixel, frame, between=True)
    # the board's names and ids as large as the window shows them, and no larger
    labels = printed.placed.zoomed(
        x + pixel, y + pixel, x + wide - pixel, y + high - pixel, wide / cv.NARROWEST
    )
    placed = place(labels, scale)
    group = dw.Group(class_=INSET_LABELS, display="none")
    placed.draw(group)
    if not placed.key:
        return group, frame
    # a row as a phone lays it out, in whole pixels of the picture
    pitch = math.ceil(cv.line_pitch(INSET_KEY, INSET_WIDTH / cv.NARROWEST))
    extra = INSET_KEY_STEP * math.ceil((len(placed.key) * pitch + INSET_KEY) / INSET_KEY_STEP)
    _inset_key(group, placed.key, (x, y + high, wide, extra * pixel), pitch * pixel)
    return group, (x, y, wide, high + extra * pixel)


def _inset_key(
    group: dw.Group,
    key: Sequence[tuple[str, str, list[str], str]],
    box: Window,
    pitch: float,
) -> None:
    """The inset's key in ``box``, under its window, on white over what the sheet has there:
    a line a numbered label, as under the theatre map."""
    left, top, width, height = box
    size = INSET_KEY * width / INSET_WIDTH
    group.append(dw.Rectangle(num(left), num(top), num(width), num(height), fill=cv.PAPER))
    group.append(dw.Path(f"M{num(left)},{num(top)}h{num(width)}", stroke=LEADER, stroke_width=num(size / 10)))
    lines = dw.Group(class_="key")
    for index, (number, hex_id, words, colour) in enumerate(key):
        line = f"{number}  {hex_id}" + (f": {', '.join(words)}" if words else "")
        while len(line) > 1 and cv.text_width(line, size) > width - size:
            line = line[:-2] + "…"  # a line longer than the window: the hex and most of the rest
        baseline = top + size / 2 + index * pitch + cv.ASCENT * size
        lines.append(
            dw.Text(line, num(size), num(left + size / 2), num(baseline), fill=colour, data_hex=hex_id)
        )
    group.append(lines)


def _snap(corner: float, low: float, high: float) -> float:
    """``corner`` on a whole :data:`INSET_STEP`, kept between ``low`` and ``high`` (the board's
    edges, each rounded outward to a step: the window may show a step of the sheet's margin)."""
    step = INSET_STEP
    snapped = step * round(corner / step)
    return min(max(snapped, step * math.floor(low / step)), step * math.ceil(high / step))


_ROOT = re.compile(r"<svg\b[^>]*>")
_SIZE = re.compile(r'\s(width|height|viewBox)="[^"]*"')
_INSET = re.compile(r'\sdata-inset="([^"]*)"')


def inset_view(frame: Window) -> str:
    """The SVG that shows the inset's labels in place of the theatre's when the map is seen
    through its view (``<map>.svg#inset``: its window): a ``:target`` rule, which no painter
    applies to the whole map (it is seen through no view)."""
    hide, show = (f"#{INSET_VIEW}:target ~ .{cls}" for cls in (THEATRE_LABELS, INSET_LABELS))
    box = " ".join(str(num(v)) for v in frame)
    style = f"<style>{hide}{{display:none}}{show}{{display:inline}}</style>"
    return f'{style}\n<view id="{INSET_VIEW}" viewBox="{box}" />'


def inset(model: Mapping[str, Any], svg: str) -> str | None:
    """The map ``svg`` of ``model`` seen through its ``data-inset`` window (:meth:`Map.inset_frame`,
    written there by :meth:`Map.draw`): the same drawing, its root's size and viewBox changed and
    the inset's labels shown in place of the theatre's (as the map's ``#inset`` view shows it
    in a browser), so an archive keeping the map keeps the inset with it; None when there is
    no inset."""
    root = _ROOT.search(svg)
    window = _INSET.search(root.group(0)) if root is not None else None
    if root is None or window is None:
        return None
    sized = _SIZE.sub("", root.group(0)).removesuffix(">")
    wide, high = (float(v) for v in window.group(1).split()[2:])
    height = round(INSET_WIDTH * high / wide)  # INSET_HEIGHT, or taller by the key's steps
    head = f'{sized} width="{INSET_WIDTH}" height="{height}" viewBox="{window.group(1)}">'
    body = svg[root.end() :]
    body = body.replace(f'<g class="{THEATRE_LABELS}">', f'<g class="{THEATRE_LABELS}" display="none">', 1)
    body = body.replace(f'<g class="{INSET_LABELS}" display="none">', f'<g class="{INSET_LABELS}">', 1)
    return svg[: root.start()] + head + body
