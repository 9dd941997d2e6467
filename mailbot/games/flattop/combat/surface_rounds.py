# SPDX-License-Identifier: GPL-3.0-or-later
"""The rounds of a surface battle and the report of what survived (seed 003, 19; reference A.11.7).

Gunnery fire is simultaneous; torpedoes only at a BHT of 10+ by day or 7+ at night (else spent with
no effect), at a fixed BHT (Japanese 15, Allied 10); a side with 3:1 in surviving gunnery fires a
breakthrough round. 19: "After combat, each side may report its total surviving gunnery factor at
+/- 10%, rounding fractions up. If it appears that the ratio could possibly be 3-1, then exact
factors must be reported to determine if a breakthrough occurs." Every roll comes from the ``Dice``
handed in, under a label built from the battle's label, the stage, the firing side and the target.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.crt import CombatTable, CrtResult
from mailbot.games.flattop.combat.damage import Attack, DamageRules, HitKind, ShipHit
from mailbot.games.flattop.combat.damage_ships import hit_ship
from mailbot.games.flattop.combat.surface import (
    DEFAULT_RULES,
    NO_FIRINGS,
    RULE_19,
    RULE_STANDARD,
    Combatant,
    FireBht,
    Firings,
    Position,
    Stage,
    SurfaceRules,
    check_positions,
    frozen_map,
    survived,
    torpedoes_allowed,
)
from mailbot.games.flattop.combat.surface_battle import (
    Engagement,
    Fire,
    Round,
    RoundResult,
    check_allocation,
    firers,
)
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.tabledata import rounded
from mailbot.games.flattop.units import Armament, Ship, Side


@dataclass(frozen=True)
class _Shot:
    """The fire one side aims at one target: factors added up, one CRT roll."""

    side: Side
    target: Ship
    factors: int
    bht: FireBht


def gun_factors(
    ship: Ship,
    *,
    declared: int,
    gunnery: int,
    bht: int,
    counted: bool,
    rules: SurfaceRules = DEFAULT_RULES,
) -> tuple[int, int, str]:
    """(factors fired, ammunition spent, note) for ``declared`` of her ``gunnery`` factors at ``bht``
    (A.11.7): the round costs BHT Ammunition Factors; with fewer left her Gunnery is halved (rounded
    up) for the round and she is emptied. DDs and APDs (``counted``) keep no ammunition record (19.8)."""
    cost = max(0, bht)
    if counted or ship.ammo >= cost:
        return declared, 0 if counted else cost, ""
    halved = rounded(gunnery * rules.short_share, rules.short_rounding)
    fired = min(declared, halved)
    note = (
        f"{ship.name} has {ship.ammo} Ammunition Factors for BHT {bht}: gunnery {gunnery} halved to "
        f"{halved}, fires {fired}, ammunition -> 0 ({RULE_STANDARD})"
    )
    return fired, ship.ammo, note


def _check_side(battle: Engagement, side: Side, fires: Sequence[Fire], **more: Any) -> None:
    at = Round(battle.turn, **more)
    problems = check_allocation(fires, battle.side(side), battle.enemy(side), at)
    if problems:
        raise GameError(f"{side.value} surface fire: " + "; ".join(problems))


def _check_positions(battle: Engagement) -> None:
    for c in (battle.first, battle.second):
        problems = check_positions(c, turn=battle.turn)
        if problems:
            raise GameError(f"{c.side.value} positions: " + "; ".join(problems))


@dataclass(frozen=True)
class _Aimed:
    """One ship's gunnery fire, priced: the shot, the ship after her ammunition, what she spent."""

    shot: _Shot
    ship: Ship
    ammo: int
    note: str


def _aim(
    battle: Engagement, side: Side, fire: Fire, ship: Ship, *, stage: Stage, rules: SurfaceRules
) -> _Aimed:
    target = battle.enemy(side).by_number(fire.target)
    if target is None:  # check_allocation refuses this first
        raise GameError(f"{fire.target}: no such enemy ship")
    bht = battle.fire_bht(side, target, stage=stage, rules=rules)
    gunnery = battle.side(side).gunnery(ship)
    counted = ship.type in rules.counted_types
    fired, ammo, note = gun_factors(
        ship, declared=fire.factors, gunnery=gunnery, bht=bht.base, counted=counted, rules=rules
    )
    return _Aimed(_Shot(side, target, fired, bht), replace(ship, ammo=ship.ammo - ammo), ammo, note)


