# SPDX-License-Identifier: GPL-3.0-or-later
"""The phrases of quoting, as patterns: read once from ``data/quote-phrases.toml``.

The phrases are data so that a language can be added without touching code
(talon keeps its splitter phrases in code, one regex per client and language;
having them as a list was the idea, keeping them apart is ours).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

# An address inside an attribution ("Bob <bob@example.org>", "bob@example.org").
EMAIL = r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+"


@dataclass(frozen=True)
class Phrases:
    attribution: re.Pattern[str]  # start word ... verb ... ":"
    attribution_start: re.Pattern[str]
    verb_colon: re.Pattern[str]  # ... verb ... ":" (no start word)
    dated_address: re.Pattern[str]  # a date or time and an address, ":" at the end (Yandex, Mail.ru, mutt)
    separator: re.Pattern[str]  # "----- Original Message -----" and forwards
    header_from: re.Pattern[str]
    header_date: re.Pattern[str]
    header_subject: re.Pattern[str]
    header_to: re.Pattern[str]
    client_signature: re.Pattern[str]
    greeting: re.Pattern[str]
    signoff: re.Pattern[str]
    list_footer: re.Pattern[str]  # the first line of a mailing list's footer
    list_name: re.Pattern[str]  # "Pbem mailing list": a footer's first line when under a rule


def _alternatives(words: list[str]) -> str:
    # Longest first, so "envoyé le" wins over "envoyé"; white space inside a phrase may be any run.
    ordered = sorted({w.strip().lower() for w in words if w.strip()}, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in ordered)


def _header(words: list[str]) -> re.Pattern[str]:
    # "From:", "*From:*", "Envoyé le :" (French spacing), "**Von:**" after an HTML conversion.
    return re.compile(rf"^\s*[*_]*(?:{_alternatives(words)})[*_]*\s*:[*_]*(?:\s|$)", re.IGNORECASE)


@cache
def phrases() -> Phrases:
    data = tomllib.loads((files("mailbot.mail") / "data" / "quote-phrases.toml").read_text("utf-8"))
    starts = _alternatives(data["attribution"]["starts"])
    verbs = _alternatives(data["attribution"]["verbs"])
    original = _alternatives(data["separator"]["original"] + data["separator"]["forward"])
    forward_lines = _alternatives(data["separator"]["forward_lines"])
    short = r"(?:[\s,.;:!-]+\S+){0,4}[\s,.!]*"  # a name or a few words after the phrase, no more
    return Phrases(
        attribution=re.compile(rf"^\s*(?:{starts})\s.*(?:{verbs}).*:\s*$", re.IGNORECASE),
        attribution_start=re.compile(rf"^\s*(?:{starts})\s", re.IGNORECASE),
        # The verb last ("Bob wrote:") or followed by a date ("Bob kirjoitti 23.11.2026 klo 14.05:").
        verb_colon=re.compile(rf"(?:^|[\s)>\"])(?:{verbs})(?:[\s(,].{{0,60}})?:\s*$", re.IGNORECASE),
        # Digits (a date) and an address anywhere, ":" at the end: Yandex, Mail.ru, mutt's "[date]:".
        dated_address=re.compile(rf"^(?=.*\d).*{EMAIL}.*:\s*$", re.IGNORECASE),
        separator=re.compile(
            rf"^\s*(?:[-_=*\s]{{2,}}\s*(?:{original})\s*[-_=*:\s]*|(?:{forward_lines})\s*:)\s*$",
            re.IGNORECASE,
        ),
        header_from=_header(data["header"]["from"]),
        header_date=_header(data["header"]["date"]),
        header_subject=_header(data["header"]["subject"]),
        header_to=_header(data["header"]["to"]),
        client_signature=re.compile(
            rf"^\s*(?:{_alternatives(data['client_signature']['phrases'])})\b.{{0,80}}$", re.IGNORECASE
        ),
        greeting=re.compile(rf"^\s*(?:{_alternatives(data['greeting']['phrases'])}){short}$", re.IGNORECASE),
        signoff=re.compile(rf"^\s*(?:{_alternatives(data['signoff']['phrases'])}){short}$", re.IGNORECASE),
        list_footer=re.compile(rf"^\s*(?:{_alternatives(data['list_footer']['starts'])})", re.IGNORECASE),
        # A list's name (one to three words) and "mailing list", Mailman 3 adding " -- address".
        list_name=re.compile(
            rf"^\s*\S+(?:\s+\S+){{0,2}}\s+(?:{_alternatives(data['list_footer']['names'])})(?:\s+--\s.*)?\s*$",
            re.IGNORECASE,
        ),
    )
