# SPDX-License-Identifier: GPL-3.0-or-later
"""The SVG subset painted with cairo as cairosvg paints it: paths traced, shapes and texts
painted, long paths, board groups and texts through layers kept by content."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import cairocffi as cairo

from mailbot.render.maps.svgsubset import INHERITED, NS, NUMBER, colour, supported_part, words

_NUMBER = re.compile(NUMBER)
_TOKEN = re.compile(rf"[MLHVZmlhvz]|{NUMBER}")
#: a path of closed polygons written one command a point, ``M1,2L3,4...Z`` (:func:`trace`'s quick way)
#: a path's piece after its M, as canvas.polygon and canvas.polyline write it: one command a point
_RUN = re.compile(rf"{NUMBER},{NUMBER}(?:L{NUMBER},{NUMBER})*")
#: path pieces kept (:func:`_run`): a whole Flat Top board has some 3,400 hexes
RUNS = 8192

#: a path of this many characters or more is painted through a cached layer (a grid outside a
#: board layer); the clouds, 8 kB as their outline, are quicker painted on the sheet
LAYER_MIN = 16000
#: layers kept: a map uses two (grid and clouds); each is width x height x 4 bytes (1.4 MB at 640 px)
LAYERS = 8
SVG_MITER_LIMIT = 4.0  # SVG's default; cairo's own is 10
SVG_FONT_SIZE = 16.0  # "12pt", SVG's default, for a text without font-size


class Unsupported(Exception):
    """A layer holds SVG beyond :mod:`.svgsubset`: the picture goes to cairosvg."""


#: board layers kept (:func:`board_layer`): a map has two; another height of sheet or another
#: board is another pair
BOARD_LAYERS = 8
#: a shifted board layer's width is a multiple of this many pixels (:meth:`Painter.board`)
SHIFTED_WIDTH = 512
#: the widest each shifted layer was painted (by the key of :func:`board_layer` less its width)
_shifted_widths: dict[tuple[Any, ...], int] = {}
_board_layers: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


def board_layer(
    text: str, bottom: float, style: Mapping[str, str], matrix: tuple[float, ...], width: int
) -> Any:
    """The group ``text`` painted alone on a clear surface ``width`` pixels wide, down to
    ``bottom`` units (ARGB32), with the inherited ``style`` and transformation ``matrix``;
    kept by all of these (a small LRU)."""
    key = (text, bottom, tuple(sorted(style.items())), matrix, width)
    kept = _board_layers.get(key)
    if kept is not None:
        _board_layers.move_to_end(key)
        return kept
    group = ET.fromstring(f'<svg xmlns="{NS[1:-1]}">{text}</svg>')[0]
    if not supported_part(group):
        raise Unsupported(text[:80])
    height = max(1, math.ceil(bottom * matrix[3] + matrix[5]) + 1)
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, height)
    context = cairo.Context(surface)
    context.set_matrix(cairo.Matrix(*matrix))
    Painter(context, (width, height), flat=True).node(group, style)
    surface.flush()
    _board_layers[key] = surface
    while len(_board_layers) > BOARD_LAYERS:
        _board_layers.popitem(last=False)
    return surface


# --- painting ------------------------------------------------------------------------------------


def trace(context: Any, d: str) -> None:
    """Add the path ``d`` (M, L, H, V, Z, absolute or relative; what :func:`supported` lets
    through) to ``context``."""
    move, line, close = context.move_to, context.line_to, context.close_path
    pieces = d.split("M")
    if not pieces[0]:  # polygons and lines, as canvas.polygon and canvas.polyline write them
        runs = [_run(piece) for piece in pieces[1:]]
        if None not in runs:
            for run in runs:
                assert run is not None
                x, y, *rest = run
                move(x, y)
                for at in range(0, len(rest) - 1, 2):
                    line(rest[at], rest[at + 1])
                if len(rest) % 2:  # closed
                    close()
            return
    _trace_tokens(context, _TOKEN.findall(d))


def _trace_tokens(context: Any, tokens: Sequence[str]) -> None:
    """A path's commands and numbers added to ``context`` one by one, as cairosvg adds them.

    Relative steps go through cairo's rel_ calls, as cairosvg's do: cairo adds them to its
    point in fixed point, and adding them in floats here moved a long path's last points."""
    move, line, close = context.move_to, context.line_to, context.close_path
    command, at, end = "", 0, len(tokens)
    while at < end:
        token = tokens[at]
        if token.isalpha():
            command, at = token, at + 1
            if token in "Zz":
                close()
            continue
        if command in "HVhv":
            _level(context, command, float(token))
            at += 1
        elif at + 1 < end and not tokens[at + 1].isalpha():
            x, y = float(token), float(tokens[at + 1])
            if command == "m" and context.has_current_point():
                context.rel_move_to(x, y)
            elif command == "l":
                context.rel_line_to(x, y)
            else:  # M, L, and a path's first m (from the origin)
                (move if command in "Mm" else line)(x, y)
            at += 2
            # further pairs after a moveto are linetos
            command = {"M": "L", "m": "l"}.get(command, command)
        else:
            at += 1  # a lone number is dropped, as cairosvg drops it


