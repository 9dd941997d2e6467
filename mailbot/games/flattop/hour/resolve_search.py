# SPDX-License-Identifier: GPL-3.0-or-later
"""Shadowing and search in a turn (seed 003, 11 and 7), wired to ``shadowing`` and ``search``.

Shadowing (11.2, 11.3): an AF may shadow a ships contact its side saw last
turn; the referee picks the enemy TF in that hex that the side saw (never an
unseen one: :func:`shadow_target`), rolls in secret and tells
the side the result only. A successful shadower follows the TF through its
move and keeps it in sight at the search chart's range-0 condition (a design
default: the Shadowing Table's effect on the report is not in the seed).

Search (7, 7.3): each SEARCH order becomes a ``search.SearchOrder`` from the
AF's hex; the path is first cut where this turn's storms or the MP forbid
(``map.movement.plane_path``), then flown by ``search.resolve_searches``.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.hour import air_ops, sub_phase
from mailbot.games.flattop.hour.turn import Flight, Turn, land_af, own_af, put
from mailbot.games.flattop.map.hexes import Hex, distance, line
from mailbot.games.flattop.map.movement import move_task_force, plane_path
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.observation.observe import AF, Watcher, group, surface_condition, tf_target
from mailbot.games.flattop.observation.search import Leg, SearchOrder, SearchOutcome, resolve_searches
from mailbot.games.flattop.observation.shadowing import (
    ShadowAttempt,
    Shadower,
    ShadowResult,
    may_shadow,
    resolve_shadow,
    shadow_events,
)
from mailbot.games.flattop.orders.checks import is_submarine, path_steps
from mailbot.games.flattop.orders.types import Search, Shadow
from mailbot.games.flattop.units import AirFormation, Altitude, Side, TaskForce

# --- shadowing (11) ------------------------------------------------------------------


def run_shadowing(turn: Turn) -> None:
    for side in turn.sides():
        for order in turn.of(side, Shadow):
            assert isinstance(order, Shadow)
            _shadow(turn, side, order)


def _shadow(turn: Turn, side: Side, order: Shadow) -> None:
    st = turn.state
    shadower = _shadower(turn, side, order)
    if shadower is None:
        return
    key = f"{order.by}{order.af}"
    target = shadow_target(turn, side, order.hex)
    if target is None:  # the contact has gone (e.g. off the board): simply a failure
        turn.tell(side, "shadow.result", f"Shadowing by {key}: {ShadowResult.FAILURE.value}")
        turn.referee(
            "shadow.none",
            f"{side} {key}: no enemy TF seen last turn in {st.scenario.map.hex_id(order.hex)}",
        )
        return
    attempt = _attempt(turn, side, (key, *shadower), target)
    outcome = resolve_shadow(attempt, st.rules.shadowing, turn.dice, st.turn)
    turn.events.extend(shadow_events(outcome, side.value))
    if outcome.result is ShadowResult.SUCCESS and order.by == "AF":
        turn.shadows.append((side, order.af, target.number))
    elif outcome.result is ShadowResult.SUCCESS:
        _hold_for_shadowing(turn, side, order.af)
        turn.tf_shadows.append((side, order.af, target.number, distance(shadower[1], target.hex)))
    elif outcome.result is ShadowResult.BLIND:
        turn.blind.add((side, order.af))


def _shadower(turn: Turn, side: Side, order: Shadow) -> tuple[Shadower, Hex, bool] | None:
    """The shadowing unit's kind, hex and radar (seed 003, 11.11; 27.3 for submarines)."""
    if order.by == "AF":
        formation = own_af(turn, side, order.af)
        return None if formation is None or formation.hex is None else (Shadower.AF, formation.hex, False)
    tf = next((t for t in turn.state.own_tfs(side) if t.number == order.af), None)
    if tf is None:
        return None
    return (Shadower.SUB if is_submarine(tf) else Shadower.TF), tf.hex, any(s.radar for s in tf.afloat)


def _hold_for_shadowing(turn: Turn, side: Side, number: int) -> None:
    """Reference A.8.8: "Units that moved in the Shadowing Phase do not move again this turn":
    the shadowing TF's plotted leg for this turn is replaced by following its target."""
    tfs = tuple(
        replace(t, plot=((), *t.plot[1:])) if t.side is side and t.number == number else t
        for t in turn.state.task_forces
    )
    turn.state = replace(turn.state, task_forces=tfs)


