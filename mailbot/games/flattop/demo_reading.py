# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's scripted player reads its letter as a person would: its own TFs, ships, AFs and
plane boxes, the contacts, the winds, an air battle's precise makeup and the enemy losses it
must rank, all from the letter's text alone (it is told nothing else)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from mailbot.games.flattop.map.hexes import (
    Direction,
    Hex,
    parse_direction,
    parse_hex_id,
    parse_roman,
)

#: each side's search sector: where its staff expects the enemy carriers (the scenario's start hexes)

#: LF lost per hit, normal and minimum (tables/damage.toml launch_loss)
LF_LOSS = {"CV": (3, 1), "CVL": (2, 1)}


@dataclass(frozen=True)
class Stack:
    count: int
    plane: str
    load: str = ""  # "" unarmed, else the order word: GP, AP, TORPEDO


@dataclass(frozen=True)
class OwnShip:
    type: str
    name: str
    hits: int = 0


@dataclass(frozen=True)
class OwnTF:
    number: int
    hex: Hex
    ships: tuple[OwnShip, ...] = ()
    boxes: Mapping[str, tuple[Stack, ...]] = field(default_factory=dict)  # "ready", "readying", ...
    speed: int = 0
    grounded: frozenset[str] = frozenset()  # carriers whose planes may not fly this turn (21.2.3, criticals)

    @property
    def carriers(self) -> tuple[OwnShip, ...]:
        return tuple(s for s in self.ships if s.type in LF_LOSS)


@dataclass(frozen=True)
class OwnAF:
    number: int
    hex: Hex
    stacks: tuple[Stack, ...]
    mf: int
    range_left: int
    origin: str

    @property
    def armed(self) -> bool:
        return any(s.load for s in self.stacks)

    @property
    def factors(self) -> int:
        return sum(s.count for s in self.stacks)


@dataclass(frozen=True)
class Contact:
    when: tuple[int, int]  # (day, hour)
    hex: Hex
    kind: str  # ships | planes
    condition: int
    text: str

    @property
    def carriers(self) -> bool:
        return "carrier" in self.text


@dataclass(frozen=True)
class Report:
    when: tuple[int, int] = (0, 0)  # the turn to play: (day, hour)
    night: bool = False
    tfs: Mapping[int, OwnTF] = field(default_factory=dict)
    air: Mapping[int, OwnAF] = field(default_factory=dict)
    bases: Mapping[str, Hex] = field(default_factory=dict)
    contacts: tuple[Contact, ...] = ()
    storms: frozenset[Hex] = frozenset()
    winds: Mapping[int, Direction] = field(default_factory=dict)
    title: str = ""  # the scenario's title as the letter gives it (the line before "What changed")


@dataclass(frozen=True)
class Makeup:
    """One "declared an attack" line of a strike letter (seed 003, 15 LI 1)."""

    afs: tuple[int, ...]
    hex: str
    tfs: Mapping[str, str]  # TF letter -> "2 CV (one smoking), 2 CA and 6 DD"
    labels: tuple[str, ...]


_LABEL = r"(?:[A-Z]-[A-Z]+\d+|BASE)"
_NOW = re.compile(r"game time D(\d+) (\d\d)\d\d( \(night\))?")
_TF = re.compile(
    r"TF(\d+) at (\S+), speed (\d+), plot .*? ships: (.*?)(?: planes: (.*?))?"
    r"(?: aboard, unable to fly this turn \(.*?\): (.*?))?(?= TF\d+ at |$)"
)
_SHIP = re.compile(r"(\w+) (.+?)(?: \((\d+)/\d+ hits\))?$")
_STACK = re.compile(r"(\d+) (\S+)(?: \((\w+)\))?$")
_AF = re.compile(r"AF(\d+) at (\S+), \w*, (.*?), MF (\d+), range left (-?\d+) turn\(s\), from (\S+)")
_BASE = re.compile(r"^  (\S[^:\n]*?) at ([IVX]+-[A-Z]{1,2}\d+):", re.MULTILINE)
_CONTACT = re.compile(
    r"D(\d+) (\d\d)\d\d (\S+) (\w+) condition (\d) by [^:]+: (.*?)(?= D\d+ \d{4} \S+ \w+ condition |$)"
)
_WIND = re.compile(r"([IVX]+) ([NSEW]{1,2})\b")
_MAKEUP = re.compile(
    r"((?:AF\d+ )+)declared an attack at (\S+)\. Precise makeup \(seed 003, 15\): (.*?)\. "
    rf"Targets you may name: ({_LABEL}(?: {_LABEL})*)"
)
_LOSSES = re.compile(
    r"(BASE [^:]+|\S+): enemy aircraft destroyed there; the types present were (.*?): send RANK"
)


def _section(text: str, head: str, *ends: str) -> str:
    """The text after ``head`` up to the first of ``ends``, its whitespace collapsed (undoes wrapping)."""
    start = text.find(head)
    if start < 0:
        return ""
    body = text[start + len(head) :]
    cut = min((i for i in (body.find(end) for end in ends) if i >= 0), default=len(body))
    return " ".join(body[:cut].split())


