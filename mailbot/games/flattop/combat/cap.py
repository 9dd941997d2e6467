# SPDX-License-Identifier: GPL-3.0-or-later
"""Ready CAP and diving CAP (seed 003, 16.11 and 16.12).

Seed 003, 16.11 Ready CAP: "Aircraft in the "ready" box of a base or TF may be
able to scramble if the base or TF receives warning of the approach of enemy
AF's. This will only occur at the instant enemy AF's enter the hex containing
the base or TF; the "warning" is then figured from the approach route used."
The warning table gives, per altitude, the launch (Min, Nor, Max) that may
scramble; "The hexes must be contiguous"; "Ready CAP is subject to plane
handling restrictions in that turn"; "Ready CAP may only be used during day
turns."

Seed 003, 16.12 Diving CAP: "When an enemy AF enters a target hex Low, and all
CAP in the hex is High, roll 1d6 on the following table to determine what
percentage of the CAP may dive ... Factors that elect to dive MUST expend an
RF for the combat; they may not take the -6 modifier. Fractions round up to
next full air factor (except all factors may only dive if "ALL" is rolled.)"

Both tables are data (``mailbot/games/flattop/data/tables/cap.toml``), printed
in the seed, so :attr:`CapTable.default` is False.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mailbot.core.dice import Dice, Roll
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.tabledata import parsed
from mailbot.games.flattop.units import Altitude

READY_RULE = "seed 003, 16.11 Ready CAP"
DIVING_RULE = "seed 003, 16.12 Diving CAP"
NONE, MIN, NORMAL, MAX = "-", "Min", "Nor", "Max"
_CELLS = frozenset({NONE, MIN, NORMAL, MAX})
ALL = "All"


@dataclass(frozen=True)
class CapTable:
    """``cap.toml``: the 16.11 warning table and the 16.12 diving table with its modifiers."""

    ready: Mapping[Altitude, tuple[str, ...]]  # cell per warning hexes 1, 2, ... (NONE/MIN/NORMAL/MAX)
    maximum_per_normal: int  # Maximum LF = this x Normal LF (reference A.5.4)
    diving: tuple[str, ...]  # cell per die roll 1 ("1 or less") .. 7: "0", "1/4", ..., "All"
    all_low: int
    high_two_to_one: int
    default: bool = False  # True would mean a design default; both tables are the seed's own

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> CapTable:
        """``cap.toml``; a malformed table is a GameError (it ships with the code)."""
        return parsed("cap.toml", _read, data, also=(ZeroDivisionError,))

    def dive_fraction(self, total: int) -> Fraction:
        """The table's fraction for a modified roll: 1 or less is the first column, 7 or more the last."""
        cell = self.diving[min(max(total, 1), len(self.diving)) - 1]
        return Fraction(1) if cell == ALL else Fraction(cell)


def _read(data: Mapping[str, Any]) -> CapTable:
    ready, diving = data["ready_cap"], data["diving_cap"]
    table = CapTable(
        ready={Altitude.LOW: _cells(ready, "low"), Altitude.HIGH: _cells(ready, "high")},
        maximum_per_normal=int(ready["launch"]["maximum_per_normal"]),
        diving=tuple(str(cell) for cell in diving["fraction"]),
        all_low=int(diving["modifiers"]["all_low"]),
        high_two_to_one=int(diving["modifiers"]["high_two_to_one"]),
        default=any(bool(part.get("default", False)) for part in _parts(ready, diving)),
    )
    _check_diving(table.diving, [int(r) for r in diving["die_roll"]])
    return table