def gunnery_round(
    battle: Engagement,
    fires: Mapping[Side, Sequence[Fire]],
    *,
    table: CombatTable,
    damage: DamageRules,
    dice: Dice,
    firings: Firings = NO_FIRINGS,
    breaker: Side | None = None,
    rules: SurfaceRules = DEFAULT_RULES,
) -> RoundResult:
    """A gunnery round, or the breakthrough round when ``breaker`` is given: both sides fire at once,
    each target taking one CRT roll for the factors aimed at her, then the hits land (``damage.hit_ship``,
    HitKind.GUNNERY). Positions (first round) and fire that check_positions / check_allocation refuse
    are a GameError: check orders first."""
    stage = Stage.BREAKTHROUGH if breaker is not None else Stage.GUNNERY
    if stage is Stage.GUNNERY:
        _check_positions(battle)
    ships = {s.name: s for c in (battle.first, battle.second) for s in c.ships}
    aimed: list[_Aimed] = []
    for c in (battle.first, battle.second):
        mine = tuple(fires.get(c.side, ()))
        more = {"stage": stage, "breaker": breaker, "firings": firings, "occasion": battle.label}
        _check_side(battle, c.side, mine, rules=rules, **more)
        aimed += [_aim(battle, c.side, f, ships[f.ship], stage=stage, rules=rules) for f in mine]
    ships |= {a.ship.name: a.ship for a in aimed}
    shots = _merged([a.shot for a in aimed])
    result = _resolve(battle, shots, ships, HitKind.GUNNERY, stage, table=table, damage=damage, dice=dice)
    counted = [a.ship.name for a in aimed if a.ship.type in rules.counted_types]
    return replace(
        result,
        rolls=(*(a.note for a in aimed if a.note), *result.rolls),
        ammo_used=frozen_map({a.ship.name: a.ammo for a in aimed}),
        firings=firings.record(counted, battle.label),
    )


def _merged(shots: Sequence[_Shot]) -> list[_Shot]:
    """One shot per (side, target): 19's "19 factors fire at BB #2" is one attack."""
    merged: dict[tuple[Side, str], _Shot] = {}
    for shot in shots:
        key = (shot.side, shot.target.name)
        if key in merged:
            merged[key] = replace(merged[key], factors=merged[key].factors + shot.factors)
        else:
            merged[key] = shot
    return [merged[key] for key in sorted(merged)]


def _resolve(
    battle: Engagement,
    shots: Sequence[_Shot],
    ships: dict[str, Ship],
    kind: HitKind,
    stage: Stage,
    *,
    table: CombatTable,
    damage: DamageRules,
    dice: Dice,
) -> RoundResult:
    """Roll every shot against the ships as they were (simultaneous fire), then land the hits."""
    lines: list[str] = []
    landed: list[_Landed] = []
    for shot in shots:
        label = f"{battle.label}/{stage.value}/{shot.side.value}/{shot.target.name}"
        crt = table.roll(shot.bht.value, shot.factors, dice, label, f"{RULE_19} surface {stage.value}")
        number = battle.enemy(shot.side).number(shot.target.name)
        lines.append(f"{shot.side.value} at {number} ({shot.target.name}): {shot.bht.text}; {crt.text}")
        landed.append(_Landed(shot.target.name, crt, label))
    ship_hits = [_land(one, ships, kind, damage=damage, dice=dice, turn=battle.turn) for one in landed]
    done = tuple(hit for hit in ship_hits if hit is not None)
    order = [s.name for c in (battle.first, battle.second) for s in c.ships]
    return RoundResult(
        hits=frozen_map({one.target: one.crt.hits for one in landed}),
        rolls=tuple(lines) + tuple(fact for hit in done for fact in hit.facts),
        ships=tuple(ships[n] for n in order),
        ammo_used=frozen_map({}),
        ship_hits=done,
    )


@dataclass(frozen=True)
class _Landed:
    target: str
    crt: CrtResult
    label: str


def _land(
    one: _Landed, ships: dict[str, Ship], kind: HitKind, *, damage: DamageRules, dice: Dice, turn: int
) -> ShipHit | None:
    """One roll's hits on her (``damage.hit_ship``); ``ships`` takes the ship after them."""
    if one.crt.hits <= 0:
        return None
    armament = Armament.TORPEDO if kind is HitKind.TORPEDO else None
    attack = Attack(one.crt.hits, kind, armament, one.crt.critical_check, one.label)
    hit = hit_ship(ships[one.target], attack, rules=damage, dice=dice, turn=turn)
    ships[one.target] = hit.after
    return hit


def torpedo_round(
    battle: Engagement,
    fires: Mapping[Side, Sequence[Fire]],
    *,
    table: CombatTable,
    damage: DamageRules,
    dice: Dice,
    rules: SurfaceRules = DEFAULT_RULES,
) -> RoundResult:
    """The torpedo round (A.11.7): ships that survived gunnery, in the torpedo position, not crippled,
    anchored or towing (19.11), at the side's fixed torpedo BHT; only at a round BHT of 10+ by day or 7+
    at night, else every such ship's torpedoes are spent with no effect; against unescorted ships
    always (19.11). Call it with the battle as the gunnery round left it (``Engagement.after``)."""
    ok = torpedoes_allowed(battle.bht(rules), night=battle.night, rules=rules)
    ships = {s.name: s for c in (battle.first, battle.second) for s in c.ships}
    shots: list[_Shot] = []
    notes: list[str] = []
    for c in (battle.first, battle.second):
        mine = tuple(fires.get(c.side, ()))
        _check_side(battle, c.side, mine, stage=Stage.TORPEDO, torpedoes_ok=ok, rules=rules)
        spent, note = _spent(battle, c, mine, ok=ok, rules=rules)
        notes += [note] if note else []
        ships |= {name: replace(ships[name], torpedoes_fired=True) for name in spent}
        shots += [_torpedo_shot(battle, c.side, fire, rules) for fire in mine]
    result = _resolve(
        battle, _merged(shots), ships, HitKind.TORPEDO, Stage.TORPEDO, table=table, damage=damage, dice=dice
    )
    return replace(result, rolls=(*notes, *result.rolls))


