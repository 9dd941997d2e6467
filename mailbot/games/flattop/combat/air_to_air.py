# SPDX-License-Identifier: GPL-3.0-or-later
"""Air-to-air combat at one altitude of one hex (standard 15-16 as reference A.10, A.11.4; seed 003, 15).

Standard 16 (reference A.11.4): only interceptors start air-to-air combat. It
has two stages: (1) interceptors against escorts, the interceptor side
splitting its interceptors into an anti-escort and an anti-bomber group, fire
simultaneous, one roll per plane name; (2) interceptors against bombers:
surviving anti-escort interceptors at 2:1 or better over the escorts join the
anti-bomber group, escorts at 2:1 or better over those interceptors stop any
attack on the bombers, and the bombers fire back with their own air-to-air
BHT. High and Low are fought separately (call :func:`fight` once for each).
Interceptors against interceptors is the first stage alone: pass the other
side's fighters as ``escorts`` and no bombers. A hit is one air factor lost;
hits beyond the factors fired at are lost.

RF (reference A.10): "Interceptors and escorts spend 1 RF per turn of
air-to-air combat. They may refuse to spend it, but then take BHT -6". Here a
flight spends it when it has one to spend (``Flight.rf_left`` >= 1: the caller
leaves out what the AF needs to get home, or passes 0 for a refusal); an AF
that already paid this turn (``rf_paid``, e.g. in the other altitude's fight)
pays nothing more. Seed 003, 16.12: diving CAP "MUST expend an RF for the
combat; they may not take the -6 modifier" (``Flight.dived``).

Seed 003, 15 Limited Intelligence:

- 5: "If more than one type of interceptor is attacking the escorts, the
  player with the escorts must prioritize the types of interceptor he wishes
  to shoot at" (``escort_priority``; the +/-50% reports belong to ``intel``:
  this module returns exact losses).
- 7: "Interceptors that attack bomber formations may only be attacked in that
  combat by a maximum number of bomber factors that is three times the number
  of interceptors. Example: 6 Zero factors attack 24 factors of B-26's. Only 18
  of the B-26 factors may fire back in defense."

Design defaults (:data:`DESIGN_DEFAULTS`, so letters can say so) where the
rules leave the choice to players who are not asked in a mail game:

- the interceptors split evenly between escorts and bombers unless the
  defender's standing order says ``escorts`` or ``bombers``: plane names in
  order of most factors each give half, odd factors going to escorts and
  bombers in turn, escorts first;
- within a group, each plane name fires whole at one enemy plane name: the
  biggest shooter at the first target, the next at the second, and round
  again; targets in order of most factors (the escorts' and the bombers' fire:
  ``escort_priority`` first);
- anti-escort interceptors at 2:1 always join the bombers' attack;
- when LI 7 caps the bombers' return fire, the bombers with the best BHT fire.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.bht import HitTables
from mailbot.games.flattop.combat.crt import CombatTable
from mailbot.games.flattop.map.hexes import Hex, distance
from mailbot.games.flattop.units import AirFactors, Altitude, PlaneType, Side

RULE = "standard 16 (reference A.11.4); seed 003, 15"
Role = Literal["interceptor", "escort", "bomber"]
SPLITS: tuple[str, ...] = ("even", "escorts", "bombers")
ESCORT_STAGE, BOMBER_STAGE = "escort", "bomber"
BOMBER_FIRE_PER_INTERCEPTOR = 3  # seed 003, 15 LI 7: "three times the number of interceptors"
JOIN_RATIO = STOP_RATIO = 2  # reference A.11.4: ">= 2:1" both ways
PLANE_PLACE_RANGE = 2  # reference A.10: "within 2 hexes of a plane-carrying ship or base"
RADAR_RANGE_HIGH = 3  # seed 003, 15.2: "three hexes from a base or TF that is radar equipped"
_Key = tuple[str, bool, bool]  # plane, armed, rf_ok: what sets a BHT
_Group = tuple[_Key, int, int, str]  # key, factors, BHT, the BHT's text
DESIGN_DEFAULTS: tuple[str, ...] = (
    "interceptors split evenly between escorts and bombers unless a standing order says otherwise",
    "each plane name fires whole at one enemy plane name, biggest at biggest, in turn",
    "anti-escort interceptors at 2:1 over the escorts always join the attack on the bombers",
    "when return fire is capped (15 LI 7) the bombers with the best BHT fire",
)


# --- where air-to-air combat may happen -------------------------------------------------


def air_combat_allowed(
    h: Hex,
    altitude: Altitude,
    *,
    ships_in_hex: bool,
    plane_places: Sequence[Hex],
    radar_places: Sequence[Hex],
) -> bool:
    """Reference A.10: "only within 2 hexes of a plane-carrying ship or base, or in any hex
    containing any ship"; seed 003, 15.2: "also allowed three hexes from a base or TF that is
    radar equipped, but only at High altitude". "Only between observed units" is the caller's."""
    if ships_in_hex or any(distance(h, place) <= PLANE_PLACE_RANGE for place in plane_places):
        return True
    return altitude is Altitude.HIGH and any(distance(h, radar) <= RADAR_RANGE_HIGH for radar in radar_places)


