# SPDX-License-Identifier: GPL-3.0-or-later
"""One side's air strike on one hex: targets, air combat, AA, bombing, damage (seed 003, 15-21).

The order is the seed's: the attacker's choices (:func:`plan`, from his TARGET/FIRST/NOATTACK
lines, else his PRIORITY, else :data:`battle.DEFAULT_PRIORITY`), air-to-air (``air_phase``),
then AF by AF in the declared order (18.2.1: "all damage results are applied to the target(s)
before the second AF attacks"): AA of each attacked TF (LI 2's half AA when only CL-or-smaller
ships are attacked), then each plane name's bombing roll on the combat table, its hits applied
at once (21.8.2) by ``combat.damage``. Fires wait for the end of the phase (``phase``).

Reports (15 LI 3, 5, 6): the defender, who "rolls the entire combat", gets every number of
his own and the attacker's losses; the attacker gets his own losses exactly, the defender's
fighter losses within +/-50% under the defender's DECEPTION policy, and the damage he did in
LI 3's words (night: hits +/-50%, bases "installations burning", no aircraft losses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.air_to_air import Flight
from mailbot.games.flattop.combat.battle import DEFAULT_PRIORITY, LossChoice, ShipLabel, Strike, Target
from mailbot.games.flattop.combat.bht import AttackKind, aa_factors
from mailbot.games.flattop.combat.damage import BaseHit, HitKind, PlaneLoss, ShipHit, Speed, speed
from mailbot.games.flattop.combat.damage_bases import hit_base
from mailbot.games.flattop.combat.damage_ships import hit_ship, launch_note
from mailbot.games.flattop.combat.kit import Kit, by_plane, describe_counts, remove_factors
from mailbot.games.flattop.hour.aftermath import AIR_STRIKE, put_hits, score_planes
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
from mailbot.games.flattop.hour.sub_phase import submerged
from mailbot.games.flattop.hour.sweep import told_losses
from mailbot.games.flattop.hour.turn import Turn, drop_load, own_af, put
from mailbot.games.flattop.orders.combat import CombatOrder
from mailbot.games.flattop.orders.types import First, NoAttack, Priority, TargetOrder
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Altitude,
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
            _attack(raid, strike, mine, f"{label}.AF{strike.af}")
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


def _attack(raid: Raid, strike: Strike, allocations: list[Allocation], label: str) -> None:
    turn = raid.turn
    formation = own_af(turn, strike.side, strike.af)
    if formation is None:
        return
    allocations = _after_aa(raid, formation, allocations, label)
    # One plane name, one roll (reference A.11.1); the rolls of one AF on one target with one
    # kind of hit are one attack for the damage rules (21.3: "+1", "a given attack"; 21.8.2).
    attacks: dict[tuple[str, HitKind, Armament], tuple[Allocation, Blow]] = {}
    for a in allocations:
        rolled = _bomb(raid, strike, a, f"{label}.{a.target}.{a.plane}")
        if rolled is None:
            continue
        key = (a.target, rolled.kind, rolled.armament)
        attacks[key] = _joined(attacks[key], a, rolled) if key in attacks else (a, rolled)
    for a, blow in attacks.values():
        found = _ship_of(turn, raid.target, a.target) if a.target != BASE else None
        if found is not None:
            _hit_ship(raid, found, a, blow)
        elif a.target == BASE and raid.target.base:
            _hit_base(raid, a, blow)
    formation = own_af(turn, strike.side, strike.af)
    if formation is not None:
        drop_load(turn, formation)  # "each armed factor attacks once per sortie" (reference A.6)


def _ship_of(turn: Turn, target: Target, label: str) -> tuple[ShipLabel, Ship] | None:
    found = next((s for s in target.ships if s.label == label), None)
    if found is None:
        return None
    tf = next(t for t in turn.state.task_forces if t.number == found.tf and t.side is target.side.opponent)
    ship = next((s for s in tf.afloat if s.name == found.name), None)
    return (found, ship) if ship is not None else None


def _after_aa(
    raid: Raid, formation: AirFormation, allocations: list[Allocation], label: str
) -> list[Allocation]:
    """AA of each attacked TF (and the base) against the factors attacking it; losses from the
    largest plane group first (reference B.8, design default)."""
    turn, kit, target, report = raid.turn, raid.kit, raid.target, raid.report
    groups: dict[str, list[Allocation]] = {}
    for a in allocations:
        found = _ship_of(turn, target, a.target)
        groups.setdefault(f"TF{found[0].tf}" if found else BASE, []).append(a)
    sky = turn.sky()
    cloud, night = target.hex in sky.clouds, sky.night
    kept: list[Allocation] = []
    for key, group in groups.items():
        if key == BASE:
            base = next((b for b in turn.state.bases if b.name == target.base), None)
            aa = base.aa if base else 0
        else:
            tf = next(
                t for t in turn.state.task_forces if f"TF{t.number}" == key and t.side is target.side.opponent
            )
            aimed = [pair[1] for a in group if (pair := _ship_of(turn, target, a.target))]
            # Seed 003, 27.6.55: "Submarines may only use their AA factor if surfaced."
            aa = 0 if submerged(turn.state, tf) else aa_factors(tf.afloat, aimed)
        bht = kit.hits.aa(cloud=cloud, night=night)
        result = kit.crt.roll(
            bht.value, aa, turn.dice, f"{label}.aa.{key}", rule="reference B.8 AA (design default)"
        )
        if aa:
            turn.referee("aa.roll", f"AA of {key} ({aa} factors, {bht.text}): {result.text}")
        kept += _shoot_down(turn, formation, group, result.hits if aa else 0, report)
    return kept


def _shoot_down(
    turn: Turn, formation: AirFormation, group: list[Allocation], hits: int, report: Report
) -> list[Allocation]:
    out = list(group)
    lost: dict[str, int] = {}
    for _ in range(hits):
        if not out:
            break
        biggest = max(range(len(out)), key=lambda i: (out[i].count, out[i].plane))
        a = out[biggest]
        lost[a.plane] = lost.get(a.plane, 0) + 1
        out[biggest] = replace(a, count=a.count - 1)
        out = [x for x in out if x.count]
    current = own_af(turn, formation.side, formation.number) or formation
    for plane, n in lost.items():
        current = remove_factors(current, plane, n, armed=True)
        key = (formation.side, plane)
        report.air_lost[key] = report.air_lost.get(key, 0) + n
    if lost:
        put(turn, own_af(turn, formation.side, formation.number) or formation, current)
        report.attacker.append(f"  AF{formation.number}: AA shot down {describe_counts(lost)}")
        report.defender.append(f"  Your AA shot down {describe_counts(lost)}")
    return out


#: Seed 003, 14.11: "Aircraft intending to execute an attack must enter the target hex at the proper
#: attack altitude": a dive and a High level attack from High, a torpedo and a Low level attack
#: from Low (reference A.6: "the bomber starts the Combat Phase High" to dive; torpedo "Low only").
ATTACKS_FROM: dict[Altitude, tuple[AttackKind, ...]] = {
    Altitude.HIGH: (AttackKind.DIVE, AttackKind.LEVEL_HIGH),
    Altitude.LOW: (AttackKind.TORPEDO, AttackKind.LEVEL_LOW),
}
RULE_14_11 = "seed 003, 14.11"


def _kind(kit: Kit, a: Allocation, armament: Armament, altitude: Altitude) -> AttackKind | None:
    """The attack ``a``'s planes make from ``altitude``: the one ordered if they may make it from
    there, else their first (a dive before a level attack); None if they have none from there."""
    kinds = [k for k in kit.hits.kinds(a.plane, armament) if k in ATTACKS_FROM[altitude]]
    level = AttackKind.LEVEL_HIGH if altitude is Altitude.HIGH else AttackKind.LEVEL_LOW
    wanted = {"dive": AttackKind.DIVE, "torpedo": AttackKind.TORPEDO, "level": level}.get(a.kind or "")
    if wanted in kinds:
        return wanted
    return kinds[0] if kinds else None


def _altitude_note(a: Allocation, armament: Armament, altitude: Altitude, kind: AttackKind | None) -> str:
    """What the attacker is told when his planes' altitude changes or forbids their attack (14.11)."""
    head = f"  AF{a.af}: {a.count} {a.plane} ({armament.value}) entered {altitude.value}"
    if kind is None:
        return f"{head}: they have no attack from {altitude.value}; no attack ({RULE_14_11})"
    made = f"they attack {kind.value}"
    return f"{head}: a {a.kind} attack is not made from {altitude.value}; {made} ({RULE_14_11})"


