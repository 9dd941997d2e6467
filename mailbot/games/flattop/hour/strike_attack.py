# SPDX-License-Identifier: GPL-3.0-or-later
"""One strike's attack on its targets, AF by AF: AA, bombing, damage (seed 003, 17-21; 15 LI).

18.2.1: "all damage results are applied to the target(s) before the second AF attacks": AA of each
attacked TF (LI 2's half AA when only CL-or-smaller ships are attacked), then each plane name's
bombing roll on the combat table, its hits applied at once (21.8.2) by :mod:`.strike_damage`, with
the lines each side is told (15 LI 3, 5, 6). The strike's plan and its air-to-air combat come
first, in :mod:`.strike`.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.combat.battle import ShipLabel, Strike, Target
from mailbot.games.flattop.combat.bht import AttackKind, aa_factors
from mailbot.games.flattop.combat.damage import HitKind, Speed, speed
from mailbot.games.flattop.combat.kit import Kit, describe_counts, remove_factors
from mailbot.games.flattop.hour.strike_damage import (
    BASE,
    Allocation,
    Blow,
    Raid,
    Report,
    strike_base,
    strike_ship,
)
from mailbot.games.flattop.hour.sub_phase import submerged
from mailbot.games.flattop.hour.turn import Turn, drop_load, own_af, put
from mailbot.games.flattop.units import (
    AirFormation,
    Altitude,
    Armament,
    Ship,
)


def run_attack(raid: Raid, strike: Strike, allocations: list[Allocation], label: str) -> None:
    """One AF's attack: AA first, then one bombing roll per plane name and target, applied at once."""
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
            strike_ship(raid, found, a, blow)
        elif a.target == BASE and raid.target.base:
            strike_base(raid, a, blow)
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
