# SPDX-License-Identifier: GPL-3.0-or-later
"""The bot's own letters as the quote finder knows them, and the order templates in them.

A reply quotes (or copies without any marker) the letter it answers. The bot
knows that letter, so its lines are recognised whatever the client did to
them, and an order template edited in place is told from one merely quoted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mailbot.core.commands import unformatted

_QUOTE_PREFIX = re.compile(r"^(?:[ \t]*>)+ ?")
# NBSPs and their kin are spaces (format characters go: ``commands.unformatted``).
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u3000\u2002\u2003\u2009"), " ")
_WRAPPED_MATCH_CHARS = 20  # a re-wrapped piece of a known line must be this long to count


def clean_text(text: str) -> str:
    """Format characters removed (zero-width, BOM, soft hyphen, bidi controls: a quote marker
    behind an override is still one), odd spaces made spaces, line ends made ``\\n``, NFC."""
    text = unformatted(text.replace("\r\n", "\n").replace("\r", "\n")).translate(_SPACES)
    return unicodedata.normalize("NFC", text)


def normalise(line: str) -> str:
    """A line as compared with the bot's own text: unquoted, undecorated, case and spacing folded."""
    bare = _QUOTE_PREFIX.sub("", line)
    return " ".join(bare.strip(" \t=*#_-•").split()).casefold()


@dataclass(frozen=True)
class Known:
    """What the bot sent that a letter answers: its lines, and the order templates in them.

    ``templates`` holds each ``ORDERS ... END`` block of the bot's letters,
    normalised, the ORDERS and END lines included.
    """

    lines: frozenset[str]
    templates: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Known:
        lines: set[str] = set()
        templates: list[tuple[str, ...]] = []
        for text in texts:
            raw = clean_text(text).split("\n")
            norm = [normalise(line) for line in raw]
            lines.update(line for line in norm if line)
            templates.extend(_blocks(norm, [_exact(line) for line in raw]))
        return cls(frozenset(lines), tuple(templates))

    def has(self, line: str) -> bool:
        norm = normalise(line)
        if not norm or norm in self.lines:
            return bool(norm)
        # A client re-wrapped a long line: a long enough piece of one known line counts.
        return len(norm) >= _WRAPPED_MATCH_CHARS and any(norm in known for known in self.lines)


def _exact(line: str) -> str:
    """A template line as compared for edits: only quoting, case and spacing folded.

    Unlike :func:`normalise` it keeps ``#`` and dashes: uncommenting a line is an edit.
    """
    return " ".join(_QUOTE_PREFIX.sub("", line).split()).casefold()


def _blocks(norm: Sequence[str], exact: Sequence[str]) -> list[tuple[str, ...]]:
    """Every ``ORDERS ... END`` block, found in normalised lines, kept as :func:`_exact` lines."""
    found: list[tuple[str, ...]] = []
    start: int | None = None
    for index, line in enumerate(norm):
        if _is_orders_line(line):
            start = index
        elif line == "end" and start is not None:
            found.append(tuple(item for item in exact[start : index + 1] if item))
            start = None
    return found


# A heading as a client's HTML-to-text conversion writes it ("### Orders" for <h3>Orders</h3>).
_HEADING = re.compile(r"^#{1,6}\s")


def _opens_block(line: str, heads: set[str]) -> bool:
    """Whether ``line`` is the ORDERS line of one of the templates: a report's "Orders" heading
    (which normalises the same) is not, or the report's text below it would be read as the block."""
    return normalise(line) in heads and not _HEADING.match(_QUOTE_PREFIX.sub("", line).lstrip())


def _is_orders_line(norm: str) -> bool:
    return norm == "orders" or (norm.startswith("orders ") and len(norm.split()) == 2)


# --- an order template edited inside the quote -------------------------------------------------


def edited_template(lines: list[str], keep: list[bool], known: Known) -> tuple[tuple[int, str], ...] | None:
    """The quoted (or copied) ORDERS ... END block of a known template, when the writer changed it.

    The block's lines (quoted or not) are taken as they stand and marked as not
    the writer's free text, so they are not read a second time.
    """
    heads = {template[0] for template in known.templates}
    bodies = {" ".join(template[1:-1]) for template in known.templates}
    index = 0
    while index < len(lines):
        if keep[index] or not _opens_block(lines[index], heads):
            index += 1
            continue
        end = next((j for j in range(index + 1, len(lines)) if normalise(lines[j]) == "end"), None)
        if end is None:
            return None
        body = [(n + 1, _QUOTE_PREFIX.sub("", lines[n]).strip()) for n in range(index + 1, end)]
        body = [(number, line) for number, line in body if line]
        # A client that re-wrapped long lines moved line breaks only: compare the words.
        if " ".join(_exact(line) for _, line in body) not in bodies:
            for drop in range(index, end + 1):
                keep[drop] = False
            return tuple(body)
        index = end + 1
    return None


# --- an order template copied unchanged, unmarked, with the letter around it ------------------


def drop_copied_templates(lines: list[str], keep: list[bool], known: Known) -> None:
    """Unmark as the writer's a copy of the bot's letter kept as text: a known ORDERS ... END
    block left unchanged, with more of the bot's lines around it (a vacation responder or a
    client that appends the original with no quote mark and no attribution).

    The template alone, typed or pasted by itself, stays the writer's: only the letter
    around it shows that nobody meant it.
    """
    bodies = {" ".join(template[1:-1]) for template in known.templates}
    heads = {template[0] for template in known.templates}
    for index, line in enumerate(lines):
        if not keep[index] or not _opens_block(line, heads):
            continue
        end = next((j for j in range(index + 1, len(lines)) if normalise(lines[j]) == "end"), None)
        if end is None or not all(keep[index : end + 1]):
            continue
        body = " ".join(_exact(item) for item in lines[index + 1 : end] if item.strip())
        if body in bodies:
            _drop_known_run(lines, keep, known, index, end)


def _drop_known_run(lines: list[str], keep: list[bool], known: Known, start: int, end: int) -> None:
    """Drop the block ``start..end`` and the known lines around it, when there are any."""
    first, last = start, end
    while first > 0 and keep[first - 1] and (not lines[first - 1].strip() or known.has(lines[first - 1])):
        first -= 1
    while (
        last + 1 < len(lines)
        and keep[last + 1]
        and (not lines[last + 1].strip() or known.has(lines[last + 1]))
    ):
        last += 1
    around = [n for n in (*range(first, start), *range(end + 1, last + 1)) if lines[n].strip()]
    if around:
        for drop in range(first, last + 1):
            keep[drop] = False
