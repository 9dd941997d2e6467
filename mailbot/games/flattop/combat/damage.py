# SPDX-License-Identifier: GPL-3.0-or-later
"""Damage to ships and bases, critical hits and speed (standard 21; seed 003, 21.3-21.8.2).

Standard 21 (reference A.12): a ship sinks when her hits reach her Damage
Factor; at half of it her MF is halved; at Damage Factor - 1 a ship of DF 3 or
more is crippled. Each hit costs 1 Gunnery and 1 AA (never Torpedo Factors),
Launch Factor by type, and 1 Air Factor aboard; a base loses LF, SF and an Air
Factor a hit (Dispersed factors take 2 hits each) and repairs a hit a turn.
Planes go in the order Ready, Just Landed, Readying, Dispersed.

Seed 003, 21.3 changes it: "1. Ship or Base, Bomb(a) or Gunnery: *Planes in
"Ready": 2X (# of hits) *Planes in "Just Landed" but not "Ready": (# hits)
+1 (b) 2. Base, Bomb(a) or Gunnery: *AA factor reduced by 1 for each FOUR hits
received in a given attack; round fractions up (c) 3. Ship, Torpedo: *Planes
on board do NOT affect number of hits taken *Each torpedo hit counts as two
towards speed reduction but only one for actual ship damage(d) *AA reduced by
one for every two torpedo hits taken (round fractions down.) This is
cumulative, not per attack. Notes: (a) GP bombs cannot cause critical hits on
ships, while AP bombs cannot cause critical hits on bases. (b) Exception: If
"0" total hits are rolled, do not add one. (c) Base AA still repairs at one
factor per turn(but no more than one.) (d) However, a ship is not caused to be
dead in the water unless actual hits taken cripple it (or on critical hit #6.)"

21.6.2: planes that used a maximum launch the turn their base or CV/CVL is
attacked are caught "in the "ready" box" on a 1d6 of 1-4, and "are the first
ones from which losses due to bomb hits are taken". 21.7.1: losses from
"readying" are the defender's choice and "need not be disclosed". 21.8: "If
the hits were produced from a base roll of 3,7 or 11, roll 1d6. A 6 will
result in one critical hit." The effects are a design default (``damage.toml``
``[criticals]``). 21.8.1: "A ship restricted to half-speed for more than one
reason at the same time is crippled, and cannot move as long as two or more
such restrictions are in effect." 21.8.2: "All direct and critical hit damage
inflicted by a single AF takes effect immediately ... This does not apply to
damage resulting from Fire or Major Fire started earlier that same turn,
because such damage is not assessed until the end of the Combat Phase."

This module holds the tables (``damage.toml``), the words of a hit and speed (21.8.1). By subject
beside it: :mod:`.damage_planes` (planes lost, and the steps every attack takes: caught planes,
hits doubled by planes aboard, critical hits), :mod:`.damage_ships` (:func:`.damage_ships.hit_ship`,
fires at the end of the Combat Phase) and :mod:`.damage_bases` (:func:`.damage_bases.hit_base`,
repair). Call ``hit_ship`` / ``hit_base`` once per AF attack on a target with the attack's total
hits (21.3 doubles "the # of hits" of the attack, and the base AA rule counts hits "in a given
attack"); the new unit takes effect at once (18.2.1). Delayed sinking is ``combat/sinking.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mailbot.core.dice import parse_spec
from mailbot.errors import GameError
from mailbot.games.flattop.combat.sinking import SinkingTable
from mailbot.games.flattop.tabledata import Source, Sourced, by_name, parsed, rounding, table_sources
from mailbot.games.flattop.units import (
    AirFactors,
    Armament,
    Base,
    Ship,
    ShipType,
)

RULE_21_3 = "seed 003, 21.3"
RULE_CAUGHT = "seed 003, 21.6.2 caught taking off"
RULE_CRITICAL = "seed 003, 21.8 critical hit check"
RULE_EFFECT = "critical hit effect (design default, damage.toml)"
RULE_FIRE = "seed 003, 21.8.2 fire (design default, damage.toml)"
RULE_SHIPS = "reference A.12 (standard 21)"

# Box names of PlaneLoss, in the order losses are taken (reference A.12; 21.6.2 puts "launching" first).
LAUNCHING, READY, JUST_LANDED, READYING, DISPERSED = (
    "launching",
    "ready",
    "just_landed",
    "readying",
    "dispersed",
)
CAUGHT_TYPES = frozenset({ShipType.CV, ShipType.CVL})  # 21.6.2: "a base or CV/CVL"


class HitKind(StrEnum):
    BOMB = "bomb"
    TORPEDO = "torpedo"
    GUNNERY = "gunnery"
    FIRE = "fire"  # 21.8.2: assessed at the end of the Combat Phase, never multiplied, never critical


class Speed(StrEnum):
    """A ship's pace for a turn (reference A.12; seed 003, 21.8.1)."""

    FULL = "full"
    HALF = "half"
    STOPPED = "stopped"


