# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 004's sealed-envelope number, offered as a utility.

Seed 004: each attack's hex value (from the hex value chart: the hex's letter
crossed with the last digit of its number, values added when one attack hits
several hexes) is multiplied by the highest number of the odds ("3 ... would
multiply both 3-1 and 1-3 odds"); the products are added and divided by five;
"any remainder is the coin envelope number you open". Any other number of
envelopes works the same way (``modulus``).

The chart is data (``mailbot/envelope/data/hex-values.toml``); the edge reads the
file and passes its text to :func:`load_chart`, so this module stays pure.

Hex ids accepted: a letter and a number (``F12``, ``I-11``, ``I11``, ``f 12``;
the seed's "I-11." with its stray full stop too) and four-digit numeric ids
(``0824``, ``08-24``). For a numeric id the first two digits play the letter's
part: 01 = A, 02 = B ... 26 = Z, then 27 = A again and 00 = Z, i.e. the letter
number is ``(n - 1) mod 26 + 1``; the last digit of the other two is the
chart column, exactly as for a letter id. Problems in a player's attack list
are returned as data, never raised.
"""

from __future__ import annotations

import math
import re
import string
import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from mailbot.errors import ConfigError

Chart = Mapping[str, Sequence[int]]  # row letter -> hex value for each last digit 0..9
DEFAULT_MODULUS = 5  # seed 004: "You then divide by five"
PER_ENVELOPE = 10  # seed 004: an ICRK column serves ten combats, then "the NEXT numbered coin envelope"

_LETTER_ID = re.compile(r"^\s*([A-Za-z]{1,2})\s*[-.]?\s*(\d{1,4})\s*\.?\s*$")
_NUMERIC_ID = re.compile(r"^\s*(\d{2})\s*[-.]?\s*(\d{2})\s*$")
_ODDS = re.compile(r"^\s*(\d{1,3})\s*(?:-|:|–|—|to)\s*(\d{1,3})\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class HexRef:
    """A parsed hex id: ``row`` is the chart letter, ``number`` the hex number."""

    text: str  # canonical spelling: "I11", "0824"
    row: str
    number: int
    sort_key: tuple[int, int, str, int]

    @property
    def digit(self) -> int:
        return self.number % 10


def parse_hex(hex_id: str) -> HexRef | None:
    """The chart coordinates of a hex id, or None if it is not one (see module docstring)."""
    if match := _LETTER_ID.match(hex_id):
        letters, number = match[1].upper(), int(match[2])
        return HexRef(f"{letters}{number}", letters, number, (0, len(letters), letters, number))
    if match := _NUMERIC_ID.match(hex_id):
        first, number = int(match[1]), int(match[2])
        row = string.ascii_uppercase[(first - 1) % 26]
        return HexRef(f"{match[1]}{match[2]}", row, number, (1, first, "", number))
    return None


def odds_multiplier(odds: str) -> int | None:
    """The highest number of odds like "3-1" or "1-4" (seed 004), or None if not odds."""
    match = _ODDS.match(odds)
    return max(int(match[1]), int(match[2])) if match else None


@dataclass(frozen=True)
class Attack:
    """One combat as listed on the combat results sheet."""

    odds: str
    hexes: tuple[str, ...]

    @classmethod
    def of(cls, odds: str, *hexes: str) -> Attack:
        return cls(odds, hexes)


@dataclass(frozen=True)
class AttackLine:
    """One attack's computation, kept for display."""

    odds: str
    hexes: tuple[str, ...]  # canonical ids
    hex_values: tuple[int, ...]
    multiplier: int
    product: int
    #: per hex: True when its chart value is a design default, not from the seed
    defaulted: tuple[bool, ...] = ()

    @property
    def hex_value(self) -> int:
        return sum(self.hex_values)

    @property
    def text(self) -> str:
        """E.g. ``3-1 against F12: 3×7 = 21`` or ``2-1 against F12+A13: 2×(7+4*) = 22``.

        A value marked ``*`` is a design default of the chart, not a seed 004 value.
        """
        marks = self.defaulted or (False,) * len(self.hex_values)
        values = "+".join(
            f"{value}{'*' if mark else ''}" for value, mark in zip(self.hex_values, marks, strict=True)
        )
        factor = f"({values})" if len(self.hex_values) > 1 else values
        return f"{self.odds} against {'+'.join(self.hexes)}: {self.multiplier}×{factor} = {self.product}"


@dataclass(frozen=True)
class EnvelopeProblem:
    attack: int  # position in the list as given, from 1; 0 for the list as a whole
    text: str
    reason: str


@dataclass(frozen=True)
class EnvelopeResult:
    """The lines in listing order, their total and the envelope to open (None if problems)."""

    lines: tuple[AttackLine, ...]
    problems: tuple[EnvelopeProblem, ...]
    modulus: int
    total: int
    envelope: int | None

    def envelopes(self, per_envelope: int = PER_ENVELOPE) -> tuple[int, ...]:
        """The envelopes to open in turn: seed 004, "more than ten combat situations ... use the
        NEXT numbered coin envelope. (If you use number 4, the next to be opened would be 0)"."""
        if self.envelope is None or per_envelope < 1:
            return ()
        needed = max(1, math.ceil(len(self.lines) / per_envelope))
        return tuple((self.envelope + n) % self.modulus for n in range(needed))

    @property
    def defaulted(self) -> bool:
        """True when some hex value used is a design default of the chart, not a seed value."""
        return any(any(line.defaulted) for line in self.lines)

    def batches(self, per_envelope: int = PER_ENVELOPE) -> tuple[tuple[int, int, int], ...]:
        """(envelope, first combat, last combat) in listing order, ten combats an envelope."""
        count = len(self.lines)
        return tuple(
            (envelope, n * per_envelope + 1, min(count, (n + 1) * per_envelope))
            for n, envelope in enumerate(self.envelopes(per_envelope))
        )

    @property
    def summary(self) -> str:
        """E.g. ``21+25+36 = 82; 82 mod 5 = 2: open envelope 2``; with more than ten combats
        ``...: open envelope 4 for combats 1-10, then envelope 0 for combats 11-12``."""
        if self.envelope is None:
            return "; ".join(p.reason for p in self.problems)
        products = "+".join(str(line.product) for line in self.lines)
        remainder = f"{self.total} mod {self.modulus} = {self.envelope}"
        batches = self.batches()
        if len(batches) <= 1:
            return f"{products} = {self.total}; {remainder}: open envelope {self.envelope}"
        opened = ", then ".join(f"envelope {env} for combats {first}-{last}" for env, first, last in batches)
        return f"{products} = {self.total}; {remainder}: open {opened}"


def _listing_key(attack: Attack) -> tuple[int, tuple[int, int, str, int]]:
    refs = [ref for ref in map(parse_hex, attack.hexes) if ref is not None]
    return (0, min(ref.sort_key for ref in refs)) if refs else (1, (0, 0, "", 0))


def listing_order(attacks: Sequence[Attack]) -> tuple[Attack, ...]:
    """Seed 004: combats are listed "in alphanumeric order according to the hex being attacked"
    (E12 before G3; 0824 before 0913). Unreadable hexes go last, in their given order."""
    return tuple(sorted(attacks, key=_listing_key))


def _line(
    position: int, attack: Attack, chart: Chart, known: Collection[str] | None
) -> AttackLine | EnvelopeProblem:
    def problem(reason: str) -> EnvelopeProblem:
        return EnvelopeProblem(position, f"{attack.odds} {' '.join(attack.hexes)}".strip(), reason)

    multiplier = odds_multiplier(attack.odds)
    if multiplier is None:
        return problem(f"{attack.odds!r} is not odds like 3-1 or 1-4")
    if not attack.hexes:
        return problem("an attack needs at least one target hex")
    refs: list[HexRef] = []
    for hex_id in attack.hexes:
        ref = parse_hex(hex_id)
        if ref is None:
            return problem(f"{hex_id!r} is not a hex id like F12, I-11 or 0824")
        if ref.row not in chart:
            return problem(f"the hex value chart has no row {ref.row} (for {hex_id})")
        refs.append(ref)
    values = tuple(chart[ref.row][ref.digit] for ref in refs)
    defaulted = tuple(known is not None and f"{ref.row}{ref.digit}" not in known for ref in refs)
    return AttackLine(
        attack.odds.strip(),
        tuple(r.text for r in refs),
        values,
        multiplier,
        multiplier * sum(values),
        defaulted,
    )


def envelope_number(
    attacks: Sequence[Attack],
    chart: Chart,
    modulus: int = DEFAULT_MODULUS,
    known: Collection[str] | None = None,
) -> EnvelopeResult:
    """Seed 004's envelope for a list of attacks; problems come back in the result.

    The lines are computed in listing order; the order does not change the
    sum. (The seed's tip to "ignore all but the unit positions" when adding
    is a shortcut that holds for a modulus of 5; the full sum is kept here.)
    No remainder means envelope 0: the seed's "Always be sure one envelope is
    marked 101" for that case reads as a garbled "0", as envelopes run 0 to 4
    (a design default, ``zero`` in ``mailbot/envelope/data/defaults.toml``;
    :func:`defaults_used` says which defaults shaped a result).

    ``known``: the cells (row letter + last digit, ``"F2"``) whose values come
    from the source; every other value is marked a design default. None: the
    whole chart is real (see :class:`HexChart`).
    """
    lines: list[AttackLine] = []
    problems: list[EnvelopeProblem] = []
    if modulus < 1:
        problems.append(EnvelopeProblem(0, str(modulus), "the number of envelopes must be at least 1"))
    if not attacks:
        problems.append(EnvelopeProblem(0, "", "no attacks listed"))
    for position, attack in sorted(enumerate(attacks, start=1), key=lambda pair: _listing_key(pair[1])):
        line = _line(position, attack, chart, known)
        if isinstance(line, EnvelopeProblem):
            problems.append(line)
        else:
            lines.append(line)
    total = sum(line.product for line in lines)
    envelope = None if problems else total % modulus
    return EnvelopeResult(
        tuple(lines), tuple(sorted(problems, key=lambda p: p.attack)), modulus, total, envelope
    )


def defaults_used(result: EnvelopeResult) -> tuple[str, ...]:
    """The keys of ``data/defaults.toml`` that shaped ``result``, in the file's order."""
    used = []
    if 0 in result.envelopes():
        used.append("zero")
    if result.defaulted:
        used.append("chart")
    if any(text[:1].isdigit() for line in result.lines for text in line.hexes):
        used.append("numeric_ids")
    if result.envelope is not None and 10 % result.modulus:
        used.append("full_sum")
    return tuple(used)


def _config_error(message: str) -> ConfigError:
    return ConfigError(f"hex value chart: {message}")


@dataclass(frozen=True)
class HexChart:
    """A loaded chart: its rows, and which cells are known (None: all; a default chart: the seed's)."""

    rows: dict[str, tuple[int, ...]]
    default: bool
    seed_cells: frozenset[str]
    note: str = ""

    @property
    def known(self) -> frozenset[str] | None:
        return self.seed_cells if self.default else None


DEFAULT_NOTE = "* a design default of the hex value chart, not from seed 004 (its chart is lost)"


def load_hex_chart(text: str) -> HexChart:
    """The chart with its ``default`` flag and ``[seed_cells]`` (see :func:`load_chart`)."""
    rows = load_chart(text)
    data = tomllib.loads(text)
    cells = frozenset(cell.upper() for cell in dict(data.get("seed_cells", {})))
    return HexChart(rows, bool(data.get("default", False)), cells, str(data.get("note", "")))


def load_chart(text: str) -> dict[str, tuple[int, ...]]:
    """Parse the chart file's TOML text; a malformed chart is a ConfigError.

    Checks that every row has ten whole numbers and that the cells listed in
    ``[seed_cells]`` (seed 004's surviving values) agree with the rows.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _config_error(f"not TOML: {exc}") from exc
    rows = data.get("rows")
    if not isinstance(rows, dict) or not rows:
        raise _config_error("no [rows] table")
    chart: dict[str, tuple[int, ...]] = {}
    for row, values in rows.items():
        ok = isinstance(values, list) and len(values) == 10
        if not ok or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise _config_error(f"row {row} must list ten whole numbers, for last digits 0..9")
        chart[row.upper()] = tuple(values)
    for cell, value in dict(data.get("seed_cells", {})).items():
        row, digit = cell[:-1].upper(), cell[-1:]
        if not digit.isdigit() or chart.get(row, ())[int(digit) : int(digit) + 1] != (value,):
            raise _config_error(f"cell {cell} must keep seed 004's value {value}")
    return chart
