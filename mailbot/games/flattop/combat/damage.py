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

Call :func:`hit_ship` / :func:`hit_base` once per AF attack on a target with
the attack's total hits (21.3 doubles "the # of hits" of the attack, and the
base AA rule counts hits "in a given attack"); the new unit takes effect at
once (18.2.1). Fires wait for :func:`end_of_combat_phase`; delayed sinking is
``combat/sinking.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from mailbot.core.dice import Dice, parse_spec
from mailbot.errors import GameError
from mailbot.games.flattop.combat import sinking
from mailbot.games.flattop.combat.sinking import SinkingTable, hours_pass, needs_roll, sinking_hours
from mailbot.games.flattop.tabledata import Source, rounding, table_sources
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Armament,
    Base,
    BaseFactors,
    Handling,
    Ship,
    ShipType,
    TaskForce,
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
class DamageRules:
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
        try:
            crit = data["criticals"]
            rules = cls(
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
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameError(f"damage.toml is malformed ({error!r})") from error
        _check_fires(rules)
        return rules

    @property
    def design_defaults(self) -> tuple[str, ...]:
        """The sections that are design defaults, e.g. ``criticals.ships``: letters say so."""
        return tuple(name for name, src in self.sources.items() if src.default)


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
    return HitRules(
        ready_multiplier=int(data["ready_multiplier"]),
        just_landed_bonus=int(data["just_landed_bonus"]),
        base_aa_per_hits=int(data["base_aa_per_hits"]),
        base_aa_rounding=rounding(data["base_aa_rounding"]),
        torpedo_speed_weight=int(data["torpedo_speed_weight"]),
        torpedo_aa_per_hits=int(data["torpedo_aa_per_hits"]),
        torpedo_aa_rounding=rounding(data["torpedo_aa_rounding"]),
        no_critical_on_ship=_armaments(data["no_critical_on_ship"]),
        no_critical_on_base=_armaments(data["no_critical_on_base"]),
        critical_on=_faces(data["critical_on"]),
        caught_on=_faces(data["caught_taking_off_on"]),
    )


def _ship_rules(data: Mapping[str, Any]) -> ShipRules:
    return ShipRules(
        gunnery_per_hit=int(data["gunnery_per_hit"]),
        aa_per_hit=int(data["aa_per_hit"]),
        planes_per_hit=int(data["planes_per_hit"]),
        launch_loss={ShipType(str(k)): _pair(v) for k, v in data["launch_loss"].items()},
        torpedo_destroys_planes=bool(data["rulings"]["torpedo_destroys_planes"]),
    )


def _base_rules(data: Mapping[str, Any]) -> BaseRules:
    return BaseRules(
        launch_loss=_pair(data["launch_loss"]),
        launch_loss_sp=_pair(data["launch_loss_sp"]),
        surface_per_hit=int(data["surface_per_hit"]),
        planes_per_hit=int(data["planes_per_hit"]),
        dispersed_hits_per_factor=int(data["dispersed_hits_per_factor"]),
    )


def _repair_rules(data: Mapping[str, Any]) -> RepairRules:
    return RepairRules(
        hits_per_turn=int(data["hits_per_turn"]),
        launch=_pair(data["launch"]),
        launch_sp=_pair(data["launch_sp"]),
        surface=int(data["surface"]),
        aa=int(data["aa"]),
    )


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


# --- planes -----------------------------------------------------------------------------------


def _totals(stacks: Sequence[AirFactors]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for stack in stacks:
        totals[stack.plane] = totals.get(stack.plane, 0) + stack.count
    return totals


def elimination_order(stacks: Sequence[AirFactors], ranking: Sequence[str]) -> tuple[str, ...]:
    """Plane names of a box in the order they are lost: the ranking, then most factors first, then name."""
    totals = _totals(stacks)
    ranked = [name for name in dict.fromkeys(ranking) if totals.get(name, 0) > 0]
    rest = sorted((n for n in totals if n not in ranked and totals[n] > 0), key=lambda n: (-totals[n], n))
    return (*ranked, *rest)


def _remove(stacks: tuple[AirFactors, ...], plane: str, count: int) -> tuple[AirFactors, ...]:
    """The box without ``count`` factors of ``plane``, taken from its stacks in order."""
    kept: list[AirFactors] = []
    for stack in stacks:
        take = min(count, stack.count) if stack.plane == plane else 0
        count -= take
        if stack.count - take > 0:
            kept.append(replace(stack, count=stack.count - take) if take else stack)
    return tuple(kept)


@dataclass(frozen=True)
class Losses:
    """Planes lost to some hits, and the boxes without them (caught planes are in an AF, not here)."""

    planes: tuple[PlaneLoss, ...]
    boxes: AirBoxes


def _box_order(
    boxes: AirBoxes, caught: tuple[AirFactors, ...], ranking: Sequence[str], readying: Sequence[str]
) -> tuple[tuple[str, tuple[AirFactors, ...], Sequence[str]], ...]:
    return (
        (LAUNCHING, caught, ranking),
        (READY, boxes.ready, ranking),
        (JUST_LANDED, boxes.just_landed, ranking),
        (READYING, boxes.readying, readying),  # 21.7.1: "the defender always chooses"
        (DISPERSED, boxes.dispersed, ranking),
    )


def allocate_losses(
    hits: int,
    boxes: AirBoxes,
    *,
    caught: tuple[AirFactors, ...] = (),
    ranking: Sequence[str] = (),
    readying_ranking: Sequence[str] = (),
    dispersed_cost: int = 2,
) -> Losses:
    """Reference A.12: one Air Factor per hit, Ready first, then Just Landed, Readying, Dispersed (at
    ``dispersed_cost`` hits a factor); 21.6.2's caught planes before all. Excess hits are lost."""
    left = hits
    losses: list[PlaneLoss] = []
    for box, stacks, order in _box_order(boxes, caught, ranking, readying_ranking):
        cost = dispersed_cost if box == DISPERSED else 1
        totals = _totals(stacks)
        for plane in elimination_order(stacks, order):
            count = min(totals[plane], left // cost)
            if count:
                losses.append(PlaneLoss(box, plane, count, hidden=box == READYING))
                left -= count * cost
    return Losses(tuple(losses), _without(boxes, losses))


def _without(boxes: AirBoxes, losses: Sequence[PlaneLoss]) -> AirBoxes:
    fields = {
        READY: boxes.ready,
        JUST_LANDED: boxes.just_landed,
        READYING: boxes.readying,
        DISPERSED: boxes.dispersed,
    }
    for loss in losses:
        if loss.box in fields:
            fields[loss.box] = _remove(fields[loss.box], loss.plane, loss.count)
    return AirBoxes(**fields)


def planes_aboard(boxes: AirBoxes) -> tuple[PlaneLoss, ...]:
    """Every factor in the boxes as losses: what a sinking carrier takes down with her (reference A.12)."""
    return tuple(
        PlaneLoss(box, plane, count, hidden=box == READYING, sank=True)
        for box, stacks, _ in _box_order(boxes, (), (), ())
        for plane, count in _totals(stacks).items()
        if count > 0
    )


def caught_losses(planes: Sequence[PlaneLoss]) -> dict[str, int]:
    """21.6.2's losses per plane name, for the caller to take off the launching AF."""
    lost: dict[str, int] = {}
    for loss in planes:
        if loss.box == LAUNCHING:
            lost[loss.plane] = lost.get(loss.plane, 0) + loss.count
    return lost


# --- the steps of an attack -----------------------------------------------------------------------


def _caught(
    launching: Sequence[AirFactors],
    *,
    eligible: bool,
    rolled: int,
    rules: DamageRules,
    dice: Dice,
    label: str,
) -> tuple[tuple[AirFactors, ...], list[str]]:
    """21.6.2: on 1d6 1-4 the max-launched factors count as still in Ready."""
    stacks = tuple(s for s in launching if s.count > 0)
    if not stacks:
        return (), []
    if not eligible:
        return (), ["21.6.2 does not apply: only a base or a CV/CVL catches its planes taking off"]
    if rolled <= 0:
        return (), ["no hits: the planes taking off are not touched (21.6.2 not rolled)"]
    roll = dice.d6(f"{label}/caught taking off", rule=RULE_CAUGHT)
    if roll.total in rules.hits.caught_on:
        return stacks, [f"{roll.text}: the maximum launch is caught in the Ready box"]
    return (), [f"{roll.text}: the maximum launch got away"]


def _hits_taken(
    rolled: int, kind: HitKind, boxes: AirBoxes, caught: tuple[AirFactors, ...], rules: DamageRules
) -> tuple[int, list[str]]:
    """Seed 003, 21.3 row 1: planes in Ready double bomb and gunnery hits; Just Landed adds one."""
    table = rules.hits
    ready = any(s.count for s in (*caught, *boxes.ready))
    landed = any(s.count for s in boxes.just_landed)
    if kind is HitKind.TORPEDO:
        said = ["torpedo: planes on board do not affect the hits taken (21.3)"] if boxes.total else []
        return rolled, said
    if kind is HitKind.FIRE:
        return rolled, []
    if rolled <= 0:
        said = ['0 hits rolled: "Just Landed" adds none (21.3 note b)'] if landed and not ready else []
        return rolled, said
    if ready:
        taken = rolled * table.ready_multiplier
        return taken, [f'planes in "Ready": {table.ready_multiplier} x {rolled} = {taken} hits (21.3)']
    if landed:
        taken = rolled + table.just_landed_bonus
        return taken, [f'planes in "Just Landed": {rolled} + {table.just_landed_bonus} = {taken} hits (21.3)']
    return rolled, []


def _criticals(
    checks: int,
    rolled: int,
    armament: Armament | None,
    *,
    ship: bool,
    rules: DamageRules,
    dice: Dice,
    label: str,
) -> tuple[tuple[CriticalResult, ...], list[str]]:
    """21.8: a 1d6 per check, a critical hit on a 6; then the effect (design default table)."""
    if checks <= 0 or rolled <= 0:
        return (), []
    barred = rules.hits.no_critical_on_ship if ship else rules.hits.no_critical_on_base
    if armament in barred:
        target = "ships" if ship else "bases"
        return (), [f"{armament} bombs cannot cause critical hits on {target} (21.3 note a)"]
    table = rules.ship_criticals if ship else rules.base_criticals
    found: list[CriticalResult] = []
    said: list[str] = []
    for n in range(checks):
        suffix = f" {n + 1}" if checks > 1 else ""
        check = dice.d6(f"{label}/critical check{suffix}", rule=RULE_CRITICAL)
        if check.total not in rules.hits.critical_on:
            said.append(f"{check.text}: no critical hit")
            continue
        effect = dice.dice(f"{label}/critical effect{suffix}", table.dice, rule=RULE_EFFECT)
        found.append(table.result(effect.total))
        said.append(f"{check.text}: critical hit; {effect.text}: {found[-1].name}")
    return tuple(found), said


def _per(before: int, after: int, per: int, rounding: str) -> int:
    """Losses of "one for every ``per``" between two running totals, fractions rounded as the seed says."""
    if rounding == "up":
        return -(-after // per) + (-before // per)
    return after // per - before // per


# --- ships --------------------------------------------------------------------------------------


def _ship_damage(
    ship: Ship,
    hits: int,
    kind: HitKind,
    rules: DamageRules,
    *,
    caught: tuple[AirFactors, ...] = (),
    ranking: Sequence[str] = (),
    readying_ranking: Sequence[str] = (),
) -> tuple[Ship, tuple[PlaneLoss, ...], str]:
    """Reference A.12 per hit, with 21.3 row 3 for torpedoes; factors stop at 0."""
    table, torpedo = rules.ships, kind is HitKind.TORPEDO
    if torpedo:
        t = ship.torpedo_hits
        aa = _per(t, t + hits, rules.hits.torpedo_aa_per_hits, rules.hits.torpedo_aa_rounding)
        slowing = hits * (rules.hits.torpedo_speed_weight - 1)
    else:
        aa, slowing = hits * table.aa_per_hit, 0
    normal, minimum = table.launch_loss.get(ship.type, (0, 0))
    planes: tuple[PlaneLoss, ...] = ()
    boxes = ship.boxes
    if hits and (not torpedo or table.torpedo_destroys_planes):
        losses = allocate_losses(
            hits * table.planes_per_hit,
            boxes,
            caught=caught,
            ranking=ranking,
            readying_ranking=readying_ranking,
        )
        planes, boxes = losses.planes, losses.boxes
    after = replace(
        ship,
        hits=ship.hits + hits,
        gunnery=max(0, ship.gunnery - hits * table.gunnery_per_hit),
        aa=max(0, ship.aa - aa),
        launch=max(0, ship.launch - hits * normal),
        launch_min=max(0, ship.launch_min - hits * minimum),
        torpedo_hits=ship.torpedo_hits + (hits if torpedo else 0),
        slowing_hits=ship.slowing_hits + slowing,
        boxes=boxes,
    )
    return after, planes, _ship_sentence(ship, after, hits)


def launch_note(before: Ship, after: Ship) -> str:
    """A plane-carrier's launch factor lost to hits, for her owner when it happens (issue 36: it was
    explained only when a later launch was refused); "" when it did not change."""
    same = (before.launch, before.launch_min) == (after.launch, after.launch_min)
    if not after.capacity or after.destroyed or same:
        return ""
    return (
        f"; her launch factor is now {after.launch} (minimum {after.launch_min}), was "
        f"{before.launch} (minimum {before.launch_min}): hits reduce it ({RULE_SHIPS})"
    )


def _ship_sentence(before: Ship, after: Ship, hits: int) -> str:
    text = f"{after.name} takes {hits} hit(s), {after.hits}/{after.damage}:"
    text += f" Gunnery {before.gunnery}->{after.gunnery}, AA {before.aa}->{after.aa}"
    if before.launch or before.launch_min:
        text += f", LF {before.launch}/{before.launch_min}->{after.launch}/{after.launch_min}"
    return f"{text} ({RULE_SHIPS}; {RULE_21_3})"


def _ship_critical(ship: Ship, critical: CriticalResult, turn: int) -> tuple[Ship, list[str]]:
    """A critical hit's lasting effects; fires wait for the end of the Combat Phase (21.8.2)."""
    said: list[str] = []
    if critical.fire is not None:
        ship = replace(ship, fires=(*ship.fires, critical.fire))
        said.append(f"{ship.name}: {critical.name} burns until the end of the Combat Phase (21.8.2)")
    if critical.half_speed_next_turn:
        ship = replace(ship, half_speed_turns=(*ship.half_speed_turns, turn + 1))
    if critical.no_flight_ops_next_turn:
        if ship.handles:
            ship = replace(ship, no_flight_ops_turns=(*ship.no_flight_ops_turns, turn + 1))
        else:
            said.append(f"{ship.name} operates no planes: the flight deck hit has no effect")
    if critical.dead_in_water:
        ship = replace(ship, dead_in_water=True)
    if critical.gunnery or critical.aa:
        gunnery, aa = max(0, ship.gunnery - critical.gunnery), max(0, ship.aa - critical.aa)
        ship = replace(ship, gunnery=gunnery, aa=aa)
    return ship, said


def _sinking(
    before: Ship, after: Ship, *, hits: int, rules: DamageRules, dice: Dice, label: str, turn: int
) -> tuple[Ship, int | None, list[str]]:
    """LI 4: a ship just destroyed rolls her delay; a doomed one loses an hour a hit."""
    if before.destroyed:
        if hits <= 0:
            return after, None, []
        left = max(0, (before.sinking or 0) - hits)
        said = _sinking_sentence(after, left, f"{hits} more hit(s) on a doomed ship, an hour each")
        return replace(after, sinking=left), None, [said]
    if not after.destroyed:
        return after, None, []
    over = after.hits - after.damage
    if not needs_roll(after.damage, rules.sinking):
        sunk = replace(after, sinking=0, destroyed_turn=turn)
        return (
            sunk,
            None,
            [f"{after.name} is destroyed and sinks at once (Damage Factor 1 or 2, {sinking.RULE})"],
        )
    roll = dice.d6(f"{label}/sinking delay", rule=sinking.RULE)
    hours = sinking_hours(after.damage, roll.total, over, rules.sinking)
    why = f"{roll.text}, less {over} hit(s) beyond her Damage Factor" if over else roll.text
    doomed = replace(after, sinking=hours, destroyed_turn=turn)
    return doomed, roll.total, [_sinking_sentence(doomed, hours, why)]


def _sinking_sentence(ship: Ship, hours: int, why: str) -> str:
    if hours <= 0:
        return f"{ship.name} sinks ({why}; {sinking.RULE})"
    afloat = f"{ship.name} is destroyed and stays afloat {hours} more hour(s), reported crippled"
    return f"{afloat} ({why}; {sinking.RULE})"


def hit_ship(
    ship: Ship,
    hits: int,
    kind: HitKind,
    *,
    armament: Armament | None,
    critical_check: int,
    rules: DamageRules,
    dice: Dice,
    label: str,
    turn: int,
    ranking: Sequence[str] = (),
    launching: Sequence[AirFactors] = (),
    readying_ranking: Sequence[str] = (),
) -> ShipHit:
    """One attack's ``hits`` (from the CRT) on a ship: 21.3, critical hits, plane losses, sinking.

    ``critical_check``: True (or the number of the attack's CRT rolls) when 21.8 calls for the 1d6.
    ``ranking``: plane names in order of elimination (the attacker's for day dive and low-level
    bombing, the defender's otherwise); ``readying_ranking``: the defender's, for the Readying box
    (21.7.1; without it that box goes most factors first). ``launching``: the factors of this turn's
    maximum launch from her (21.6.2): their losses come back in ``planes`` with box "launching".
    """
    if ship.sunk:
        raise GameError(f"{ship.name} has sunk and cannot be hit")
    if hits < 0:
        raise GameError(f"{ship.name}: {hits} hits")
    caught, facts = _caught(
        launching, eligible=ship.type in CAUGHT_TYPES, rolled=hits, rules=rules, dice=dice, label=label
    )
    facts.insert(0, f"{ship.name}: {hits} hit(s) rolled ({kind})")
    taken, said = _hits_taken(hits, kind, ship.boxes, caught, rules)
    criticals, said_crit = _criticals(
        int(critical_check), hits, armament, ship=True, rules=rules, dice=dice, label=label
    )
    extra = sum(c.extra_hits for c in criticals)
    after, planes, sentence = _ship_damage(
        ship, taken + extra, kind, rules, caught=caught, ranking=ranking, readying_ranking=readying_ranking
    )
    facts += [*said, *said_crit, sentence]
    for critical in criticals:
        after, said = _ship_critical(after, critical, turn)
        facts += said
    after, sinking_roll, said = _sinking(
        ship, after, hits=taken + extra, rules=rules, dice=dice, label=label, turn=turn
    )
    facts += said
    after, planes = _gone_down(after, planes)
    return ShipHit(
        before=ship,
        after=after,
        rolled=hits,
        taken=taken,
        kind=kind,
        criticals=tuple(c.name for c in criticals),
        planes=planes,
        sinking_roll=sinking_roll,
        facts=tuple(facts),
        extra_hits=extra,
        caught=bool(caught),
    )


def _gone_down(ship: Ship, planes: tuple[PlaneLoss, ...]) -> tuple[Ship, tuple[PlaneLoss, ...]]:
    """Reference A.12: "A sunk carrier takes its planes with it"."""
    if not ship.sunk or not ship.boxes.total:
        return ship, planes
    return replace(ship, boxes=AirBoxes()), planes + planes_aboard(ship.boxes)


def end_of_combat_phase(
    ship: Ship, *, rules: DamageRules, dice: Dice, label: str, turn: int, ranking: Sequence[str] = ()
) -> ShipHit | None:
    """21.8.2: the fires critical hits started this Combat Phase do their damage now (1d6 each)."""
    if not ship.fires or ship.sunk:
        return None
    facts: list[str] = []
    total = 0
    for n, key in enumerate(ship.fires):
        fire = rules.fires[key]
        roll = dice.d6(f"{label}/{fire.name} {n + 1}", rule=RULE_FIRE)
        burnt = fire.hits[roll.total - 1]
        total += burnt
        facts.append(f"{ship.name}: {roll.text}: {fire.name} does {burnt} hit(s)")
    cleared = replace(ship, fires=())
    # Fire is no attack: the defender chooses every plane it destroys.
    after, planes, sentence = _ship_damage(
        cleared, total, HitKind.FIRE, rules, ranking=ranking, readying_ranking=ranking
    )
    facts.append(sentence)
    after, sinking_roll, said = _sinking(
        cleared, after, hits=total, rules=rules, dice=dice, label=label, turn=turn
    )
    after, planes = _gone_down(after, planes)
    return ShipHit(ship, after, total, total, HitKind.FIRE, (), planes, sinking_roll, tuple(facts + said))


@dataclass(frozen=True)
class Sank:
    """A ship that went down at the end of a turn, with the planes still aboard her (lost for good)."""

    ship: Ship
    planes: tuple[PlaneLoss, ...]
    destroyed_turn: int | None


def hours_pass_tf(tf: TaskForce, *, turn: int) -> tuple[TaskForce, tuple[Sank, ...]]:
    """``sinking.hours_pass`` for every ship of a TF at the end of ``turn``; reports the ships that sank."""
    ships: list[Ship] = []
    sank: list[Sank] = []
    for ship in tf.ships:
        after = hours_pass(ship, turn=turn)
        if after.sunk and not ship.sunk:
            sank.append(Sank(after, planes_aboard(ship.boxes), ship.destroyed_turn))
        ships.append(after)
    return replace(tf, ships=tuple(ships)), tuple(sank)


# --- bases --------------------------------------------------------------------------------------


def _start(base: Base) -> BaseFactors:
    if base.start is not None:
        return base.start
    return BaseFactors(base.launch, base.launch_min, base.aa, base.surface)


def _base_damage(
    base: Base,
    hits: int,
    aa: int,
    rules: DamageRules,
    *,
    caught: tuple[AirFactors, ...],
    ranking: Sequence[str],
    readying_ranking: Sequence[str],
) -> tuple[Base, tuple[PlaneLoss, ...], str]:
    """Reference A.12 per hit (factors may go below 0); ``aa``: the 21.3 row 2 loss, from the caller."""
    table = rules.bases
    normal, minimum = table.launch_loss_sp if base.handling is Handling.SP else table.launch_loss
    losses = allocate_losses(
        hits * table.planes_per_hit,
        base.boxes,
        caught=caught,
        ranking=ranking,
        readying_ranking=readying_ranking,
        dispersed_cost=table.dispersed_hits_per_factor,
    )
    after = replace(
        base,
        start=_start(base),
        hits=base.hits + hits,
        launch=base.launch - hits * normal,
        launch_min=base.launch_min - hits * minimum,
        # A base without a Surface Factor has none to lose (issue 36: "SF 0->-2").
        surface=base.surface - hits * table.surface_per_hit if base.surface > 0 else base.surface,
        aa=base.aa - aa,
        boxes=losses.boxes,
    )
    text = f"{base.name} takes {hits} hit(s): LF {base.launch}/{base.launch_min}"
    text += f"->{after.launch}/{after.launch_min}"
    text += f", SF {base.surface}->{after.surface}" if base.surface > 0 else ""
    text += f", AA {base.aa}->{after.aa} ({RULE_SHIPS}; {RULE_21_3})"
    return after, losses.planes, text


def hit_base(
    base: Base,
    hits: int,
    kind: HitKind,
    *,
    armament: Armament | None,
    critical_check: int,
    rules: DamageRules,
    dice: Dice,
    label: str,
    turn: int,
    ranking: Sequence[str] = (),
    launching: Sequence[AirFactors] = (),
    readying_ranking: Sequence[str] = (),
) -> BaseHit:
    """One attack's ``hits`` on a base (arguments as :func:`hit_ship`); AA -1 per four hits of the
    attack, fractions up (21.3 row 2), critical hits included."""
    if kind is HitKind.TORPEDO:
        raise GameError(f"{base.name}: bases cannot be attacked by torpedo (reference B.14 ruling)")
    if hits < 0:
        raise GameError(f"{base.name}: {hits} hits")
    caught, facts = _caught(launching, eligible=True, rolled=hits, rules=rules, dice=dice, label=label)
    facts.insert(0, f"{base.name}: {hits} hit(s) rolled ({kind})")
    taken, said = _hits_taken(hits, kind, base.boxes, caught, rules)
    criticals, said_crit = _criticals(
        int(critical_check), hits, armament, ship=False, rules=rules, dice=dice, label=label
    )
    extra = sum(c.extra_hits for c in criticals)
    total = taken + extra
    aa = _per(0, total, rules.hits.base_aa_per_hits, rules.hits.base_aa_rounding)
    aa += sum(c.aa for c in criticals)
    after, planes, sentence = _base_damage(
        base, total, aa, rules, caught=caught, ranking=ranking, readying_ranking=readying_ranking
    )
    after = replace(after, attacked_turn=turn)  # A.12: no repair in a turn it was attacked
    if any(c.no_flight_ops_next_turn for c in criticals):
        after = replace(after, no_flight_ops_turns=(*after.no_flight_ops_turns, turn + 1))
    facts += [*said, *said_crit, sentence]
    names = tuple(c.name for c in criticals)
    return BaseHit(base, after, hits, taken, kind, planes, tuple(facts), names, extra, bool(caught))


def repair_base(
    base: Base, *, attacked: bool, rules: DamageRules | None = None, turn: int | None = None
) -> Base:
    """The Repair Phase (reference A.12; 21.3 note c): a base not air-attacked or bombarded this turn
    repairs a hit (LF +2/+1, +1/+1 if SP-only; SF +1) and gets back an AA factor while below its start
    ("no more than one" a turn); nothing climbs above the factors it had before its first hit.
    ``turn``: the turn ending; a base hit in it (``Base.attacked_turn``: by an air attack or a
    bombardment, in whichever sub-step of the hour) does not repair, whatever ``attacked`` says.

    ``rules`` defaults to :data:`DEFAULT_REPAIR`, ``damage.toml``'s ``[repair]`` (a test holds them equal).
    """
    if attacked or base.start is None or base.attacked_turn == turn:
        return base
    table = rules.repair if rules is not None else DEFAULT_REPAIR
    start = base.start
    fixed = min(table.hits_per_turn, max(0, base.hits))
    normal, minimum = table.launch_sp if base.handling is Handling.SP else table.launch
    return replace(
        base,
        hits=base.hits - fixed,
        launch=_up(base.launch, fixed * normal, start.launch),
        launch_min=_up(base.launch_min, fixed * minimum, start.launch_min),
        surface=_up(base.surface, fixed * table.surface, start.surface),
        aa=_up(base.aa, table.aa, start.aa),
    )


def _up(value: int, gain: int, ceiling: int) -> int:
    return value if value >= ceiling else min(ceiling, value + gain)


# repair_base is called without the table by callers that have none at hand: these are damage.toml's
# [repair] numbers, and test_damage holds them equal to the shipped file.
DEFAULT_REPAIR = RepairRules(hits_per_turn=1, launch=(2, 1), launch_sp=(1, 1), surface=1, aa=1)