def _joined(first: tuple[Allocation, Blow], a: Allocation, blow: Blow) -> tuple[Allocation, Blow]:
    """Two plane names' rolls on one target as one attack: hits and critical checks add up."""
    had, old = first
    plane = f"{had.plane} and {a.count} {a.plane}"
    merged = replace(old, hits=old.hits + blow.hits, critical=old.critical + blow.critical,
                     attacker_picks=old.attacker_picks or blow.attacker_picks)  # fmt: skip
    return replace(had, plane=plane), merged


def _bomb(raid: Raid, strike: Strike, a: Allocation, label: str) -> Blow | None:
    turn, kit, target = raid.turn, raid.kit, raid.target
    formation = own_af(turn, strike.side, strike.af)
    stack = (
        next((s for s in formation.stacks if s.plane == a.plane and s.armament), None) if formation else None
    )
    if formation is None or stack is None or stack.armament is None:
        return None
    st, sky = turn.state, turn.sky()
    cloud, night = target.hex in sky.clouds, sky.night
    kind = _kind(kit, a, stack.armament, stack.altitude)
    if kind is None or (a.kind and not kind.value.startswith(a.kind)):
        raid.report.attacker.append(_altitude_note(a, stack.armament, stack.altitude, kind))
    if kind is None:
        return None
    found = _ship_of(turn, target, a.target) if a.target != BASE else None
    if found is None and a.target != BASE:
        # The ship went down under an earlier AF of this strike (21.8.2): nothing left to aim at.
        turn.tell(strike.side, "strike", f"AF{strike.af}: {a.target} has already gone down; no attack")
        return None
    if found is not None:
        ship = found[1]
        bht = kit.hits.attack(
            a.plane,
            kind,
            stack.armament,
            base_target=False,
            crippled=ship.crippled,
            anchored=ship.anchored or any(ship.name in (p.tower, p.towed) for p in st.tows),
            half_speed=speed(ship, st.turn) is Speed.HALF,
            cloud=cloud,
            night=night,
        )
    else:
        bht = kit.hits.attack(a.plane, kind, stack.armament, base_target=True, cloud=cloud, night=night)
    roll = kit.crt.roll(bht.value, a.count, turn.dice, label)
    turn.referee(
        "bombing.roll",
        f"{strike.side} AF{strike.af} {a.count} {a.plane} {kind.value} on {a.target}: "
        f"{bht.text}; {roll.text}",
    )
    hit_kind = HitKind.TORPEDO if kind is AttackKind.TORPEDO else HitKind.BOMB
    attacker_picks = not night and kind in (AttackKind.DIVE, AttackKind.LEVEL_LOW)
    return Blow(roll.hits, hit_kind, stack.armament, int(roll.critical_check), attacker_picks, label)


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


