# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter's HTML part as the page that shows it: the one copy of it a game's archive keeps.

The page is the part as sent but for two kinds of change, each undone by ``verify.py``
(``mailbot/verifier/pages.py``, ``sent_html``) before it checks the part against the chain:

* each tag naming an inline part (``cid:``) names the file saved beside the page instead, and
  an SVG map is shown through ``<object>`` (which draws its board layers, an ``<img>`` does
  not): a swap, the tag as sent and as shown, which ``game.json`` lists with the report;
* each ``<style>`` block is a stylesheet of its own under :data:`STYLES_FOLDER`, named by its
  digest and linked where the block stood: every letter of a game carries the same blocks
  (0.44 MB of a Flat Top game's 1.98 MB of letter pages);
* each ``style`` attribute (the rules a mail client would not read from a block, written into
  every tag: 0.74 MB of a Flat Top game's 2.26 MB of letter pages, in 8 values) is a rule of one
  stylesheet for the whole site (:data:`ATTRIBUTES`), its tag naming the rule (``data-style``)
  and the page linking the stylesheet once (:func:`shared_attributes`).

``game.json`` kept each report's HTML part besides (its 1.78 MB of 3.48): it names the page
instead (``html_file``), where the page gives the part back exactly (:func:`kept_html`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from mailbot.verifier.pages import ATTRIBUTE_RULE, sent_html
from mailbot.verifier.rules import part_hash

#: the letters' stylesheets, once for the whole site, from the site's root
STYLES_FOLDER = "steps/styles"
#: the letters' style attributes, a rule each, once for the whole site (``verifier.pages.ATTRIBUTE_RULE``)
ATTRIBUTES = f"{STYLES_FOLDER}/attributes.css"

_CID_TAG = re.compile(r"<[A-Za-z][^<>]*\bcid:[^<>]*>")
_SVG_IMG = re.compile(r'<img\b([^>]*?)\ssrc="([^"]+\.svg(?:#[^"]*)?)"([^>]*?)/?>')
_STYLE = re.compile(r"<style\b([^<>]*)>(.*?)</style>", re.DOTALL)

Swap = tuple[str, str]  # a tag as sent, and as the page shows it


@dataclass(frozen=True)
class LetterPage:
    """A letter's HTML part as its page shows it, and the tags swapped on the way."""

    text: str
    swaps: tuple[Swap, ...]


def letter_page(
    html: str, names: Mapping[str, str], up: str, files: MutableMapping[str, bytes]
) -> LetterPage:
    """The page of an HTML part whose inline parts (by Content-ID) are saved beside it under
    ``names``; its stylesheets go into ``files`` (``up`` leads from the page to the root)."""
    swaps: list[Swap] = []

    def swapped(found: re.Match[str]) -> str:
        tag = shown = found.group(0)
        for cid, name in names.items():
            if cid:
                shown = shown.replace(f"cid:{cid}", name)
        shown = _SVG_IMG.sub(r'<object data="\2" type="image/svg+xml"\1\3></object>', shown)
        if shown != tag:
            swaps.append((tag, shown))
        return shown

    def linked(found: re.Match[str]) -> str:
        css = found.group(2)
        key = hashlib.sha256(css.encode("utf-8")).hexdigest()
        files.setdefault(f"{STYLES_FOLDER}/{key}.css", css.encode("utf-8"))
        return f'<link rel="stylesheet" href="{up}styles/{key}.css"{found.group(1)}>'

    shown = _STYLE.sub(linked, _CID_TAG.sub(swapped, html))
    return LetterPage(shared_attributes(shown, up, files), tuple(swaps))


_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_ATTRIBUTE = re.compile(r'(\s)style="([^"<>&{}\n]*;)"')
_IMPORTANT = " !important;"


def shared_attributes(html: str, up: str, files: MutableMapping[str, bytes]) -> str:
    """``html`` with each ``style`` attribute of its tags naming a rule of :data:`ATTRIBUTES`
    instead (``data-style``, the first 8 hex digits of its value's digest), and a link to that
    stylesheet before ``</head>``. Each declaration of a rule is ``!important``, as the attribute
    outranked every rule of the page's own stylesheets. An attribute whose rule would not give
    it back (``verifier.pages.style_attributes``), or a page without one ``</head>``, stays."""
    if html.count("</head>") != 1:
        return html
    rules = _rules(files.get(ATTRIBUTES, b""))
    found = False

    def named(attribute: re.Match[str]) -> str:
        nonlocal found
        value = attribute.group(2)
        key = hashlib.sha256(value.encode("utf-8")).hexdigest()[:8]
        if _IMPORTANT in value or not _quoted_whole(value) or rules.setdefault(key, value) != value:
            return attribute.group(0)
        found = True
        return f'{attribute.group(1)}data-style="{key}"'

    shown = _TAG.sub(lambda tag: _ATTRIBUTE.sub(named, tag.group(0)), html)
    if not found:
        return html
    sheet = "".join(
        f'[data-style="{key}"]{{{rules[key].replace(";", _IMPORTANT)}}}\n' for key in sorted(rules)
    )
    files[ATTRIBUTES] = sheet.encode("utf-8")
    link = f'<link rel="stylesheet" href="{up}styles/attributes.css" data-style-attributes>'
    return shown.replace("</head>", f"{link}\n</head>")


def _rules(sheet: bytes) -> dict[str, str]:
    """The values of the rules of :data:`ATTRIBUTES`, by key."""
    return {
        key: value.replace(_IMPORTANT, ";") for key, value in ATTRIBUTE_RULE.findall(sheet.decode("utf-8"))
    }


def _quoted_whole(value: str) -> bool:
    """Whether each declaration of ``value`` has its quotes closed (a ``;`` inside quotes would
    take an ``!important`` into a font's name)."""
    return all(part.count("'") % 2 == 0 for part in value.split(";"))


def kept_html(folder: Path, page: str, swaps: tuple[Swap, ...], html: str) -> bool:
    """Whether the page at ``page`` (written under ``folder``) gives ``html`` back as
    ``verify.py`` reads it: else ``game.json`` keeps the part itself (a part the archive's
    letter differs from, its secrets cut; a page whose swaps cannot be undone one by one)."""
    found = sent_html(folder, page, [list(swap) for swap in swaps])
    same = part_hash
    return found is not None and same(found.encode("utf-8"), "text") == same(html.encode("utf-8"), "text")