@dataclass(frozen=True)
class Attack:
    """One attack's ``hits`` (from the CRT) on a ship or a base, and what decides their effect:
    :func:`.damage_ships.hit_ship` and :func:`.damage_bases.hit_base` take it.

    ``critical_check``: True (or the number of the attack's CRT rolls) when 21.8 calls for the 1d6.
    ``ranking``: plane names in order of elimination (the attacker's for day dive and low-level
    bombing, the defender's otherwise); ``readying_ranking``: the defender's, for the Readying box
    (21.7.1; without it that box goes most factors first). ``launching``: the factors of this turn's
    maximum launch from the target (21.6.2): their losses come back with box "launching".
    """

    hits: int
    kind: HitKind
    armament: Armament | None
    critical_check: int
    label: str  # the dice label of the attack's rolls
    ranking: Sequence[str] = ()
    launching: Sequence[AirFactors] = ()
    readying_ranking: Sequence[str] = ()


@dataclass(frozen=True)
class PlaneLoss:
    """Air Factors lost from one box; ``hidden``: 21.7.1, the attacker is not told; ``sank``: they went
    down with their carrier, gone for good (reference A.12: no replacements for them)."""

    box: str
    plane: str
    count: int
    hidden: bool
    sank: bool = False


@dataclass(frozen=True)
class ShipHit:
    """What one attack (or the end-of-phase fires) did to one ship, for reports and the log."""

    before: Ship
    after: Ship
    rolled: int  # hits from the CRT
    taken: int  # after 21.3
    kind: HitKind
    criticals: tuple[str, ...]  # critical hit results, by name
    planes: tuple[PlaneLoss, ...]
    sinking_roll: int | None  # the LI 4 delay die, when she was destroyed and rolled
    facts: tuple[str, ...]  # referee sentences with every roll
    extra_hits: int = 0  # from critical hits, on top of ``taken``
    caught: bool = False  # 21.6.2: the max-launched planes were caught in Ready


@dataclass(frozen=True)
class BaseHit:
    before: Base
    after: Base
    rolled: int
    taken: int
    kind: HitKind
    planes: tuple[PlaneLoss, ...]
    facts: tuple[str, ...]
    criticals: tuple[str, ...] = ()
    extra_hits: int = 0
    caught: bool = False


# --- the table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class HitRules:
    """Seed 003, 21.3, 21.6.2 and 21.8 (``[hits]``)."""

    ready_multiplier: int
    just_landed_bonus: int
    base_aa_per_hits: int
    base_aa_rounding: str
    torpedo_speed_weight: int
    torpedo_aa_per_hits: int
    torpedo_aa_rounding: str
    no_critical_on_ship: frozenset[Armament]
    no_critical_on_base: frozenset[Armament]
    critical_on: frozenset[int]
    caught_on: frozenset[int]


@dataclass(frozen=True)
class ShipRules:
    gunnery_per_hit: int
    aa_per_hit: int
    planes_per_hit: int
    launch_loss: Mapping[ShipType, tuple[int, int]]  # [normal, minimum] per hit
    torpedo_destroys_planes: bool