def _hit_ship(raid: Raid, found: tuple[ShipLabel, Ship], a: Allocation, blow: Blow) -> None:
    turn, kit, target = raid.turn, raid.kit, raid.target
    st = turn.state
    shiplabel, ship = found
    owner = target.side.opponent
    tf = next(t for t in st.task_forces if t.number == shiplabel.tf and t.side is owner)
    launching = _launching(turn, owner, f"TF{tf.number}") if ship.capacity else ()
    result = hit_ship(
        ship,
        blow.hits,
        blow.kind,
        armament=blow.armament,
        critical_check=blow.critical,
        rules=kit.damage,
        dice=turn.dice,
        label=blow.label,
        turn=st.turn,
        ranking=_ranking(turn, target.side, blow.attacker_picks),
        launching=launching,
    )
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


def _hit_base(raid: Raid, a: Allocation, blow: Blow) -> None:
    turn, kit, target, report = raid.turn, raid.kit, raid.target, raid.report
    attacker_picks, label = blow.attacker_picks, blow.label
    st = turn.state
    base = next(b for b in st.bases if b.name == target.base)
    owner = base.side
    result: BaseHit = hit_base(
        base,
        blow.hits,
        blow.kind,
        armament=blow.armament,
        critical_check=blow.critical,
        rules=kit.damage,
        dice=turn.dice,
        label=label,
        turn=st.turn,
        ranking=_ranking(turn, target.side, attacker_picks),
        launching=_launching(turn, owner, base.name),
    )
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
