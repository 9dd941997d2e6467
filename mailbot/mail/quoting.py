# SPDX-License-Identifier: GPL-3.0-or-later
"""What the writer wrote this time: a reply without its quoted original, signatures and boilerplate.

Commands are read only from the writer's own new text: a quoted original may
repeat old orders (the worst thing a moderator can act on), so a line is kept
only when nothing marks it as quoted.

Ideas taken, not code:

* talon (mailgun/talon, ``quotations.py``): mark every line first (empty,
  quoted, splitter, text) and decide on the sequence of marks; splitters in
  many languages; an attribution may be wrapped over several lines; the
  "date, then an address, then a colon" attribution without a verb; an
  Outlook header block counts by its fields, not by one fixed phrase.
* email-reply-parser (zapier): a reply is fragments; text *below* a quoted
  fragment that is not itself quoted is the writer's (bottom-posting and
  interleaving), so a splitter ends a quote block, not the letter; signatures
  are cut at "-- ".

Our own: the bot knows the letters it sent (:class:`Known`), so an unmarked
copy of one (Outlook's top-posting puts the original below a header block
without ``>``) is recognised line by line whatever the client did to it, and
a quoted order template that the player edited in place is found and
returned as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from mailbot.mail.known import Known, clean_text, drop_copied_templates, edited_template
from mailbot.mail.phrases import phrases

# Leading white space is allowed: some clients indent their ">" quote blocks.
_QUOTE = re.compile(r"^[ \t]*>")
_MAX_ATTRIBUTION_CHARS = 250
_MAX_ATTRIBUTION_LINES = 3  # clients wrap long attributions; two lines are common, three seen
_HEADER_WINDOW = 8  # lines a header block may span (folded values included)
# Outlook draws a rule (underscores, or "* * *" once HTML is converted) above its header block;
# mailing lists draw one ("____", "-=-=-", "####") above their footer.
_RULE = re.compile(r"^\s*(?:[_*=#-]\s*){3,}$")
# GroupWise puts '>>> "Name" <addr> 11/23/2026 2:05 PM >>>' above the original, which follows
# unquoted; it starts like a quote, so it is told apart before quotes are.
_GROUPWISE = re.compile(r"^\s*>>>\s+\S.*\s>>>\s*$")
# The end of an attribution wrapped inside its address ("... <bot@example.test" / ">:"): not a quote.
_CLOSER = re.compile(r"^\s*>\s*:\s*$")
_NAME_LINES = 3  # lines of a name under a sign-off
_NAME_CHARS = 40


@dataclass(frozen=True)
class Split:
    """A letter's text cut into the writer's part and the rest.

    ``edited_template`` is set when a quoted copy of one of the bot's order
    templates was edited in place: the block's lines as they now stand (the
    ORDERS and END lines left out); they are then not in ``text``.
    """

    text: str
    edited_template: tuple[tuple[int, str], ...] | None = None  # (line number in the letter, text)
    #: ``text`` with the greetings and sign-offs (and the name under one) kept: no command, but
    #: the writer's words to a person, as his press is relayed
    prose: str = ""


class Mark(Enum):
    EMPTY = "e"
    QUOTE = "q"
    SPLIT = "s"  # an attribution, separator or header block: the original follows
    SIGNATURE = "g"  # "-- ": the writer's signature follows
    FOOTER = "f"  # a mailing list's footer starts: read like a signature
    SKIP = "k"  # a line nobody meant as a command nor wrote himself: a client's signature
    GREETING = "h"  # "Hi GM,": no command, but the writer's own words (his press keeps it)
    TEXT = "t"


def strip_quotes(text: str) -> str:
    """The writer's own text of ``text`` (see :func:`split_reply`)."""
    return split_reply(text).text


