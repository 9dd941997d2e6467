# SPDX-License-Identifier: GPL-3.0-or-later
"""A map's board layers as text: cut out, kept once by digest, put back byte for byte.

A drawer marks the part of its map that is the same every hour of a game (Flat Top's printed
board: sea, land, grid, names) as groups with ``data-layer="<bottom>"``. The painter
(:mod:`.raster`) paints such a group once (:func:`cut_layers`); an archive keeps it once
(:func:`factored`: a whole Coral Sea game's 80 maps held the same two groups, 13 of their 15 MB)
and puts it back where the map is checked against what was sent (:func:`restored`), or shows it
beside the hour's overlay as a picture of its own (:func:`with_pictures`, :func:`layer_file`).
Text only: nothing here needs cairo.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Mapping

from mailbot.render.maps.svgsubset import NUMBER

_LAYER_OPEN = re.compile(r'<g\b[^>]*?\sdata-layer="(' + NUMBER + r')"[^>]*?(/?)>')
_GROUP = re.compile(r"<g\b[^>]*?(/?)>|</g>")


#: layers cut out lately, by their opening tag: the next map of a game has the same board, found
#: by comparing its text (a few hundred groups of names and ids were walked tag by tag each map)
_RECENT = 8  # openings kept, and texts for each
_recent: dict[str, tuple[str, ...]] = {}
_keeping = threading.Lock()  # maps may be drawn in more than one thread at once


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
        end = _known_end(svg, found) or _group_end(svg, found)
        if end < 0:
            return svg, []
        parts += [svg[at : found.start()], f'<g data-layer-ref="{len(layers)}" />']
        layers.append((svg[found.start() : end], float(found.group(1))))
        at = end
    parts.append(svg[at:])
    return "".join(parts), layers


def _known_end(svg: str, found: re.Match[str]) -> int:
    """Where the layer opening at ``found`` ends, if its whole text is one cut out lately; else 0."""
    for text in _recent.get(found.group(0), ()):  # a tuple: another thread replaces it whole
        if svg.startswith(text, found.start()):
            return found.start() + len(text)
    return 0


def _group_end(svg: str, found: re.Match[str]) -> int:
    """Where the group opening at ``found`` closes (-1: never), walked tag by tag; its text is
    then kept for :func:`_known_end`."""
    depth = 1
    for tag in _GROUP.finditer(svg, found.end()):
        if tag.group(0) == "</g>":
            depth -= 1
        elif not tag.group(1):
            depth += 1
        if depth == 0:
            opening = found.group(0)
            with _keeping:
                _recent[opening] = (svg[found.start() : tag.end()], *_recent.get(opening, ()))[:_RECENT]
                while len(_recent) > _RECENT:
                    del _recent[next(iter(_recent))]
            return tag.end()
    return -1


#: where :func:`factored` left a layer: its digest and its bottom
_REF = re.compile(r'<g data-layer-ref="sha256:([0-9a-f]{64})" data-layer="(' + NUMBER + r')" />')
_ROOT = re.compile(r'<svg\b[^>]*?\sviewBox="0 0 (' + NUMBER + r") " + NUMBER + r'"')


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def factored(svg: str) -> tuple[str, dict[str, str]]:
    """``svg`` with each board layer replaced by ``<g data-layer-ref="sha256:<digest>"
    data-layer="<bottom>" />``, and the layers by digest (:func:`restored` undoes it)."""
    rest, layers = cut_layers(svg)
    kept: dict[str, str] = {}
    for n, (text, bottom) in enumerate(layers):
        key = digest(text)
        kept[key] = text
        rest = rest.replace(
            f'<g data-layer-ref="{n}" />', f'<g data-layer-ref="sha256:{key}" data-layer="{bottom:g}" />', 1
        )
    return rest, kept


def restored(svg: str, layers: Mapping[str, str]) -> str:
    """The map :func:`factored` made ``svg`` from, byte for byte; a layer ``layers`` lacks is
    left as its reference (the map then differs from the one sent, and says so when checked)."""
    return _REF.sub(lambda found: layers.get(found.group(1), found.group(0)), svg)


def with_pictures(svg: str, href: Callable[[str], str]) -> str:
    """A :func:`factored` map with each layer shown as a picture of its own (``<image>``, from
    ``href(digest)``: a :func:`layer_file`), the width of the sheet and the layer's height."""
    found = _ROOT.search(svg)
    width = found.group(1) if found else "100%"

    def picture(ref: re.Match[str]) -> str:
        return f'<image href="{href(ref.group(1))}" x="0" y="0" width="{width}" height="{ref.group(2)}" />'

    return _REF.sub(picture, svg)


def layer_file(text: str, width: str, bottom: str, inherited: str = "") -> str:
    """A layer as an SVG file of its own, in the map's units from its top left corner;
    ``inherited``: attributes its root gives it for what the map's root gave (its font)."""
    size = f'width="{width}" height="{bottom}" viewBox="0 0 {width} {bottom}"'
    head = f'<svg xmlns="http://www.w3.org/2000/svg" {size}{" " + inherited if inherited else ""}>'
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{head}\n{text}\n</svg>\n'


def layer_bottom(text: str) -> str:
    """A layer's bottom in the map's units, as its ``data-layer`` says."""
    found = _LAYER_OPEN.match(text)
    return found.group(1) if found else "0"


def sheet_width(svg: str) -> str:
    """The width of a map's sheet in its own units (its ``viewBox``)."""
    found = _ROOT.search(svg)
    return found.group(1) if found else "0"
