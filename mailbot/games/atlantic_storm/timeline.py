# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm "linear time" (seed 000): which convoys C1..C40 are played, as pure arithmetic.

The enhanced selection algorithm is a six-column sheet; :func:`sheet_row`
computes one row from the two running columns and the unmodified 3d6, so the
moderator, the tests and the simulator all fill the sheet the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mailbot.errors import GameError

CONVOYS = 40
# seed 000: "a triple dieroll sum of 3 to 10 means that the convoy is selected for play,
# 11 to 18 that it is not selected"
SELECTS_UP_TO = 10
# ... and its low end: a modified roll below 3 is read as selected too (defaults.toml, below_three)
SELECTS_FROM = 3
DICE, SIDES = 3, 6


@dataclass(frozen=True)
class Year:
    """A year of the campaign: its convoys, the hand size, and the Force deck part it brings in."""

    year: int
    first: int
    last: int
    hand: int


# seed 000: "The player hand is reduced to 3 cards for 1940 (convoy 1 to 4), 4 cards 1941
# (C5-C16), 5 cards C17 to C28 and 6 cards 1943 (convoy 29 to 40)."
YEARS: tuple[Year, ...] = (
    Year(1940, 1, 4, 3),
    Year(1941, 5, 16, 4),
    Year(1942, 17, 28, 5),
    Year(1943, 29, 40, 6),
)


def year_of(convoy: int) -> Year:
    return next(year for year in YEARS if year.first <= convoy <= year.last)


def hand_size(convoy: int) -> int:
    return year_of(convoy).hand


def seed_round(numerator: int, denominator: int) -> int:
    """Round a fraction to the nearest integer, halves away from zero (seed 000, column 4).

    seed 000: "round the col3 value to the nearest integer, halves rounded up if
    bigger than 0, down to the nearest integer if less than 0, -3/7 => 0, -4/7
    => -1 for example." "Down" for negatives cannot mean floor, since -3/7
    gives 0; it is the direction of halves: -1/2 => -1. Exact integer
    arithmetic, so no float ever lands on the wrong side of a half.
    """
    if denominator <= 0:
        raise GameError("the sheet's 40-E column is always positive")
    whole, rest = divmod(abs(numerator), denominator)
    if 2 * rest >= denominator:
        whole += 1
    return whole if numerator >= 0 else -whole


@dataclass(frozen=True)
class SheetRow:
    """One row of the seed's sheet: "2S-E", "40-E", "4(2S-E)/(40-E)", "DR modif", "3d6+modif", "Yes/No"."""

    balance: int  # 2S-E: twice the selected minus the examined, before this convoy
    remaining: int  # 40-E: convoys not yet examined, this one included
    modifier: int
    roll: int  # the unmodified 3d6
    selected: bool

    @property
    def convoy(self) -> int:
        # seed 000: "When examining convoy 14, the second column should have the value 27
        # ... The sum of them should always be 41."
        return CONVOYS + 1 - self.remaining

    @property
    def fraction(self) -> str:
        """Column 3 unreduced, as the seed writes it: "4/39", "-8/4", "0/6"."""
        return f"{4 * self.balance}/{self.remaining}"

    @property
    def modified(self) -> int:
        return self.roll + self.modifier


def modifier(balance: int, remaining: int) -> int:
    """seed 000: "In the fourth column, round the col3 value to the nearest integer"."""
    return seed_round(4 * balance, remaining)


def sheet_row(balance: int, remaining: int, roll: int, *, enhanced: bool = True) -> SheetRow:
    """Examine one convoy: in simple mode the modifier is always 0.

    seed 000: "If the modifier is -1 and the unmodified die roll is 11, the
    examined convoy should be selected since the modified value is in the
    range 3 to 10." A modified value below 3 (e.g. 3 - 2) is read as selected
    too: the modifier exists to push towards selection, and no modified roll
    below 3 can mean "not selected" without reversing that.
    """
    change = modifier(balance, remaining) if enhanced else 0
    return SheetRow(balance, remaining, change, roll, roll + change <= SELECTS_UP_TO)


def next_columns(row: SheetRow) -> tuple[int, int]:
    """seed 000: "add 1 to the value above if the previous examination gave "Yes", subtract 1
    if it gave "No" ... In the 2:nd column, always subtract 1 from the value above"."""
    return row.balance + (1 if row.selected else -1), row.remaining - 1


def columns_after(rows: Sequence[SheetRow]) -> tuple[int, int]:
    """The first two columns for the next examination; "0" and "40" on the first row."""
    return next_columns(rows[-1]) if rows else (0, CONVOYS)
