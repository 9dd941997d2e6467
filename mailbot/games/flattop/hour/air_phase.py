# SPDX-License-Identifier: GPL-3.0-or-later
"""Air-to-air combat of the Combat Phase: the defender's CAP, ready CAP and diving CAP against
the strike (seed 003, 16.11, 16.12; reference A.11.4), and 14.13.2 interceptions, fought.

Who is an interceptor: unarmed factors of interceptor planes (standard 8.12) that have not
dropped a load this sortie, in the defender's AFs in the hex (CAP), plus those scrambled from
the Ready boxes of the defender's bases and carrier TFs in the hex (16.11: day only, by the
warning the approach gave, within the launch left this turn). Scrambled factors fight as one
group per place and come down in the Just Landed box after the raid (design default: the seed
says they may just be "kept out of the way"). Diving CAP (16.12) is voluntary: the moderator
dives every eligible factor (design default; a defender wants to meet a low strike).

Losses are exact for the side that suffers them; what the other side is told is
``combat.intel``'s business (15 LI 5, 6). The defender rolls everything, so it knows the
attacker's losses exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from mailbot.games.flattop.combat.air_to_air import AirBattle, Flight, fight
from mailbot.games.flattop.combat.cap import diving_cap, scramble_limit
from mailbot.games.flattop.combat.kit import Kit, remove_factors
from mailbot.games.flattop.hour import air_ops
from mailbot.games.flattop.hour.aftermath import put_boxes
from mailbot.games.flattop.hour.turn import Turn, own_af, put
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.orders.decks import grounded
from mailbot.games.flattop.units import AirBoxes, AirFactors, AirFormation, Altitude, Side

SCRAMBLE = 100  # pseudo AF numbers for scrambled ready CAP, per place: 100, 101, ...


@dataclass
class Sky:
    """The air units of one battle hex: what each side has there, by pseudo or real AF number."""

    scrambled: dict[int, tuple[str, tuple[AirFactors, ...]]]  # pseudo AF -> (place, factors left)
    took: dict[int, tuple[AirFactors, ...]]  # pseudo AF -> the factors that left the Ready box
    lost: dict[tuple[Side, int, str], int]  # (side, AF, plane) -> factors lost
    battles: list[AirBattle]


def is_interceptor(stack: AirFactors, roles: dict[str, tuple[str, ...]]) -> bool:
    return stack.armament is None and not stack.expended and "interceptor" in roles.get(stack.plane, ())


def _roles(turn: Turn) -> dict[str, tuple[str, ...]]:
    return {name: p.roles for name, p in turn.state.rules.planes.items()}


def cap_flights(turn: Turn, side: Side, h: Hex) -> list[Flight]:
    roles = _roles(turn)
    flights = []
    for af in turn.state.own_air(side):
        stacks = tuple(s for s in af.stacks if is_interceptor(s, roles)) if af.hex == h else ()
        if stacks:
            # Standard 15.6: a fight costs 1 RF; an AF with none to spare fights at -6 (A.10).
            spare = 0 if air_ops.out_of_range(turn.state, replace(af, rf_spent=af.rf_spent + 1)) else 1
            flights.append(Flight(side, af.number, stacks, stacks[0].altitude, "interceptor", spare))
    return flights


def scramble(
    turn: Turn, kit: Kit, where: tuple[Side, Hex, int], sky: Sky, entering: frozenset[Altitude]
) -> list[Flight]:
    """16.11: ready fighters of each defending place in the hex (``where``: side, hex, warning).

    The table gives "how many air factors may scramble to each altitude", so a place may send
    some to each, all of them within the launch it has left this turn. The altitudes the
    strike entered at (``entering``) are served first, then the one allowing more (design
    default: the defender gives no order for it and wants fighters where the bombers are)."""
    side, h, warning = where
    st, roles = turn.state, _roles(turn)
    places: list[tuple[str, AirBoxes, int, int]] = [
        (b.name, b.boxes, b.launch_min, b.launch)
        for b in st.own_bases(side)
        if b.hex == h and not grounded(b, st.turn)  # a critical hit: no flight operations
    ]
    for tf in st.own_tfs(side):
        for ship in tf.plane_ships if tf.hex == h else ():
            if not grounded(ship, st.turn):
                places.append((ship.name, ship.boxes, ship.launch_min, ship.launch))
    flights: list[Flight] = []
    for name, boxes, lf_min, lf in places:
        ready = [s for s in boxes.ready if is_interceptor(s, roles)]
        if ready:
            place = _Place(name, lf_min, lf, max(2 * lf - _launched(turn, side, name), 0))
            flights += _scramble_place(
                turn, kit, how=(side, warning, entering), place=place, ready=ready, sky=sky
            )
    return flights


@dataclass(frozen=True)
class _Place:
    """A base or plane-carrier scrambling: its name, minimum and normal launch, launch left."""

    name: str
    launch_min: int
    launch: int
    left: int


def _scramble_place(
    turn: Turn,
    kit: Kit,
    *,
    how: tuple[Side, int, frozenset[Altitude]],
    place: _Place,
    ready: list[AirFactors],
    sky: Sky,
) -> list[Flight]:
    """One place's ready CAP, altitude by altitude, each within what the table and the launch
    still left allow (16.11: "subject to plane handling restrictions in that turn")."""
    side, warning, entering = how
    night = turn.state.scenario.is_night(turn.state.time)

    def limit(altitude: Altitude, left: int) -> int:
        return scramble_limit(
            warning, altitude, launch_min=place.launch_min, launch_normal=place.launch,
            launch_left=left, night=night, table=kit.cap,
        )  # fmt: skip

    order = sorted((Altitude.LOW, Altitude.HIGH), key=lambda a: (a not in entering, -limit(a, place.left)))
    flights, left = [], place.left
    for altitude in order:
        stacks = tuple(replace(s, altitude=altitude) for s in _take(ready, limit(altitude, left)))
        if not stacks:
            continue
        n = sum(s.count for s in stacks)
        left -= n
        ready = list(remove_stacks(tuple(ready), stacks))
        number = SCRAMBLE + len(sky.scrambled)
        sky.scrambled[number] = (place.name, stacks)
        sky.took[number] = stacks
        flights.append(Flight(side, number, stacks, altitude, "interceptor", 1))
        turn.referee(
            "ready-cap",
            f"{side} scrambles {n} factor(s) from {place.name} "
            f"to {altitude.value} (warning {warning} hex(es), seed 003, 16.11)",
        )
    return flights


def _launched(turn: Turn, side: Side, place: str) -> int:
    """Factors that took off from ``place`` this turn (its launch used, 16.11)."""
    return sum(
        af.factors
        for af in turn.state.own_air(side)
        if af.origin == place and af.takeoff_turn == turn.state.turn
    )


def _take(stacks: list[AirFactors], limit: int) -> tuple[AirFactors, ...]:
    taken: list[AirFactors] = []
    for stack in stacks:
        n = min(stack.count, limit - sum(s.count for s in taken))
        if n > 0:
            taken.append(replace(stack, count=n))
    return tuple(taken)


def dive(turn: Turn, kit: Kit, cap: list[Flight], attackers: list[Flight], label: str) -> list[Flight]:
    """16.12: when the strike enters Low and all CAP is High, the eligible part dives (and pays RF)."""
    low = sum(sum(s.count for s in f.stacks) for f in attackers if f.altitude is Altitude.LOW)
    high = sum(sum(s.count for s in f.stacks) for f in attackers if f.altitude is Altitude.HIGH)
    if not low or not cap or any(f.altitude is Altitude.LOW for f in cap):
        return cap
    if not turn.state.side(cap[0].side).cap_dive:  # "Diving is always voluntary": CAPDIVE NO
        return cap
    total = sum(sum(s.count for s in f.stacks) for f in cap)
    result = diving_cap(
        total, attackers_low=low, attackers_high=high, dice=turn.dice, label=label, table=kit.cap
    )
    roll = result.roll.text if result.roll else "no roll"
    turn.referee("diving-cap", f"diving CAP: {roll}: {result.eligible} of {total} may dive (16.12)")
    left, out = result.eligible, []
    for flight in cap:
        stacks = _take(list(flight.stacks), left)
        n = sum(s.count for s in stacks)
        left -= n
        if n:
            out.append(
                replace(
                    flight,
                    stacks=tuple(replace(s, altitude=Altitude.LOW) for s in stacks),
                    altitude=Altitude.LOW,
                    dived=True,
                )
            )
        rest = remove_stacks(flight.stacks, stacks)
        if rest:
            out.append(replace(flight, stacks=rest))
    return out


def remove_stacks(stacks: tuple[AirFactors, ...], gone: tuple[AirFactors, ...]) -> tuple[AirFactors, ...]:
    left = {s.plane: s.count for s in gone}
    out = []
    for stack in stacks:
        n = min(stack.count, left.get(stack.plane, 0))
        left[stack.plane] = left.get(stack.plane, 0) - n
        if stack.count - n:
            out.append(replace(stack, count=stack.count - n))
    return tuple(out)


def air_battle(turn: Turn, kit: Kit, sides: tuple[list[Flight], list[Flight]], label: str, sky: Sky) -> None:
    """Fight at each altitude (``sides``: the interceptors, then their enemy); losses go into
    ``sky.lost`` and onto the AFs."""
    defenders, attackers = sides
    cloud, night = _weather(turn, attackers)
    for altitude in (Altitude.HIGH, Altitude.LOW):
        interceptors = [f for f in defenders if f.altitude is altitude]
        escorts = [f for f in attackers if f.altitude is altitude and f.role != "bomber"]
        bombers = [f for f in attackers if f.altitude is altitude and f.role == "bomber"]
        if not interceptors or not (escorts or bombers):
            continue
        result = fight(
            interceptors,
            escorts,
            bombers,
            planes=turn.state.rules.planes,
            hit_tables=kit.hits,
            table=kit.crt,
            dice=turn.dice,
            label=f"{label}.{altitude.value}",
            cloud=cloud,
            night=night,
            escort_priority=_escort_priority(turn, escorts),
        )
        sky.battles.append(result)
        for roll in result.rolls:
            turn.referee("air-combat.roll", roll)
        for loss in result.losses:
            key = (loss.side, loss.af, loss.plane)
            sky.lost[key] = sky.lost.get(key, 0) + loss.count
        for side, number in result.rf_spent:
            formation = own_af(turn, side, number)
            if formation is not None:
                put(turn, formation, replace(formation, rf_spent=formation.rf_spent + 1))


def _escort_priority(turn: Turn, escorts: list[Flight]) -> tuple[str, ...]:
    """15 LI 5: "the player with the escorts must prioritize the types of interceptor he wishes to
    shoot at": his standing ESCORTS order (none: the types with most factors first)."""
    return turn.state.side(escorts[0].side).escort_priority if escorts else ()