def _spent(
    battle: Engagement, c: Combatant, fires: Sequence[Fire], *, ok: bool, rules: SurfaceRules
) -> tuple[tuple[str, ...], str]:
    """The ships whose torpedoes are gone: those that fire; when the BHT allows none (and the enemy is
    not helpless, 19.11), every ship of the torpedo line, "spent with no effect" (A.11.7)."""
    if ok or battle.unescorted(battle.enemy(c.side).side):
        return tuple(f.ship for f in fires), ""
    launchers = firers(c, battle.enemy(c.side), turn=battle.turn, stage=Stage.TORPEDO)
    if not launchers:
        return (), ""
    when = "night" if battle.night else "day"
    note = (
        f"{c.side.value}: BHT {battle.bht(rules)} allows no torpedoes by {when}: {len(launchers)} ship(s) "
        f"spend them with no effect ({RULE_STANDARD})"
    )
    return tuple(s.name for s in launchers), note


def _torpedo_shot(battle: Engagement, side: Side, fire: Fire, rules: SurfaceRules) -> _Shot:
    target = battle.enemy(side).by_number(fire.target)
    if target is None:  # check_allocation refuses this first
        raise GameError(f"{fire.target}: no such enemy ship")
    return _Shot(side, target, fire.factors, battle.fire_bht(side, target, stage=Stage.TORPEDO, rules=rules))


def surviving_gunnery(c: Combatant) -> int:
    """A.11.7: the gunnery of the ships afloat in the Gunnery and Torpedo positions."""
    line = (Position.GUNNERY, Position.TORPEDO)
    return sum(c.gunnery(s) for s in c.afloat if survived(s) and c.position(s.name) in line)


def breakthrough_possible(a: Combatant, b: Combatant, *, rules: SurfaceRules = DEFAULT_RULES) -> Side | None:
    """The side whose surviving gunnery is at least 3 times the other's (A.11.7; seed 003, 19 "3-1")."""
    mine, theirs = surviving_gunnery(a), surviving_gunnery(b)
    if mine > 0 and mine >= rules.breakthrough_ratio * theirs:
        return a.side
    if theirs > 0 and theirs >= rules.breakthrough_ratio * mine:
        return b.side
    return None


# --- reports: 19's +/-10% ------------------------------------------------------------------------------


def gunnery_bounds(true_total: int, *, rules: SurfaceRules = DEFAULT_RULES) -> tuple[int, int]:
    """19: "+/- 10%, rounding fractions up": the figures a side may report for ``true_total``."""
    spread = rounded(true_total * rules.report_spread, rules.report_rounding)
    return max(0, true_total - spread), true_total + spread


def reported_gunnery(
    true_total: int,
    policy: Deception,
    dice: Dice,
    label: str,
    *,
    exact: bool,
    rules: SurfaceRules = DEFAULT_RULES,
) -> int:
    """The surviving gunnery a side reports (19): exact when 3-1 could be possible, else within +/-10%
    under its DECEPTION policy (truthful: exact; maximal: the highest; random: uniform, one roll)."""
    if true_total < 0:
        raise GameError(f"surviving gunnery {true_total}")
    low, high = gunnery_bounds(true_total, rules=rules)
    if exact or policy is Deception.TRUTHFUL or low == high:
        return true_total
    if policy is Deception.MAXIMAL:
        return high
    roll = dice.roll(label, high - low + 1, rule=f"{RULE_19} surviving gunnery +/-10%")
    return low + roll.total - 1


def possible_totals(reported: int, *, rules: SurfaceRules = DEFAULT_RULES) -> tuple[int, int]:
    """The least and greatest true totals a +/-10% report of ``reported`` may stand for."""
    # A true total T is reported within T +/- ceil(T/10): T <= 2 x reported + 2 covers them all.
    fits = [t for t in range(2 * max(reported, 0) + 3) if _within(reported, t, rules)]
    return min(fits), max(fits)


def _within(reported: int, true_total: int, rules: SurfaceRules) -> bool:
    low, high = gunnery_bounds(true_total, rules=rules)
    return low <= reported <= high


def could_be_breakthrough(reported_a: int, reported_b: int, *, rules: SurfaceRules = DEFAULT_RULES) -> bool:
    """19: "If it appears that the ratio could possibly be 3-1, then exact factors must be reported"."""
    low_a, high_a = possible_totals(reported_a, rules=rules)
    low_b, high_b = possible_totals(reported_b, rules=rules)
    ratio = rules.breakthrough_ratio
    return (high_a > 0 and high_a >= ratio * low_b) or (high_b > 0 and high_b >= ratio * low_a)
