# SPDX-License-Identifier: GPL-3.0-or-later
"""Replenishing ships at a base: Expanded Ship Function 7 (seed 003's optional rules).

Seed 003 plays "Expanded Ship Functions (All except 1 & 4 ...)" automatically. Of rule 7 it says
only, in 27.9.2, "Submarine and ASW ordnance is reloaded at eligible bases like gunnery and
torpedo supplies (per Expanded Ship Function rule #7.)", and 19.8 "DD's and APD's can fire twice
before requiring replenishing". The rule's text was not found (reference [TFS]: its table of
contents only), so ``data/tables/supply.toml`` holds a design default, said as such to the owner:

a ship that ended the hour before anchored (standard 12.7) in the hex of a friendly base handling
sea planes (a harbour) has, at the start of the hour, her scenario Ammunition Factors again, her
Torpedo Factor again, and, a DD or APD, two firings again (19.8). Submarines and ASW ships reload
their ordnance at the same bases (27.9.2, ``hour.sub_phase``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.scenario import ForceArrival, Scenario
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.tabledata import ConfigKey, Source, source_of
from mailbot.games.flattop.units import Base, Handling, Ship, TaskForce

RULE = "Expanded Ship Function 7, a design default (supply.toml): its text was not found"


@dataclass(frozen=True)
class SupplyRules:
    """``supply.toml`` [replenish]: the eligible bases and what a ship takes aboard there."""

    handling: frozenset[Handling] = frozenset({Handling.SP, Handling.BOTH})
    anchored: bool = True
    ammunition: bool = True
    torpedoes: bool = True
    firings: bool = True
    source: Source = field(default_factory=lambda: Source(True, RULE))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SupplyRules:
        try:
            section = data["replenish"]
            return cls(
                handling=frozenset(Handling(str(h)) for h in section["handling"]),
                anchored=bool(section["anchored"]),
                ammunition=bool(section["ammunition"]),
                torpedoes=bool(section["torpedoes"]),
                firings=bool(section["firings"]),
                source=source_of(section, "replenish"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"supply table: {exc!r}") from exc


def supply_rules(state: FlatTopState) -> SupplyRules:
    """The game's supply table (a game whose data has none: the shipped default)."""
    table = state.config["tables"].get("supply")
    return SupplyRules() if table is None else _parsed(ConfigKey(table))


@lru_cache(maxsize=16)  # bounded: every loaded state brings its own table object (the key)
def _parsed(key: ConfigKey) -> SupplyRules:
    return SupplyRules.from_mapping(key.config)


def harbour(state: FlatTopState, tf: TaskForce, rules: SupplyRules | None = None) -> Base | None:
    """The friendly base in the TF's hex where it may replenish (an eligible base), if any."""
    handling = (rules or supply_rules(state)).handling
    return next(
        (b for b in state.own_bases(tf.side) if b.hex == tf.hex and b.handling in handling),
        None,
    )


def as_built(scenario: Scenario, name: str) -> Ship | None:
    """The ship as the scenario brings her into play (at the start or arriving later)."""
    forces: Iterable[TaskForce] = (
        *scenario.task_forces,
        *(a.task_force for a in scenario.arrivals if isinstance(a, ForceArrival)),
    )
    return next((s for tf in forces for s in tf.ships if s.name == name), None)


def replenish(turn: Turn) -> None:
    """Start of the hour: every ship that ended the last one anchored at an eligible base takes
    aboard what the table gives; her owner is told which ships took what."""
    st = turn.state
    rules = supply_rules(st)
    firings, tfs = st.firings, []
    for tf in st.task_forces:
        base = harbour(st, tf, rules)
        if base is None:
            tfs.append(tf)
            continue
        ships, took = [], []
        for ship in tf.ships:
            after, what = _take_aboard(st.scenario, ship, firings.count(ship.name), rules)
            ships.append(after)
            if what:
                took.append(f"{ship.name} ({', '.join(what)})")
                firings = firings.replenish(ship.name) if rules.firings else firings
        tfs.append(replace(tf, ships=tuple(ships)) if took else tf)
        if took:
            turn.tell(
                tf.side, "replenish", f"TF{tf.number} replenished at {base.name}: {'; '.join(took)} ({RULE})"
            )
    turn.state = replace(st, task_forces=tuple(tfs), firings=firings)


def _take_aboard(scenario: Scenario, ship: Ship, fired: int, rules: SupplyRules) -> tuple[Ship, list[str]]:
    if ship.destroyed or (rules.anchored and not ship.anchored):
        return ship, []
    built = as_built(scenario, ship.name)
    what: list[str] = []
    if rules.ammunition and built is not None and ship.ammo < built.ammo:
        what.append(f"ammunition {ship.ammo} -> {built.ammo}")
        ship = replace(ship, ammo=built.ammo)
    if rules.torpedoes and ship.torpedoes_fired and ship.torpedo > 0:
        what.append("torpedoes")
        ship = replace(ship, torpedoes_fired=False)
    if rules.firings and fired:
        what.append(f"{fired} firing(s) made good (19.8)")
    return ship, what