def _level(context: Any, command: str, value: float) -> None:
    """A horizontal or vertical line: H and V to ``value``, h and v by it."""
    if command in "hv":
        context.rel_line_to(*((value, 0.0) if command == "h" else (0.0, value)))
    else:
        x, y = context.get_current_point()
        context.line_to(*((value, y) if command == "H" else (x, value)))


@lru_cache(maxsize=RUNS)
def _run(piece: str) -> tuple[float, ...] | None:
    """The points of ``x,y L x,y ...`` (a path's piece after its M), flat, with a last 0.0 when
    a Z closes it; None if the piece is written otherwise. Kept by text: a cloud or storm hex is
    the same piece every hour it is covered."""
    closed = piece.endswith("Z")
    if not _RUN.fullmatch(piece[:-1] if closed else piece):
        return None
    return (*(float(v) for v in _NUMBER.findall(piece)), *((0.0,) if closed else ()))


def pen(context: Any, style: Mapping[str, str]) -> None:
    """Line width, joins, caps, miter limit and dashes as SVG defines them."""
    context.set_line_width(float(style.get("stroke-width", "1")))
    join = style.get("stroke-linejoin", "miter")
    context.set_line_join({"round": cairo.LINE_JOIN_ROUND, "bevel": cairo.LINE_JOIN_BEVEL}.get(join, 0))
    cap = style.get("stroke-linecap", "butt")
    context.set_line_cap({"round": cairo.LINE_CAP_ROUND, "square": cairo.LINE_CAP_SQUARE}.get(cap, 0))
    context.set_miter_limit(SVG_MITER_LIMIT)
    dashes = [float(v) for v in _NUMBER.findall(style.get("stroke-dasharray", ""))]
    if sum(dashes) > 0:
        context.set_dash(dashes, 0)


