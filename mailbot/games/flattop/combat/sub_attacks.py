# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarine attacks and what each side is told of them (seed 003, 27.8-27.10).

A sub's torpedo attack by day (27.9.1: factors "used individually or in any combination") and by
night (27.8: "submarines cannot combine their attack factors. During night attacks, targets will
be chosen at random."); gunnery and ASW attacks on a sub; 27.10's damage reports and oil slick
(on a roll of 1 or 2 the report is flipped; the owner always takes the option).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.bht import Bht
from mailbot.games.flattop.combat.crt import CombatTable, CrtResult
from mailbot.games.flattop.combat.damage import Attack, DamageRules, HitKind, ShipHit
from mailbot.games.flattop.combat.damage_ships import hit_ship
from mailbot.games.flattop.combat.sub_moves import AswState, SubState, asw_state, put
from mailbot.games.flattop.combat.sub_sequence import (
    asw_problem,
    attack_problem,
    engaged,
    gunnery_problem,
    sub_bht,
    torpedo_bht,
)
from mailbot.games.flattop.combat.submarines import (
    HIT_SOMETHING,
    NO_HITS,
    NO_SLICK,
    OIL_SLICK,
    RULE,
    RULE_NIGHT_TARGET,
    RULE_SLICK,
    SUB_SUNK,
    AttackReport,
    AttackSequence,
    Depth,
    SubmarineRules,
    Weapon,
)
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.units import Armament, Ship, ShipType, Side

# --- 27.8, 27.9.1: the sub's attack ----------------------------------------------------------


@dataclass(frozen=True)
class Aim:
    """By day: ``factors`` torpedo factors at ``target`` in one CRT roll (27.9.1 "any combination")."""

    target: str
    factors: int


@dataclass(frozen=True)
class Strike:
    """One CRT roll and what it did."""

    target: str
    factors: int
    bht: Bht
    crt: CrtResult
    hit: ShipHit | None  # None: no hits (or the target had already gone down)


@dataclass(frozen=True)
class TorpedoAttack:
    sub: SubState  # after the attack
    strikes: tuple[Strike, ...]
    ships: tuple[Ship, ...]  # ``hex_ships`` after the attack, same order

    @property
    def hits(self) -> tuple[ShipHit, ...]:
        return tuple(s.hit for s in self.strikes if s.hit is not None)


@dataclass(frozen=True)
class Combat:
    """What the tables a sub fight needs: the game's CRT and damage rules."""

    rules: SubmarineRules
    crt: CombatTable
    damage: DamageRules


@dataclass(frozen=True)
class Firing:
    """How an attack's rolls are made: in ``turn``, with the fight's tables, the dice and the label
    the rolls' labels start with."""

    turn: int
    combat: Combat
    dice: Dice
    label: str


@dataclass(frozen=True)
class Torpedoes:
    """The sub's side of a torpedo attack: ``side`` fires, ``hex_ships`` are the target side's ships
    in the hex (the 27.9.1 +2 looks at them all); ``result``: the attack sequence's result, when
    rolled (27.6)."""

    side: Side
    hex_ships: tuple[Ship, ...]
    result: AttackSequence | None = None


def fire_torpedoes(
    sub_ship: Ship, sub: SubState, aims: tuple[Aim, ...], torpedoes: Torpedoes, *, firing: Firing
) -> TorpedoAttack:
    """27.9.1 by day: one CRT roll per aim, at the side's torpedo BHT; hits are torpedo hits (21.3)."""
    total = sum(aim.factors for aim in aims)
    _check_attack(sub_ship, sub, total, torpedoes, firing)
    if any(aim.factors <= 0 for aim in aims):
        raise GameError(f"{sub.name}: every aim needs attack factors")
    plan = tuple(
        (f"{firing.label}/salvo {i + 1} at {aim.target}", aim.target, aim.factors)
        for i, aim in enumerate(aims)
    )
    return _salvos(sub, plan, torpedoes, firing)


def night_targets(factors: int, candidates: tuple[Ship, ...], dice: Dice, label: str) -> tuple[str, ...]:
    """27.8: "During night attacks, targets will be chosen at random": one die per torpedo factor
    over the candidates afloat, listed by name so the same dice always pick the same ship."""
    ships = sorted((s for s in candidates if not s.sunk), key=lambda s: s.name)
    if not ships:
        raise GameError("no target afloat for a night submarine attack")
    if len(ships) == 1:
        return (ships[0].name,) * factors  # one ship: nothing to choose, nothing rolled
    picks = (
        dice.roll(f"{label}/night target {i + 1}", len(ships), rule=RULE_NIGHT_TARGET) for i in range(factors)
    )
    return tuple(ships[roll.total - 1].name for roll in picks)


def fire_torpedoes_at_night(
    sub_ship: Ship,
    sub: SubState,
    factors: int,
    candidates: tuple[Ship, ...],
    torpedoes: Torpedoes,
    *,
    firing: Firing,
) -> TorpedoAttack:
    """27.8 at night: every factor at a random ship of ``candidates`` (the TF attacked); the factors
    are not combined (``[attack] combine_at_night``), each is its own CRT roll."""
    _check_attack(sub_ship, sub, factors, torpedoes, firing)
    label = firing.label
    targets = night_targets(factors, candidates, firing.dice, label)
    if firing.combat.rules.combine_at_night:
        counts = {name: targets.count(name) for name in dict.fromkeys(targets)}
        plan = tuple((f"{label}/salvo at {name}", name, n) for name, n in counts.items())
    else:
        plan = tuple((f"{label}/tube {i + 1} at {name}", name, 1) for i, name in enumerate(targets))
    return _salvos(sub, plan, torpedoes, firing)


def _check_attack(sub_ship: Ship, sub: SubState, factors: int, torpedoes: Torpedoes, firing: Firing) -> None:
    if sub_ship.name != sub.name or sub_ship.type is not ShipType.SS:
        raise GameError(f"{sub_ship.name} is not the submarine {sub.name}")
    if sub_ship.sunk:
        raise GameError(f"{sub.name} has sunk")
    problem = attack_problem(sub, factors, firing.turn, firing.combat.rules, result=torpedoes.result)
    if problem:
        raise GameError(f"{sub.name}: {problem}")


def _salvos(
    sub: SubState, plan: tuple[tuple[str, str, int], ...], torpedoes: Torpedoes, firing: Firing
) -> TorpedoAttack:
    """Each (label, target, factors) of ``plan`` in turn; damage takes effect at once (18.2.1)."""
    ships = {s.name: s for s in torpedoes.hex_ships}
    strikes: list[Strike] = []
    for roll_label, target, factors in plan:
        if target not in ships:
            raise GameError(f"{sub.name}: no ship {target!r} in the hex")
        bht = torpedo_bht(torpedoes.side, ships[target], ships.values(), firing.combat.rules)
        strike = _strike(ships[target], factors, bht, HitKind.TORPEDO, replace(firing, label=roll_label))
        strikes.append(strike)
        if strike.hit is not None:
            ships[target] = strike.hit.after
    fired, turn = sum(factors for _, _, factors in plan), firing.turn
    after = replace(sub, factors_fired=sub.factors_fired + fired, attacked_turn=turn, fought_turn=turn)
    return TorpedoAttack(after, tuple(strikes), tuple(ships[s.name] for s in torpedoes.hex_ships))


def _strike(target: Ship, factors: int, bht: Bht, kind: HitKind, firing: Firing) -> Strike:
    """One CRT roll at ``target`` labelled ``firing.label``, its hits through ``damage.hit_ship``; a
    ship already sunk is no target any more (rolled for nothing)."""
    combat = firing.combat
    if target.sunk:
        skipped = combat.crt.result(bht.value, 0, 0)
        return Strike(target.name, factors, bht, skipped, None)
    crt = combat.crt.roll(bht.value, factors, firing.dice, firing.label, rule=RULE)
    if crt.hits <= 0:
        return Strike(target.name, factors, bht, crt, None)
    armament = Armament.TORPEDO if kind is HitKind.TORPEDO else None
    attack = Attack(crt.hits, kind, armament, crt.critical_check, firing.label)
    hit = hit_ship(target, attack, rules=combat.damage, dice=firing.dice, turn=firing.turn)
    return Strike(target.name, factors, bht, crt, hit)


# --- 27.9, 27.9.2: the TF's attack on a sub ------------------------------------------------------


@dataclass(frozen=True)
class SubAttacked:
    strike: Strike
    sub_ship: Ship  # after
    sub: SubState  # after (in combat this turn)
    states: tuple[AswState, ...]  # the attackers' states after (ammunition or gunnery used)


def gunnery_attack(
    sub_ship: Ship,
    sub: SubState,
    attackers: tuple[Ship, ...],
    states: tuple[AswState, ...],
    *,
    depth: Depth,
    firing: Firing,
) -> SubAttacked:
    """27.9: the attackers' gunnery factors together in one CRT roll against the sub at ``depth``
    (:func:`resolution_depth`); each attacker has then used its gunnery factor this turn."""
    turn = firing.turn
    for ship in attackers:
        problem = gunnery_problem(ship, asw_state(states, ship.name), turn)
        if problem:
            raise GameError(problem)
    factors = sum(s.gunnery for s in attackers)
    bht = sub_bht(Weapon.GUNNERY, depth, firing.combat.rules)
    where = replace(firing, label=f"{firing.label}/gunnery at {sub.name}")
    strike = _strike(sub_ship, factors, bht, HitKind.GUNNERY, where)
    for ship in attackers:
        states = put(states, replace(asw_state(states, ship.name), gunnery_turn=turn))
    return _attacked(sub_ship, sub, strike, states, turn)


def asw_attack(
    sub_ship: Ship,
    sub: SubState,
    attackers: tuple[Ship, ...],
    states: tuple[AswState, ...],
    *,
    depth: Depth,
    firing: Firing,
) -> SubAttacked:
    """27.9: the attackers' ASW factors (design default: 1 a ship) in one CRT roll against the sub
    at ``depth``; each attacker spends one of its ASW attacks (27.9.2). Depth charges are resolved
    as bomb hits (no planes aboard a sub, so only their critical hit rules apply)."""
    rules = firing.combat.rules
    for ship in attackers:
        problem = asw_problem(ship, asw_state(states, ship.name), rules)
        if problem:
            raise GameError(problem)
    factors = len(attackers) * rules.asw_factor
    bht = sub_bht(Weapon.ASW, depth, rules)
    where = replace(firing, label=f"{firing.label}/ASW at {sub.name}")
    strike = _strike(sub_ship, factors, bht, HitKind.BOMB, where)
    for ship in attackers:
        state = asw_state(states, ship.name)
        states = put(states, replace(state, asw_attacks=state.asw_attacks + 1))
    return _attacked(sub_ship, sub, strike, states, firing.turn)


def _attacked(
    sub_ship: Ship, sub: SubState, strike: Strike, states: tuple[AswState, ...], turn: int
) -> SubAttacked:
    after = strike.hit.after if strike.hit is not None else sub_ship
    return SubAttacked(strike, after, engaged(sub, turn), states)


# --- 27.10: damage reports ------------------------------------------------------------------------


def attack_report(*, attacked_first: bool, ended_surfaced: bool) -> AttackReport:
    """27.10: "Subs that remain surfaced after their attacks, or subs that attack before the TF
    attacks and then dive, get normal "approximate" damage reports. Subs that are attacked before
    they execute their own attack, and finish their attack submerged, are only told that they have
    hit something - no further details." ``attacked_first``: the sub fired before the TF did."""
    if ended_surfaced or attacked_first:
        return AttackReport.APPROXIMATE
    return AttackReport.HIT_SOMETHING


def attack_report_lines(
    kind: AttackReport,
    hits: tuple[ShipHit, ...],
    *,
    night: bool,
    turn: int,
    policy: Deception,
    dice: Dice,
    label: str,
) -> tuple[str, ...]:
    """The words a sub's owner gets for its attack: LI 3's approximate report per ship hit (never
    names; combat/intel.py, night figures by the target owner's DECEPTION policy), or 27.10's "hit
    something". Two salvos at one ship make one line: her state after both, their hits together."""
    landed: dict[str, tuple[Ship, int]] = {}
    for hit in hits:
        if hit.taken > 0:
            taken = landed.get(hit.after.name, (hit.after, 0))[1]
            landed[hit.after.name] = (hit.after, taken + hit.taken)
    if not landed:
        return (NO_HITS,)
    if kind is AttackReport.HIT_SOMETHING:
        return (HIT_SOMETHING,)
    lines: list[str] = []
    for i, (ship, taken) in enumerate(landed.values()):
        if night:
            reported = intel.night_ship_hits(taken, policy, dice, f"{label}/night report {i + 1}")
            lines.append(f"{_article(ship.type.value)} {ship.type.value}: {intel.night_ship_words(reported)}")
        else:
            words = intel.ship_words(ship, turn=turn) or "no visible damage"
            lines.append(f"{_article(ship.type.value)} {ship.type.value}: {words}")
    return tuple(lines)


@dataclass(frozen=True)
class SubReport:
    """What the TF's side is told of the sub it attacked (27.10)."""

    text: str
    slick: bool | None  # None: a surfaced sub, no slick question
    roll: Roll | None  # the oil slick roll, when made


def report_for_sub(
    sub_ship: Ship,
    *,
    surfaced: bool,
    dived_deep_after_attack: bool,
    night: bool,
    turn: int,
    rules: SubmarineRules,
    dice: Dice,
    label: str,
) -> SubReport:
    """27.10 for a sub the TF attacked. ``sub_ship``: after the attacks; ``surfaced``: on the surface
    when sunk, or at the end if it survived.

    "Surfaced subs that are sunk report this accurately; those that are submerged and then sunk
    report an oil slick appearing on the surface. Subs that dive deep after their attack roll 1d6; on
    a 1 or 2 they may report a slick even if they survived the attack, or not report one even if
    they have been sunk. Subtract one from roll at night."
    """
    sunk = sub_ship.destroyed
    if surfaced:
        if sunk:
            return SubReport(SUB_SUNK, None, None)
        words = intel.ship_words(sub_ship, turn=turn)
        return SubReport(
            f"the submarine is {words}" if words else "no damage seen on the submarine", None, None
        )
    slick, roll = sunk, None
    if dived_deep_after_attack:
        mods = {"night": rules.report_night} if night else {}
        roll = dice.dice(f"{label}/oil slick", rules.report_die, rule=RULE_SLICK, modifiers=mods)
        if roll.total <= rules.flip_max:
            slick = not slick
    return SubReport(OIL_SLICK if slick else NO_SLICK, slick, roll)


def _article(word: str) -> str:
    """ "an AO", "an AP", "a DD": type letters are read out as letters."""
    return "an" if word[:1] in "AEFHILMNORSX" else "a"
