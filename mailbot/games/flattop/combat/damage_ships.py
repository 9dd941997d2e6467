# SPDX-License-Identifier: GPL-3.0-or-later
"""Damage to a ship (standard 21; seed 003, 21.3, 21.8, 21.8.2) and what happens at the end of combat.

Call :func:`hit_ship` once per AF attack on a ship with the attack's total hits (21.3 doubles "the
# of hits" of the attack); the new ship takes effect at once (18.2.1). Fires wait for
:func:`end_of_combat_phase` (21.8.2: damage from Fire "is not assessed until the end of the Combat
Phase"); delayed sinking is :mod:`.sinking`. The rules and readings are :mod:`.damage`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.combat import sinking
from mailbot.games.flattop.combat.damage import (
    CAUGHT_TYPES,
    RULE_21_3,
    RULE_FIRE,
    RULE_SHIPS,
    Attack,
    CriticalResult,
    DamageRules,
    HitKind,
    PlaneLoss,
    ShipHit,
)
from mailbot.games.flattop.combat.damage_planes import (
    allocate_losses,
    caught_check,
    hits_with_planes,
    lost_per,
    planes_aboard,
    roll_criticals,
)
from mailbot.games.flattop.combat.sinking import hours_pass, needs_roll, sinking_hours
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Ship,
    TaskForce,
)

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
        aa = lost_per(t, t + hits, rules.hits.torpedo_aa_per_hits, rules.hits.torpedo_aa_rounding)
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


def hit_ship(ship: Ship, attack: Attack, *, rules: DamageRules, dice: Dice, turn: int) -> ShipHit:
    """One attack's hits on a ship: 21.3, critical hits, plane losses, sinking."""
    hits, kind, label = attack.hits, attack.kind, attack.label
    if ship.sunk:
        raise GameError(f"{ship.name} has sunk and cannot be hit")
    if hits < 0:
        raise GameError(f"{ship.name}: {hits} hits")
    caught, facts = caught_check(
        attack.launching, eligible=ship.type in CAUGHT_TYPES, rolled=hits, rules=rules, dice=dice, label=label
    )
    facts.insert(0, f"{ship.name}: {hits} hit(s) rolled ({kind})")
    taken, said = hits_with_planes(hits, kind, ship.boxes, caught, rules)
    criticals, said_crit = roll_criticals(
        int(attack.critical_check), hits, attack.armament, ship=True, rules=rules, dice=dice, label=label
    )
    extra = sum(c.extra_hits for c in criticals)
    after, planes, sentence = _ship_damage(
        ship,
        taken + extra,
        kind,
        rules,
        caught=caught,
        ranking=attack.ranking,
        readying_ranking=attack.readying_ranking,
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