def split_reply(text: str, known: Known | None = None) -> Split:
    """Cut ``text`` into what the writer wrote now and what was quoted, signed or added by a client.

    Lines starting with ``>`` are never the writer's. A splitter (attribution,
    separator, header block) followed by a ``>`` (or TAB-indented) quote only
    opens that quote: text after it is the writer's again. A splitter followed
    by unquoted text opens an unmarked original: the rest of the letter is
    dropped, except, when ``known`` says what the bot sent, the lines that
    are not in the bot's letter. A signature runs to the next splitter or quote.
    """
    lines = _unarmour(clean_text(text).split("\n"))
    marks, spans = _mark(lines)
    keep = _walk(lines, marks, spans, known)
    # The courtesy lines: kept when the writer's text is read as a message to a person.
    said = _walk(lines, marks, spans, known, prose=True)
    courtesy = [written and not kept for kept, written in zip(keep, said, strict=True)]
    if known is not None and known.templates:
        drop_copied_templates(lines, keep, known)
    edited = edited_template(lines, keep, known) if known is not None and known.templates else None
    prose = [kept or polite for kept, polite in zip(keep, courtesy, strict=True)]
    return Split(_joined(lines, keep), edited, _joined(lines, prose))


def _joined(lines: list[str], keep: list[bool]) -> str:
    """The kept lines, without the blank lines and rules after the last one."""
    kept = [line for line, flag in zip(lines, keep, strict=True) if flag]
    while kept and (not kept[-1].strip() or _RULE.match(kept[-1])):
        kept.pop()
    return "\n".join(kept)


# --- PGP armour ------------------------------------------------------------------------------


def _unarmour(lines: list[str]) -> list[str]:
    """Inline PGP: the signed text kept, its dash-escaping undone (RFC 4880 7.1); armour blanked.

    Lines are blanked, never removed, so that line numbers stay those of the letter.
    """
    out: list[str] = []
    state = "text"  # text | hash (armour headers of a signed message) | signed | block
    for line in lines:
        bare, kept = line.strip(), ""
        if bare == "-----BEGIN PGP SIGNED MESSAGE-----":
            state = "hash"
        elif state == "hash":
            state = "hash" if bare else "signed"
        elif bare.startswith("-----BEGIN PGP ") and bare.endswith("-----"):
            state = "block"
        elif state == "block":
            state = "text" if bare.startswith("-----END PGP ") else "block"
        else:
            kept = line[2:] if state == "signed" and line.startswith("- ") else line
        out.append(kept)
    return out


# --- marking ---------------------------------------------------------------------------------


def _mark(lines: list[str]) -> tuple[list[Mark], dict[int, int]]:
    """One mark per line; ``spans`` gives how many lines a splitter starting at an index covers."""
    marks: list[Mark] = []
    spans: dict[int, int] = {}
    for index, line in enumerate(lines):
        if not line.strip():
            marks.append(Mark.EMPTY)
        elif _GROUPWISE.match(line):
            spans[index] = 1
            marks.append(Mark.SPLIT)
        elif _QUOTE.match(line):
            marks.append(Mark.QUOTE)
        elif line.rstrip(" \t") in ("--", "-- ", "__"):
            # RFC 3676 says "-- "; many clients trim the trailing space, so "--" counts too.
            marks.append(Mark.SIGNATURE)
        elif span := _splitter_span(lines, index):
            spans[index] = span
            marks.append(Mark.SPLIT)
        elif _list_footer(lines, index):
            marks.append(Mark.FOOTER)
        elif phrases().client_signature.match(line):
            marks.append(Mark.SKIP)
        elif phrases().greeting.match(line):
            marks.append(Mark.GREETING)
        else:
            marks.append(Mark.TEXT)
    return marks, spans


def _list_footer(lines: list[str], index: int) -> bool:
    """Whether a mailing list's footer starts at ``index``: its own first words, or the list's
    name right under a rule (Mailman); a "mailing list" line elsewhere is the writer's."""
    if phrases().list_footer.match(lines[index]):
        return True
    return index > 0 and bool(_RULE.match(lines[index - 1])) and bool(phrases().list_name.match(lines[index]))


def _splitter_span(lines: list[str], index: int) -> int:
    line = lines[index]
    if len(line) > _MAX_ATTRIBUTION_CHARS:
        return 0
    if phrases().separator.match(line):
        return 1
    header = _header_block(lines, index)
    return header or _attribution(lines, index)


