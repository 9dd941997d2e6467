# SPDX-License-Identifier: GPL-3.0-or-later
"""A map's SVG painted with cairo directly: the small part of SVG the drawers write, quickly.

cairosvg reads any SVG and pays for that in Python: a Coral Sea map took 50-65 ms to convert,
most of it spent reading the hex grid's path one point at a time. The drawers (``flattop``,
``saltntar``) write only ``rect``, ``circle``, ``path`` (M, L, H, V, Z, absolute or relative), ``text``
without ``tspan``, ``g`` and ``title``, in flat ``#rgb`` colours with opacities, dashes,
joins and caps (:mod:`.svgsubset`). :func:`render` paints exactly that with the cairo calls
cairosvg makes for it (the same scale and clip, text filled as glyphs and stroked as outlines
letter by letter, ink-box anchoring, miter limit 4, a group's opacity through an intermediate
group) and answers None for an SVG with anything more in it: the caller then asks cairosvg, so
a new drawing feature is never lost, only slower until it is taught here.
``tests/render/test_map_raster.py`` compares the two pictures pixel by pixel. Only cairocffi's
public API is used: calling libcairo through its cffi pointer saved 0.35 ms a map, not worth
depending on a private attribute.

A long path (a hex grid outside a board layer) is painted once into a layer kept by content
(:func:`layer`, a small LRU): the next hour's map, which has the same grid, composites it in
well under a millisecond, where painting the grid point by point took 10-14 ms. The key holds
everything that decides the layer's pixels (the path, its paint, the transformation and the
size), so a layer shows nothing its key does not say.

A group marked ``data-layer="<bottom>"`` (Flat Top's printed board: sea, land, grid, names
and the grid's ids, the same every hour of a game) is cut out of the SVG text before it is
read, and painted once into a layer of its own, ``bottom`` units high (:func:`board_layer`,
kept by the group's text, the transformation, the width and the inherited style): each
later map reads only its hour's overlay and composites the board in a millisecond, where
painting its few hundred names letter by letter took most of a picture's time. The group
is always painted through its layer, kept or not, so a picture is the same bytes either way.

A text is painted once onto a small clear surface around it, placed on the sheet by whole
pixels (a device offset, so cairo places its letters exactly as on the sheet), and
composited from there: most labels of an hour's map are the previous hour's, to the pixel.
A text whose surface would reach the sheet's edge is painted on the sheet. A path's pieces
(a cloud hex) are read once and kept by their text.

The PNG file is written by pypng around the pixels Pillow reorders, deflated by ISA-L
(:func:`png`).
"""

from __future__ import annotations

import io
import math
import re
import sys
import xml.etree.ElementTree as ET
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import cairocffi as cairo  # type: ignore[import-untyped]
import png as pypng  # type: ignore[import-untyped]
from isal import isal_zlib
from PIL import Image

from mailbot.render.maps.svgsubset import INHERITED, NS, NUMBER, colour, supported, supported_part, words

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
#: ISA-L's deflate level for the PNG (0-3): 1, as fast as 0 and a sixth smaller; 2 and 3 saved
#: about 1% more (cairo's own write_to_png, zlib level 6, took 13 ms a Coral Sea map)
PNG_LEVEL = 1
#: Pillow's name for cairo's ARGB32 (a native-endian 32-bit word, colour premultiplied by alpha)
#: as it lies in memory: B, G, R, A on a little-endian machine, A, R, G, B on a big-endian one
CAIRO_RAW = "BGRa" if sys.byteorder == "little" else "aRGB"


def render(svg: str, width: int, colours: int | None = None) -> bytes | None:
    """The PNG of ``svg`` ``width`` pixels wide; None if ``svg`` is more than :mod:`.svgsubset` allows.

    ``colours``: at most that many, in a palette (:func:`png`)."""
    rest, layers = cut_layers(svg)
    root = ET.fromstring(rest)
    if not supported(root):
        return None
    surface, context = sheet(root, width)
    painter = Painter(context, (surface.get_width(), surface.get_height()), layers)
    painter.clip = context.user_to_device(*context.clip_extents()[2:])  # in pixels
    try:
        painter.node(root, {})
    except Unsupported:
        return None
    if colours is None:
        return png(surface)
    kept = palette_of(tuple(painter.boards), frozenset(painter.inks), colours) if painter.boards else None
    return palette_png(surface, colours, kept)