class Painter:
    """Paints the elements :func:`supported` allows onto a cairo context, in document order."""

    def __init__(
        self,
        context: Any,
        size: tuple[int, int],
        layers: Sequence[tuple[str, float]] = (),
        *,
        flat: bool = False,
    ) -> None:
        self.context = context
        self.size = size  # the surface in pixels: a layer's size
        self.layers = layers  # the groups :func:`cut_layers` cut out, by their ``data-layer-ref``
        self.flat = flat  # painting a layer: long paths too are painted here, not composited
        #: what was painted outside the layers: each colour with its opacity (groups' included),
        #: and the layers composited, in order (:func:`palette_of`)
        self.inks: set[tuple[tuple[float, float, float], float]] = set()
        self.boards: list[Any] = []
        self.alpha = 1.0
        self.font: tuple[str, bool, float] | None = None  # the font the context has (see :meth:`text`)
        #: the sheet's clip, the pixels' width and the drawing's unrounded height: a text whose
        #: layer would reach it is painted on the sheet (see :meth:`text_layer`)
        self.clip: tuple[float, float] = (0.0, 0.0)

    def source(self, rgb: tuple[float, float, float], alpha: float) -> None:
        self.inks.add((rgb, round(alpha * self.alpha, 3)))
        self.context.set_source_rgba(*rgb, alpha)

    def node(self, node: ET.Element, inherited: Mapping[str, str]) -> None:
        tag = node.tag.removeprefix(NS)
        if tag in ("title", "defs", "view", "style") or node.get("display") == "none":
            return  # no pixels (a stylesheet :func:`supported` lets in applies to no pixel)
        style = {**inherited, **{k: v for k, v in node.attrib.items() if k in INHERITED}}
        opacity = float(node.get("opacity", "1"))
        ref = node.get("data-layer-ref")
        if tag == "g" and ref is not None and int(ref) < len(self.layers):
            self.board(*self.layers[int(ref)], style)
        elif tag in ("svg", "g"):
            self.group(node, style, opacity)
        else:
            SHAPES[tag](self, node, style, opacity)

    def board(self, text: str, bottom: float, style: Mapping[str, str]) -> None:
        """Composite a group cut out of the SVG (:func:`board_layer`).

        A sheet moved by whole pixels up and left (a map's inset: a window on the drawing)
        composites the layer painted unmoved, shifted: cairo rasterises in fixed point, so a
        whole-pixel shift changes no pixel, and the next hour's window elsewhere on the board
        reuses the layer where painting it again took 60 ms. Its width is the widest a window
        of this layer has needed yet, in steps of :data:`SHIFTED_WIDTH` pixels: a window
        further east paints it once more, wider, and the windows west of it use that one."""
        matrix = tuple(self.context.get_matrix().as_tuple())
        dx, dy = matrix[4], matrix[5]
        if matrix[1:3] == (0.0, 0.0) and dx <= 0 and dy <= 0 and dx.is_integer() and dy.is_integer():
            unmoved = (*matrix[:4], 0.0, 0.0)
            needed = SHIFTED_WIDTH * math.ceil((self.size[0] - dx) / SHIFTED_WIDTH)
            key = (text, bottom, tuple(sorted(style.items())), unmoved)
            if len(_shifted_widths) > BOARD_LAYERS and key not in _shifted_widths:
                _shifted_widths.clear()  # a few boards and scales a process; never unbounded
            width = _shifted_widths[key] = max(needed, _shifted_widths.get(key, 0))
            image = board_layer(text, bottom, style, unmoved, width)
        else:
            image, dx, dy = board_layer(text, bottom, style, matrix, self.size[0]), 0.0, 0.0
        self.boards.append(image)
        self.context.save()
        self.context.identity_matrix()
        self.context.set_source_surface(image, dx, dy)
        self.context.paint()
        self.context.restore()

    def group(self, node: ET.Element, style: Mapping[str, str], opacity: float) -> None:
        # A group's opacity applies to the group as a whole, not to each thing in it.
        apart = opacity < 1 and len(node) > 0
        if apart:
            self.context.push_group()
        outer = self.alpha
        self.alpha *= opacity
        for child in node:
            self.node(child, style)
        self.alpha = outer
        if apart:
            self.font = None  # popping the group restores the font it was pushed with
            self.context.pop_group_to_source()
            self.context.paint_with_alpha(opacity)

    def paint(self, style: Mapping[str, str], opacity: float) -> None:
        """Fill, then stroke, the current path; a leaf's opacity multiplies both."""
        context = self.context
        fill = colour(style.get("fill", "#000000"))
        if fill is not None:
            self.source(fill, float(style.get("fill-opacity", "1")) * opacity)
            context.fill_preserve()
        self.stroke(style, opacity)
        context.new_path()

    def stroke(self, style: Mapping[str, str], opacity: float) -> None:
        stroke = colour(style.get("stroke"))
        if stroke is None or float(style.get("stroke-width", "1")) <= 0:
            return
        self.context.save()
        pen(self.context, style)
        self.source(stroke, float(style.get("stroke-opacity", "1")) * opacity)
        self.context.stroke_preserve()
        self.context.restore()

    def rect(self, node: ET.Element, style: Mapping[str, str], opacity: float) -> None:
        width, height = _number(node, "width"), _number(node, "height")
        if width and height:  # SVG draws no empty rectangle
            self.context.rectangle(_number(node, "x"), _number(node, "y"), width, height)
            self.paint(style, opacity)

    def circle(self, node: ET.Element, style: Mapping[str, str], opacity: float) -> None:
        radius = _number(node, "r")
        if radius:
            self.context.new_sub_path()
            self.context.arc(_number(node, "cx"), _number(node, "cy"), radius, 0, 2 * math.pi)
            self.context.close_path()
            self.paint(style, opacity)

    def path(self, node: ET.Element, style: Mapping[str, str], opacity: float) -> None:
        d = node.get("d", "")
        if len(d) >= LAYER_MIN and not self.flat:
            self.layered(d, style, opacity)
            return
        trace(self.context, d)
        self.paint(style, opacity)

    def layered(self, d: str, style: Mapping[str, str], opacity: float) -> None:
        """Composite the path from :func:`layer`: the same pixels as painting it here."""
        matrix = tuple(self.context.get_matrix().as_tuple())
        paint = tuple(sorted(style.items()))
        image = layer(d, paint, opacity, matrix, self.size)
        self.context.save()
        self.context.identity_matrix()
        self.context.set_source_surface(image, 0, 0)
        self.context.paint()
        self.context.restore()

    def text(self, node: ET.Element, style: Mapping[str, str], opacity: float) -> None:
        """A text, painted through a small layer kept by everything that decides its pixels.

        Most of a map's labels (the key, the legend, the names of units that did not move) are
        where they were the hour before, letter for letter: each is painted once on a clear
        surface just around it, at the same place to the pixel, and composited from there, kept
        or not (:data:`_texts`), so a picture is the same bytes either way.
        """
        content = words(node.text)
        if not content:
            return
        matrix = tuple(self.context.get_matrix().as_tuple())
        if self.flat or matrix[1:3] != (0.0, 0.0) or not (matrix[4].is_integer() and matrix[5].is_integer()):
            # a board's layer, or a sheet whose drawing is moved by a fraction of a pixel
            if self.flat or not self.beyond_sheet(node, content, style):
                self.lettering(node, content, style, opacity)
            return
        key = (
            content,
            tuple(sorted(node.attrib.items())),
            tuple(sorted(style.items())),
            opacity,
            self.alpha,
            matrix,
        )
        kept = _texts.get(key)
        if kept is None:
            kept = self.text_layer(node, content, style, opacity, matrix)
            if kept is None:  # near the sheet's edge: cairo paints a glyph the clip cuts otherwise
                self.lettering(node, content, style, opacity)
                return
            _texts[key] = kept
            if len(_texts) > TEXTS:
                del _texts[next(iter(_texts))]
        surface, inks = kept
        self.inks |= inks
        context = self.context
        context.save()
        context.identity_matrix()
        context.set_source_surface(surface, 0, 0)  # its device offset puts it in place
        context.paint()
        context.restore()

    def beyond_sheet(self, node: ET.Element, content: str, style: Mapping[str, str]) -> bool:
        """True when no letter of the text can reach the sheet: it stands further from it than
        its size times its length and two more across, twice its size up or down (a window on
        a drawing, a map's inset, leaves most of the drawing's labels out, and painting them
        letter by letter was most of its time). Only such a text is left out: no pixel changes."""
        size = self.font_of(style)[2]
        across, up = size * (len(content) + 2), size * 2
        x, y = _number(node, "x"), _number(node, "y")
        left, top = self.context.user_to_device(x - across, y - up)
        right, bottom = self.context.user_to_device(x + across, y + up)
        return bool(right < 0 or bottom < 0 or left > self.clip[0] or top > self.clip[1])

    def text_layer(
        self,
        node: ET.Element,
        content: str,
        style: Mapping[str, str],
        opacity: float,
        matrix: tuple[float, ...],
    ) -> tuple[Any, frozenset[tuple[tuple[float, float, float], float]]] | None:
        """The text painted alone on a clear surface around it (its device offset puts it in
        place), and the inks it used; None for a text near the sheet's edge or beyond it."""
        family, bold, size = self.font_of(style)
        self.set_font((family, bold, size))
        x_bearing, width, advances = self.measure(content, (family, bold, size))
        ascent, descent = self.context.font_extents()[:2]
        x, y = _number(node, "x"), _number(node, "y")
        margin = 2 * float(style.get("stroke-width", "1")) + size / 2 + 1
        reach = max(abs(x_bearing) + width, sum(advances))
        corners = [
            self.context.user_to_device(x + dx * (reach + margin), y + dy)
            for dx in (-1, 1)
            for dy in (-ascent - margin, descent + margin)
        ]
        left = math.floor(min(c[0] for c in corners)) - 1
        top = math.floor(min(c[1] for c in corners)) - 1
        wide = math.ceil(max(c[0] for c in corners)) + 1 - left
        high = math.ceil(max(c[1] for c in corners)) + 1 - top
        if left < 0 or top < 0 or left + wide > self.clip[0] or top + high > math.floor(self.clip[1]):
            return None
        surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, wide, high)
        # The same transformation as the sheet's, then whole pixels off: cairo works out where a
        # letter falls exactly as on the sheet (a shifted matrix would round half a pixel the
        # other way now and then)
        surface.set_device_offset(-left, -top)
        context = cairo.Context(surface)
        context.set_matrix(cairo.Matrix(*matrix))
        painter = Painter(context, (wide, high), flat=True)
        painter.alpha = self.alpha
        painter.lettering(node, content, style, opacity)
        surface.flush()
        return surface, frozenset(painter.inks)

    @staticmethod
    def font_of(style: Mapping[str, str]) -> tuple[str, bool, float]:
        family = style.get("font-family", "sans-serif").split(",")[0].strip("\"' ")
        return family, style.get("font-weight") == "bold", float(style.get("font-size", SVG_FONT_SIZE))

    def set_font(self, font: tuple[str, bool, float]) -> None:
        if font != self.font:
            self.context.select_font_face(
                font[0], cairo.FONT_SLANT_NORMAL, int(font[1])
            )  # FONT_WEIGHT_BOLD is 1
            self.context.set_font_size(font[2])
            self.font = font

    def lettering(self, node: ET.Element, content: str, style: Mapping[str, str], opacity: float) -> None:
        """Paint the text's letters here, as cairosvg paints them."""
        context = self.context
        font = self.font_of(style)
        self.set_font(font)
        # cairosvg anchors by the ink box (bearing and width), not by the advance
        x_bearing, width, advances = self.measure(content, font)
        shift = {"middle": -(width / 2 + x_bearing), "end": -(width + x_bearing)}
        anchor = shift.get(style.get("text-anchor", "start"), 0.0)
        x = _number(node, "x")
        letters = []
        for letter, advance in zip(content, advances, strict=True):
            letters.append((x, letter))
            x += advance
        y = _number(node, "y")
        fill = colour(style.get("fill", "#000000"))
        if fill is not None:
            self.source(fill, float(style.get("fill-opacity", "1")) * opacity)
            self.each_letter(letters, y, anchor, context.show_text)
        context.new_path()
        if colour(style.get("stroke")) is not None:
            self.each_letter(letters, y, anchor, context.text_path)
            self.stroke(style, opacity)
            context.new_path()

    def measure(self, content: str, font: tuple[str, bool, float]) -> tuple[float, float, tuple[float, ...]]:
        """The ink box's bearing and width of ``content`` in ``font`` (the context's), and each
        letter's advance: cairosvg puts each letter after the one before, by its advance.

        Kept by font, text and transformation (:data:`_measures`): a map's labels come back
        hour after hour, and a letter's advance is the same in every label.
        """
        key = (*font, content, tuple(self.context.get_matrix().as_tuple()))
        kept = _measures.get(key)
        if kept is None:
            x_bearing, _, width, _, _, _ = self.context.text_extents(content)
            advances = tuple(self.advance(letter, key[:3], key[4]) for letter in content)
            kept = _measures[key] = (float(x_bearing), float(width), advances)
            if len(_measures) > MEASURES:
                del _measures[next(iter(_measures))]
        return kept

    def advance(self, letter: str, font: tuple[str, bool, float], matrix: tuple[float, ...]) -> float:
        key = ("advance", *font, letter, matrix)
        kept = _measures.get(key)
        if kept is None:
            kept = _measures[key] = (0.0, 0.0, (float(self.context.text_extents(letter)[4]),))
        return kept[2][0]

    def each_letter(
        self, letters: list[tuple[float, str]], y: float, anchor: float, draw: Callable[[str], None]
    ) -> None:
        """Show (or outline) the letters one by one, as cairosvg does.

        It moves to each letter, then by the anchor's shift; cairo keeps the current point in
        1/256 pixel, so those two roundings decide on which side of a pixel a glyph's edge
        falls, and drawing the whole string at once would differ by a pixel here and there.
        """
        context = self.context
        for x, letter in letters:
            context.move_to(x, y)
            context.rel_move_to(anchor, 0)
            if not letter.isspace():
                draw(letter)


