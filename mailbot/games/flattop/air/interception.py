# SPDX-License-Identifier: GPL-3.0-or-later
"""Special interception during plane movement (standard 14.13; seed 003, 14.13.2).

When a moving AF passes through the hex of an observed enemy AF with
interceptors, the non-moving side may roll to intercept; same altitude only;
one attempt per hex per turn per player (reference A.7). Seed 003, 14.13.2
allows this kind in any hex, with "subtract one from the die roll" where
combat cannot usually occur, and a previously unobserved interceptor in such
a hex "must reveal its presence whether the attempt is successful or not"
(:func:`observation.observe.interception_reveal`). The table is a design default
(``mailbot/games/flattop/data/tables/interception.toml``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mailbot.core.dice import Dice, Roll
from mailbot.games.flattop.map.hexes import Hex, distance
from mailbot.games.flattop.tabledata import parsed
from mailbot.games.flattop.units import Altitude

RULE = "standard 14.13 Interception Table; seed 003, 14.13.2"


@dataclass(frozen=True)
class InterceptionTable:
    need: int = 4
    non_combat_hex: int = -1
    radar_range_high: int = 3

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> InterceptionTable:
        return parsed("interception.toml", _read, data)


def _read(data: Mapping[str, Any]) -> InterceptionTable:
    return InterceptionTable(
        need=int(data["need"]),
        non_combat_hex=int(data["modifiers"]["non_combat_hex"]),
        radar_range_high=int(data["combat_hexes"]["radar_range_high"]),
    )


def combat_possible(
    h: Hex, altitude: Altitude, *, units: Iterable[Hex], radars: Iterable[Hex], table: InterceptionTable
) -> bool:
    """Where combat can usually occur: a hex with a TF or an on-board base (``units``), or at
    High within range of one of the interceptor side's radar bases or TFs (seed 003, 15.2)."""
    if h in set(units):
        return True
    return altitude is Altitude.HIGH and any(distance(h, r) <= table.radar_range_high for r in radars)


def roll_interception(
    table: InterceptionTable, dice: Dice, label: str, *, in_combat_hex: bool
) -> tuple[bool, Roll]:
    mods = {}
    if not in_combat_hex:
        mods["non-combat hex (14.13.2)"] = table.non_combat_hex
    roll = dice.roll(label, 6, rule=RULE, modifiers=mods)
    return roll.total >= table.need, roll
