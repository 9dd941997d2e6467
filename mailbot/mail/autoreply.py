# SPDX-License-Identifier: GPL-3.0-or-later
"""Whether a person wrote a letter: the rules of ``data/auto-replies.toml``, read once.

The rules are data, with their sources, so that a header or a language's
vacation subject can be added without touching code (the way the quote
phrases are kept, :mod:`mailbot.mail.phrases`).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from mailbot.core.letter import Automatic

_COMMENT = re.compile(r"\([^)]*\)")
_TOKENS = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class Rule:
    header: str  # lower-cased
    kind: Automatic
    test: Callable[[str], bool]  # on the header's raw value


@dataclass(frozen=True)
class Rules:
    kinds: tuple[tuple[Automatic, tuple[Rule, ...]], ...]  # tried kind by kind, in this order
    subject_kind: Automatic
    subject_start: re.Pattern[str]
    subject_contains: re.Pattern[str]
    gateway_tag: re.Pattern[str]  # "[EXTERNAL] " a mail gateway wrote in front of the subject


def first_token(value: str) -> str:
    """A header's leading keyword, lower-cased, without comments or parameters."""
    return _COMMENT.sub(" ", value).split(";")[0].strip().lower()


def _words(entry: Mapping[str, object], key: str) -> frozenset[str]:
    """A rule's list of words (``values``, ``tokens``, ``except``), as read from the TOML file."""
    found = entry[key]
    if not isinstance(found, list):
        raise ValueError(f"auto-replies.toml: {key} of the rule for {entry.get('header')} is not a list")
    return frozenset(str(v) for v in found)


def _test(entry: Mapping[str, object]) -> Callable[[str], bool]:
    if entry.get("present"):
        return lambda _value: True
    if "values" in entry:
        values = _words(entry, "values")
        return lambda value: first_token(value) in values
    if "tokens" in entry:
        tokens = _words(entry, "tokens")
        return lambda value: bool(tokens & set(_TOKENS.split(_COMMENT.sub(" ", value).lower())))
    if "except" in entry:
        allowed = _words(entry, "except")
        return lambda value: first_token(value) not in allowed
    raise ValueError(f"auto-replies.toml: rule for {entry.get('header')} has no match")


def _alternatives(words: list[str]) -> str:
    ordered = sorted({_fold(w) for w in words if w.strip()}, key=len, reverse=True)
    return "|".join(r"\s*".join(re.escape(part) for part in w.split()) for w in ordered)


def _fold(text: str) -> str:
    """Subjects and prefixes compared alike: NFKC (full-width letters, "：") and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold().strip()


def _rule(entry: Mapping[str, object]) -> Rule:
    return Rule(str(entry["header"]).lower(), Automatic(str(entry["kind"])), _test(entry))


@cache
def rules() -> Rules:
    data = tomllib.loads((files("mailbot.mail") / "data" / "auto-replies.toml").read_text("utf-8"))
    subject = data["subject"]
    kinds = tuple(
        (kind, tuple(_rule(e) for e in data["rule"] if e["kind"] == kind.value))
        for kind in map(Automatic, data["order"])
    )
    return Rules(
        kinds=kinds,
        subject_kind=Automatic(subject["kind"]),
        # The prefix, then the end, a space or punctuation: "Automobile" is no "auto".
        subject_start=re.compile(rf"^\s*(?:{_alternatives(subject['prefixes'])})(?:$|[\s:;,.!\-(\[]|(?<=:))"),
        subject_contains=re.compile(_alternatives(subject["contains"])),
        gateway_tag=re.compile(rf"^\s*\[\s*(?:{_alternatives(subject['gateway_tags'])})\s*\]\s*"),
    )


def automatic_kind(header: Callable[[str], str | None], subject: str) -> Automatic:
    """Why the headers (``header(name)``: the first one's value, unfolded, None when absent) or the
    subject mark machine mail, the most specific reason first; NO for a person. Bounces are the
    caller's."""
    found = rules()
    for kind, kind_rules in found.kinds:
        for rule in kind_rules:
            value = header(rule.header)
            if value is not None and rule.test(value):
                return kind
        if kind is found.subject_kind and _subject_matches(found, subject):
            return kind
    return Automatic.NO


#: the moderator's own VACATION command as a subject ("VACATION 2026-12-03 2026-12-05"): a
#: player's, which no auto-responder writes, though it starts with the word "vacation"
_VACATION_COMMAND = re.compile(r"^\s*vacation\s+\d{4}-\d{2}-\d{2}\s+\d{4}-\d{2}-\d{2}\b")


def _subject_matches(found: Rules, subject: str) -> bool:
    folded = found.gateway_tag.sub("", _fold(subject), count=1)
    if _VACATION_COMMAND.match(folded):
        return False
    return bool(found.subject_start.match(folded) or found.subject_contains.search(folded))