#: texts' measures kept (:meth:`Painter.measure`), oldest forgotten first: values cairo gives
#: for the key alone, so a picture is the same whether they were kept or not
MEASURES = 4096
#: texts' layers kept (:meth:`Painter.text`), oldest forgotten first: a map has some 30 texts
#: outside its board, each a few kB
TEXTS = 512
_texts: dict[tuple[Any, ...], tuple[Any, frozenset[tuple[tuple[float, float, float], float]]]] = {}
_measures: dict[tuple[Any, ...], tuple[float, float, tuple[float, ...]]] = {}


def _number(node: ET.Element, name: str) -> float:
    return float(node.get(name, "0"))


Shape = Callable[[Painter, ET.Element, Mapping[str, str], float], None]
SHAPES: Mapping[str, Shape] = {
    "rect": Painter.rect,
    "circle": Painter.circle,
    "path": Painter.path,
    "text": Painter.text,
}


@lru_cache(maxsize=LAYERS)
def layer(
    d: str,
    paint: tuple[tuple[str, str], ...],
    opacity: float,
    matrix: tuple[float, ...],
    size: tuple[int, int],
) -> Any:
    """Path ``d`` painted alone on a clear cairo ``ImageSurface`` of ``size`` (ARGB32).

    Shared by every map that has the same path at the same place and size: it is only ever a
    source to paint from, never drawn on again (a copy of its 1.1 MB for each use cost more
    than compositing it).
    """
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, *size)
    context = cairo.Context(surface)
    context.set_matrix(cairo.Matrix(*matrix))
    trace(context, d)
    Painter(context, size).paint(dict(paint), opacity)
    surface.flush()
    return surface