def _parts(ready: Mapping[str, Any], diving: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    return ready, ready["launch"], diving, diving["modifiers"]


def _cells(ready: Mapping[str, Any], row: str) -> tuple[str, ...]:
    cells = tuple(str(cell) for cell in ready[row])
    if list(ready["warning_hexes"]) != list(range(1, len(cells) + 1)) or not set(cells) <= _CELLS:
        raise ValueError(f"ready_cap.{row} must give one of {sorted(_CELLS)} per warning hex 1..n")
    return cells


def _check_diving(cells: tuple[str, ...], rolls: list[int]) -> None:
    if rolls != list(range(1, len(cells) + 1)) or cells[-1] != ALL:
        raise ValueError("diving_cap must give one fraction per die roll 1..n, the last being 'All'")
    for cell in cells[:-1]:
        if not 0 <= Fraction(cell) < 1:  # only "All" lets every factor dive
            raise ValueError(f"diving_cap fraction {cell!r} must be below 1")


# --- 16.11 Ready CAP ----------------------------------------------------------------


def warning_hexes(approach: Sequence[Hex], observed: Collection[Hex]) -> int:
    """The contiguous observed approach hexes immediately before the target hex (16.11).

    ``approach`` is the AF's path up to but excluding the target hex, in order;
    ``observed`` the hexes of it in which the defender saw the AF. "if a
    coastwatcher sees two approach hexes, the enemy AF moves out of sight, and
    then is picked up two hexes from its destination, "2" is used rather than 4."
    """
    count = 0
    for h in reversed(approach):
        if h not in observed:
            break  # the chain is broken: earlier sightings give no warning
        count += 1
    return count


def launch_left(launch_normal: int, launched: int, table: CapTable) -> int:
    """What a place may still launch this turn: its maximum launch less what it used (16.11, 14.9)."""
    return max(0, launch_normal * table.maximum_per_normal - launched)


def scramble_limit(
    warning: int,
    altitude: Altitude,
    *,
    launch_min: int,
    launch_normal: int,
    launch_left: int,
    night: bool,
    table: CapTable,
) -> int:
    """The most Ready factors one plane-carrier or base may scramble to ``altitude`` (16.11).

    Min/Nor/Max are its minimum, normal and maximum (``maximum_per_normal`` x
    normal) launch. The result is capped by ``launch_left`` (what the place may
    still launch this turn, :func:`launch_left`): the caller scrambling to both
    altitudes passes the launch still left after the first. Night: none.
    """
    if night or warning < 1:
        return 0
    cells = table.ready[altitude]
    cell = cells[min(warning, len(cells)) - 1]  # a warning beyond the printed columns reads as the last
    allowed = {
        NONE: 0,
        MIN: launch_min,
        NORMAL: launch_normal,
        MAX: launch_normal * table.maximum_per_normal,
    }[cell]
    return max(0, min(allowed, launch_left))


# --- 16.12 Diving CAP ---------------------------------------------------------------


@dataclass(frozen=True)
class DiveResult:
    """``roll`` is None when no enemy attacker is Low (nothing to dive at)."""

    roll: Roll | None
    fraction: Fraction
    eligible: int  # the most factors that may dive; diving is voluntary


def dive_modifiers(attackers_low: int, attackers_high: int, table: CapTable) -> dict[str, int]:
    """16.12 modifiers; ``attackers_*`` are the enemy's attacking air factors at each altitude."""
    mods: dict[str, int] = {}
    if attackers_high == 0:
        mods["all enemy attackers Low (16.12)"] = table.all_low
    elif attackers_high >= 2 * attackers_low:
        mods["enemy 2-1 high to low (16.12)"] = table.high_two_to_one
    return mods


def dive_eligible(cap_factors: int, fraction: Fraction) -> int:
    """Fractions round up, "except all factors may only dive if "ALL" is rolled" (16.12).

    So a fraction below All that would round up to every factor stays one short:
    2 factors at 2/3 is ceil(1.33) = 2 = all, hence 1.
    """
    if fraction >= 1:
        return cap_factors
    eligible = math.ceil(fraction * cap_factors)
    return min(eligible, cap_factors - 1) if cap_factors else 0


def diving_cap(
    cap_factors: int, *, attackers_low: int, attackers_high: int, dice: Dice, label: str, table: CapTable
) -> DiveResult:
    """Roll 16.12 for High CAP over a target hex an enemy AF entered Low.

    The caller checks the trigger ("all CAP in the hex is High") and that
    every factor that dives can spend an RF (16.12: no -6 for divers).
    """
    if attackers_low <= 0 or cap_factors <= 0:
        return DiveResult(None, Fraction(0), 0)
    mods = dive_modifiers(attackers_low, attackers_high, table)
    roll = dice.roll(label, 6, rule=DIVING_RULE, modifiers=mods)
    fraction = table.dive_fraction(roll.total)
    return DiveResult(roll, fraction, dive_eligible(cap_factors, fraction))