@dataclass(frozen=True)
class BaseRules:
    launch_loss: tuple[int, int]
    launch_loss_sp: tuple[int, int]
    surface_per_hit: int
    planes_per_hit: int
    dispersed_hits_per_factor: int


@dataclass(frozen=True)
class RepairRules:
    hits_per_turn: int
    launch: tuple[int, int]
    launch_sp: tuple[int, int]
    surface: int
    aa: int


@dataclass(frozen=True)
class CriticalResult:
    rolls: tuple[int, ...]
    name: str
    fire: str | None = None
    half_speed_next_turn: bool = False
    no_flight_ops_next_turn: bool = False
    dead_in_water: bool = False
    gunnery: int = 0
    aa: int = 0
    extra_hits: int = 0


@dataclass(frozen=True)
class CriticalTable:
    dice: str
    results: tuple[CriticalResult, ...]

    def result(self, total: int) -> CriticalResult:
        return next(r for r in self.results if total in r.rolls)


@dataclass(frozen=True)
class FireTable:
    name: str
    hits: tuple[int, ...]  # by die face 1..6


@dataclass(frozen=True)
class DamageRules(Sourced):
    """``damage.toml``, parsed; ``sources`` says which sections are design defaults."""

    hits: HitRules
    ships: ShipRules
    bases: BaseRules
    repair: RepairRules
    sinking: SinkingTable
    ship_criticals: CriticalTable
    base_criticals: CriticalTable
    fires: Mapping[str, FireTable]
    sources: Mapping[str, Source]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> DamageRules:
        """``damage.toml``; a malformed table is a GameError (it ships with the code)."""
        rules = parsed("damage.toml", _read, data)
        _check_fires(rules)
        return rules


def _read(data: Mapping[str, Any]) -> DamageRules:
    crit = data["criticals"]
    return DamageRules(
        hits=_hit_rules(data["hits"]),
        ships=_ship_rules(data["ships"]),
        bases=_base_rules(data["bases"]),
        repair=_repair_rules(data["repair"]),
        sinking=SinkingTable.from_mapping(data["sinking"]),
        ship_criticals=_critical_table(crit["ships"]),
        base_criticals=_critical_table(crit["bases"]),
        fires={str(k): _fire(v) for k, v in data["fires"].items() if isinstance(v, Mapping)},
        sources=table_sources(data),
    )


def _pair(value: Any) -> tuple[int, int]:
    first, second = (int(v) for v in value)
    return first, second


def _armaments(values: Any) -> frozenset[Armament]:
    return frozenset(Armament(str(v)) for v in values)


def _faces(values: Any) -> frozenset[int]:
    faces = frozenset(int(v) for v in values)
    if not faces <= set(range(1, 7)):
        raise ValueError(f"1d6 faces expected, not {sorted(faces)}")
    return faces


def _hit_rules(data: Mapping[str, Any]) -> HitRules:
    return by_name(
        HitRules,
        data,
        base_aa_rounding=rounding(data["base_aa_rounding"]),
        torpedo_aa_rounding=rounding(data["torpedo_aa_rounding"]),
        no_critical_on_ship=_armaments(data["no_critical_on_ship"]),
        no_critical_on_base=_armaments(data["no_critical_on_base"]),
        critical_on=_faces(data["critical_on"]),
        caught_on=_faces(data["caught_taking_off_on"]),
    )


def _ship_rules(data: Mapping[str, Any]) -> ShipRules:
    return by_name(
        ShipRules,
        data,
        data["rulings"],
        launch_loss={ShipType(str(k)): _pair(v) for k, v in data["launch_loss"].items()},
    )


def _base_rules(data: Mapping[str, Any]) -> BaseRules:
    return by_name(
        BaseRules, data, launch_loss=_pair(data["launch_loss"]), launch_loss_sp=_pair(data["launch_loss_sp"])
    )


def _repair_rules(data: Mapping[str, Any]) -> RepairRules:
    return by_name(RepairRules, data, launch=_pair(data["launch"]), launch_sp=_pair(data["launch_sp"]))


_EFFECTS = ("fire", "half_speed_next_turn", "no_flight_ops_next_turn", "dead_in_water", "gunnery", "aa")


