# SPDX-License-Identifier: GPL-3.0-or-later
"""An air strike's records, and the damage one bombing roll does and what each side is told of it.

:class:`Raid` is one side's strike on one hex while it is fought; :class:`Blow` one plane name's
bombing roll. Its hits are applied at once (21.8.2) by ``combat.damage_ships`` and
``combat.damage_bases``; planes lost aboard are the defender's choice or the attacker's (reference
A.12); the reports follow 15 LI 3, 5 and 6: the defender, who "rolls the entire combat", gets every
number; the attacker the damage he did in LI 3's words (night: hits +/-50%, bases "installations
burning", no aircraft losses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.battle import LossChoice, ShipLabel, Target
from mailbot.games.flattop.combat.damage import Attack, BaseHit, HitKind, PlaneLoss, ShipHit
from mailbot.games.flattop.combat.damage_bases import hit_base
from mailbot.games.flattop.combat.damage_ships import hit_ship, launch_note
from mailbot.games.flattop.combat.kit import Kit, describe_counts, remove_factors
from mailbot.games.flattop.hour.aftermath import AIR_STRIKE, put_hits, score_planes
from mailbot.games.flattop.hour.turn import Turn, put
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Armament,
    LaunchType,
    Ship,
    Side,
)

BASE = "BASE"


@dataclass(frozen=True)
class Allocation:
    af: int
    target: str  # ship label or BASE
    plane: str
    count: int
    kind: str | None = None


@dataclass
class Report:
    """The lines each side is told about one strike, and the loss choices it leaves."""

    attacker: list[str] = field(default_factory=list)
    defender: list[str] = field(default_factory=list)
    choices: list[LossChoice] = field(default_factory=list)
    air_lost: dict[tuple[Side, str], int] = field(default_factory=dict)


@dataclass
class Raid:
    """One side's strike on one hex while it is fought: the turn, the tables, the target, the report."""

    turn: Turn
    kit: Kit
    target: Target
    report: Report


@dataclass(frozen=True)
class Blow:
    """One plane name's bombing roll as the damage module needs it."""

    hits: int
    kind: HitKind
    armament: Armament
    critical: int  # 21.8 checks due: CRT rolls of this attack eligible for the critical 1d6
    attacker_picks: bool  # reference A.12: the attacker picks the planes lost (day dive, day low level)
    label: str


def _ranking(turn: Turn, side: Side, attacker_picks: bool) -> tuple[str, ...]:
    """Who picks the plane names (reference A.12): the attacker's standing RANK or fighters first;
    the defender keeps his fighters (bombers first)."""
    planes = turn.state.rules.planes
    fighters_first = tuple(sorted(planes, key=lambda p: (-planes[p].air_to_air, p)))
    if attacker_picks:
        return turn.state.side(side).ranking or fighters_first
    return tuple(reversed(fighters_first))


def _launching(turn: Turn, owner: Side, place: str) -> tuple[AirFactors, ...]:
    """21.6.2: factors that used a maximum launch from ``place`` this turn."""
    return tuple(
        s
        for af in turn.state.own_air(owner)
        if af.origin == place and af.takeoff_turn == turn.state.turn and af.launch is LaunchType.MAXIMUM
        for s in af.stacks
    )


def strike_ship(raid: Raid, found: tuple[ShipLabel, Ship], a: Allocation, blow: Blow) -> None:
    """One bombing roll's hits on a ship, at once (21.8.2), its planes aboard lost, each side told."""
    turn, kit, target = raid.turn, raid.kit, raid.target
    st = turn.state
    shiplabel, ship = found
    owner = target.side.opponent
    tf = next(t for t in st.task_forces if t.number == shiplabel.tf and t.side is owner)
    launching = _launching(turn, owner, f"TF{tf.number}") if ship.capacity else ()
    ranking = _ranking(turn, target.side, blow.attacker_picks)
    attack = Attack(blow.hits, blow.kind, blow.armament, blow.critical, blow.label, ranking, launching)
    result = hit_ship(ship, attack, rules=kit.damage, dice=turn.dice, turn=st.turn)
    _launch_losses(turn, owner, f"TF{tf.number}", result.planes)
    for fact in result.facts:
        turn.referee("damage", fact)
    ranked = _report_ship(raid, shiplabel, a, result, blow.attacker_picks)
    put_hits(turn, owner, [result], AIR_STRIKE, unscored=ranked)


def _launch_losses(turn: Turn, owner: Side, place: str, losses: Sequence[PlaneLoss]) -> None:
    """21.6.2: factors caught taking off are lost from their AF."""
    for loss in losses:
        if loss.box != "launching":
            continue
        plane, count = loss.plane, loss.count
        for af in turn.state.own_air(owner):
            if af.origin == place and af.takeoff_turn == turn.state.turn and count:
                have = sum(s.count for s in af.stacks if s.plane == plane)
                n = min(have, count)
                if n:
                    put(turn, af, remove_factors(af, plane, n, armed=None))
                    count -= n


