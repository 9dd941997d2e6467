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
from mailbot.verifier import maps as verify_maps

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
    shown = shared_shapes(with_pictures(overlay, lambda key: f"{up}layers/{key}.svg"), f"{up}layers", files)
    files[path] = shared_text_styles(merged_halos(shown), up, files).encode("utf-8")


#: a label's white halo, then the label: the same text twice, once stroked
_HALO_PAIR = re.compile(
    r'<text ([^<>]*?) fill="#ffffff" stroke="#ffffff" stroke-width="([\d.]+)" stroke-linejoin="round" '
    r'([^<>]*)>([^<]*)</text>\n<text \1 fill="(#[0-9a-f]{6})" \3>\4</text>'
)


def merged_halos(svg: str) -> str:
    """``svg`` with each label and its halo one text that paints its stroke first
    (``paint-order="stroke"``): each label was written twice, 0.47 MB of a Flat Top game's
    2.8 MB of maps. A label seen through (``opacity``) keeps its halo apart (the two would blend
    otherwise), and a map that ``verifier.maps.label_halos`` would not give back is kept as it is."""

    def merged(pair: re.Match[str]) -> str:
        start, width, rest, text, fill = pair.groups()
        if "opacity" in start + rest:
            return pair.group(0)
        return (
            f'<text {start} fill="{fill}" stroke="#ffffff" stroke-width="{width}" '
            f'stroke-linejoin="round" paint-order="stroke" {rest}>{text}</text>'
        )

    shown = _HALO_PAIR.sub(merged, svg)
    return shown if verify_maps.label_halos(shown) == svg else svg


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


#: the maps' text styles, a rule each, once for the whole site (``verifier.maps.text_styles``)
TEXT_STYLES = f"{LAYERS_FOLDER}/texts.css"
#: presentation attributes a rule may stand for (CSS properties of the same name and value),
#: the lengths among them given in px
_PROPERTIES = (
    "font-size|font-weight|font-style|text-anchor|fill|fill-opacity|stroke|stroke-width|"
    "stroke-opacity|stroke-linejoin|stroke-linecap|paint-order|opacity"
)
_LENGTHS = ("font-size", "stroke-width")
_TEXT_RUN = re.compile(rf'(<text x="[^"<>]*" y="[^"<>]*")((?: (?:{_PROPERTIES})="[#\w.%-]+")+)(?=[\s/>])')
_ATTRIBUTE = re.compile(r' ([\w-]+)="([^"]*)"')


def shared_text_styles(svg: str, up: str, files: MutableMapping[str, bytes]) -> str:
    """``svg`` with each text's presentation attributes after its place (``font-size="7.0"
    fill="#8193a8" stroke=...``: 0.9 MB of a Flat Top game's 2.3 MB of maps, in 480 runs) a rule
    of :data:`TEXT_STYLES` instead, the text naming it (``data-t``, the first 8 hex digits of the
    run's digest) and the map linking the stylesheet (``<?xml-stylesheet?>``). A rule outranks
    the attributes it stands for alone, as they did (a map's view rules outrank both). A map
    that ``verifier.maps.text_styles`` would not give back is kept as it is."""
    rules = dict(verify_maps.TEXT_RULE.findall(files.get(TEXT_STYLES, b"").decode("utf-8")))
    added: dict[str, str] = {}

    def named(text: re.Match[str]) -> str:
        run = text.group(2)
        key = digest(run)[:8]
        css = ";".join(
            f"{name}:{value}{'px' if _bare(name, value) else ''}" for name, value in _ATTRIBUTE.findall(run)
        )
        if rules.get(key, css) != css:
            return text.group(0)
        added[key] = css
        return f'{text.group(1)} data-t="{key}"'

    shown = _TEXT_RUN.sub(named, svg)
    declared = svg.startswith("<?xml ")
    head = svg.find("?>\n") + 3 if declared else 0  # the link after the XML declaration
    if not added or "<?xml-stylesheet" in svg or head < declared:
        return svg
    sheet = "".join(f'[data-t="{key}"]{{{css}}}\n' for key, css in sorted({**rules, **added}.items()))
    link = f'<?xml-stylesheet type="text/css" href="{up}layers/texts.css"?>\n'
    shown = shown[:head] + link + shown[head:]
    if verify_maps.text_styles(shown, sheet) != svg:
        return svg
    files[TEXT_STYLES] = sheet.encode("utf-8")
    return shown


def _bare(name: str, value: str) -> bool:
    """Whether a length is a bare number, which CSS gives in px."""
    return name in _LENGTHS and re.fullmatch(r"[\d.]+", value) is not None