def _critical_result(data: Mapping[str, Any]) -> CriticalResult:
    unknown = set(data) - {"rolls", "name", "extra_hits", *_EFFECTS}
    if unknown:
        raise ValueError(f"unknown critical hit effect(s) {sorted(unknown)}")
    fire = data.get("fire")
    return CriticalResult(
        rolls=tuple(int(r) for r in data["rolls"]),
        name=str(data["name"]),
        fire=None if fire is None else str(fire),
        half_speed_next_turn=bool(data.get("half_speed_next_turn", False)),
        no_flight_ops_next_turn=bool(data.get("no_flight_ops_next_turn", False)),
        dead_in_water=bool(data.get("dead_in_water", False)),
        gunnery=int(data.get("gunnery", 0)),
        aa=int(data.get("aa", 0)),
        extra_hits=int(data.get("extra_hits", 0)),
    )


def _critical_table(data: Mapping[str, Any]) -> CriticalTable:
    table = CriticalTable(str(data["dice"]), tuple(_critical_result(r) for r in data["result"]))
    count, sides, constant = parse_spec(table.dice)
    wanted = list(range(count + constant, count * sides + constant + 1))
    given = sorted(roll for result in table.results for roll in result.rolls)
    if given != wanted:
        raise ValueError(f"critical hit results must cover {table.dice} totals once each, not {given}")
    return table


def _fire(data: Mapping[str, Any]) -> FireTable:
    hits = tuple(int(h) for h in data["hits"])
    if len(hits) != 6 or min(hits) < 0:
        raise ValueError(f"fire hits are 6 numbers >= 0 (1d6 faces), not {hits}")
    return FireTable(str(data["name"]), hits)


def _check_fires(rules: DamageRules) -> None:
    for table in (rules.ship_criticals, rules.base_criticals):
        for result in table.results:
            if result.fire is not None and result.fire not in rules.fires:
                raise GameError(
                    f"damage.toml: critical hit {result.name!r} names no [fires] entry {result.fire!r}"
                )


# --- speed and flight operations --------------------------------------------------------------


def half_speed_restrictions(ship: Ship, turn: int, *, slow_at: float = 0.5) -> int:
    """How many reasons hold the ship to half speed in ``turn`` (21.8.1: they add up).

    Damage: hits at ``slow_at`` of her Damage Factor or more (reference A.12), each torpedo hit
    counting two (21.3, ``Ship.slowing_hits``). Critical hits: one per hit that slows her this turn.
    """
    counted = ship.hits + ship.slowing_hits
    by_damage = counted > 0 and counted >= ship.damage * slow_at
    return int(by_damage) + ship.half_speed_turns.count(turn)


def speed(ship: Ship, turn: int, *, slow_at: float = 0.5) -> Speed:
    """The ship's pace in ``turn``: crippled, destroyed and sunk ships stop; two half-speed restrictions
    stop her while both last (21.8.1); one halves her MF."""
    if ship.sunk or ship.crippled:
        return Speed.STOPPED
    restrictions = half_speed_restrictions(ship, turn, slow_at=slow_at)
    if restrictions >= 2:
        return Speed.STOPPED
    return Speed.HALF if restrictions == 1 else Speed.FULL


def reported_dead_in_water(ship: Ship, turn: int, *, slow_at: float = 0.5) -> bool:
    """What a damage report made in ``turn`` says (LI 3, LI 4, 21.8.1).

    Crippled (which includes destroyed but sinking, and critical hit #6), or unable to move this
    turn or the next for two half-speed restrictions: 21.8.1's ship with a critical hit that slows
    her "next turn" is "reported as dead in the water" as soon as she is hit, though she moves again
    the turn after.
    """
    if ship.sunk:
        return False
    stopped = (speed(ship, t, slow_at=slow_at) is Speed.STOPPED for t in (turn, turn + 1))
    return ship.crippled or any(stopped)


def flight_ops_allowed(unit: Ship | Base, turn: int) -> bool:
    """Reference A.12: "No flight operations at LF 0"; nor the turn after a deck or runway critical."""
    return unit.launch > 0 and turn not in unit.no_flight_ops_turns
