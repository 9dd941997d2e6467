# SPDX-License-Identifier: GPL-3.0-or-later
"""What the Combat Phase works with: the tables of the game and small unit helpers.

The tables come from the data the state carries (``state.config["tables"]``), so
the phase needs no other input; ``state.crt`` names the combat results table the
game was created with (recorded in the state, said in every combat report).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from mailbot.games.flattop.combat.bht import HitTables
from mailbot.games.flattop.combat.cap import CapTable
from mailbot.games.flattop.combat.crt import CombatTable, combat_table
from mailbot.games.flattop.combat.damage import DamageRules
from mailbot.games.flattop.combat.survivors import SurvivorTable
from mailbot.games.flattop.map.towing import TowingTable
from mailbot.games.flattop.tabledata import ConfigKey
from mailbot.games.flattop.units import AirFactors, AirFormation
from mailbot.games.flattop.victory import VictoryRules


@dataclass(frozen=True)
class Kit:
    crt: CombatTable
    hits: HitTables
    cap: CapTable
    damage: DamageRules
    victory: VictoryRules
    survivors: SurvivorTable
    towing: TowingTable


def kit_of(config: Mapping[str, Any], crt: str) -> Kit:
    """The parsed tables of a game's ``config`` with the combat results table ``crt``."""
    return _kit(ConfigKey(config), crt)


@lru_cache(maxsize=16)  # bounded: every loaded state brings a new config object (its key)
def _kit(key: ConfigKey, crt: str) -> Kit:
    tables, scenario = key.config["tables"], key.config["scenario"]
    return Kit(
        crt=combat_table(tables, crt),
        hits=HitTables.from_mapping(tables["air-attack"]),
        cap=CapTable.from_mapping(tables["cap"]),
        damage=DamageRules.from_mapping(tables["damage"]),
        victory=VictoryRules.from_mapping(tables["victory"], scenario),
        survivors=SurvivorTable.from_mapping(tables["survivors"]),
        towing=TowingTable.from_mapping(tables["towing"]),
    )


def remove_factors(formation: AirFormation, plane: str, count: int, *, armed: bool | None) -> AirFormation:
    """``count`` factors of ``plane`` gone from the AF (armed or unarmed stacks when given)."""
    left, stacks = count, []
    for stack in formation.stacks:
        fits = stack.plane == plane and (armed is None or (stack.armament is not None) == armed)
        take = min(stack.count, left) if fits else 0
        left -= take
        if stack.count - take:
            stacks.append(replace(stack, count=stack.count - take))
    return replace(formation, stacks=tuple(stacks))


def by_plane(stacks: Iterable[AirFactors]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for stack in stacks:
        counts[stack.plane] = counts.get(stack.plane, 0) + stack.count
    return counts


def describe_counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {plane}" for plane, n in sorted(counts.items()) if n) or "none"
