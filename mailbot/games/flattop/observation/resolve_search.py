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

from mailbot.games.flattop.air import operations as air_ops
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.movement import plane_path
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.observation.observe import AF, group, tf_target
from mailbot.games.flattop.observation.search import Leg, SearchOrder, SearchOutcome, resolve_searches
from mailbot.games.flattop.observation.shadowing import (
    ShadowAttempt,
    Shadower,
    ShadowResult,
    may_shadow,
    resolve_shadow,
    shadow_events,
)
from mailbot.games.flattop.orders.checks import path_steps
from mailbot.games.flattop.orders.types import Search, Shadow
from mailbot.games.flattop.turn import NOT_RESOLVED, Flight, Turn, land_af, own_af, put
from mailbot.games.flattop.units import AirFormation, Altitude, Side, TaskForce

# --- shadowing (11) ------------------------------------------------------------------


def run_shadowing(turn: Turn) -> None:
    for side in turn.sides():
        for order in turn.of(side, Shadow):
            assert isinstance(order, Shadow)
            _shadow(turn, side, order)


def _shadow(turn: Turn, side: Side, order: Shadow) -> None:
    st = turn.state
    formation = own_af(turn, side, order.af)
    if formation is None:
        return
    target = shadow_target(turn, side, order.hex)
    if target is None:  # the contact has gone (e.g. off the board): simply a failure
        turn.tell(side, "shadow.result", f"Shadowing by AF{order.af}: {ShadowResult.FAILURE.value}")
        turn.referee(
            "shadow.none",
            f"{side} AF{order.af}: no enemy TF seen last turn in {st.scenario.map.hex_id(order.hex)}",
        )
        return
    attempt = _attempt(turn, side, order.af, target)
    outcome = resolve_shadow(attempt, st.rules.shadowing, turn.dice, st.turn)
    turn.events.extend(shadow_events(outcome, side.value))
    if outcome.result is ShadowResult.SUCCESS:
        turn.shadows.append((side, order.af, target.number))


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


def _attempt(turn: Turn, side: Side, af: int, target: TaskForce) -> ShadowAttempt:
    ref = tf_target(target).ref
    going = target.plot[0][-1] if target.plot and target.plot[0] else target.hex
    sky = turn.sky()
    moving = going != target.hex
    return ShadowAttempt(
        shadower_key=f"AF{af}",
        shadower=Shadower.AF,
        side=side,
        target_ref=ref,
        visible_last_turn=may_shadow(ref, turn.state.side(side).seen),
        night=sky.night,
        target_into_cloud=moving and sky.cloudy(going),
        target_into_storm=moving and going in sky.storms,
    )


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


# --- search (7, 7.3) -------------------------------------------------------------------


def _usable_legs(turn: Turn, formation: AirFormation, order: Search) -> tuple[Leg, ...]:
    """The legs this turn's storms and the MP allow (the orders were checked against last turn's sky)."""
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
    return tuple(legs)


def _search_order(turn: Turn, side: Side, order: Search) -> SearchOrder | None:
    formation = own_af(turn, side, order.af)
    if formation is None or formation.hex is None:
        return None
    return SearchOrder(
        key=f"AF{order.af}",
        side=side,
        start=formation.hex,
        altitude=formation.stacks[0].altitude,
        legs=_usable_legs(turn, formation, order),
        mp=air_ops.mf(turn.state, formation),
        factors=formation.factors,
        armed=any(s.armament is not None for s in formation.stacks),
        reactions=order.reactions,
        join=None if order.join is None else f"AF{order.join}",
    )


def run_searches(turn: Turn, side: Side) -> dict[str, SearchOutcome]:
    """One side's search segment: every searcher flies, sees, and maybe returns to land."""
    st = turn.state
    pairs = [
        (o, so)
        for o in turn.of(side, Search)
        if isinstance(o, Search) and (so := _search_order(turn, side, o))
    ]
    if not pairs:
        return {}
    targets = turn.targets()
    outcomes = resolve_searches(
        [so for _, so in pairs], targets, sky=turn.sky(), table=st.rules.search, dice=turn.dice, turn=st.turn
    )
    for (order, _), outcome in zip(pairs, outcomes, strict=True):
        _after_search(turn, side, order, outcome)
        turn.spot(side, outcome.spottings(targets))
        if order.back is not None:
            land_af(turn, side, order.af, order.back, outcome.mp_left)
    return {o.key: o for o in outcomes}


def _after_search(turn: Turn, side: Side, order: Search, outcome: SearchOutcome) -> None:
    formation = own_af(turn, side, order.af)
    if formation is None:
        return
    stacks = tuple(replace(s, altitude=outcome.altitude) for s in formation.stacks)
    put(turn, formation, replace(formation, hex=outcome.path[-1], stacks=stacks, searching=True))
    turn.flights.append(Flight(side, order.af, outcome.path, outcome.altitude))
    name = turn.state.scenario.map.hex_id
    route = " ".join(name(h) for h in outcome.path)
    seen = len({(u.hex, u.kind) for u in outcome.updates})
    what = f"{seen} contact(s) sighted" if seen else "nothing sighted"
    altitude = "high" if outcome.altitude is Altitude.HIGH else "low"
    turn.tell(
        side, "search", f"AF{order.af} searched {route} ({altitude}, {outcome.mp_left} MP left): {what}"
    )
    if outcome.attack_hex is not None:
        turn.tell(
            side, "attack", f"AF{order.af} reached {name(outcome.attack_hex)} to attack: {NOT_RESOLVED}"
        )
    for a in outcome.attempts:
        result = "seen" if a.success else "missed"
        turn.referee(
            "search.roll",
            f"{side} AF{order.af} at {name(a.searcher_hex)} on {a.target}: "
            f"{a.roll.text} vs {a.number}: {result}",
        )
