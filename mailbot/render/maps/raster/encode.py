# SPDX-License-Identifier: GPL-3.0-or-later
"""A painted map as a PNG file: full colour (:func:`png`), or in a palette shared by the hours
of a game (:func:`palette_png`), its rows deflated in bands that are kept and reused."""

from __future__ import annotations

import io
import sys
import zlib
from collections import OrderedDict
from functools import lru_cache
from typing import Any

import cairocffi as cairo
import png as pypng
from isal import isal_zlib
from PIL import Image

#: ISA-L's deflate level for the PNG (0-3): 1, as fast as 0 and a sixth smaller; 2 and 3 saved
#: about 1% more (cairo's own write_to_png, zlib level 6, took 13 ms a Coral Sea map)
PNG_LEVEL = 1
#: Pillow's name for cairo's ARGB32 (a native-endian 32-bit word, colour premultiplied by alpha)
#: as it lies in memory: B, G, R, A on a little-endian machine, A, R, G, B on a big-endian one
CAIRO_RAW = "BGRa" if sys.byteorder == "little" else "aRGB"


#: zlib's deflate level for a palette PNG's bands. With the board on the pixel grid (flattop
#: ``drawing.board``) its rows repeat a hex's height apart, which zlib's lazy matching from level 3
#: finds and ISA-L's greedy one does not: a Coral Sea map of 54 kB in 1.9 ms (all 23 bands), where
#: ISA-L at level 1 made 66 kB in 0.8 ms, zlib at level 5 47 kB in 3.3 ms and at level 9 39 kB in
#: 40 ms (a map's board layer alone is 51 kB at level 1, its clouds another 12). Most bands are
#: an earlier map's, not deflated again. (zlib at level 3 took 6 ms for 89 kB when the grid's
#: pixels differed hex by hex.)
PALETTE_LEVEL = 3


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
_ZLIB_HEADER = b"\x78\x5e"  # deflate, 32 kB window, levels 2 to 5


def deflate_band(rows: bytes) -> bytes:
    """``rows`` deflated alone, ending on a full flush (so the next band's bytes depend on that
    band alone): a piece of a zlib stream (:data:`_ZLIB_HEADER` ... :data:`_LAST_BLOCK`)."""
    packer = zlib.compressobj(PALETTE_LEVEL, zlib.DEFLATED, -15)
    deflated: bytes = packer.compress(rows) + packer.flush(zlib.Z_FULL_FLUSH)
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