class Unsupported(Exception):
    """A layer holds SVG beyond :mod:`.svgsubset`: the picture goes to cairosvg."""


_LAYER_OPEN = re.compile(r'<g\b[^>]*?\sdata-layer="(' + NUMBER + r')"[^>]*?(/?)>')
_GROUP = re.compile(r"<g\b[^>]*?(/?)>|</g>")


def cut_layers(svg: str) -> tuple[str, list[tuple[str, float]]]:
    """``svg`` with each ``data-layer`` group replaced by ``<g data-layer-ref="<n>" />``, and
    the groups' text with their bottoms, by n. An SVG whose groups do not close is left whole
    (the XML reader says what is wrong with it)."""
    parts: list[str] = []
    layers: list[tuple[str, float]] = []
    at = 0
    for found in _LAYER_OPEN.finditer(svg):
        if found.start() < at or found.group(2):
            continue  # inside a layer already cut out, or empty
        depth, end = 1, -1
        for tag in _GROUP.finditer(svg, found.end()):
            if tag.group(0) == "</g>":
                depth -= 1
            elif not tag.group(1):
                depth += 1
            if depth == 0:
                end = tag.end()
                break
        if end < 0:
            return svg, []
        parts += [svg[at : found.start()], f'<g data-layer-ref="{len(layers)}" />']
        layers.append((svg[found.start() : end], float(found.group(1))))
        at = end
    parts.append(svg[at:])
    return "".join(parts), layers


#: board layers kept (:func:`board_layer`): a map has two; another height of sheet or another
#: board is another pair
BOARD_LAYERS = 8
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


def clear_board_layers() -> None:
    """Forget every kept board layer and palette."""
    _board_layers.clear()
    for cached in (palette_of, _ground, _commonest, _board_palette, _run):
        cached.cache_clear()
    _measures.clear()
    _texts.clear()
    _bands.clear()
    _quantised.clear()


#: ISA-L's deflate level for a palette PNG's bands (0-3; ISA-L's levels differ little in size).
#: zlib at level 3 made a Coral Sea map of 89 kB in 6 ms (all 24 bands), ISA-L at level 1 one of
#: 115 kB in 1.6 ms: an hour whose clouds moved deflates some 40 bands again, and zlib's way
#: made the hour through the store slower than main's (whose full-colour PNG was 172 kB)
PALETTE_LEVEL = 1


#: the most common colours of a board a translucent ink is blended over for the palette
GROUNDS = 3