def shadow_target(turn: Turn, side: Side, where: Hex) -> TaskForce | None:
    """The enemy TF in ``where`` that the side saw last turn (seed 003, 11.2), lowest number first.

    Only a TF the side saw can be the target: the side's order names a contact,
    not a unit, and picking among every enemy TF in the hex would let an unseen
    TF there change the answer ("not allowed" instead of a roll), telling the
    side that a second TF is present. With no seen TF left there the attempt
    fails exactly as in an empty hex.
    """
    seen = turn.state.side(side).seen
    there = (
        t
        for t in turn.state.task_forces
        if t.side is not side and t.hex == where and tf_target(t).ref in seen
    )
    return min(there, key=lambda t: t.number, default=None)


def _attempt(
    turn: Turn, side: Side, shadower: tuple[str, Shadower, Hex, bool], target: TaskForce
) -> ShadowAttempt:
    key, kind, where, radar = shadower
    ref = tf_target(target).ref
    going = target.plot[0][-1] if target.plot and target.plot[0] else target.hex
    sky = turn.sky()
    moving = going != target.hex
    return ShadowAttempt(
        shadower_key=key,
        shadower=kind,
        side=side,
        target_ref=ref,
        visible_last_turn=may_shadow(ref, turn.state.side(side).seen),
        night=sky.night,
        radar=radar,
        at_condition_3=_condition_now(turn, side, (kind, where), target) == 3,
        target_into_cloud=moving and sky.cloudy(going),
        target_into_storm=moving and going in sky.storms,
    )


def _condition_now(turn: Turn, side: Side, shadower: tuple[Shadower, Hex], target: TaskForce) -> int:
    """The condition at which the shadower itself observes its target at the start of the phase
    (seed 003, 11.11 "-1 if shadower is at Condition 3"): an AF by the search chart's range
    conditions, a TF or submarine by the surface observation table (7.5, 7.12)."""
    kind, where = shadower
    st, sky = turn.state, turn.sky()
    if kind is Shadower.AF:
        return st.rules.search.condition(sky.time, distance(where, target.hex))
    watcher = Watcher(kind.value, "TF", side, where)
    return surface_condition(watcher, tf_target(target), sky, st.rules.observation)


def follow_shadowed(turn: Turn) -> None:
    """After TF movement: each successful shadower is over its TF and sees it."""
    st = turn.state
    for side, number, tf_number in turn.shadows:
        formation = own_af(turn, side, number)
        target = next((t for t in st.task_forces if t.side is not side and t.number == tf_number), None)
        if formation is None or target is None:
            continue
        put(turn, formation, replace(formation, hex=target.hex, searching=False))
        condition = st.rules.search.condition(turn.sky().time, 0)
        if condition:
            turn.spot(side, group(f"AF{number}", AF, [(tf_target(target), condition)]))
        turn.tell(
            side,
            "shadowing",
            f"AF{number} keeps its contact in sight at {st.scenario.map.hex_id(target.hex)}",
        )
    for side, number, tf_number, keep in turn.tf_shadows:
        _follow_by_tf(turn, side, (number, keep), tf_number)


def _follow_by_tf(turn: Turn, side: Side, shadower: tuple[int, int], tf_number: int) -> None:
    """Reference A.8.8: "the shadowed TF moves as plotted, then the shadower moves"; it closes
    straight toward the TF to the range it shadowed from, within its movement (map.movement)."""
    st = turn.state
    number, keep = shadower
    tf = next((t for t in st.own_tfs(side) if t.number == number), None)
    target = next((t for t in st.task_forces if t.side is not side and t.number == tf_number), None)
    if tf is None or target is None:
        return
    leg: list[Hex] = []
    for h in line(tf.hex, target.hex)[1:]:
        if distance(leg[-1] if leg else tf.hex, target.hex) <= keep:
            break
        leg.append(h)
    storms = storm_hexes(st.weather, st.rules.weather)
    moved, move = move_task_force(
        replace(tf, plot=(tuple(leg), *tf.plot)),
        st.scenario,
        st.time,
        st.rules.movement,
        storms,
        turn=st.turn,
    )
    turn.state = replace(st, task_forces=tuple(moved if t is tf else t for t in st.task_forces))
    if len(move.path) > 1:
        turn.moved.setdefault(side, set()).add(number)
    where = st.scenario.map.hex_id(moved.hex)
    turn.tell(side, "shadowing", f"TF{number} shadows its contact and is now at {where}")
    turn.referee("shadow.follow", f"{side} TF{number} follows {target.side} TF{tf_number} to {where}")


# --- search (7, 7.3) -------------------------------------------------------------------


