# SPDX-License-Identifier: GPL-3.0-or-later
"""Jinja2 rendering of every letter the bot writes: a text and an HTML part.

Templates get plain view models (dicts), never ORM objects. Undefined names are
errors (StrictUndefined) so a missing field fails a test instead of sending a
blank; HTML is autoescaped so player text cannot inject markup.

Where templates come from, first match wins:

1. the game master's override folder (``bot.template_overrides``), laid out
   like the names below, e.g. ``flattop/report.txt.j2`` or ``common/reply.txt.j2``;
2. ``common/<name>``: the shared letters in the top-level ``templates/common`` (shipped
   inside the package as ``mailbot/templates``, a link to it);
3. ``<game name>/report``: the ``templates/`` folder of that game's package.

The text part is re-wrapped at 72 columns (``wrap72``) so that it reads well in a
fixed-width client; the ORDERS ... END block a player edits and sends back is
left exactly as rendered, one order per line.

The HTML part of a letter is ONE document, ``common/letter.html.j2`` (which the
reply and the notice extend); a game's ``report.html.j2`` is a fragment that the
letter places. A whole document gets its layout stylesheet copied into ``style``
attributes (css-inline), for mail clients that drop ``<style>``; a fragment is
left as written and gets them once a letter places it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from css_inline import CSSInliner
from jinja2 import (
    BaseLoader,
    BytecodeCache,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    select_autoescape,
)
from jinja2.bccache import Bucket

from mailbot.registry import Registry, default_registry


@dataclass(frozen=True)
class Rendered:
    text: str
    html: str


#: the shared letters' templates (frame, reply, notice), named ``common/...``
COMMON = PackageLoader("mailbot", "templates/common")


def game_loaders(registry: Registry) -> dict[str, BaseLoader]:
    """``common`` and every game package that ships templates, by the prefix templates are named with."""
    loaders: dict[str, BaseLoader] = {"common": COMMON}
    for package in registry:
        if (files(package.module) / "templates").is_dir():
            loaders[package.name] = PackageLoader(package.module, "templates")
    return loaders


class GameTemplates(PrefixLoader):
    """The templates of ``common`` and of each game. The games are looked up when a template
    of one is first asked for, not when the loader is made: a process that renders no game's
    letter (``mailbot run`` beside its letter process, most commands) imports no game for it,
    and a game the registry found since (installed while the service runs) is found then too."""

    def __init__(self, registry: Registry) -> None:
        super().__init__({"common": COMMON})
        self.registry = registry

    def get_loader(self, template: str) -> tuple[BaseLoader, str]:
        if template.partition(self.delimiter)[0] not in self.mapping:
            self.mapping = game_loaders(self.registry)
        return super().get_loader(template)

    def list_templates(self) -> list[str]:
        self.mapping = game_loaders(self.registry)
        return super().list_templates()


def template_loader(registry: Registry, overrides: Path | None = None) -> BaseLoader:
    prefixed = GameTemplates(registry)
    return ChoiceLoader([FileSystemLoader(str(overrides)), prefixed]) if overrides else prefixed


class CompiledOnce(BytecodeCache):
    """The templates' compiled code, kept in memory for every :class:`Renderer` of the process.

    Each renderer has its own Environment, and each compiled every template it used afresh: the
    moderator's, an archive's export, each CLI command's, and every test's bot (a thousandth
    of a second to a hundredth a template). Jinja keys the code by the template's name and file
    and checks the source's checksum before using it, so an edited template (shipped or a game
    master's override) is compiled again. One cache serves one kind of environment, since the
    code depends on its options too: :data:`COMPILED` the letters' (:class:`Renderer`),
    ``archive_pages.COMPILED`` the archive pages'. One entry a template file: it is as bounded
    as the template folders."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


#: the compiled templates of every :class:`Renderer` in this process
COMPILED = CompiledOnce()

#: how a whole HTML document (as opposed to a fragment) begins
_DOCUMENT = re.compile(r"\s*<!doctype\s+html", re.IGNORECASE)


