# SPDX-License-Identifier: GPL-3.0-or-later
"""The part of SVG that :mod:`.raster` paints: which elements, attributes and values, and how
a colour and a text's characters are read.

An SVG with anything else in it is not painted by :mod:`.raster` but by cairosvg, so this list
may only grow together with the painter (and ``tests/render/test_map_raster.py``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

NS = "{http://www.w3.org/2000/svg}"
#: presentation attributes the painter reads; they pass from a group to what it holds
INHERITED = frozenset(
    {
        "fill",
        "fill-opacity",
        "stroke",
        "stroke-width",
        "stroke-opacity",
        "stroke-dasharray",
        "stroke-linejoin",
        "stroke-linecap",
        "font-family",
        "font-size",
        "font-weight",
        "text-anchor",
    }
)
#: each element and the attributes of its own the painter understands (besides INHERITED,
#: ``opacity``, ``class``, ``id`` and ``data-*``, which mean nothing to pixels)
OWN: Mapping[str, frozenset[str]] = {
    "svg": frozenset({"width", "height", "viewBox"}),
    "defs": frozenset(),
    "g": frozenset(),
    "title": frozenset(),
    "rect": frozenset({"x", "y", "width", "height"}),
    "circle": frozenset({"cx", "cy", "r"}),
    "path": frozenset({"d"}),
    "text": frozenset({"x", "y"}),
    # no pixels: a window a browser may show the drawing through (``file.svg#<id>``), and
    # rules that apply only there (:func:`view_rules`)
    "view": frozenset({"viewBox"}),
    "style": frozenset(),
}
CHOICES: Mapping[str, frozenset[str]] = {
    "display": frozenset({"inline", "none"}),  # none: the element and all it holds are not painted
    "stroke-linejoin": frozenset({"miter", "round", "bevel"}),
    "stroke-linecap": frozenset({"butt", "round", "square"}),
    "font-weight": frozenset({"normal", "bold"}),
    "text-anchor": frozenset({"start", "middle", "end"}),
}
PAINTS = frozenset({"fill", "stroke"})
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_ONE_NUMBER = re.compile(NUMBER + r"\Z")
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}\Z")
_DASHES = re.compile(rf"(?:{NUMBER})(?:[ ,]+{NUMBER})*\Z")
_PATH = re.compile(r"[MLHVZmlhvz0-9eE.,+\- \n\t]*\Z")
_VIEW_RULE = re.compile(r"\s*#[A-Za-z][\w-]*:target\s*~\s*\.([A-Za-z][\w-]*)\s*\{[^{}]*\}\s*")


def supported(root: ET.Element) -> bool:
    """True when every element and attribute of ``root`` is one :mod:`.raster` paints as cairosvg would."""
    if root.tag != f"{NS}svg" or not _plain_viewbox(root):
        return False
    return all(_known(element, element is root) for element in root.iter())


def supported_part(group: ET.Element) -> bool:
    """True when ``group`` and all it holds (not a root) are what :mod:`.raster` paints."""
    return all(_known(element, False) for element in group.iter())


def _plain_viewbox(root: ET.Element) -> bool:
    """No viewBox, or one of four numbers in the sheet's own proportions (a window on the
    drawing, as a map's inset is): the picture is only scaled and moved, never stretched."""
    width, height = root.get("width", ""), root.get("height", "")
    if not (_ONE_NUMBER.match(width) and _ONE_NUMBER.match(height)) or min(float(width), float(height)) <= 0:
        return False
    box = root.get("viewBox")
    if box is None:
        return True
    parts = box.split()
    if len(parts) != 4 or not all(_ONE_NUMBER.match(v) for v in parts):
        return False
    wide, high = float(parts[2]), float(parts[3])
    return wide > 0 and high > 0 and abs(wide / high - float(width) / float(height)) < 1e-9


def _known(element: ET.Element, is_root: bool) -> bool:
    tag = element.tag.removeprefix(NS)
    if tag not in OWN or (tag == "svg") != is_root:
        return False
    if tag in ("text", "defs", "view", "style") and len(element):  # no tspan; nothing defined to refer to
        return False
    if tag == "style" and view_rules(element.text or "") is None:
        return False
    return all(_known_attribute(tag, name, value) for name, value in element.attrib.items())


def _known_attribute(tag: str, name: str, value: str) -> bool:
    if name.startswith("data-") or name in ("class", "id") or (tag in ("svg", "view") and name == "viewBox"):
        return True
    if name in CHOICES:
        return value in CHOICES[name]
    if name in PAINTS:
        return value == "none" or bool(_COLOUR.match(value))
    if name == "stroke-dasharray":
        return value == "none" or bool(_DASHES.match(value))
    if name == "font-family":
        return True
    if name == "d":
        return tag == "path" and bool(_PATH.match(value))
    if name in INHERITED or name == "opacity" or name in OWN[tag]:
        return bool(_ONE_NUMBER.match(value))
    return False


def view_rules(css: str) -> frozenset[str] | None:
    """The classes a stylesheet of view rules styles, each rule ``#<view>:target ~ .<class>
    {...}``: it applies only where the document is shown through that view (``file.svg#<view>``),
    never when it is painted whole (cairosvg's selectors never match ``:target`` either); None
    for a stylesheet with anything else in it."""
    classes, at = set(), 0
    while at < len(css):
        rule = _VIEW_RULE.match(css, at)
        if rule is None:
            return None
        classes.add(rule.group(1))
        at = rule.end()
    return frozenset(classes)


def colour(value: str | None) -> tuple[float, float, float] | None:
    """``#rgb`` or ``#rrggbb`` as cairo's 0..1 channels; None for ``none`` (and no paint at all)."""
    if value is None or value == "none":
        return None
    digits = value[1:]
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return (int(digits[0:2], 16) / 255, int(digits[2:4], 16) / 255, int(digits[4:6], 16) / 255)


def words(text: str | None) -> str:
    """A text's characters as SVG (and cairosvg) shows them: line breaks dropped, spaces collapsed."""
    if not text:
        return ""
    text = re.sub(r"[\n\r]", "", text).replace("\t", " ")
    return re.sub(" +", " ", text).strip(" ")
