# SPDX-License-Identifier: GPL-3.0-or-later
"""The Combat Results Table (seed 003, 15; standard 20; reference A.11, A.15, B.6).

Seed 003, 15: 'Combat tables: Use Kirk's modification of the "curve fitted"
tables. This is available in a separate file. Also, if a "-" comes up on the
BHT, then a "2" or "12" on a 2d6 will result in one hit.' Seed 003, 21.8:
'Critical hits are checked for only on hits taken from the "n>1" portion of
the chart. If the hits were produced from a base roll of 3,7 or 11, roll 1d6.
A 6 will result in one critical hit.'

Kirk's file is lost, so both tables here are design defaults shipped as data
(``mailbot/games/flattop/data/tables/combat.toml``, which explains them):
``standard`` is reference A.11.3's reconstruction of the printed CRT (a
Result Number, adjusted by the 2d6 base roll), ``curve-fitted`` is reference
A.15's expected-hits table (E, multiplied by a factor chosen by the base
roll). Every attack rolls one 2d6 "base roll", as the seed's rules assume.

Readings chosen here:

* A BHT above the last row reads the last row (A.11.1 clamps to 1-15). A BHT
  below 1 reads the ``*`` row where the table has one (A.15: "Row * behaves
  like HitTable = 0.5"): the curve-fitted table; otherwise row 1: the
  standard table.
* 21.8's "n>1 portion": the roll produced 2 or more hits, so the hits beyond
  the first came from it. :attr:`CrtResult.critical_check` is set when that
  happened on a base roll of 3, 7 or 11; the 1d6 for the critical hit itself
  belongs to the damage rules.
* No attack factors: no roll, no hits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from types import MappingProxyType
from typing import Any, TypeVar

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.tabledata import fraction, integer

RULE = "seed 003, 15"
TABLES: tuple[str, ...] = ("curve-fitted", "standard")
DEFAULT_TABLE = "curve-fitted"
STAR = "*"  # the row below BHT 1 (reference A.15)
DASH = "-"  # a cell with no result
DASH_HITS_ON = frozenset({2, 12})  # seed 003, 15: 'a "2" or "12" on a 2d6 will result in one hit'
CRITICAL_BASES = frozenset({3, 7, 11})  # seed 003, 21.8: "a base roll of 3,7 or 11"
BASE_ROLLS = range(2, 13)  # the totals of 2d6
_HALF = Fraction(1, 2)
_T = TypeVar("_T")

Cell = Fraction | None  # None: "-", no result


@dataclass(frozen=True)
class CrtResult:
    hits: int
    base: int  # the 2d6 total; 0 when nothing was rolled (no factors)
    dash: bool  # the cell was '-' (seed 003, 15 rule applied)
    critical_check: bool  # seed 003, 21.8: 2+ hits from a base roll of 3, 7 or 11
    text: str  # e.g. "CRT curve-fitted BHT 7 x 8 factors (E 1.7): 2d6 3+4=7 -> 2 hits"


@dataclass(frozen=True)
class Column:
    """Attack factors ``low``..``high``; ``high`` None for the open-ended last column."""

    label: str
    low: int
    high: int | None

    def holds(self, factors: int) -> bool:
        return self.low <= factors and (self.high is None or factors <= self.high)


@dataclass(frozen=True)
class CombatTable:
    name: str  # "curve-fitted" | "standard"
    default: bool  # a design default, not the seed's (Kirk's) table
    source: str
    columns: tuple[Column, ...]
    rows: Mapping[str, tuple[Cell, ...]]  # "1".."15", and "*" if the table has it
    multiplier: Mapping[int, Fraction]  # base roll -> factor on the cell
    adjust: Mapping[int, int]  # base roll -> added to the cell

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], name: str) -> CombatTable:
        """``combat.toml`` parsed; ``name`` picks the table. Malformed data is a GameError."""
        if name not in TABLES:
            raise GameError(f"unknown combat table {name!r}; known: {', '.join(TABLES)}")
        try:
            columns = _columns(data["columns"])
            table = data[name]
            rows = _rows(table["rows"], len(columns))
            multiplier = _by_base(table.get("multiplier"), Fraction(1), fraction)
            adjust = _by_base(table.get("adjust"), 0, integer)
            frozen = MappingProxyType  # read-only views: the table is shared by every battle
            return cls(
                name, bool(table["default"]), str(table["source"]), columns,
                frozen(rows), frozen(multiplier), frozen(adjust),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameError(f"combat.toml [{name}] is malformed ({error!r})") from error

    @property
    def top(self) -> int:
        return max(int(row) for row in self.rows if row != STAR)

    def row_for(self, bht: int) -> str:
        """The row a BHT reads: clamped to the last row; below 1 the ``*`` row if there is one."""
        if bht < 1:
            return STAR if STAR in self.rows else "1"
        return str(min(bht, self.top))

    def column_for(self, factors: int) -> Column:
        for column in self.columns:
            if column.holds(factors):
                return column
        raise GameError(f"CRT {self.name}: no column for {factors} factors")

    def cell(self, bht: int, factors: int) -> Cell:
        return self.rows[self.row_for(bht)][self.columns.index(self.column_for(factors))]

    def hits_for(self, cell: Cell, base: int) -> int:
        """Hits a cell gives on a base roll (combat.toml's header gives the formula)."""
        if cell is None:
            return 1 if base in DASH_HITS_ON else 0
        return max(0, math.floor(cell * self.multiplier[base] + self.adjust[base] + _HALF))

    def result(self, bht: int, factors: int, base: int) -> CrtResult:
        """The result of a given base roll (2..12): pure, for tests and replays."""
        return self._resolve(bht, factors, base, f"2d6 {base}")

    def roll(self, bht: int, factors: int, dice: Dice, label: str, rule: str = RULE) -> CrtResult:
        """Roll the 2d6 base roll under ``label`` and read the table; no factors, no roll."""
        if factors <= 0:
            return self._resolve(bht, factors, 0, "")
        roll = dice.dice(label, "2d6", rule=f"{rule}: CRT {self.name}")
        faces = "+".join(str(face) for face in roll.faces)
        return self._resolve(bht, factors, roll.total, f"2d6 {faces}={roll.total}")

    def _resolve(self, bht: int, factors: int, base: int, shown: str) -> CrtResult:
        factor_word = "factor" if factors == 1 else "factors"
        head = f"CRT {self.name} BHT {bht}{self._row_note(bht)} x {factors} {factor_word}"
        if factors < 0:
            raise GameError(f"{head}: negative attack factors")
        if factors == 0:
            return CrtResult(0, 0, False, False, f"{head}: no factors, no roll -> 0 hits")
        if base not in BASE_ROLLS:
            raise GameError(f"{head}: {base} is not a 2d6 total")
        cell = self.cell(bht, factors)
        hits = self.hits_for(cell, base)
        critical = hits >= 2 and base in CRITICAL_BASES
        notes = " (a '-' hits only on 2 or 12, seed 003, 15)" if cell is None else ""
        notes += "; critical hit check (seed 003, 21.8)" if critical else ""
        shown_cell = "no result" if cell is None else f"{self._cell_name()} {_show(cell)}"
        text = f"{head} ({shown_cell}): {shown} -> {_plural(hits)}{notes}"
        return CrtResult(hits, base, cell is None, critical, text)

    def _row_note(self, bht: int) -> str:
        row = self.row_for(bht)
        return "" if row == str(bht) else f" (row {row})"

    def _cell_name(self) -> str:
        # A plain Result Number (standard) or an expected-hits figure (curve-fitted).
        return "result" if all(value == 1 for value in self.multiplier.values()) else "E"


def combat_table(tables: Mapping[str, Any], name: str) -> CombatTable:
    """The CRT a game uses: ``tables`` holds every data table by file stem."""
    if name not in TABLES:
        raise GameError(f"unknown combat table {name!r}; known: {', '.join(TABLES)}")
    if "combat" not in tables:
        raise GameError("the combat table (combat.toml) is missing")
    return CombatTable.from_mapping(tables["combat"], name)


# --- reading combat.toml -----------------------------------------------------------


def _columns(labels: Any) -> tuple[Column, ...]:
    columns = tuple(_column(str(label)) for label in labels)
    if not columns or columns[0].low != 1 or columns[-1].high is not None:
        raise ValueError("columns must start at 1 and end open ('46+')")
    for before, after in pairwise(columns):
        if before.high is None or after.low != before.high + 1:
            raise ValueError(f"columns {before.label} and {after.label} do not meet")
    return columns


def _column(label: str) -> Column:
    if label.endswith("+"):
        return Column(label, int(label[:-1]), None)
    low, high = label.split("-")
    if int(high) < int(low):
        raise ValueError(f"column {label!r} runs backwards")
    return Column(label, int(low), int(high))


def _rows(data: Mapping[str, Any], width: int) -> dict[str, tuple[Cell, ...]]:
    rows = {str(key): tuple(_cell(value) for value in cells) for key, cells in data.items()}
    numbered = sorted(int(key) for key in rows if key != STAR)
    if numbered != list(range(1, len(numbered) + 1)) or not numbered:
        raise ValueError(f"rows must be 1..n (and optionally '*'), not {sorted(rows)}")
    short = [key for key, cells in rows.items() if len(cells) != width]
    if short:
        raise ValueError(f"rows {short} do not have {width} cells")
    return rows


def _cell(value: Any) -> Cell:
    if value == DASH:
        return None
    number = fraction(value)
    if number < 0:
        raise ValueError(f"negative cell {value!r}")
    return number


def _by_base(data: Any, identity: _T, convert: Callable[[Any], _T]) -> dict[int, _T]:
    if data is None:
        return dict.fromkeys(BASE_ROLLS, identity)
    table = {int(key): convert(value) for key, value in data.items()}
    if sorted(table) != list(BASE_ROLLS):
        raise ValueError(f"needs one entry for each base roll 2..12, not {sorted(table)}")
    return table


def _show(cell: Fraction) -> str:
    return str(cell.numerator) if cell.denominator == 1 else f"{float(cell):g}"


def _plural(hits: int) -> str:
    return f"{hits} hit" if hits == 1 else f"{hits} hits"