class Renderer:
    def __init__(self, overrides: Path | None = None, *, registry: Registry | None = None) -> None:
        # Only the first <style> is inlined: the colour sheet is marked data-css-inline="ignore"
        # in the template (an inline colour would defeat dark mode). Nothing is ever fetched.
        self.inliner = CSSInliner(keep_style_tags=True, load_remote_stylesheets=False)
        self.overrides = overrides  # the GM's folder: the archive's pages read it too
        self.env = Environment(
            loader=template_loader(registry or default_registry(), overrides),
            undefined=StrictUndefined,
            autoescape=select_autoescape(["html", "html.j2"]),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            # Templates are read once per process: no look at their files' times for every letter
            # (a changed template, shipped or override, takes effect when the service restarts).
            auto_reload=False,
            bytecode_cache=COMPILED,
        )

    def render(self, name: str, context: Mapping[str, Any]) -> Rendered:
        """Render ``<name>.txt.j2`` and ``<name>.html.j2`` with the same context."""
        text = wrap72(self.env.get_template(f"{name}.txt.j2").render(**context))
        html = self.env.get_template(f"{name}.html.j2").render(**context)
        return Rendered(text=text, html=self.inline_css(html))

    def inline_css(self, html: str) -> str:
        """A whole document with its layout rules also in ``style`` attributes; a fragment unchanged."""
        return self.inliner.inline(html) if _DOCUMENT.match(html) else html


WIDTH = 72
#: a word at least this long is a token (hash, seed, URL) that is never broken
LONG_TOKEN = 32
#: a line "label: token" whose label is at most this wide stays whole: the label belongs with
#: its value, and readers search for it on one line (verify.py: "Game log chain head: <hash>")
LABEL_WIDTH = 48
#: long lines kept wrapped (:func:`wrap_line`): a game's letters repeat most of their lines from
#: one turn and one seat to the next, and the line breaking is the dearest part of a letter
WRAPS_KEPT = 4096
#: a two-column row's text starts at most here, so that it keeps 32 columns to wrap in
COLUMN_LIMIT = 40
_COLUMN_GAP = re.compile(r"(?<=\S) {2,}(?=\S)")
_ORDERS_OPEN = re.compile(r"ORDERS(\s+\S+)?", re.IGNORECASE)
_BULLET = re.compile(r"\s*(?:->|[-*\u2022]|\d+[.)])\s+")


def fits(line: str) -> bool:
    """Whether ``line`` is what ``wrap72`` leaves alone: at most 72 columns, or a label and a long token."""
    return len(line) <= WIDTH or _labelled_token(line)


def wrap72(text: str) -> str:
    """Lines over 72 columns wrapped with a hanging indent; tokens and ORDERS ... END left whole."""
    lines = text.split("\n")
    frozen = set(_orders_blocks(lines))
    out: list[str] = []
    for n, line in enumerate(lines):
        out.extend((line,) if n in frozen else wrap_line(line))
    return "\n".join(out)


@lru_cache(maxsize=WRAPS_KEPT)
def wrap_line(line: str) -> tuple[str, ...]:
    """One line as it should be printed: itself when short, else wrapped under its own indent.

    Breaks fall between words, preferably after a clause (see ``_pieces``); continuation
    lines hang under the text (bullets), under the second column of a two-column row
    (``  WEATHER n       the circled weather number``: order help), or two columns in from
    the line's own indent.
    """
    if fits(line):
        return (line,)
    line = line.expandtabs()
    column = _second_column(line)
    if column:
        term, text = line[:column], line[column:]
        pieces = _pieces(text, WIDTH - column, WIDTH - column)
        return (term + pieces[0], *(" " * column + piece for piece in pieces[1:]))
    body = line.lstrip()
    lead = line[: len(line) - len(body)]
    bullet = _BULLET.match(line)
    hang = " " * bullet.end() if bullet else lead + "  "
    pieces = _pieces(body, WIDTH - len(lead), WIDTH - len(hang))
    return (lead + pieces[0], *(hang + piece for piece in pieces[1:]))