# --- the battle's data ------------------------------------------------------------------


@dataclass(frozen=True)
class Flight:
    """One side's factors of one AF at one altitude in the battle."""

    side: Side
    af: int
    stacks: tuple[AirFactors, ...]
    altitude: Altitude
    role: Role
    rf_left: int  # RF the AF may spend on this combat; 0: it fights at -6 (A.10)
    dived: bool = False  # diving CAP (seed 003, 16.12): must spend an RF

    @property
    def factors(self) -> int:
        return sum(stack.count for stack in self.stacks)


@dataclass(frozen=True)
class Loss:
    side: Side
    af: int
    plane: str
    count: int


@dataclass(frozen=True)
class Shot:
    """One CRT roll: one plane name's factors (one BHT) firing at one enemy plane name."""

    stage: str
    side: Side
    plane: str
    factors: int
    bht: int
    target: str
    hits: int
    text: str


@dataclass(frozen=True)
class Stage:
    """One stage for the reports: its shots, the losses they caused, and what was decided."""

    name: str  # ESCORT_STAGE | BOMBER_STAGE
    shots: tuple[Shot, ...]
    losses: tuple[Loss, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class AirBattle:
    altitude: Altitude
    losses: tuple[Loss, ...]
    rf_spent: frozenset[tuple[Side, int]]  # AFs that spent 1 RF here (newly: not those in rf_paid)
    bombers_attacked: bool
    rolls: tuple[str, ...]  # referee sentences, one per CRT roll, in order
    stages: tuple[Stage, ...] = ()
    anti_escort: int = 0  # interceptor factors sent against the escorts
    anti_bomber: int = 0  # ... and against the bombers, before stage 1
    joined: int = 0  # anti-escort survivors that joined the attack on the bombers (2:1)
    bomber_fire_cap: int | None = None  # 15 LI 7: the most bomber factors that could fire back

    @property
    def log(self) -> tuple[str, ...]:
        """Referee sentences in order: each stage's decisions (2:1, 15 LI 7), then its rolls."""
        return tuple(line for stage in self.stages for line in (*stage.notes, *(s.text for s in stage.shots)))

    def lost(self, side: Side, plane: str | None = None) -> int:
        return sum(x.count for x in self.losses if x.side is side and plane in (None, x.plane))


@dataclass(frozen=True)
class _Unit:
    """Factors of one plane name of one AF that fire with one BHT."""

    side: Side
    af: int
    plane: str
    armed: bool
    rf_ok: bool  # spent its RF (or a bomber, which needs none): no -6
    count: int

    @property
    def key(self) -> _Key:
        return self.plane, self.armed, self.rf_ok


@dataclass(frozen=True)
class _Context:
    planes: Mapping[str, PlaneType]
    hit_tables: HitTables
    table: CombatTable
    dice: Dice
    label: str
    altitude: Altitude
    cloud: bool
    night: bool

    def bht(self, unit: _Unit) -> tuple[int, str]:
        plane = self.planes.get(unit.plane)
        if plane is None:
            raise GameError(f"air-to-air: unknown plane {unit.plane!r}")
        found = self.hit_tables.air_to_air(
            plane, armed=unit.armed, rf_spent=unit.rf_ok, cloud=self.cloud, night=self.night
        )
        return found.value, found.text


# --- the fight ------------------------------------------------------------------------------


def fight(
    interceptors: Sequence[Flight],
    escorts: Sequence[Flight],
    bombers: Sequence[Flight],
    *,
    planes: Mapping[str, PlaneType],
    hit_tables: HitTables,
    table: CombatTable,
    dice: Dice,
    label: str,
    cloud: bool,
    night: bool,
    split: str = "even",
    escort_priority: Sequence[str] = (),
    rf_paid: Collection[tuple[Side, int]] = frozenset(),
) -> AirBattle:
    """Air-to-air combat at one altitude: ``interceptors`` of one side against the other
    side's ``escorts`` and ``bombers`` (module docstring). No interceptors or no enemy: no combat."""
    altitude = _check(interceptors, escorts, bombers, split)
    if not _present(interceptors) or not _present((*escorts, *bombers)):
        return AirBattle(altitude, (), frozenset(), False, ())  # only interceptors start a fight
    spent = _rf_spent((*interceptors, *escorts), frozenset(rf_paid))
    paid = spent | frozenset(rf_paid)
    ctx = _Context(planes, hit_tables, table, dice, f"{label}/{altitude.value}", altitude, cloud, night)
    ours = _units(interceptors, paid, bomber=False)
    theirs = _units(escorts, paid, bomber=False)
    aimed = _units(bombers, paid, bomber=True)
    if not theirs or not aimed:
        split = "escorts" if theirs else "bombers"  # the split only matters when both are there
    anti_escort, anti_bomber = _split(ours, split)
    first = _escort_stage(ctx, anti_escort, theirs, escort_priority)
    second = _bomber_stage(ctx, first, anti_bomber, aimed, escort_priority)
    stages = tuple(stage for stage in (first.stage, second.stage) if stage is not None)
    return AirBattle(
        altitude=altitude,
        losses=_merge([loss for stage in stages for loss in stage.losses]),
        rf_spent=spent,
        bombers_attacked=second.attacked,
        rolls=tuple(shot.text for stage in stages for shot in stage.shots),
        stages=stages,
        anti_escort=_total(anti_escort),
        anti_bomber=_total(anti_bomber),
        joined=second.joined,
        bomber_fire_cap=second.cap,
    )


def _check(
    interceptors: Sequence[Flight], escorts: Sequence[Flight], bombers: Sequence[Flight], split: str
) -> Altitude:
    if split not in SPLITS:
        raise GameError(f"air-to-air: split must be one of {', '.join(SPLITS)}, not {split!r}")
    flights = (*interceptors, *escorts, *bombers)
    altitudes = {f.altitude for f in flights}
    if len(altitudes) > 1:
        raise GameError("air-to-air: High and Low are fought separately (one altitude per fight)")
    defenders = {f.side for f in interceptors}
    attackers = {f.side for f in (*escorts, *bombers)}
    if len(defenders) > 1 or len(attackers) > 1 or defenders & attackers:
        raise GameError("air-to-air: the interceptors are one side, escorts and bombers the other")
    return altitudes.pop() if altitudes else Altitude.LOW


def _present(flights: Sequence[Flight]) -> bool:
    return any(flight.factors > 0 for flight in flights)


def _rf_spent(fighters: Sequence[Flight], paid: frozenset[tuple[Side, int]]) -> frozenset[tuple[Side, int]]:
    """The fighters' AFs that spend 1 RF now: those with one to spend that have not paid this turn."""
    spent: set[tuple[Side, int]] = set()
    for flight in fighters:
        key = (flight.side, flight.af)
        if key in paid or not flight.factors:
            continue
        if flight.rf_left >= 1:
            spent.add(key)
        elif flight.dived:
            raise GameError(f"AF {flight.af}: diving CAP must spend an RF (seed 003, 16.12) and has none")
    return frozenset(spent)


def _units(
    flights: Sequence[Flight], paid: frozenset[tuple[Side, int]], *, bomber: bool
) -> tuple[_Unit, ...]:
    units: dict[tuple[Side, int, str, bool, bool], int] = {}
    for flight in flights:
        rf_ok = bomber or (flight.side, flight.af) in paid  # bombers spend no RF in air-to-air (A.10)
        for stack in flight.stacks:
            armed = stack.armament is not None and not stack.expended
            key = (flight.side, flight.af, stack.plane, armed, rf_ok)
            units[key] = units.get(key, 0) + stack.count
    return tuple(_Unit(*key, count) for key, count in sorted(units.items(), key=_unit_order) if count > 0)


def _unit_order(item: tuple[tuple[Side, int, str, bool, bool], int]) -> tuple[str, int, str, bool, bool]:
    (side, af, plane, armed, rf_ok), _ = item
    return side.value, af, plane, armed, rf_ok


def _total(units: Sequence[_Unit]) -> int:
    return sum(unit.count for unit in units)


def _groups(units: Sequence[_Unit]) -> list[tuple[_Key, int]]:
    """Factors per (plane, armed, rf_ok): one roll each; most factors first, then by name."""
    groups: dict[_Key, int] = {}
    for unit in units:
        groups[unit.key] = groups.get(unit.key, 0) + unit.count
    return sorted(groups.items(), key=lambda item: (-item[1], item[0]))


def _split(units: Sequence[_Unit], split: str) -> tuple[tuple[_Unit, ...], tuple[_Unit, ...]]:
    """(anti-escort, anti-bomber) groups (design default: each plane name split evenly)."""
    if split == "escorts":
        return tuple(units), ()
    if split == "bombers":
        return (), tuple(units)
    to_escorts: dict[_Key, int] = {}
    odd_to_escorts = True
    for key, count in _groups(units):
        to_escorts[key] = count // 2 + (count % 2 if odd_to_escorts else 0)
        odd_to_escorts ^= count % 2 == 1
    return _take(units, to_escorts)


def _take(units: Sequence[_Unit], wanted: Mapping[_Key, int]) -> tuple[tuple[_Unit, ...], tuple[_Unit, ...]]:
    """Split ``units``: ``wanted`` factors per key to the first part, from the first AFs listed."""
    first: list[_Unit] = []
    rest: list[_Unit] = []
    left = dict(wanted)
    for unit in units:
        take = min(unit.count, left.get(unit.key, 0))
        left[unit.key] = left.get(unit.key, 0) - take
        if take:
            first.append(replace(unit, count=take))
        if unit.count - take:
            rest.append(replace(unit, count=unit.count - take))
    return tuple(first), tuple(rest)


def _target_order(units: Sequence[_Unit], priority: Sequence[str] = ()) -> list[str]:
    """Enemy plane names to fire at: ``priority`` first (those present), then most factors, then name."""
    factors: dict[str, int] = {}
    for unit in units:
        factors[unit.plane] = factors.get(unit.plane, 0) + unit.count
    ranked = sorted(factors, key=lambda plane: (-factors[plane], plane))
    first = [plane for plane in dict.fromkeys(priority) if plane in factors]
    return first + [plane for plane in ranked if plane not in first]


@dataclass(frozen=True)
class _Volley:
    shots: tuple[Shot, ...]
    hits: Mapping[str, int]  # by target plane name


def _volley(
    ctx: _Context,
    stage: str,
    groups: Sequence[_Group],
    targets: Sequence[str],
    side: Side,
) -> _Volley:
    """Each group (key, factors, bht, bht text) fires whole at one target, in turn (design default)."""
    shots: list[Shot] = []
    hits: dict[str, int] = {}
    for i, ((plane, armed, rf_ok), factors, bht, bht_text) in enumerate(groups):
        target = targets[i % len(targets)]
        tags = ("+armed" if armed else "") + ("" if rf_ok else "+noRF")
        label = f"{ctx.label}/{stage}/{side.value}/{plane}{tags}>{target}"
        result = ctx.table.roll(bht, factors, ctx.dice, label, RULE)
        text = (
            f"{ctx.altitude.value.capitalize()}, {stage} stage: {factors} {plane} ({side.value}"
            f"{', armed' if armed else ''}{'' if rf_ok else ', no RF spent'}) fire at {target}; "
            f"{bht_text}; {result.text}"
        )
        shots.append(Shot(stage, side, plane, factors, bht, target, result.hits, text))
        hits[target] = hits.get(target, 0) + result.hits
    return _Volley(tuple(shots), hits)


def _with_bht(ctx: _Context, units: Sequence[_Unit]) -> list[_Group]:
    example = {unit.key: unit for unit in units}
    return [(key, count, *ctx.bht(example[key])) for key, count in _groups(units)]


def _apply(units: Sequence[_Unit], hits: Mapping[str, int]) -> tuple[tuple[_Unit, ...], tuple[Loss, ...]]:
    """Remove ``hits`` factors per plane name, one at a time from the unit with most left (then
    lowest AF); hits beyond the factors there are lost."""
    left = [unit.count for unit in units]
    for plane, count in hits.items():
        for _ in range(count):
            pool = [i for i, unit in enumerate(units) if unit.plane == plane and left[i] > 0]
            if not pool:
                break  # "excess hits are lost"
            i = min(pool, key=lambda j: (-left[j], units[j].af, j))
            left[i] -= 1
    survivors = tuple(replace(u, count=n) for u, n in zip(units, left, strict=True) if n > 0)
    losses = tuple(
        Loss(u.side, u.af, u.plane, u.count - n) for u, n in zip(units, left, strict=True) if n < u.count
    )
    return survivors, _merge(losses)


def _merge(losses: Sequence[Loss]) -> tuple[Loss, ...]:
    """One Loss per side, AF and plane name, in a fixed order."""
    totals: dict[tuple[Side, int, str], int] = {}
    for loss in losses:
        key = (loss.side, loss.af, loss.plane)
        totals[key] = totals.get(key, 0) + loss.count
    ordered = sorted(totals.items(), key=lambda item: (item[0][0].value, item[0][1], item[0][2]))
    return tuple(Loss(side, af, plane, count) for (side, af, plane), count in ordered if count)


# --- the two stages -------------------------------------------------------------------------


@dataclass(frozen=True)
class _EscortFight:
    stage: Stage | None
    anti_escort: tuple[_Unit, ...]  # the survivors
    escorts: tuple[_Unit, ...]  # the survivors


@dataclass(frozen=True)
class _BomberFight:
    stage: Stage | None
    attacked: bool
    joined: int
    cap: int | None


def _escort_stage(
    ctx: _Context, anti_escort: tuple[_Unit, ...], escorts: tuple[_Unit, ...], priority: Sequence[str]
) -> _EscortFight:
    """Stage 1: the anti-escort group and the escorts fire at each other, simultaneously."""
    if not anti_escort or not escorts:
        return _EscortFight(None, anti_escort, escorts)
    at_escorts = _volley(
        ctx, ESCORT_STAGE, _with_bht(ctx, anti_escort), _target_order(escorts), anti_escort[0].side
    )
    at_interceptors = _volley(
        ctx, ESCORT_STAGE, _with_bht(ctx, escorts), _target_order(anti_escort, priority), escorts[0].side
    )
    interceptors_left, interceptors_lost = _apply(anti_escort, at_interceptors.hits)
    escorts_left, escorts_lost = _apply(escorts, at_escorts.hits)
    stage = Stage(ESCORT_STAGE, at_escorts.shots + at_interceptors.shots, interceptors_lost + escorts_lost)
    return _EscortFight(stage, interceptors_left, escorts_left)


def _bomber_stage(
    ctx: _Context,
    first: _EscortFight,
    anti_bomber: tuple[_Unit, ...],
    bombers: tuple[_Unit, ...],
    priority: Sequence[str],
) -> _BomberFight:
    """Stage 2: the 2:1 checks, then the attack on the bombers and their (capped) return fire."""
    if not bombers:
        return _BomberFight(None, False, 0, None)
    escorts, survivors = _total(first.escorts), _total(first.anti_escort)
    joined = survivors if survivors and survivors >= JOIN_RATIO * escorts else 0
    notes = [_join_note(survivors, escorts, joined)] if survivors else []
    attackers = anti_bomber + (first.anti_escort if joined else ())
    strength = _total(attackers)
    if not strength:
        return _BomberFight(Stage(BOMBER_STAGE, (), (), tuple(notes)) if notes else None, False, joined, None)
    if escorts and escorts >= STOP_RATIO * strength:
        notes.append(
            f"{escorts} escorts are at 2:1 or better over {strength} interceptors: no attack on the bombers"
        )
        return _BomberFight(Stage(BOMBER_STAGE, (), (), tuple(notes)), False, joined, None)
    cap = BOMBER_FIRE_PER_INTERCEPTOR * strength
    firing = _capped(_with_bht(ctx, bombers), cap)
    if _total(bombers) > cap:
        notes.append(f"only {cap} of the {_total(bombers)} bomber factors may fire back (15 LI 7)")
    at_bombers = _volley(
        ctx, BOMBER_STAGE, _with_bht(ctx, attackers), _target_order(bombers), attackers[0].side
    )
    at_attackers = _volley(ctx, BOMBER_STAGE, firing, _target_order(attackers, priority), bombers[0].side)
    _, interceptors_lost = _apply(attackers, at_attackers.hits)
    _, bombers_lost = _apply(bombers, at_bombers.hits)
    losses = _merge(interceptors_lost + bombers_lost)
    return _BomberFight(
        Stage(BOMBER_STAGE, at_bombers.shots + at_attackers.shots, losses, tuple(notes)), True, joined, cap
    )


def _join_note(survivors: int, escorts: int, joined: int) -> str:
    ratio = f"{survivors} anti-escort interceptors against {escorts} escorts"
    return f"{ratio}: 2:1 or better, they join the attack" if joined else f"{ratio}: short of 2:1, they stay"


def _capped(groups: Sequence[_Group], cap: int) -> list[_Group]:
    """15 LI 7: at most ``cap`` factors fire; the best BHT first (design default)."""
    chosen: list[_Group] = []
    left = cap
    for key, count, bht, text in sorted(groups, key=lambda g: (-g[2], -g[1], g[0])):
        if min(count, left):
            chosen.append((key, min(count, left), bht, text))
            left -= min(count, left)
    return sorted(chosen, key=lambda g: (-g[1], g[0]))