def _usable_legs(turn: Turn, formation: AirFormation, order: Search) -> tuple[tuple[Leg, ...], str]:
    """The legs this turn's storms and the MP allow (the orders were checked against last turn's
    sky), and why the path stops short of the one ordered ("" when it does not): a cut path is
    told with its reason (issue 32: a path was dropped without one)."""
    st = turn.state
    assert formation.hex is not None
    altitude = formation.stacks[0].altitude
    flown = plane_path(
        formation.hex, altitude, path_steps(altitude, order.legs), air_ops.mf(st, formation),
        scenario=st.scenario, rules=st.rules.movement, storms=storm_hexes(st.weather, st.rules.weather),
        armed_takeoff=order.launch is not None and any(s.armament is not None for s in formation.stacks),
    )  # fmt: skip
    budget, legs = len(flown.legs), []
    for leg in order.legs:
        if budget < 1:
            break
        legs.append(replace(leg, extra=min(leg.extra, budget - 1)))
        budget -= 1 + leg.extra
    return tuple(legs), flown.problem


def _search_order(turn: Turn, side: Side, order: Search) -> tuple[SearchOrder, str] | None:
    """The searcher's flight and why its path is cut short (""); None, told, when it cannot fly."""
    formation = own_af(turn, side, order.af)
    if formation is None or formation.hex is None:
        where = "is no longer aloft" if formation is None else "is off the map"
        turn.tell(side, "search", f"AF{order.af} did not search: it {where}")
        return None
    legs, problem = _usable_legs(turn, formation, order)
    return SearchOrder(
        key=f"AF{order.af}",
        side=side,
        start=formation.hex,
        altitude=formation.stacks[0].altitude,
        legs=legs,
        mp=air_ops.mf(turn.state, formation),
        factors=formation.factors,
        armed=any(s.armament is not None for s in formation.stacks),
        reactions=order.reactions,
        join=None if order.join is None else f"AF{order.join}",
    ), problem


def run_searches(turn: Turn, side: Side) -> dict[str, SearchOutcome]:
    """One side's search segment: every searcher flies, sees, and maybe returns to land."""
    st = turn.state
    pairs = [
        (o, *flown)
        for o in turn.of(side, Search)
        if isinstance(o, Search) and turn.may_act(side, o.af) and (flown := _search_order(turn, side, o))
    ]
    if not pairs:
        return {}
    targets = sub_phase.visible_targets(turn, side, turn.targets())  # seed 003, 27.4-27.5.2
    outcomes = resolve_searches(
        [so for _, so, _ in pairs],
        targets,
        sky=turn.sky(),
        table=st.rules.search,
        dice=turn.dice,
        turn=st.turn,
    )
    for (order, flight, problem), outcome in zip(pairs, outcomes, strict=True):
        cut = f" (path cut short: {problem})" if problem and len(flight.legs) < len(order.legs) else ""
        _after_search(turn, side, order, outcome, cut)
        turn.spot(side, outcome.spottings(targets))
        if order.back is not None:
            land_af(turn, side, order.af, order.back, outcome.mp_left)
    return {o.key: o for o in outcomes}


def _after_search(turn: Turn, side: Side, order: Search, outcome: SearchOutcome, cut: str = "") -> None:
    formation = own_af(turn, side, order.af)
    if formation is None:
        return
    stacks = tuple(replace(s, altitude=outcome.altitude) for s in formation.stacks)
    put(turn, formation, replace(formation, hex=outcome.path[-1], stacks=stacks, searching=True))
    lingered = tuple((leg.hex, leg.extra) for leg in order.legs if leg.extra and leg.hex in outcome.path)
    turn.flights.append(Flight(side, order.af, outcome.path, outcome.altitude, lingered))
    name = turn.state.scenario.map.hex_id
    route = " ".join(name(h) for h in outcome.path)
    seen = len({(u.hex, u.kind) for u in outcome.updates})
    what = f"{seen} contact(s) sighted" if seen else "nothing sighted"
    altitude = "high" if outcome.altitude is Altitude.HIGH else "low"
    turn.tell(
        side, "search", f"AF{order.af} searched {route} ({altitude}, {outcome.mp_left} MP left){cut}: {what}"
    )
    if outcome.attack_hex is not None:
        turn.tell(side, "attack", f"AF{order.af} reached {name(outcome.attack_hex)} to attack")
        turn.strikes.append((side, order.af, outcome.attack_hex))
    for a in outcome.attempts:
        result = "seen" if a.success else "missed"
        turn.referee(
            "search.roll",
            f"{side} AF{order.af} at {name(a.searcher_hex)} on {a.target}: "
            f"{a.roll.text} vs {a.number}: {result}",
        )