def _second_column(line: str) -> int:
    """Where the text of a two-column row starts (after a gap of 2+ spaces), if it leaves room to wrap.

    A gap after a full stop is a sentence's double space, not a column.
    """
    found = _COLUMN_GAP.search(line, len(line) - len(line.lstrip()))
    if found is None or found.end() > COLUMN_LIMIT or line[found.start() - 1] in ".!?":
        return 0
    return found.end()


def _pieces(body: str, first: int, rest: int) -> list[str]:
    """``body`` cut into lines of at most ``first`` and then ``rest`` columns (long tokens excepted).

    Fewest lines, then the least cost: the squared slack of every line (the last one too, so
    that lines come out even) plus a price for where each break falls. A break after a
    sentence or clause (. ; ! ?) is free, after a comma or before a parenthesis cheap, and
    anywhere else dear, so phrases, "label: value" pairs and parentheses stay together.
    Dynamic programming over word boundaries; a word wider than a line gets a line of its own.
    """
    if len(body) <= first:
        return [body]
    words = [(found.start(), found.end()) for found in re.finditer(r"\S+", body)]
    prices = _break_prices(body, words)
    n = len(words)
    # best[i]: (lines, cost, end of the line that starts at word i) for words i.. as continuation lines
    best: list[tuple[int, int, int]] = [(0, 0, n)] * (n + 1)
    for i in range(n - 1, -1, -1):
        best[i] = _best_line(words, prices, i, rest, best)
    lines, i, j = [], 0, _best_line(words, prices, 0, first, best)[2]
    while i < n:
        lines.append(body[words[i][0] : words[j - 1][1]])
        i, j = j, best[j][2]
    return lines


_CLAUSE_BREAK, _COMMA_BREAK, _WORD_BREAK = 0, 1000, 3000


def _break_prices(body: str, words: list[tuple[int, int]]) -> list[int]:
    """``prices[j]``: what a break before word ``j`` costs (the last entry, the end, is free)."""
    prices, depth = [_WORD_BREAK] * (len(words) + 1), 0
    for j, (start, end) in enumerate(words):
        word = body[start:end]
        depth = max(depth + word.count("(") - word.count(")"), 0)
        following = body[words[j + 1][0]] if j + 1 < len(words) else ""
        if j + 1 == len(words):
            prices[j + 1] = 0
        elif depth == 0 and word[-1] in ".;!?":
            prices[j + 1] = _CLAUSE_BREAK
        elif (depth == 0 and word[-1] == ",") or (depth == 0 and following == "("):
            prices[j + 1] = _COMMA_BREAK
    return prices


def _best_line(
    words: list[tuple[int, int]], prices: list[int], i: int, width: int, best: list[tuple[int, int, int]]
) -> tuple[int, int, int]:
    """The best line starting at word ``i``: (lines, cost, its end), given ``best`` for the rest."""
    choice = (len(words) + 1, 0, i + 1)  # an upper bound; the loop always tries word i alone
    for j in range(i + 1, len(words) + 1):
        length = words[j - 1][1] - words[i][0]
        if length > width and j > i + 1:
            break
        lines, cost, _ = best[j]
        slack = max(width - length, 0)
        choice = min(choice, (lines + 1, cost + slack * slack + prices[j], j))
    return choice


def _labelled_token(line: str) -> bool:
    """A short label followed by a long token (``Seed: <64 hex>``): kept on one line."""
    words = line.split()
    for n, word in enumerate(words):
        if len(word) >= LONG_TOKEN:
            return len(" ".join(words[:n])) <= LABEL_WIDTH
    return False


def _orders_blocks(lines: list[str]) -> Iterator[int]:
    """Indexes of lines from an ``ORDERS [step]`` line to the next ``END`` line, both included."""
    start: int | None = None
    for n, line in enumerate(lines):
        bare = line.strip()
        if start is None and _ORDERS_OPEN.fullmatch(bare):
            start = n
        elif start is not None and bare.upper() == "END":
            yield from range(start, n + 1)
            start = None
