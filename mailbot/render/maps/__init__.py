# SPDX-License-Identifier: GPL-3.0-or-later
"""Map pictures: a game's view model in, an SVG (and a PNG for letters) out.

Each drawer reads only ``view["map"]``, the part of a seat's report model the
game built for it (``mailbot/games/<game>/view.py``): a map can show no more
than the seat's letter may tell, and two worlds a seat cannot tell apart give
byte-identical SVG (the no-leak harness compares it). Drawings are made with
drawsvg, never by hand-built XML. The PNG for mail is painted from that SVG:
by :mod:`.raster` (cairo directly, the few SVG features the drawers use, a
few milliseconds) or, for an SVG with more in it, by cairosvg. Each picture is
painted when asked for: a step's maps all differ (the hour is in the title), so
keeping whole pictures found none again.

A game that draws a map says so by its package's ``drawing`` module (``drawing.py`` or a
``drawing/`` package, found by the registry): ``draw(model) -> str`` gives the SVG, and
``PNG_WIDTH`` and ``PNG_COLOURS`` (a palette size), when present, how its PNG is painted;
``CAPTION`` and ``INSET_CAPTION``, when present, the words a letter shows the map and its inset
with, in the game's own terms ("The map of this hour", "The map of this turn"; else "The map");
``inset(model, svg) -> str | None``, when present, a second, zoomed picture of the same drawing
(``INSET_WIDTH`` pixels wide) where the seat's action is (a drawing may hold labels for it,
hidden but in it: ``display="none"``, a ``<view>`` and rules for that view alone, which
:mod:`.raster` paints as cairosvg does).
Flat Top's draws a side's map of the hour, Salt'n'Tar's the course, every ship and the wind.
Other games have no map: :func:`draw_map` answers None.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mailbot.errors import RenderError, UnknownGameError
from mailbot.registry import default_registry

#: default PNG width in pixels: a phone screen's width at two CSS pixels a pixel; wider costs time and bytes
#: in every letter (through cairosvg a 900 px picture took 100 ms to convert, 640 px 60 ms)
PNG_WIDTH = 640
#: a letter's words for a map, and for its zoomed inset, when the game's drawer names none
CAPTION = "The map"
INSET_CAPTION = "The map, zoomed"


def drawing_of(game: str) -> ModuleType | None:
    """The map drawer of the game named ``game``: its package's ``drawing`` module, imported when
    the game's first map is drawn (a drawer reads its game's modules, which a moderator whose
    games draw no map, and every process that draws none, need not load); None: no map."""
    try:
        module = default_registry().find(game).drawing
    except UnknownGameError:
        return None
    return None if module is None else importlib.import_module(module)


class MapError(RenderError):
    """A view's ``map`` entry cannot be drawn (a hex id without coordinates, a missing key)."""


@dataclass(frozen=True)
class MapPicture:
    """One map: the SVG source (kept in the archive) and, on demand, a PNG of it."""

    svg: str
    width: int = PNG_WIDTH
    colours: int | None = None  # a palette of at most this many colours; None: full colour
    inset: str | None = None  # the zoomed picture's SVG: the same drawing, another viewBox
    inset_width: int = PNG_WIDTH // 2
    caption: str = CAPTION  # what a letter calls it: the drawer's CAPTION
    inset_caption: str = INSET_CAPTION

    def png(self, width: int | None = None) -> bytes:
        """The picture ``width`` pixels wide (the drawer's own width unless given); the height
        follows the drawing's proportions."""
        return png_of(self.svg, self.width if width is None else width, self.colours)

    def inset_png(self) -> bytes | None:
        """The inset's PNG, in the map's palette; None when the map has no inset."""
        return None if self.inset is None else png_of(self.inset, self.inset_width, self.colours)


def png_of(svg: str, width: int, colours: int | None = None) -> bytes:
    """``svg`` as a PNG ``width`` pixels wide (in a palette of ``colours`` if given, by
    :mod:`.raster` only); the same SVG and width always give the same bytes."""
    try:
        # Loaded on first use: they need the system's libcairo2 (and Pillow), and mailbot runs
        # without them (its letters then go without pictures, see services.reports).
        from mailbot.render.maps import raster
    except (OSError, ImportError) as error:
        raise MapError(f"no PNG: the cairo library or Pillow cannot be loaded ({error})") from error
    painted = raster.render(svg, width, colours)
    if painted is not None:
        return painted
    import cairosvg  # the long way, for an SVG with more than raster paints

    data: bytes = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=width)
    return data


def draw_map(game: str, view: Mapping[str, Any]) -> MapPicture | None:
    """The map of ``view`` for the game named ``game``; None when there is none to draw."""
    model = view.get("map")
    drawing = drawing_of(game) if isinstance(model, Mapping) else None
    if drawing is None or not isinstance(model, Mapping):
        return None
    zoomed = getattr(drawing, "inset", None)
    try:
        svg: str = drawing.draw(model)
        inset: str | None = zoomed(model, svg) if zoomed is not None else None
    except (KeyError, TypeError, ValueError) as error:
        # A view that breaks the schema is a bug in its game; say which part.
        raise MapError(f"{game} map cannot be drawn: {type(error).__name__}: {error}") from error
    width = getattr(drawing, "PNG_WIDTH", PNG_WIDTH)
    inset_width = getattr(drawing, "INSET_WIDTH", width // 2)
    caption = str(getattr(drawing, "CAPTION", CAPTION))
    inset_caption = str(getattr(drawing, "INSET_CAPTION", INSET_CAPTION))
    colours = getattr(drawing, "PNG_COLOURS", None)
    return MapPicture(svg, width, colours, inset, inset_width, caption, inset_caption)