def _hexes(words: str) -> frozenset[Hex]:
    return frozenset(h for w in words.split() if (h := parse_hex_id(w)) is not None)


def read_stacks(text: str) -> tuple[Stack, ...]:
    """``12 Wildcat, 24 Dauntless (GP)`` as stacks; the load as its order word."""
    stacks = []
    for item in text.split(", "):
        if found := _STACK.match(item.strip()):
            stacks.append(Stack(int(found[1]), found[2], (found[3] or "").upper()))
    return tuple(stacks)


def read_boxes(text: str) -> dict[str, tuple[Stack, ...]]:
    """``readying: 8 Devastator; ready: 12 Wildcat`` -> {"readying": ..., "ready": ...}."""
    boxes = {}
    for part in text.split("; "):
        box, _, items = part.partition(": ")
        if items:
            boxes[box.strip()] = read_stacks(items)
    return boxes


def _ships(text: str) -> tuple[OwnShip, ...]:
    found = (_SHIP.match(part.strip()) for part in text.split(", "))
    return tuple(OwnShip(m[1], m[2], int(m[3] or 0)) for m in found if m)


def _task_forces(text: str) -> dict[int, OwnTF]:
    tfs = {}
    for number, where, speed, ships, planes, shut in _TF.findall(_section(text, "Task forces:", "\nBases:")):
        if (h := parse_hex_id(where)) is not None:
            grounded = frozenset(re.findall(r"(?:^|; )([^;()]+?) \((?:LF 0|flight deck hit)\)", shut))
            tfs[int(number)] = OwnTF(int(number), h, _ships(ships), read_boxes(planes), int(speed), grounded)
    return tfs


def _air(text: str) -> dict[int, OwnAF]:
    air = {}
    section = _section(text, "Air formations aloft:", "\nContacts (")
    for number, where, planes, mf, left, origin in _AF.findall(section):
        if (h := parse_hex_id(where)) is not None:
            air[int(number)] = OwnAF(int(number), h, read_stacks(planes), int(mf), int(left), origin)
    return air


def _contacts(text: str) -> tuple[Contact, ...]:
    section = _section(text, "by kind of observer):", "\n\n", "\nCombat results table")
    return tuple(
        Contact((int(day), int(hour)), h, kind, int(condition), words)
        for day, hour, where, kind, condition, words in _CONTACT.findall(section)
        if (h := parse_hex_id(where)) is not None
    )


def _winds(text: str) -> dict[int, Direction]:
    winds = {}
    for numeral, word in _WIND.findall(_section(text, "Winds:", "\nCloud markers", "\n\n")):
        number, toward = parse_roman(numeral), parse_direction(word)
        if number is not None and toward is not None:
            winds[number] = toward
    return winds


def unix_lines(text: str) -> str:
    """Mail comes with CRLF line ends; the sections are found by their blank lines."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_report(text: str) -> Report:
    """The facts the script needs from a report letter (own units, contacts, storms, winds)."""
    text = unix_lines(text)
    now = _NOW.search(text)
    start = text.find("\nBases:")
    listed = _BASE.findall(text[start : text.find("\nAir formations", start)]) if start >= 0 else []
    bases = {name: h for name, where in listed if (h := parse_hex_id(where)) is not None}
    return Report(
        when=(int(now[1]), int(now[2])) if now else (0, 0),
        night=bool(now and now[3]),
        tfs=_task_forces(text),
        air=_air(text),
        bases=bases,
        contacts=_contacts(text),
        storms=_hexes(_section(text, "Storms:", "\n\n")),
        winds=_winds(text),
        title=_title(text),
    )


def _title(text: str) -> str:
    """The scenario's title: the paragraph after "What you must decide:", its wrap undone."""
    paragraphs = text.split("\nWhat changed", 1)[0].split("\n\n")
    heads = [p.lstrip().startswith("What you must decide:") for p in paragraphs]
    decide = heads.index(True) if True in heads else None
    if decide is None or decide + 1 >= len(paragraphs):
        return ""
    return " ".join(paragraphs[decide + 1].split())


def read_makeups(text: str) -> tuple[Makeup, ...]:
    """Every precise makeup of a strike letter: the AFs, the hex, each TF's makeup, the labels."""
    found = []
    for afs, where, makeup, labels in _MAKEUP.findall(" ".join(text.split())):
        tfs = dict(re.findall(r"TF ([A-Z]): ([^;]*)", makeup))
        numbers = tuple(int(af[2:]) for af in afs.split())
        found.append(Makeup(numbers, where, tfs, tuple(labels.split())))
    return tuple(found)


def read_losses(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The loss rankings a letter asks for (15 LI 3): (place label, the types present)."""
    pairs = _LOSSES.findall(" ".join(text.split()))
    return tuple((label, tuple(p.strip() for p in planes.split(","))) for label, planes in pairs)
