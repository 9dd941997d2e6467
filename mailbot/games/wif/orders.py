# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading the moving side's impulse-end lines: WEATHER, PASS, LAST, NEUTRAL, WAR.

Lenient in what is read (any case, abbreviations such as GER or NC), exact in
what is echoed (``PASS Germany Italy``); LAST also in the seed's own words, "last die"
(``Last die: 3``, ``LAST DIE 2``: ``LAST 3``, ``LAST 2``). A line with any problem is refused
whole, so the echo always shows exactly what will count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from mailbot.core.game import Accepted, Line, Parsed, Problem, ProblemKind
from mailbot.games.wif.rules import AMBIGUOUS_WORDS, MAX_WEATHER, MIN_WEATHER, read_powers


@dataclass(frozen=True)
class Weather:
    """The circled number on the weather track: how many d10s are rolled."""

    number: int


@dataclass(frozen=True)
class Pass:
    powers: tuple[str, ...]


@dataclass(frozen=True)
class LastDie:
    """Which die (1-based, in rolling order) is the "last die" (seed 002)."""

    position: int


@dataclass(frozen=True)
class Status:
    """NEUTRAL or WAR: a power's standing from this impulse on."""

    powers: tuple[str, ...]
    neutral: bool


WifOrder = Weather | Pass | LastDie | Status

KEYWORDS: dict[str, str] = {
    "WEATHER": "WEATHER",
    "W": "WEATHER",
    "PASS": "PASS",
    "PASSES": "PASS",
    "LAST": "LAST",
    "LASTDIE": "LAST",
    "NEUTRAL": "NEUTRAL",
    "WAR": "WAR",
    "ATWAR": "WAR",
}


@dataclass(frozen=True)
class Context:
    """What a letter is checked against: the moving side and the dice it rolls now."""

    side: str
    powers: tuple[str, ...]
    weather: int


@dataclass(frozen=True)
class Refusal:
    """Why one line is refused; becomes a :class:`Problem` with the line's number and text."""

    kind: ProblemKind
    reason: str


def _number(words: list[str], usage: str) -> int | Refusal:
    if len(words) != 1 or not words[0].isdigit():
        return Refusal(ProblemKind.INVALID, usage)
    return int(words[0])


def _read_weather(args: list[str]) -> Weather | Refusal:
    number = _number(
        args, f"WEATHER takes one number: the circled weather number, {MIN_WEATHER} to {MAX_WEATHER}"
    )
    if isinstance(number, Refusal):
        return number
    if not MIN_WEATHER <= number <= MAX_WEATHER:
        return Refusal(
            ProblemKind.ILLEGAL,
            f"the circled weather number is {MIN_WEATHER} to {MAX_WEATHER} (dice per impulse), not {number}",
        )
    return Weather(number)


def _read_last(args: list[str]) -> LastDie | Refusal:
    number = _number(args, "LAST takes one number: the position of the last die, e.g. LAST 2")
    if isinstance(number, Refusal):
        return number
    return LastDie(number) if number >= 1 else Refusal(ProblemKind.ILLEGAL, "dice are counted from 1")


def _read_power_list(text: str, context: Context, keyword: str) -> tuple[str, ...] | Refusal:
    found, unknown, ambiguous = read_powers(text)
    if unknown:
        return Refusal(ProblemKind.INVALID, f"unknown major power {unknown[0]!r} (e.g. GER, ITA, CW, NC)")
    if ambiguous:
        meant = AMBIGUOUS_WORDS[ambiguous[0]]
        return Refusal(ProblemKind.AMBIGUOUS, f"{ambiguous[0]!r} could be {meant}: write NC or CC")
    if not found:
        return Refusal(ProblemKind.INVALID, f"{keyword} names major powers, e.g. {keyword} Germany Italy")
    for power in found:
        if power not in context.powers:
            return Refusal(ProblemKind.ILLEGAL, f"{power} is not a major power of the {context.side}")
    return tuple(dict.fromkeys(found))


def _read_line(keyword: str, rest: str, context: Context) -> WifOrder | Refusal:
    if keyword == "WEATHER":
        return _read_weather(rest.split())
    if keyword == "LAST":
        return _read_last(rest.split())
    powers = _read_power_list(rest, context, keyword)
    if isinstance(powers, Refusal):
        return powers
    if keyword == "PASS":
        return Pass(powers)
    return Status(powers, neutral=keyword == "NEUTRAL")