@lru_cache(maxsize=16)
def palette_of(
    boards: tuple[Any, ...], inks: frozenset[tuple[tuple[float, float, float], float]], colours: int
) -> Any:
    """A palette image of at most ``colours`` colours for a picture painted over ``boards``
    (:func:`board_layer`'s surfaces, in order, on white) with ``inks`` (:attr:`Painter.inks`).

    The hour's overlay is a few flat colours: each is in the palette as it is, and a
    translucent one also as it shows over the board's commonest colours; the rest are the
    board's own, quantised once. A pure function of its arguments (the boards are kept by
    content), so a picture is the same bytes whether the palette was kept or not.
    """
    common = _commonest(boards, colours)
    wanted: list[tuple[int, int, int]] = []
    for rgb, alpha in sorted(inks):
        share = min(alpha, 1.0)
        ink = [round(255 * v) for v in rgb]
        for under in common if share < 1 else [(0, 0, 0)]:
            r, g, b = (round(a * share + u * (1 - share)) for a, u in zip(ink, under, strict=True))
            if (r, g, b) not in wanted:
                wanted.append((r, g, b))
    wanted = wanted[: colours // 2]
    room = colours - len(wanted)
    palette = [*_board_palette(boards, room), *(v for rgb in wanted for v in rgb)]
    image = Image.new("P", (1, 1))
    image.putpalette(palette)
    return image


# The board's part of a palette is kept apart from the inks' (an hour with another set of inks
# quantises no board again): the same values whether kept or not.
@lru_cache(maxsize=4)
def _ground(boards: tuple[Any, ...]) -> Image.Image:
    """``boards`` composited in order on white, as an RGB image."""
    first = boards[0]
    base = cairo.ImageSurface(cairo.FORMAT_ARGB32, first.get_width(), first.get_height())
    context = cairo.Context(base)
    context.set_source_rgb(1, 1, 1)
    context.paint()
    for board in boards:
        context.set_source_surface(board, 0, 0)
        context.paint()
    return _opaque_rgb(base)


@lru_cache(maxsize=8)
def _commonest(boards: tuple[Any, ...], colours: int) -> list[tuple[int, int, int]]:
    """The :data:`GROUNDS` commonest colours of ``boards`` quantised to ``colours``."""
    quantised = _ground(boards).quantize(colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    counts = sorted(quantised.getcolors(colours) or [], key=lambda c: (-c[0], c[1]))
    flat = quantised.getpalette() or [0, 0, 0]
    indices = [i for _, i in counts[:GROUNDS] if isinstance(i, int)]  # a P image's colours are indices
    return [(int(flat[3 * i]), int(flat[3 * i + 1]), int(flat[3 * i + 2])) for i in indices]


@lru_cache(maxsize=16)
def _board_palette(boards: tuple[Any, ...], room: int) -> tuple[int, ...]:
    """``boards``' own colours quantised to ``room``: a flat RGB palette."""
    own = _ground(boards).quantize(room, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return tuple(own.getpalette() or [])[: 3 * room]


#: Pillow's name for cairo's ARGB32 read without its alpha (an opaque sheet needs no unpremultiplying)
CAIRO_RGB = "BGRX" if sys.byteorder == "little" else "XRGB"


def _opaque_rgb(surface: Any) -> Image.Image:
    """An opaque cairo surface's pixels as an RGB image (a half-covered last row stays as
    cairo premultiplied it: darker, never transparent)."""
    surface.flush()
    width, height = surface.get_width(), surface.get_height()
    data = surface.get_data()
    image = Image.frombuffer("RGB", (width, height), data, "raw", CAIRO_RGB, surface.get_stride(), 1)
    image.load()  # "BGRX" is not a mode Pillow can share memory with: the pixels are read into a copy here
    return image


def palette_png(surface: Any, colours: int, palette: Any = None) -> bytes:
    """The PNG file of an opaque cairo ``ImageSurface`` in at most ``colours`` colours, one byte a pixel.

    A whole Flat Top theatre (960 px, a thin grid of some 3,400 hexes) is 290 kB in full
    colour; quantised to 64 colours (Pillow's fast octree, no dithering: the map's colours
    are few and flat, and what is lost is the antialiasing's in-between shades) it is a
    fifth of that. Same pixels, same bytes.
    """
    if palette is not None:
        return _banded_png(surface, palette)
    image = _opaque_rgb(surface)
    quantised = image.quantize(colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    width, height = image.size
    used = len(quantised.getpalette() or ()) // 3
    chosen = quantised.getpalette() or [0, 0, 0]
    # Each row behind its filter byte 0: the picture one pixel wider, index 0 in the first column
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(quantised, (1, 0))
    unfiltered = framed.tobytes()
    out = io.BytesIO()
    entries = [tuple(chosen[3 * i : 3 * i + 3]) for i in range(max(used, 1))]
    pypng.Writer(width, height, palette=entries, bitdepth=8).write_preamble(out)
    pypng.write_chunk(out, b"IDAT", deflate_in_bands(unfiltered, (width + 1) * BAND_ROWS))
    pypng.write_chunk(out, b"IEND")
    return out.getvalue()


#: rows deflated apart (:func:`deflate_in_bands`): half of a map's bands of 32 rows are an
#: earlier hour's; the file is a tenth bigger than deflated whole
BAND_ROWS = 32
#: bands' deflated bytes kept, oldest forgotten first (a Coral Sea map has 23 bands, ~3 kB each)
BANDS = 256
_bands: dict[bytes, bytes] = {}
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 kB window, the fastest levels


def deflate_band(rows: bytes) -> bytes:
    """``rows`` deflated alone, ending on a full flush (so the next band's bytes depend on that
    band alone): a piece of a zlib stream (:data:`_ZLIB_HEADER` ... :data:`_LAST_BLOCK`)."""
    packer = isal_zlib.compressobj(PALETTE_LEVEL, isal_zlib.DEFLATED, -15)
    deflated: bytes = packer.compress(rows) + packer.flush(isal_zlib.Z_FULL_FLUSH)
    return deflated


_LAST_BLOCK = b"\x03\x00"  # an empty final block


def deflate_in_bands(data: bytes, band: int) -> bytes:
    """``data`` as a zlib stream whose every ``band`` bytes are deflated apart (each ends on a
    full flush, so its bytes depend on itself alone): a band an earlier picture had, the same
    rows of sea, board and labels, is not deflated again (:data:`_bands`). The same data give
    the same bytes, kept or not."""
    parts = [_ZLIB_HEADER]
    view = memoryview(data)
    for at in range(0, len(data), band):
        rows = bytes(view[at : at + band])
        deflated = _bands.get(rows)
        if deflated is None:
            deflated = _bands[rows] = deflate_band(rows)
            if len(_bands) > BANDS:
                del _bands[next(iter(_bands))]
        parts.append(deflated)
    parts += [_LAST_BLOCK, zlib.adler32(data).to_bytes(4, "big")]
    return b"".join(parts)


#: bands of a sheet kept quantised and deflated (:func:`_banded_png`): for each palette and
#: place on the sheet the last few bands painted there (two sides' maps of two hours), each
#: with its pixels to compare against (120 kB at 960 px); places kept, the least recent forgotten
BANDS_A_PLACE = 4
PLACES = 48  # two Coral Sea sheets of 24 bands: at most 23 MB
_quantised: OrderedDict[tuple[bytes, int], list[tuple[bytes, bytes, int, int]]] = OrderedDict()


def _banded_png(surface: Any, palette: Any) -> bytes:
    """:func:`palette_png` in ``palette``, band by band: the same bytes as quantising the whole
    sheet and deflating it in bands (a pixel's colour in a given palette depends on that
    pixel alone), but a band whose pixels an earlier sheet had at the same place (the same
    rows of sea, board, labels and clouds) is neither read, quantised nor deflated again
    (:data:`_quantised`, compared byte for byte). Its checksum is the bands' combined
    (:func:`adler32_combine`).
    """
    surface.flush()
    width, height, stride = surface.get_width(), surface.get_height(), surface.get_stride()
    chosen = tuple(palette.getpalette() or (0, 0, 0))
    tone = bytes(chosen)
    pixels = memoryview(surface.get_data())
    parts, checksum = [_ZLIB_HEADER], 1
    for top in range(0, height, BAND_ROWS):
        rows = min(BAND_ROWS, height - top)
        raw = bytes(pixels[top * stride : (top + rows) * stride])
        kept = _band(tone, top, raw)
        if kept is None:
            kept = (raw, *_quantise_band(raw, width, rows, stride, palette))
            _quantised.setdefault((tone, top), []).insert(0, kept)
            del _quantised[(tone, top)][BANDS_A_PLACE:]
            while len(_quantised) > PLACES:
                _quantised.popitem(last=False)
        parts.append(kept[1])
        checksum = adler32_combine(checksum, kept[2], kept[3])
    parts += [_LAST_BLOCK, checksum.to_bytes(4, "big")]
    out = io.BytesIO()
    entries = [chosen[at : at + 3] for at in range(0, len(chosen) - 2, 3)]
    pypng.Writer(width, height, palette=entries, bitdepth=8).write_preamble(out)
    pypng.write_chunk(out, b"IDAT", b"".join(parts))
    pypng.write_chunk(out, b"IEND")
    return out.getvalue()


def _band(tone: bytes, top: int, raw: bytes) -> tuple[bytes, bytes, int, int] | None:
    """The kept band at ``top`` in the palette ``tone`` whose pixels are ``raw``, if any (made
    the most recent of its place, its place the most recent of all)."""
    kept = _quantised.get((tone, top))
    if kept is None:
        return None
    _quantised.move_to_end((tone, top))
    for at, band in enumerate(kept):
        if band[0] == raw:
            kept.insert(0, kept.pop(at))
            return band
    return None


def _quantise_band(raw: bytes, width: int, rows: int, stride: int, palette: Any) -> tuple[bytes, int, int]:
    """A band's pixels in ``palette``, each row behind its filter byte 0, deflated alone (as
    :func:`deflate_in_bands` deflates a band); with the rows' Adler-32 and length."""
    image = Image.frombuffer("RGB", (width, rows), raw, "raw", CAIRO_RGB, stride, 1)
    quantised = image.quantize(palette=palette, dither=Image.Dither.NONE)
    framed = Image.new("P", (width + 1, rows), 0)
    framed.paste(quantised, (1, 0))
    unfiltered = framed.tobytes()
    return deflate_band(unfiltered), zlib.adler32(unfiltered), len(unfiltered)


_ADLER = 65521  # Adler-32's modulus


def adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 of two pieces from theirs and the second's length (zlib's
    ``adler32_combine``, which Python's zlib does not offer)."""
    rem = length % _ADLER
    low = first & 0xFFFF
    high = (rem * low) % _ADLER
    low = (low + (second & 0xFFFF) + _ADLER - 1) % _ADLER
    high = (high + (first >> 16) + (second >> 16) + _ADLER - rem) % _ADLER
    return low | (high << 16)


def png(surface: Any) -> bytes:
    """The PNG file of a cairo ``ImageSurface`` in ``FORMAT_ARGB32``; the same pixels give the same bytes.

    Without alpha when every pixel is opaque (a map's sheet is a white rectangle): a quarter
    fewer bytes to deflate. Where the sheet's height was rounded up, its last row is partly
    covered and keeps its alpha, as cairosvg writes it. Pillow reorders and unpremultiplies
    the pixels; the rows go unfiltered (filter byte 0), where Pillow's own writer tries five
    filters on every row (4.7 ms a map against 9.3, for 58 kB against 69). ISA-L deflates them
    in one piece, four times as fast as zlib at the same level and size (0.7 ms against 3.1
    for a 640 x 547 map); pypng writes the file's header and chunks around them.
    """
    surface.flush()
    width, height = surface.get_width(), surface.get_height()
    image = Image.frombuffer(
        "RGBa", (width, height), surface.get_data(), "raw", CAIRO_RAW, surface.get_stride(), 1
    )
    opaque = image.getchannel("a").getextrema() == (255, 255)
    mode = "RGB" if opaque else "RGBA"
    pixels = memoryview(image.convert(mode).tobytes())
    row = width * len(mode)
    rows = (pixels[at : at + row] for at in range(0, len(pixels), row))
    unfiltered = b"".join(part for pixel_row in rows for part in (b"\0", pixel_row))
    out = io.BytesIO()
    pypng.Writer(width, height, greyscale=False, alpha=not opaque).write_preamble(out)
    pypng.write_chunk(out, b"IDAT", isal_zlib.compress(unfiltered, PNG_LEVEL))
    pypng.write_chunk(out, b"IEND")
    return out.getvalue()


def sheet(root: ET.Element, width: int) -> tuple[Any, Any]:
    """The surface and its context, set up exactly as cairosvg sets them up.

    The height in pixels is the drawing's, scaled and rounded (half to even: cairosvg uses
    Python's ``round`` too); the drawing is clipped to the unrounded height and scaled by the
    smaller of the two ratios (its viewBox "meets" the sheet), centred. That ratio can differ
    from ``width / svg width`` in the last bits, and the last bits decide where a glyph's edge
    falls, so they are worked out the same way.
    """
    svg_width, svg_height = float(root.get("width", "0")), float(root.get("height", "0"))
    box = [float(v) for v in root.get("viewBox", f"0 0 {svg_width} {svg_height}").split()]
    pixels_wide, pixels_high = float(width), svg_height * (width / svg_width)
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, round(pixels_wide), round(pixels_high))
    context = cairo.Context(surface)
    context.rectangle(0, 0, pixels_wide, pixels_high)
    context.clip()
    scale = min(pixels_wide / box[2], pixels_high / box[3])
    context.scale(scale, scale)
    context.translate((pixels_wide / scale - box[2]) / 2, (pixels_high / scale - box[3]) / 2)
    return surface, context


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
        if tag in ("title", "defs"):
            return
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
        """Composite a group cut out of the SVG (:func:`board_layer`)."""
        matrix = tuple(self.context.get_matrix().as_tuple())
        image = board_layer(text, bottom, style, matrix, self.size[0])
        self.boards.append(image)
        self.context.save()
        self.context.identity_matrix()
        self.context.set_source_surface(image, 0, 0)
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
        if self.flat or matrix[1:3] != (0.0, 0.0) or matrix[4:] != (0.0, 0.0):
            # a board's layer, or a sheet whose drawing is moved, not only scaled
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