def _weather(turn: Turn, flights: list[Flight]) -> tuple[bool, bool]:
    sky = turn.sky()
    h = next((a.hex for f in flights for a in turn.state.air if a.number == f.af and a.side is f.side), None)
    return (h in sky.clouds if h is not None else False), sky.night


def apply_air_losses(turn: Turn, sky: Sky) -> None:
    """Remove the air-to-air losses from the AFs (armed or not: the fight says which plane only)."""
    for (side, number, plane), count in sky.lost.items():
        if number >= SCRAMBLE:
            place, stacks = sky.scrambled[number]
            sky.scrambled[number] = (place, remove_stacks(stacks, (AirFactors(plane, count),)))
            continue
        formation = own_af(turn, side, number)
        if formation is not None:
            put(turn, formation, _lose(formation, plane, count))


def _lose(formation: AirFormation, plane: str, count: int) -> AirFormation:
    """Unarmed factors first (fighters escort unarmed), then armed ones."""
    unarmed = sum(s.count for s in formation.stacks if s.plane == plane and s.armament is None)
    first = remove_factors(formation, plane, min(count, unarmed), armed=False)
    return remove_factors(first, plane, count - min(count, unarmed), armed=True)


def land_scrambled(turn: Turn, side: Side, sky: Sky) -> None:
    """Scrambled survivors leave the Ready box and come down in Just Landed (design default)."""
    for number, (place, survivors) in sky.scrambled.items():
        took = sky.took[number]
        put_boxes(turn, side, place, partial(_moved, took=took, survivors=survivors))


def _moved(boxes: AirBoxes, took: tuple[AirFactors, ...], survivors: tuple[AirFactors, ...]) -> AirBoxes:
    ready = remove_stacks(boxes.ready, took)
    landed = boxes.just_landed + tuple(replace(s, altitude=Altitude.LOW) for s in survivors)
    return replace(boxes, ready=ready, just_landed=landed)
