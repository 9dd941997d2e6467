# SPDX-License-Identifier: GPL-3.0-or-later
"""Planes lost to hits and the steps every attack on a ship or base takes (seed 003, 21.3-21.8).

Standard 21: planes go in the order Ready, Just Landed, Readying, Dispersed. 21.6.2: planes that
used a maximum launch the turn their base or CV/CVL is attacked are caught "in the "ready" box" on a
1d6 of 1-4 (:func:`caught_check`). Seed 003, 21.3 row 1: planes in Ready double bomb and gunnery
hits, Just Landed adds one (:func:`hits_with_planes`). 21.8: a critical hit check on a base roll of
3, 7 or 11 (:func:`roll_criticals`). The rules themselves are :mod:`.damage`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mailbot.core.dice import Dice
from mailbot.games.flattop.combat.damage import (
    DISPERSED,
    JUST_LANDED,
    LAUNCHING,
    READY,
    READYING,
    RULE_CAUGHT,
    RULE_CRITICAL,
    RULE_EFFECT,
    CriticalResult,
    DamageRules,
    HitKind,
    PlaneLoss,
)
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Armament,
)

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


def caught_check(
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


def hits_with_planes(
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


def roll_criticals(
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


def lost_per(before: int, after: int, per: int, rounding: str) -> int:
    """Losses of "one for every ``per``" between two running totals, fractions rounded as the seed says."""
    if rounding == "up":
        return -(-after // per) + (-before // per)
    return after // per - before // per
