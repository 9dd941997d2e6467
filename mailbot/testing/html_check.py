# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that an HTML letter is what a mail client can show: for tests and for a GM's overrides.

A letter's HTML part must be ONE document that parses without a single error
(html5lib in strict mode, the WHATWG algorithm browsers use), with one <html>,
<head> and <body>, a viewport, a dark-mode stylesheet and no URL that would
make the reader's client fetch anything. A game's ``report.html.j2`` renders a
fragment that the letter places (block content only, see
``templates/common/letter.html.j2``).

Every check returns its findings as a list of sentences (empty: all well), so a
test can show all of them at once; nothing here raises on bad HTML. html5lib is
a test dependency, imported only when a check runs.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

#: tags a document has exactly once
DOCUMENT_TAGS = ("html", "head", "body")
#: tags that belong to the letter's document, never to a report fragment (h1 is the letter's title)
NOT_IN_FRAGMENT = ("html", "head", "body", "title", "meta", "link", "style", "script", "base", "h1")
#: attributes that load or lead somewhere
URL_ATTRIBUTES = ("src", "href", "action", "formaction", "background", "poster", "srcset", "data", "cite")
#: what such an attribute may hold: a place in the letter, an address, an attached part
LOCAL_URL = re.compile(r"\s*(#|mailto:|cid:)", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]*)|@import\s+['\"]?([^'\";\s]*)", re.IGNORECASE)
_DARK = re.compile(r"@media[^{]*prefers-color-scheme\s*:\s*dark", re.IGNORECASE)


class Scan(HTMLParser):
    """The start tags with their attributes, and the stylesheets, of some HTML as a tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.styles: list[str] = []  # the text of each <style>
        self._in_style = False

    @property
    def tags(self) -> Counter[str]:
        return Counter(tag for tag, _ in self.elements)

    @property
    def attributes(self) -> list[tuple[str, str, str]]:
        """(tag, attribute, value) of every attribute of every start tag."""
        return [(tag, name, value) for tag, attrs in self.elements for name, value in attrs.items()]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def scan(html: str) -> Scan:
    found = Scan()
    found.feed(html)
    found.close()
    return found


def parse_errors(html: str, *, fragment: bool = False) -> list[str]:
    """The first parse error html5lib's strict mode finds, with its line and column (none: [])."""
    import html5lib
    from html5lib.html5parser import ParseError

    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    try:
        if fragment:
            parser.parseFragment(html, container="div")
        else:
            parser.parse(html)
    except ParseError as error:
        (line, column), code, _ = parser.errors[-1]
        return [f"parse error at line {line}, column {column}: {code} ({error})"]
    return []


def external_urls(html: str) -> list[str]:
    """Every URL that would fetch or lead outside the letter: in attributes, style attributes and <style>."""
    found = scan(html)
    urls = [
        f"<{tag} {name}={value!r}>"
        for tag, name, value in found.attributes
        if name in URL_ATTRIBUTES and not LOCAL_URL.match(value)
    ]
    css = [value for _, name, value in found.attributes if name == "style"] + found.styles
    for text in css:
        for match in _CSS_URL.finditer(text):
            target = match.group(1) if match.group(1) is not None else match.group(2)
            if not LOCAL_URL.match(target or ""):
                urls.append(f"CSS {match.group(0)!r}")
    return urls


def document_problems(html: str) -> list[str]:
    """What keeps ``html`` from being one self-contained letter document (empty: nothing)."""
    found = scan(html)
    problems = parse_errors(html)
    counts = found.tags
    problems += [f"{counts[tag]} <{tag}> start tags, not 1" for tag in DOCUMENT_TAGS if counts[tag] != 1]
    metas = {(name, value.split(",")[0].strip()) for tag, name, value in found.attributes if tag == "meta"}
    if ("name", "viewport") not in metas:
        problems.append("no <meta name=viewport>")
    if ("name", "color-scheme") not in metas:
        problems.append("no <meta name=color-scheme>")
    if not any(_DARK.search(style) for style in found.styles):
        problems.append("no <style> with @media (prefers-color-scheme: dark)")
    problems += [f"external URL: {url}" for url in external_urls(html)]
    return problems


def fragment_problems(html: str) -> list[str]:
    """What keeps ``html`` from being a report fragment the letter can place (empty: nothing)."""
    found = scan(html)
    problems = parse_errors(html, fragment=True)
    problems += [f"<{tag}> in a fragment" for tag in NOT_IN_FRAGMENT if found.tags[tag]]
    if "<!doctype" in html.lower():
        problems.append("<!DOCTYPE> in a fragment")
    problems += [f"external URL: {url}" for url in external_urls(html)]
    return problems


_DECLARATION = re.compile(r"\s*([a-z-]+)\s*:\s*([^;]+)")


def inline_style(value: str) -> dict[str, str]:
    """A style attribute's declarations by property (the last one of a property wins, as in CSS)."""
    return {m.group(1).lower(): m.group(2).strip() for m in _DECLARATION.finditer(value)}


def unwrapped_pre(html: str) -> list[str]:
    """<pre> elements whose own style attribute lets a long line run off a phone's screen."""
    wanted = {"white-space": "pre-wrap", "overflow-wrap": "anywhere", "max-width": "100%"}
    bad = []
    pres = [attrs.get("style", "") for tag, attrs in scan(html).elements if tag == "pre"]
    for n, style in enumerate(pres, 1):
        got = inline_style(style)
        missing = {key: value for key, value in wanted.items() if got.get(key) != value}
        if missing:
            bad.append(f"<pre> #{n} (style {style!r}) lacks {missing}")
    return bad