def normalise(order: WifOrder) -> str:
    """The exact line echoed, stored and hashed; ``parse`` reads it back unchanged."""
    if isinstance(order, Weather):
        return f"WEATHER {order.number}"
    if isinstance(order, LastDie):
        return f"LAST {order.position}"
    word = "PASS" if isinstance(order, Pass) else "NEUTRAL" if order.neutral else "WAR"
    return f"{word} {' '.join(order.powers)}"


#: what may stand between LAST and its number: seed 002 calls it the "last die" ("LAST DIE 2",
#: "Last die: 3", "last-die = 2"), and a colon or an equals sign after either word
_LAST_DIE = re.compile(r"^(?:DIE\b)?\s*[:=]?\s*", re.IGNORECASE)


def _split_keyword(text: str) -> tuple[str, str]:
    head, _, rest = text.strip().partition(" ")
    word = head.upper().rstrip(":=")
    if word == "AT" and rest.strip().upper().startswith("WAR"):  # "AT WAR USA"
        return "WAR", rest.strip()[3:]
    if word.startswith("LAST-DIE"):  # "LAST-DIE 2", "last-die:2"
        word, rest = "LAST", head[len("LAST-DIE") :] + " " + rest
    keyword = KEYWORDS.get(word, "")
    if keyword == "LAST":
        rest = _LAST_DIE.sub("", rest.strip(), count=1)
    return keyword, rest


def parse_lines(lines: Sequence[Line], context: Context) -> Parsed[WifOrder]:
    """Every line becomes an accepted order or a problem; never raises on player input."""
    accepted: list[Accepted[WifOrder]] = []
    problems: list[Problem] = []
    seen = _Seen()
    for line in lines:
        text = line.text.strip()
        if not text:
            continue
        order = _read_checked(text, line.number, context, seen)
        if isinstance(order, Refusal):
            problems.append(Problem(line.number, text, order.kind, order.reason))
        else:
            accepted.append(Accepted(line.number, normalise(order), order))
    late = _check_last(accepted, context, {line.number: line.text.strip() for line in lines})
    refused = {p.line for p in late}
    return Parsed(
        tuple(a for a in accepted if a.line not in refused),
        tuple(sorted((*problems, *late), key=lambda p: p.line)),
    )


@dataclass
class _Seen:
    """What earlier lines of the same letter gave: WEATHER and LAST once, each power passing once."""

    once: dict[str, int] = field(default_factory=dict)  # keyword -> line
    passing: dict[str, int] = field(default_factory=dict)  # power -> line


def _read_checked(text: str, number: int, context: Context, seen: _Seen) -> WifOrder | Refusal:
    keyword, rest = _split_keyword(text)
    if not keyword:
        return Refusal(
            ProblemKind.INVALID, "not an impulse-end order: use WEATHER, PASS, LAST, NEUTRAL or WAR"
        )
    order = _read_line(keyword, rest, context)
    if isinstance(order, Refusal):
        return order
    if keyword in ("WEATHER", "LAST"):
        if keyword in seen.once:
            return Refusal(ProblemKind.ILLEGAL, f"{keyword} was already given on line {seen.once[keyword]}")
        seen.once[keyword] = number
    if isinstance(order, Pass):
        again = [power for power in order.powers if power in seen.passing]
        if again:
            return Refusal(ProblemKind.ILLEGAL, f"{again[0]} already passes on line {seen.passing[again[0]]}")
        seen.passing.update(dict.fromkeys(order.powers, number))
    return order


def _check_last(
    accepted: Sequence[Accepted[WifOrder]], context: Context, texts: dict[int, str]
) -> list[Problem]:
    """LAST is checked against the dice this letter rolls, which a later WEATHER line may change."""
    weather = next((a.order.number for a in accepted if isinstance(a.order, Weather)), context.weather)
    return [
        Problem(
            a.line,
            texts[a.line],
            ProblemKind.ILLEGAL,
            f"only {weather} dice are rolled at weather {weather}: the last die is 1 to {weather}",
        )
        for a in accepted
        if isinstance(a.order, LastDie) and a.order.position > weather
    ]