def _header_block(lines: list[str], index: int) -> int:
    """Lines of a header block starting at ``index`` (From/Date/Subject/To in any order and language)."""
    p = phrases()
    kinds: set[str] = set()
    end = index
    for offset, line in enumerate(lines[index : index + _HEADER_WINDOW]):
        kind = next(
            (
                name
                for name, pattern in (
                    ("from", p.header_from),
                    ("date", p.header_date),
                    ("subject", p.header_subject),
                    ("to", p.header_to),
                )
                if pattern.match(line)
            ),
            None,
        )
        if kind is None:
            if offset == 0 or not line.strip() or _QUOTE.match(line):
                break
            continue  # a folded value ("To: a,\n    b")
        kinds.add(kind)
        end = index + offset
    counts = ("from" in kinds and ({"date", "subject"} & kinds)) or {"date", "subject", "to"} <= kinds
    return end - index + 1 if counts and len(kinds) >= 2 and end > index else 0


def _attribution(lines: list[str], index: int) -> int:
    """Lines of an attribution starting at ``index``, possibly wrapped; 0 when none starts here."""
    window = lines[index : index + _MAX_ATTRIBUTION_LINES]
    if not any(line.rstrip().endswith(":") for line in window):
        return 0  # every attribution ends with a colon (_is_attribution): no line here can end one
    parts: list[str] = []
    for end in range(index, min(index + _MAX_ATTRIBUTION_LINES, len(lines))):
        line = lines[end]
        # A wrapped attribution never contains a blank or quoted line, nor a second start.
        if (
            not line.strip()
            or (_QUOTE.match(line) and not (end > index and _CLOSER.match(line)))
            or (end > index and phrases().attribution_start.match(line))
        ):
            return 0
        parts.append(line.strip())
        candidate = " ".join(parts)
        if len(candidate) > _MAX_ATTRIBUTION_CHARS:
            return 0
        if _is_attribution(candidate, lines, end):
            # The attribution is the shortest tail: "ATTACK 2" above "On ... wrote:" is the writer's.
            tail = " ".join(parts[1:])
            if (
                end > index
                and not _looks_like_start(parts[0])
                and _is_attribution(tail, lines, end, loose=False)
            ):
                return 0
            return end - index + 1
    return 0


_TIME = re.compile(r"\b\d{1,2}[:.]\d\d\b")
# A date with its year: "23. nov. 2026", "23 Nov 2026", "23.11.2026", "2026-11-23". Gmail may wrap
# a Norwegian attribution after "man. 23. nov. 2026 kl.", leaving the time to the next line.
_DATE = re.compile(
    r"\b\d{1,2}\.?\s+[^\W\d_]{3,10}\.?,?\s+(?:19|20)\d\d\b"
    r"|\b\d{1,2}[./-]\d{1,2}[./-](?:19|20)\d\d\b|\b(?:19|20)\d\d-\d\d-\d\d\b"
)


def _looks_like_start(line: str) -> bool:
    """Whether a line can open a wrapped attribution: a start word, a time or a dated year in it."""
    return bool(phrases().attribution_start.match(line) or _TIME.search(line) or _DATE.search(line))


def _is_attribution(candidate: str, lines: list[str], end: int, *, loose: bool = True) -> bool:
    """Whether ``candidate`` (lines joined up to ``end``) is an attribution.

    ``loose`` also accepts a bare "Bob wrote:" when a quote follows; the
    shortest-tail test does not, or the "wrote:" of a wrapped line would win.
    """
    if not candidate.rstrip().endswith(":"):  # every attribution ends so; spare the regexes
        return False
    p = phrases()
    if p.attribution.match(candidate) or ("@" in candidate and p.dated_address.search(candidate)):
        return True
    if p.verb_colon.search(candidate):
        # "Bob <b@x> wrote:" without a start word: dated, addressed, or followed by a quote.
        return bool(re.search(r"\d|@", candidate)) or (loose and _quote_follows(lines, end + 1))
    return False


