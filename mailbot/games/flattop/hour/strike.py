# SPDX-License-Identifier: GPL-3.0-or-later
"""One side's air strike on one hex: targets, air combat, AA, bombing, damage (seed 003, 15-21).

The order is the seed's: the attacker's choices (:func:`plan`, from his TARGET/FIRST/NOATTACK
lines, else his PRIORITY, else :data:`battle.DEFAULT_PRIORITY`), air-to-air (``air_phase``),
then AF by AF in the declared order (18.2.1: "all damage results are applied to the target(s)
before the second AF attacks"): AA of each attacked TF (LI 2's half AA when only CL-or-smaller
ships are attacked), then each plane name's bombing roll on the combat table, its hits applied
at once (21.8.2) by ``combat.damage_ships`` and ``combat.damage_bases``. Fires wait for the end
of the phase (``combat_phase``). Here: the plan and the air-to-air combat; the attack AF by AF is
:mod:`.strike_attack`, the damage it does and the lines it tells :mod:`.strike_damage`.

Reports (15 LI 3, 5, 6): the defender, who "rolls the entire combat", gets every number of
his own and the attacker's losses; the attacker gets his own losses exactly, the defender's
fighter losses within +/-50% under the defender's DECEPTION policy, and the damage he did in
LI 3's words (night: hits +/-50%, bases "installations burning", no aircraft losses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.air_to_air import Flight
from mailbot.games.flattop.combat.battle import DEFAULT_PRIORITY, Strike, Target
from mailbot.games.flattop.combat.kit import Kit, by_plane, describe_counts
from mailbot.games.flattop.hour.air_phase import (
    Sky,
    air_battle,
    apply_air_losses,
    cap_flights,
    dive,
    is_interceptor,
    land_scrambled,
    scramble,
)
from mailbot.games.flattop.hour.strike_attack import run_attack
from mailbot.games.flattop.hour.strike_damage import BASE, Allocation, Raid, Report
from mailbot.games.flattop.hour.sweep import told_losses
from mailbot.games.flattop.hour.turn import Turn, own_af
from mailbot.games.flattop.orders.combat import CombatOrder
from mailbot.games.flattop.orders.types import First, NoAttack, Priority, TargetOrder


def order_of(strikes: Sequence[Strike], orders: Sequence[CombatOrder]) -> list[Strike]:
    """18.2.1: "The attacker must declare which AF attacks first"; unnamed AFs follow by number."""
    first = next((o.afs for o in orders if isinstance(o, First)), ())
    rank = {af: i for i, af in enumerate(first)}
    return sorted(strikes, key=lambda s: (rank.get(s.af, len(rank)), s.af))


def plan(
    turn: Turn, target: Target, strikes: Sequence[Strike], orders: Sequence[CombatOrder]
) -> list[Allocation]:
    """Every armed factor of every striking AF placed on a target, or kept (NOATTACK)."""
    skip = {o.af for o in orders if isinstance(o, NoAttack)}
    priority = next((o.types for o in orders if isinstance(o, Priority)), ())
    priority = priority or turn.state.side(target.side).priority or DEFAULT_PRIORITY
    out: list[Allocation] = []
    for strike in strikes:
        formation = own_af(turn, strike.side, strike.af)
        if formation is None or strike.af in skip:
            continue
        armed = by_plane(s for s in formation.stacks if s.armament is not None)
        for order in (o for o in orders if isinstance(o, TargetOrder) and o.af == strike.af):
            for plane in [order.plane] if order.plane else list(armed):
                n = min(order.count or armed.get(plane, 0), armed.get(plane, 0))
                if n:
                    out.append(Allocation(strike.af, order.target, plane, n, order.kind))
                    armed[plane] -= n
        default = _default_target(target, priority)
        out += [Allocation(strike.af, default, p, n) for p, n in armed.items() if n and default]
    return out


def _default_target(target: Target, priority: Sequence[str]) -> str:
    for kind in priority:
        found = next(
            (s.label for s in target.ships if s.label.split("-")[1].rstrip("0123456789") == kind), None
        )
        if found:
            return found
    if target.ships:
        return target.ships[0].label
    return BASE if target.base else ""


def strike_hex(
    turn: Turn, kit: Kit, target: Target, strikes: Sequence[Strike], orders: Sequence[CombatOrder]
) -> Report:
    report = Report()
    side, enemy = target.side, target.side.opponent
    where = turn.state.scenario.map.hex_id(target.hex)
    label = f"ft.combat.t{turn.state.turn}.{side.value}.{where}"
    ordered = order_of(strikes, orders)
    raid = Raid(turn, kit, target, report)
    _air_combat(raid, ordered, label)
    # Placed after the air combat: only the bombers that came through it face AA and bomb (the
    # plan made before it counted the fallen too, and AA "shot down" and scored them again).
    allocations = plan(turn, target, ordered, orders)
    for strike in ordered:
        mine = [a for a in allocations if a.af == strike.af]
        if mine:
            run_attack(raid, strike, mine, f"{label}.AF{strike.af}")
    head = f"Air strike at {where}"
    report.attacker.insert(
        0,
        f"{head} ({intel.RULE}; combat table {kit.crt.name}"
        f"{', a design default' if kit.crt.default else ''}):",
    )
    report.defender.insert(0, f"Enemy air strike at {where}:")
    turn.tell(side, "strike", "\n".join(report.attacker))
    turn.tell(enemy, "strike", "\n".join(report.defender))
    return report


def _air_combat(raid: Raid, strikes: Sequence[Strike], label: str) -> None:
    turn, kit, target, report = raid.turn, raid.kit, raid.target, raid.report
    side, enemy = target.side, target.side.opponent
    sky = Sky({}, {}, {}, [])
    attackers = _attacker_flights(raid, strikes)
    warning = max((s.warning for s in strikes), default=0)
    entering = frozenset(f.altitude for f in attackers)
    scrambled = scramble(turn, kit, (enemy, target.hex, warning), sky, entering)
    cap = cap_flights(turn, enemy, target.hex) + scrambled
    cap = dive(turn, kit, cap, attackers, f"{label}.dive")
    if cap:
        air_battle(turn, kit, (cap, attackers), f"{label}.air", sky)
        apply_air_losses(turn, sky)
        land_scrambled(turn, enemy, sky)
    if not sky.battles:  # no fighters, or none at the strike's altitudes (combat is per altitude)
        if any(f.role == "escort" for f in attackers):
            report.attacker.append("  No enemy fighters met the strike: the escorts had nothing to fight")
        if cap:
            report.defender.append("  Your fighters did not meet the strike: it came in at another altitude")
        return
    # Lists, not sets: two AFs losing as many factors of one plane are two losses.
    mine = _sum([(pl, n) for (s, _, pl), n in sky.lost.items() if s is side])
    lost = _sum([(pl, n) for (s, _, pl), n in sky.lost.items() if s is enemy])
    for plane, n in mine.items():
        report.air_lost[(side, plane)] = report.air_lost.get((side, plane), 0) + n
    for plane, n in lost.items():
        report.air_lost[(enemy, plane)] = report.air_lost.get((enemy, plane), 0) + n
    seen = told_losses(turn, enemy, sum(lost.values()), f"{label}.report")
    report.attacker.append(f"  Air combat with enemy fighters: you lost {describe_counts(mine)}; {seen}")
    report.defender.append(
        f"  Your fighters met the strike ({sum(sum(s.count for s in f.stacks) for f in cap)} factor(s)): "
        f"you lost {describe_counts(lost)}; the enemy lost {describe_counts(mine)}"
    )


def _sum(pairs: list[tuple[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for plane, n in pairs:
        out[plane] = out.get(plane, 0) + n
    return out


def _attacker_flights(raid: Raid, strikes: Sequence[Strike]) -> list[Flight]:
    """The striking AFs' bombers and their escorts (reference A.6: "a fighter-capable factor in an
    AF *with* bombers is an **escort**"), and the fighters that join the strike; the attacker is
    told which fighters escort and why any of his fighters in the hex do not."""
    turn = raid.turn
    roles = {name: p.roles for name, p in turn.state.rules.planes.items()}
    flights: list[Flight] = []
    for strike in strikes:
        formation = own_af(turn, strike.side, strike.af)
        if formation is None or not formation.stacks:
            continue
        armed = tuple(s for s in formation.stacks if s.armament is not None)
        escorts = tuple(s for s in formation.stacks if is_interceptor(s, roles))
        altitude = formation.stacks[0].altitude
        if armed:
            flights.append(Flight(strike.side, strike.af, armed, altitude, "bomber", 1))
        if escorts:
            flights.append(Flight(strike.side, strike.af, escorts, altitude, "escort", 1))
            raid.report.attacker.append(
                f"  AF{strike.af}'s {describe_counts(by_plane(escorts))} fly with its bombers as "
                "their escort (15 LI 5)"
            )
    return flights + _joined_escorts(raid, strikes, flights)


def _joined_escorts(raid: Raid, strikes: Sequence[Strike], flights: Sequence[Flight]) -> list[Flight]:
    """Fighter AFs of the striking side in the target hex, at the altitude of its bombers, fly with
    the strike as its escorts (design default: the seed lets "more than one type of interceptor"
    meet escorts (15 LI 5) but gives no order to merge AFs, and reference A.6's 14.16 on escort
    altitude is cut off). They fight the defender's interceptors first, by their ESCORTS order."""
    turn = raid.turn
    if not strikes:
        return []
    side, h = strikes[0].side, strikes[0].hex
    striking = {s.af for s in strikes}
    altitudes = {f.altitude for f in flights if f.role == "bomber"}
    joined = []
    for flight in cap_flights(turn, side, h):
        if flight.af in striking:
            continue
        what = f"AF{flight.af} ({describe_counts(by_plane(flight.stacks))}, {flight.altitude.value})"
        if flight.altitude in altitudes:
            joined.append(replace(flight, role="escort"))
            turn.referee("escort", f"{side} AF{flight.af} flies with the strike as its escort (15 LI 5)")
            raid.report.attacker.append(f"  {what} flew with the strike as its escort (15 LI 5)")
        else:
            came = " and ".join(sorted(a.value for a in altitudes)) or "nowhere"
            raid.report.attacker.append(
                f"  {what} did not escort: the bombers came in {came}, and escorts fly at their "
                "bombers' altitude (reference A.6)"
            )
    return joined
