# SPDX-License-Identifier: GPL-3.0-or-later
"""An opaque cairo picture as a PNG file, written with the stdlib (``zlib``) instead of cairo.

cairo's ``write_to_png`` always keeps the alpha channel and compresses at libpng's default level:
for a 640 px map that took 15 ms, a quarter of a whole game hour. A map is opaque (its sheet is a
white rectangle), so three bytes a pixel say it all, and deflate's fastest level still makes
smaller files than cairo did (97 kB against 110 kB on average for the Coral Sea maps of a day)
in a fraction of the time.
Where a few pixels are not opaque (the last row, when the sheet's height in pixels was rounded
up) the file keeps alpha, unpremultiplied the way cairo does it; a picture with much
transparency goes the long way, through cairo.

Deflating is still the dearest part, and one side's map changes little from one hour to the
next (the title, a label, the clouds when they move). So the rows are deflated in bands of
:data:`BAND_ROWS`, each band on its own and ended by a flush to a byte boundary (as pigz does:
one valid zlib stream), and a band seen before is taken from :data:`BANDS`, kept by the SHA-256
of its bytes. The same pixels give the same bytes (deflate is deterministic for one zlib build).
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import sys
import threading
import zlib
from collections import OrderedDict
from itertools import chain
from typing import Any

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: deflate level: 1 is the fastest; higher levels cost twice the time for a quarter fewer bytes
LEVEL = 1
NO_FILTER = b"\x00"  # a row's filter type byte: none
ZLIB_HEADER = b"\x78\x01"  # deflate, 32 kB window, fastest level (a header check multiple of 31)
LAST_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman codes): ends the deflate stream
RGB, RGBA = 2, 6  # PNG colour types: truecolour without and with alpha
#: where red, green, blue and alpha sit in a pixel's four bytes: cairo's ARGB32 is a native-endian
#: 32-bit word, so B, G, R, A in memory on a little-endian machine and A, R, G, B on a big-endian one
CHANNELS = (2, 1, 0, 3) if sys.byteorder == "little" else (1, 2, 3, 0)
#: at most one pixel in this many may be translucent for the stdlib path (each costs Python work)
TRANSLUCENT_SHARE = 16
_TRANSLUCENT = re.compile(b"[^\xff]")


def encode(surface: Any) -> bytes:
    """The PNG of a cairocffi ``ImageSurface`` in ``FORMAT_ARGB32``."""
    surface.flush()
    width, height = int(surface.get_width()), int(surface.get_height())
    pixels = bytes(surface.get_data())
    rgb = opaque_rgb(pixels, width * height)
    if rgb is not None:
        return png(width, height, rgb, RGB)
    rgba = mostly_opaque_rgba(pixels, width * height)
    if rgba is not None:
        return png(width, height, rgba, RGBA)
    return via_cairo(surface)


def opaque_rgb(pixels: bytes, count: int) -> bytearray | None:
    """The RGB bytes of ``count`` native-endian ARGB32 pixels; None when one is not fully opaque.

    Premultiplied and plain colour are the same where alpha is 255, so the bytes are only
    reordered (slice assignment runs in C, no loop over pixels in Python).
    """
    red, green, blue, alpha = CHANNELS
    if pixels[alpha::4].count(255) != count:
        return None
    rgb = bytearray(3 * count)
    rgb[0::3] = pixels[red::4]
    rgb[1::3] = pixels[green::4]
    rgb[2::3] = pixels[blue::4]
    return rgb


def mostly_opaque_rgba(pixels: bytes, count: int) -> bytearray | None:
    """RGBA bytes with plain (unpremultiplied) colour; None when too many pixels need unpremultiplying."""
    alphas = pixels[CHANNELS[3] :: 4]
    if count - alphas.count(255) > count // TRANSLUCENT_SHARE:
        return None
    rgba = bytearray(4 * count)
    for place, channel in enumerate(CHANNELS):
        rgba[place::4] = pixels[channel::4]
    for found in _TRANSLUCENT.finditer(alphas):
        at, alpha = 4 * found.start(), alphas[found.start()]
        for place in range(3):  # a clear pixel stays 0, 0, 0, 0
            # cairo's own rounding (unpremultiply_data in cairo-png.c)
            rgba[at + place] = (rgba[at + place] * 255 + alpha // 2) // alpha if alpha else 0
    return rgba


def png(width: int, height: int, pixels: bytes | bytearray, kind: int) -> bytes:
    """A truecolour PNG (``kind`` RGB or RGBA) of ``pixels``' rows, each row unfiltered (filter byte 0)."""
    header = struct.pack(">IIBBBBB", width, height, 8, kind, 0, 0, 0)
    rows = zlib_stream(pixels, width * (3 if kind == RGB else 4), height)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", rows) + _chunk(b"IEND", b"")


def zlib_stream(pixels: bytes | bytearray, row: int, height: int) -> bytes:
    """The zlib stream of the image data: each row of ``row`` bytes after its filter byte."""
    view, total, band = memoryview(pixels), row * height, row * BAND_ROWS
    parts, check = [ZLIB_HEADER], 1
    for start in range(0, total, band):
        # Views, not copies: the rows are copied once, by the join.
        rows = range(start, min(start + band, total), row)
        raw = b"".join(chain.from_iterable((NO_FILTER, view[at : at + row]) for at in rows))
        check = zlib.adler32(raw, check)
        parts.append(BANDS.deflate(raw))
    return b"".join((*parts, LAST_BLOCK, struct.pack(">I", check)))


class Bands:
    """Raw deflate of image bands, each ended by a sync flush; the last ``size`` kept by SHA-256.

    Kept by digest, not by the band's bytes, so a kept band costs a few kB (hashing a map's
    megabyte of rows takes half a millisecond; deflating it, three and a half). Locked, since
    the moderator may draw maps on more than one thread.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: OrderedDict[bytes, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def deflate(self, raw: bytes) -> bytes:
        digest = hashlib.sha256(raw).digest()
        with self._lock:
            found = self._kept.get(digest)
            if found is not None:
                self._kept.move_to_end(digest)
                return found
        squeezer = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        deflated = squeezer.compress(raw) + squeezer.flush(zlib.Z_SYNC_FLUSH)
        with self._lock:
            self._kept[digest] = deflated
            if len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return deflated


#: rows deflated together: fewer rows a band find more bands unchanged, more rows deflate better
BAND_ROWS = 32
#: a 640 px map has about 18 bands of about 5 kB deflated: this keeps about fifty maps (5 MB)
BANDS_KEPT = 1024
BANDS = Bands(BANDS_KEPT)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def via_cairo(surface: Any) -> bytes:
    out = io.BytesIO()
    surface.write_to_png(out)
    return out.getvalue()