def _quote_follows(lines: list[str], index: int) -> bool:
    """Whether the next non-blank line from ``index`` on is a quoted (or TAB-indented) line."""
    for line in lines[index:]:
        if line.strip():
            return bool(_QUOTE.match(line) or line.startswith("\t"))
    return False


# --- deciding --------------------------------------------------------------------------------


def _walk(
    lines: list[str], marks: list[Mark], spans: dict[int, int], known: Known | None, *, prose: bool = False
) -> list[bool]:
    """Which lines are the writer's; with ``prose``, his greetings and sign-offs too."""
    keep = [False] * len(lines)
    index, mode = 0, "text"  # text | signature | copy (an unmarked original of a known letter)
    while index < len(lines):
        mark = marks[index]
        if mark is Mark.SPLIT:
            _drop_rule_above(lines, keep, index)
            span = spans[index]
            after = index + span
            if _quote_follows(lines, after):
                index = _skip_quote(lines, marks, after)
                mode = "text"
                continue
            if known is None:
                break  # an unmarked original of a letter we do not know: nothing below is the writer's
            index, mode = after, "copy"
            continue
        if mark is Mark.QUOTE and mode != "copy":
            index, mode = _skip_quote(lines, marks, index), "text"
            continue
        if mark is Mark.FOOTER:
            _drop_rule_above(lines, keep, index)
        if mark in (Mark.SIGNATURE, Mark.FOOTER):
            mode = "copy" if mode == "copy" else "signature"
        elif mode == "copy":
            keep[index] = mark is Mark.TEXT and known is not None and not known.has(lines[index])
        elif mode == "text":
            keep[index] = (
                mark is Mark.EMPTY
                or (mark is Mark.TEXT and not _wrapped_quote(lines, marks, index, known))
                or (prose and mark is Mark.GREETING)
            )
        index += 1
    if not prose:
        _drop_signoffs(lines, keep)
    return keep


def _wrapped_quote(lines: list[str], marks: list[Mark], index: int, known: Known | None) -> bool:
    """A long quoted line some clients wrap without ``>`` on the rest (Android Gmail): a known
    piece of the bot's text squeezed between two quoted lines."""
    if known is None or index == 0 or index + 1 >= len(lines):
        return False
    return marks[index - 1] is Mark.QUOTE and marks[index + 1] is Mark.QUOTE and known.has(lines[index])


def _drop_rule_above(lines: list[str], keep: list[bool], index: int) -> None:
    """Outlook's rule above its header block belongs to the original, not to the writer."""
    above = index - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    if above >= 0 and keep[above] and _RULE.match(lines[above]):
        keep[above] = False


def _skip_quote(lines: list[str], marks: list[Mark], index: int) -> int:
    """The index after the quote block starting at ``index`` (quoted, TAB-indented and blank lines)."""
    tabbed = False
    while index < len(lines):
        line = lines[index]
        if marks[index] is Mark.QUOTE:
            index += 1
        elif line.startswith("\t") and line.strip():
            tabbed, index = True, index + 1
        elif not line.strip() and (tabbed or marks[index] is Mark.EMPTY):
            index += 1
        else:
            break
    return index


def _drop_signoffs(lines: list[str], keep: list[bool]) -> None:
    """A sign-off line ("Thanks,", "Best regards") and, at the very end, the short name lines under it."""
    for index, line in enumerate(lines):
        if keep[index] and phrases().signoff.match(line):
            for drop in range(index, index + 1 + _name_lines(lines, keep, index + 1)):
                keep[drop] = False


def _name_lines(lines: list[str], keep: list[bool], start: int) -> int:
    """How many name lines follow a sign-off: short, no digits, not shouted, and nothing kept after them."""
    count = 0
    while start + count < len(lines) and keep[start + count] and lines[start + count].strip():
        line = lines[start + count].strip()
        if count >= _NAME_LINES or len(line) > _NAME_CHARS or re.search(r"\d", line) or line.isupper():
            return 0
        count += 1
    rest = start + count
    return 0 if any(keep[i] and lines[i].strip() for i in range(rest, len(lines))) else count
