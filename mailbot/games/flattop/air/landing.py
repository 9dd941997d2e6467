# SPDX-License-Identifier: GPL-3.0-or-later
"""Night and armed landings (standard 14.10, 14.14; seed 003, 14.10.1).

At night every Air Factor landing rolls 1d6 on the Night Landing Chart: it
lands, or it is eliminated. So does a factor landing while still armed, by
day too (14.14), and one landing in a storm hex (standard 6.6: "Planes
landing in a Storm hex use the Night Landing Chart (if it is a night turn,
there is a +1 modifier)"). Seed 003, 14.10.1: "Seaplanes (Catalina, Mavis,
Emily) add "1" to their night landing roll ... They only receive this
benefit if landing at bases equipped for SP handling." The chart itself is a
design default (``mailbot/games/flattop/data/tables/landing.toml``, which says why it reads
high-is-good).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mailbot.core.dice import Dice, Roll
from mailbot.games.flattop.tabledata import by_name, parsed
from mailbot.games.flattop.units import AirFactors, Handling

RULE = "standard 14.10 Night Landing Chart; standard 6.6; seed 003, 14.10.1"


@dataclass(frozen=True)
class LandingTable:
    carrier_need: int = 3
    base_need: int = 2
    armed_by_day: bool = True
    armed_at_night: int = -1
    seaplanes: frozenset[str] = frozenset({"Catalina", "Mavis", "Emily"})
    seaplane_bonus: int = 1
    storm_at_night: int = -1  # standard 6.6: a storm landing at night (oriented as armed_at_night)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> LandingTable:
        """``landing.toml``; a malformed table is a GameError (it ships with the code)."""
        return parsed("landing.toml", _read, data)


def _read(data: Mapping[str, Any]) -> LandingTable:
    chart, sea = data["night_landing"], data["night_landing"]["seaplanes"]
    return by_name(
        LandingTable,
        chart,
        seaplanes=frozenset(str(p) for p in sea["planes"]),
        seaplane_bonus=int(sea["bonus"]),
        storm_at_night=int(data["night_landing"]["storm"]["at_night"]),
    )


@dataclass(frozen=True)
class Landing:
    """Where and when an AF comes down: ``base`` is the base's handling, None for a ship."""

    night: bool
    base: Handling | None
    storm: bool = False  # the place is in a storm hex (standard 6.6)


@dataclass(frozen=True)
class LandingResult:
    landed: tuple[AirFactors, ...]
    lost: int
    rolls: tuple[Roll, ...]


def must_roll(stack: AirFactors, where: Landing, table: LandingTable) -> bool:
    return where.night or where.storm or (stack.armament is not None and table.armed_by_day)


def modifiers(stack: AirFactors, where: Landing, table: LandingTable) -> dict[str, int]:
    mods: dict[str, int] = {}
    sp_base = where.base in (Handling.SP, Handling.BOTH)
    if where.night and sp_base and stack.plane in table.seaplanes:
        mods["seaplane at an SP base (14.10.1)"] = table.seaplane_bonus
    if where.night and stack.armament is not None:
        mods["armed at night (14.14)"] = table.armed_at_night
    if where.night and where.storm:
        mods["storm at night (6.6)"] = table.storm_at_night
    return mods


def roll_landing(
    stacks: tuple[AirFactors, ...], where: Landing, table: LandingTable, dice: Dice, label: str
) -> LandingResult:
    """One 1d6 per factor that must roll; the factors that fail are eliminated."""
    need = table.base_need if where.base is not None else table.carrier_need
    landed: list[AirFactors] = []
    rolls: list[Roll] = []
    for i, stack in enumerate(stacks):
        if not must_roll(stack, where, table):
            landed.append(stack)
            continue
        mods = modifiers(stack, where, table)
        ok = 0
        for factor in range(stack.count):
            roll = dice.roll(f"{label}/{i}.{stack.plane}/{factor + 1}", 6, rule=RULE, modifiers=mods)
            rolls.append(roll)
            ok += roll.total >= need
        if ok:
            landed.append(replace(stack, count=ok))
    lost = sum(s.count for s in stacks) - sum(s.count for s in landed)
    return LandingResult(tuple(landed), lost, tuple(rolls))
