# SPDX-License-Identifier: GPL-3.0-or-later
"""A report's map as an archive's page shows it: the hour's overlay, and pictures kept once.

A map is saved as the hour's overlay with its board layers (``render.maps.layers``: the same
every hour of a game) as pictures of their own under :data:`LAYERS_FOLDER`, once for the whole
site. The overlay's own large shapes that many maps share (a Flat Top hour's clouds and storms,
the same on both sides' maps and for hours on end: 1.2 of a game's 3.6 MB of overlays), and its
legend, are kept the same way (:func:`shared_shapes`). ``verify.py`` puts each picture back as the text it was
(``Checker.layer_text``) before it checks the map against the chain, so the page's map is
checked whole: nothing here changes what was drawn, only where its text is kept.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from mailbot.render.maps.layers import digest, factored, layer_bottom, layer_file, sheet_width, with_pictures
from mailbot.render.maps.svgsubset import view_rules

#: a map's board layers and shared shapes, once for the whole site, from the site's root
LAYERS_FOLDER = "steps/layers"
#: the shortest shape worth a picture of its own (its <image> and file take about 200 bytes)
SHARED_SHAPE = 1500

_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)\b[^<>]*?(/?)>")
_STYLE = re.compile(r"<style\b[^>]*>([^<]*)</style>")
_CLASS = re.compile(r'\sclass="([^"]*)"')
_HEIGHT = re.compile(r'<svg\b[^>]*?\sviewBox="0 0 [-+\d.eE]+ ([-+\d.eE]+)"')


def save_map(svg: str, path: str, files: MutableMapping[str, bytes]) -> None:
    """The map at ``path`` as the hour's overlay, its board layers and shared shapes pictures
    of their own in :data:`LAYERS_FOLDER` (a browser shows them together, a page through
    ``<object>``)."""
    overlay, layers = factored(svg)
    width = sheet_width(svg)
    up = "../" * (path.count("/") - 1)
    for key, text in layers.items():
        bottom = layer_bottom(text)
        files.setdefault(f"{LAYERS_FOLDER}/{key}.svg", layer_file(text, width, bottom).encode("utf-8"))
    shown = with_pictures(overlay, lambda key: f"{up}layers/{key}.svg")
    files[path] = shared_shapes(shown, f"{up}layers", files).encode("utf-8")


def shared_shapes(svg: str, href: str, files: MutableMapping[str, bytes]) -> str:
    """``svg`` with each large shape standing alone at its top (a self-closing element of at
    least :data:`SHARED_SHAPE` characters straight under ``<svg>``) shown as a picture of its
    own, a :func:`layer_file` of the whole sheet named by its text's digest. Only there: inside
    a group a shape would lose what it inherits, and a shape or legend the map's stylesheet may
    style is left in place (a picture is not styled by it): a stylesheet of view rules styles
    only the classes it names (``svgsubset.view_rules``: a Flat Top map's inset labels), any
    other keeps the whole map as it is."""
    found = _HEIGHT.search(svg)
    styled = _view_styled(svg)
    if found is None or styled is None:
        return svg
    width, height = sheet_width(svg), found.group(1)
    if "legend" not in styled:
        svg = _shared_legend(svg, href, files, width, height)
    parts: list[str] = []
    at = depth = 0
    for tag in _TAG.finditer(svg):
        closing, alone = bool(tag.group(1)), bool(tag.group(3))
        if depth == 1 and alone and len(tag.group(0)) >= SHARED_SHAPE and not _styled(tag.group(0), styled):
            text = tag.group(0)
            key = digest(text)
            files.setdefault(f"{LAYERS_FOLDER}/{key}.svg", layer_file(text, width, height).encode("utf-8"))
            picture = f'<image href="{href}/{key}.svg" x="0" y="0" width="{width}" height="{height}" />'
            parts += [svg[at : tag.start()], picture]
            at = tag.end()
        depth += -1 if closing else 0 if alone else 1
    parts.append(svg[at:])
    return "".join(parts)


def _view_styled(svg: str) -> frozenset[str] | None:
    """The classes ``svg``'s stylesheet of view rules styles (none without one); None when it
    has any other stylesheet."""
    if "<style" not in svg:
        return frozenset()
    sheets = _STYLE.findall(svg)
    if len(sheets) != svg.count("<style"):
        return None
    found = [view_rules(sheet) for sheet in sheets]
    return None if None in found else frozenset().union(*(f for f in found if f is not None))


def _styled(tag: str, classes: frozenset[str]) -> bool:
    """Whether the element ``tag`` opens has one of ``classes``."""
    found = _CLASS.search(tag)
    return found is not None and not classes.isdisjoint(found.group(1).split())


#: a map's legend: a group straight under the root holding no group, the same on most maps of a game
_LEGEND = re.compile(r'\n<g class="legend">(?:(?!<g\b)[^\0])*?</g>(?=\n)')
_FONT = re.compile(r'<svg\b[^>]*?\s(font-family="[^"]*")')


def _shared_legend(svg: str, href: str, files: MutableMapping[str, bytes], width: str, height: str) -> str:
    """``svg`` with its legend shown as a picture of its own, as :func:`shared_shapes` shows a
    large shape (the legend in every map was 0.34 MB of a Coral Sea game's archive). Its file
    names the font the legend's texts inherit from the map's root."""
    legend = _LEGEND.search(svg)
    if legend is None:
        return svg
    text = legend.group(0).removeprefix("\n")
    key = digest(text)
    font = _FONT.search(svg)
    shown = layer_file(text, width, height, font.group(1) if font else "")
    files.setdefault(f"{LAYERS_FOLDER}/{key}.svg", shown.encode("utf-8"))
    picture = f'<image href="{href}/{key}.svg" x="0" y="0" width="{width}" height="{height}" />'
    return svg[: legend.start()] + "\n" + picture + svg[legend.end() :]
