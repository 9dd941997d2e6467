# SPDX-License-Identifier: GPL-3.0-or-later
"""Removing quoted replies, forwarded originals and signatures from a letter's text.

Commands are read only from what the player wrote this time: quoted text may
repeat old orders (or the moderator's own examples) and must never be acted on
twice. Everything here is a heuristic over plain text, so the patterns stay
anchored to whole lines to keep a command line from being mistaken for a quote.
"""

from __future__ import annotations

import re

# Leading white space is allowed: some clients indent their ">" quote blocks.
_QUOTE = re.compile(r"^[ \t]*>")

# Attribution lines put the verb late ("On ..., Bob wrote:") or mid-line with the name
# after it ("Am ... schrieb Bob <b@x>:"), so only the start word, a verb and the final
# colon are required. Long lines are not attributions, they are prose.
_STARTS = r"On|Am|Le|El|Il|Op|Em|Den|Dne|W dniu|Dnia"
_VERBS = (
    r"wrote|writes|schrieb|a écrit|escribió|ha scritto|schreef|escreveu|skrev|"
    r"napisał|napisała|kirjoitti|пишет|написал|написала"
)
_ATTRIBUTION = re.compile(rf"^\s*(?:{_STARTS})\s.*\b(?:{_VERBS})\b.*:\s*$", re.IGNORECASE)
_ATTRIBUTION_START = re.compile(rf"^\s*(?:{_STARTS})\s", re.IGNORECASE)
# Without a known start word ("Bob <b@x> wrote:") a line is an attribution only when
# a quote block follows it.
_LOOSE_ATTRIBUTION = re.compile(rf"\b(?:{_VERBS})\b.*:\s*$", re.IGNORECASE)
_MAX_ATTRIBUTION_CHARS = 250
_MAX_ATTRIBUTION_LINES = 3  # clients wrap long attributions; two lines are common, three seen

_ORIGINAL = re.compile(
    r"^\s*-{3,}\s*(?:original message|ursprüngliche nachricht|message d'origine|mensaje original|"
    r"messaggio originale|oorspronkelijk bericht)\s*-{3,}\s*$",
    re.IGNORECASE,
)
_FORWARD = re.compile(
    r"^\s*(?:-{3,}\s*(?:forwarded message|weitergeleitete nachricht|message transféré|"
    r"mensaje reenviado|messaggio inoltrato)\s*-{3,}|(?:begin forwarded message|"
    r"anfang der weitergeleiteten nachricht|début du message réexpédié)\s*:)\s*$",
    re.IGNORECASE,
)
# Mobile clients append a one-line signature without the "-- " separator.
_MOBILE_SIGNATURE = re.compile(
    r"^\s*(?:sent from my [\w ]{1,30}|von meinem [\w ]{1,30} gesendet|envoyé de mon [\w ]{1,30}|"
    r"get outlook for (?:ios|android))\s*$",
    re.IGNORECASE,
)

# Outlook's reply header block: From, then Sent/Date and Subject within a few lines.
_HEADER_FROM = re.compile(r"^\s*\*?(?:from|von|de|van|da)\s*:\*?\s", re.IGNORECASE)
_HEADER_SENT = re.compile(r"^\s*\*?(?:sent|date|gesendet|datum|envoyé|enviado|inviato|verzonden)\s*:", re.I)
_HEADER_SUBJECT = re.compile(r"^\s*\*?(?:subject|betreff|objet|asunto|oggetto|onderwerp)\s*:", re.I)
_HEADER_BLOCK_LINES = 6

# Outlook draws a rule (underscores, or "* * *" once HTML is converted) above its header
# block; it is left over at the end after the cut.
_RULE = re.compile(r"^\s*(?:[_*=-]\s*){3,}$")


def strip_quotes(text: str) -> str:
    """Return ``text`` without quoted lines, reply/forward tails and signature.

    Lines starting with ``>`` are dropped wherever they are; an attribution
    line, an original/forwarded-message marker, an Outlook header block or a
    signature separator ends the text. Trailing blank lines are removed.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    head = lines[: _tail_start(lines)]
    kept = [line for line in head if not _QUOTE.match(line)]
    while kept and (not kept[-1].strip() or _RULE.match(kept[-1])):
        kept.pop()
    return "\n".join(kept)


def _tail_start(lines: list[str]) -> int:
    """Index of the first line after which nothing is the sender's own new text."""
    for index, line in enumerate(lines):
        if not _QUOTE.match(line) and _starts_tail(lines, index):
            return index
    return len(lines)


def _starts_tail(lines: list[str], index: int) -> bool:
    line = lines[index]
    return bool(
        _is_signature_separator(line)
        or _ORIGINAL.match(line)
        or _FORWARD.match(line)
        or _MOBILE_SIGNATURE.match(line)
        or _is_header_block(lines, index)
        or _is_attribution(lines, index)
    )


def _is_signature_separator(line: str) -> bool:
    # RFC 3676 says "-- "; many clients trim the trailing space, so "--" counts too.
    return line.rstrip(" \t") == "--"


def _is_header_block(lines: list[str], index: int) -> bool:
    if not _HEADER_FROM.match(lines[index]):
        return False
    window = lines[index + 1 : index + 1 + _HEADER_BLOCK_LINES]
    return any(_HEADER_SENT.match(line) for line in window) and any(
        _HEADER_SUBJECT.match(line) for line in window
    )


def _is_attribution(lines: list[str], index: int) -> bool:
    """Whether an attribution ("On ... wrote:") starts at ``index``, possibly wrapped."""
    parts: list[str] = []
    for end in range(index, min(index + _MAX_ATTRIBUTION_LINES, len(lines))):
        line = lines[end]
        # A wrapped attribution never contains a blank, quoted or second starting line.
        if not line.strip() or _QUOTE.match(line) or (end > index and _ATTRIBUTION_START.match(line)):
            return False
        parts.append(line.strip())
        candidate = " ".join(parts)
        if len(candidate) > _MAX_ATTRIBUTION_CHARS:
            return False
        if _ATTRIBUTION.match(candidate):
            return True
        # Unwrapped only: joined with the line before, "Bob wrote:" would swallow that line.
        if end == index and _LOOSE_ATTRIBUTION.search(line) and _quote_follows(lines, end + 1):
            return True
    return False


def _quote_follows(lines: list[str], index: int) -> bool:
    """Whether the next non-blank line from ``index`` on is a quoted line."""
    for line in lines[index:]:
        if line.strip():
            return bool(_QUOTE.match(line))
    return False
