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

The PNG file is written by pypng around the pixels Pillow reorders, deflated by zlib in bands
when in a palette (:func:`palette_png`), by ISA-L in full colour (:func:`png`).
"""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET
from typing import Any

import cairocffi as cairo

from mailbot.render.maps.layers import cut_layers
from mailbot.render.maps.raster.encode import (
    BAND_ROWS,
    _bands,
    _board_palette,
    _commonest,
    _ground,
    _quantised,
    adler32_combine,
    deflate_in_bands,
    palette_of,
    palette_png,
    png,
)
from mailbot.render.maps.raster.paint import (
    LAYER_MIN,
    Painter,
    Unsupported,
    _board_layers,
    _measures,
    _run,
    _shifted_widths,
    _texts,
    board_layer,
    layer,
)
from mailbot.render.maps.svgsubset import supported

__all__ = [
    "BAND_ROWS",
    "LAYER_MIN",
    "Unsupported",
    "adler32_combine",
    "board_layer",
    "clear_board_layers",
    "cut_layers",
    "deflate_in_bands",
    "layer",
    "palette_of",
    "render",
    "sheet",
]


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


def clear_board_layers() -> None:
    """Forget every kept board layer and palette."""
    _board_layers.clear()
    _shifted_widths.clear()
    for cached in (palette_of, _ground, _commonest, _board_palette, _run):
        cached.cache_clear()
    _measures.clear()
    _texts.clear()
    _bands.clear()
    _quantised.clear()


#: each thread's last sheet, painted on again when the next map has its size (a tick's reports
#: may be written in more than one thread at once: each has its own)
_sheets = threading.local()


def _blank(width: int, height: int) -> Any:
    """A clear ARGB32 surface of ``width`` x ``height``: this thread's last sheet of that size,
    cleared, or a new one. A new 960 x 729 surface took 1.5 ms (its 2.8 MB mapped page by
    page), clearing a used one a tenth of that; every pixel is read before the next map is
    painted (:func:`render` copies what it keeps), so reusing it changes no picture."""
    kept = getattr(_sheets, "surface", None)
    if kept is None or (kept.get_width(), kept.get_height()) != (width, height):
        kept = _sheets.surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, height)
        return kept
    clear = cairo.Context(kept)
    clear.set_operator(cairo.OPERATOR_CLEAR)
    clear.paint()
    return kept


def sheet(root: ET.Element, width: int) -> tuple[Any, Any]:
    """The surface and its context, set up exactly as cairosvg sets them up.

    The height in pixels is the drawing's, scaled and rounded (half to even: cairosvg uses
    Python's ``round`` too); the drawing is clipped to the unrounded height and scaled by the
    smaller of the two ratios (its viewBox "meets" the sheet), centred, the viewBox's corner at
    the sheet's. That ratio can differ from ``width / svg width`` in the last bits, and the last
    bits decide where a glyph's edge falls, so they are worked out the same way.
    """
    svg_width, svg_height = float(root.get("width", "0")), float(root.get("height", "0"))
    box = [float(v) for v in root.get("viewBox", f"0 0 {svg_width} {svg_height}").split()]
    pixels_wide, pixels_high = float(width), svg_height * (width / svg_width)
    surface = _blank(round(pixels_wide), round(pixels_high))
    context = cairo.Context(surface)
    context.rectangle(0, 0, pixels_wide, pixels_high)
    context.clip()
    scale = min(pixels_wide / box[2], pixels_high / box[3])
    context.scale(scale, scale)
    # centred, and moved by the viewBox's corner (a window on the drawing: a map's inset)
    context.translate(
        (pixels_wide / scale - box[2]) / 2 - box[0], (pixels_high / scale - box[3]) / 2 - box[1]
    )
    return surface, context