def _report_ship(
    raid: Raid, shiplabel: ShipLabel, a: Allocation, result: ShipHit, attacker_picks: bool
) -> tuple[PlaneLoss, ...]:
    """Tell both sides; the losses whose types the attacker will rank (scored once he has)."""
    turn, target, report = raid.turn, raid.target, raid.report
    st = turn.state
    night = turn.sky().night
    owner = target.side.opponent
    policy = st.side(owner).deception
    after = result.after
    if night:
        seen = intel.night_ship_hits(
            result.taken, policy, turn.dice, f"ft.report.t{st.turn}.{shiplabel.label}"
        )
        words = f"about {seen} hit(s) seen (night)"
    else:
        words = attack_seen(after, result.taken, st.turn)
    report.attacker.append(f"  AF{a.af}: {a.count} {a.plane} attacked {shiplabel.label}: {words}")
    crit = f", critical: {', '.join(result.criticals)}" if result.criticals else ""
    state = " and is sinking" if after.destroyed and not after.sunk else (" and sank" if after.sunk else "")
    report.defender.append(
        f"  {after.type.value} {after.name} took {result.taken} hit(s){crit}{state} "
        f"({after.hits}/{after.damage}){launch_note(result.before, after)}"
    )
    where = (shiplabel.label, after.name, owner)
    return _losses_aboard(
        raid, where, result.planes, after.boxes, attacker_picks=attacker_picks, how="aboard"
    )


def attack_seen(after: Ship, taken: int, turn: int) -> str:
    """What this attack did as the attacker sees it by day (15 LI 3): its result, not the ship's
    state alone (an attack that scored nothing on a ship smoking already says so)."""
    words = intel.ship_words(after, turn=turn)
    if not taken:
        return "no hits seen" + (f"; she was {words} already" if words else "")
    if words.startswith("seen"):
        return f"she is {words}"  # LI 4: a ship that sinks at once is "seen to sink"
    return f"hits seen: she is {words}" if words else "hits seen"


def _losses_aboard(
    raid: Raid,
    where: tuple[str, str, Side],
    planes: Sequence[PlaneLoss],
    boxes: AirBoxes,
    *,
    attacker_picks: bool,
    how: str,
) -> tuple[PlaneLoss, ...]:
    """Tell the defender his factors lost at a place; when the attacker must rank their types
    (15 LI 3, reference A.12) the defender learns only the count until he has: the losses left
    for the ranking are returned, and scored by :func:`phase.apply_rankings`."""
    turn, target, report = raid.turn, raid.target, raid.report
    own = [p for p in planes if p.box != "launching"]  # the launching AF's losses are told with it
    visible = [p for p in own if not p.hidden]  # 21.7.1: the Readying box is the defender's secret
    if not own:
        return ()
    ranked = [p for p in visible if not p.sank]
    choosing = bool(ranked) and not turn.sky().night and attacker_picks
    choosing = choosing and not turn.state.side(target.side).ranking
    kept = [p for p in own if p not in ranked] if choosing else own
    told = [describe_counts({p.plane: p.count for p in kept})] if kept else []
    if choosing:
        n = sum(p.count for p in ranked)
        told.append(f"{n} factor{'s' if n > 1 else ''}, types as the attacker ranks them (15 LI 3)")
    report.defender.append(f"    aircraft lost {how}: {'; '.join(told)}")
    if visible and not turn.sky().night:
        report.attacker.append(f"    {intel.GROUND_LOSSES}")
    if not choosing:
        return ()
    report.choices.append(_choice(target, where, ranked, boxes))
    return tuple(ranked)


def _choice(
    target: Target, where: tuple[str, str, Side], visible: Sequence[PlaneLoss], boxes: AirBoxes
) -> LossChoice:
    """15 LI 3: "the defender need only tell the attacker what type of aircraft are present";
    ``where``: the place's label for the attacker, its name, its owner."""
    label, place, owner = where
    present = set(intel.types_present(boxes)) | {p.plane for p in visible}
    taken = tuple((p.box, p.plane, p.count) for p in visible)
    return LossChoice(target.side, label, place, owner, tuple(sorted(present)), taken)


def strike_base(raid: Raid, a: Allocation, blow: Blow) -> None:
    """One bombing roll's hits on the base, at once (21.8.2), its planes lost, each side told."""
    turn, kit, target, report = raid.turn, raid.kit, raid.target, raid.report
    attacker_picks, label = blow.attacker_picks, blow.label
    st = turn.state
    base = next(b for b in st.bases if b.name == target.base)
    owner = base.side
    ranking, launching = _ranking(turn, target.side, attacker_picks), _launching(turn, owner, base.name)
    attack = Attack(blow.hits, blow.kind, blow.armament, blow.critical, label, ranking, launching)
    result: BaseHit = hit_base(base, attack, rules=kit.damage, dice=turn.dice, turn=st.turn)
    turn.state = replace(st, bases=tuple(result.after if b is base else b for b in st.bases))
    _launch_losses(turn, owner, base.name, result.planes)
    for fact in result.facts:
        turn.referee("damage", fact)
    night = turn.sky().night
    words = intel.base_words(
        result.taken, night=night, policy=st.side(owner).deception, dice=turn.dice, label=f"{label}.report"
    )
    report.attacker.append(f"  AF{a.af}: {a.count} {a.plane} on the base {base.name}: {words}")
    report.defender.append(
        f"  {base.name} took {result.taken} hit(s) (launch factor now {result.after.launch})"
    )
    ranked = _losses_aboard(
        raid,
        (BASE, base.name, owner),
        result.planes,
        result.after.boxes,
        attacker_picks=attacker_picks,
        how="on the ground",
    )
    score_planes(turn, owner, [p for p in result.planes if p not in ranked], AIR_STRIKE, where=base.name)
