# SPDX-License-Identifier: GPL-3.0-or-later
"""Survivors in a game hour (seed 003, "Survivors"; the rules in ``combat.survivors``).

- At the end of a turn every ship destroyed in it leaves its survivors in the water (the roll
  uses her delayed-sinking hours: "If ship stays afloat 3 or more hours after it is considered
  sunk, add 1"); they are unseen that turn.
- At the start of every turn groups in the water lose a factor each two hours since their ship
  was considered sunk (:func:`survivors.decay`).
- ``RESCUE TF3`` (hour's orders): every ship of TF3 that may pick up survivors does so in its
  hex, own side's first; she counts as anchored that turn.
- Each side is told the groups its ships share a hex with, exactly (never in the sinking turn).
- At the end, survivors still carried score 2 VP (own nationality) or 1 (``victory``).
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.combat.survivor_rescue import (
    OffloadRequest,
    RescueRequest,
    crippled_offload,
    land,
    rescue,
    rescuers_of,
    survivor_points,
)
from mailbot.games.flattop.combat.survivors import (
    Aboard,
    SurvivorTable,
    decay,
    may_observe,
    survivors_in_water,
)
from mailbot.games.flattop.hour import air_ops
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.orders.types import Disembark, Offload, Rescue
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Altitude, Side
from mailbot.games.flattop.victory import VictoryRules, VpEntry


def table(state: FlatTopState) -> SurvivorTable:
    return kit(state).survivors


def into_the_water(turn: Turn) -> None:
    """End of turn: the survivors of every ship destroyed this turn (once per ship)."""
    st = turn.state
    done = {g.ship for g in st.water.survivors}
    groups = list(st.water.survivors)
    for tf in st.task_forces:
        for ship in tf.ships:
            if ship.destroyed_turn != st.turn or ship.name in done:
                continue
            label = f"ft.survivors.t{st.turn}.{tf.side.value}"
            taken = sum(x.offloaded for x in st.water.stranded if x.ship == ship.name)
            group, roll = survivors_in_water(
                ship, hex=tf.hex, nationality=tf.side, afloat_hours=ship.sinking or 0, dice=turn.dice,
                label=label, table=table(st), taken_off=taken,
            )  # fmt: skip
            if roll is not None:
                turn.referee("survivors.roll", f"{ship.name}: {roll.text}")
            if group is not None:
                groups.append(group)
    turn.state = replace(st, water=replace(st.water, survivors=tuple(groups)))


def decay_all(turn: Turn) -> None:
    """Start of turn: "survivors of that ship that are still in the water automatically lose one factor"."""
    st = turn.state
    kept = tuple(
        g for group in st.water.survivors if (g := decay(group, st.turn, table=table(st))) is not None
    )
    turn.state = replace(st, water=replace(st.water, survivors=kept))


def pick_up(turn: Turn, side: Side) -> None:
    """``RESCUE TF<n>``: every ship of the TF tries, in the order of its ships."""
    st = turn.state
    numbers = [o.tf for o in turn.orders.get(side, ()) if isinstance(o, Rescue)]
    tfs = [t for t in st.own_tfs(side) if t.number in numbers]
    if not tfs:
        return
    requests = [RescueRequest(s.name) for t in tfs for s in t.afloat if _may(s.type.value, st)]
    water = st.water
    result = rescue(water.survivors, rescuers_of(tfs, water.aboard), requests, turn=st.turn, table=table(st))
    aboard = {a.ship: a for a in water.aboard} | {a.ship: a for a in result.rescuers}
    water = replace(water, survivors=result.groups, aboard=tuple(aboard.values()))
    turn.state = _anchor(replace(st, water=water), result.anchored)
    for pickup in result.pickups:
        turn.tell(side, "rescue", f"{pickup.rescuer} picked up {pickup.factors} survivor factor(s)")
    for problem in result.problems:
        turn.tell(side, "rescue", problem)


def offload(turn: Turn, side: Side) -> None:
    """``OFFLOAD <cripple> TO <ship>``: "Each cripple can offload one factor per turn to another ship
    in its TF ... The rescue ship is considered as anchored for that turn"."""
    st = turn.state
    requests = [o for o in turn.orders.get(side, ()) if isinstance(o, Offload)]
    for tf in st.own_tfs(side):
        names = {s.name for s in tf.afloat}
        mine = [OffloadRequest(o.cripple, o.rescuer) for o in requests if o.cripple in names]
        if not mine:
            continue
        st = turn.state
        label = f"ft.offload.t{st.turn}.{side.value}.TF{tf.number}"
        water = st.water
        result = crippled_offload(tf, water.stranded, water.aboard, mine, turn=st.turn, dice=turn.dice,
                                  label=label, table=table(st))  # fmt: skip
        aboard = {a.ship: a for a in water.aboard} | {a.ship: a for a in result.rescuers if a.survivors}
        stranded = {s.ship: s for s in water.stranded} | {s.ship: s for s in result.stranded}
        water = replace(water, aboard=tuple(aboard.values()), stranded=tuple(stranded.values()))
        turn.state = _anchor(replace(st, water=water), result.anchored)
        for roll in result.rolls:
            turn.referee("survivors.roll", roll.text)
        for pickup in result.pickups:
            turn.tell(
                side,
                "rescue",
                f"{pickup.rescuer} took {pickup.factors} survivor factor(s) off {pickup.source}",
            )
        for problem in result.problems:
            turn.tell(side, "rescue", problem)


def disembark(turn: Turn, side: Side) -> None:
    """``DISEMBARK TF<n>``: survivors aboard go ashore at the friendly base in the TF's hex; they
    still score at the end ("still carried (or has been unloaded on friendly territory)")."""
    st = turn.state
    for order in (o for o in turn.orders.get(side, ()) if isinstance(o, Disembark)):
        tf = next((t for t in st.own_tfs(side) if t.number == order.tf), None)
        base = next((b for b in st.own_bases(side) if tf is not None and b.hex == tf.hex), None)
        if tf is None or base is None:
            continue
        names = {s.name for s in tf.afloat}
        records, ashore = [], list(st.water.landed)
        for record in st.water.aboard:
            if record.ship in names and record.survivors:
                record, landed = land(record, base.name)  # noqa: PLW2901 - the record after landing
                ashore += landed
            records.append(record)
        moved = sum(x.factors for x in ashore) - sum(x.factors for x in st.water.landed)
        st = replace(st, water=replace(st.water, aboard=tuple(records), landed=tuple(ashore)))
        turn.tell(side, "rescue", f"TF{tf.number} put {moved} survivor factor(s) ashore at {base.name}")
    turn.state = st


def _anchor(state: FlatTopState, names: frozenset[str]) -> FlatTopState:
    tfs = tuple(
        replace(t, ships=tuple(replace(s, anchored=True) if s.name in names else s for s in t.ships))
        for t in state.task_forces
    )
    return replace(state, task_forces=tfs, water=replace(state.water, rescuing=state.water.rescuing | names))


def _may(ship_type: str, state: FlatTopState) -> bool:
    return ship_type in {t.value for t in table(state).capacity}


def sightings(turn: Turn) -> None:
    """Each side is told the survivor groups its ships share a hex with (exact factors)."""
    st = turn.state
    for side in (s.side for s in st.sides):
        hexes = {t.hex for t in st.own_tfs(side) if t.afloat}
        for group in st.water.survivors:
            seen = group.hex in hexes and may_observe(group, st.turn, observer="ship-in-hex", table=table(st))
            if seen:
                where = st.scenario.map.hex_id(group.hex)
                whose = "friendly" if group.nationality is side else "enemy"
                turn.tell(
                    side, "survivors", f"{group.factors} {whose} survivor factor(s) in the water at {where}"
                )


def air_sightings(turn: Turn) -> None:
    """Seed 003: survivors are observed "by aircraft at low altitude that spend half of their MP
    (rounded down) in the hex (number of survivors not reported, merely their presence.)"; an AF
    that failed a shadowing attempt sees none (11.7). MP spent: ``Flight.mp_in``."""
    st = turn.state
    for flight in turn.flights:
        if flight.altitude is not Altitude.LOW or (flight.side, flight.number) in turn.blind:
            continue
        formation = next((a for a in st.own_air(flight.side) if a.number == flight.number), None)
        if formation is None:
            continue
        mp = air_ops.mf(st, formation)
        for group in st.water.survivors:
            spent = flight.mp_in(group.hex)
            seen = may_observe(group, st.turn, observer="low-air", mp_spent=spent, mp=mp, table=table(st))
            if seen:
                where = st.scenario.map.hex_id(group.hex)
                turn.tell(
                    flight.side, "survivors", f"AF{flight.number} sighted survivors in the water at {where}"
                )


def points_at_end(state: FlatTopState, rules: VictoryRules) -> tuple[VpEntry, ...]:
    afloat = {s.name for t in state.task_forces for s in t.afloat}
    carried: list[Aboard] = [a for a in state.water.aboard if a.ship in afloat]
    return survivor_points(carried, state.water.landed, state.turn, rules)


def weigh(state: FlatTopState) -> FlatTopState:
    """End of turn: ships anchored only by a rescue are free again ("anchored ... in that turn")."""
    if not state.water.rescuing:
        return state
    tfs = tuple(
        replace(
            t,
            ships=tuple(replace(s, anchored=False) if s.name in state.water.rescuing else s for s in t.ships),
        )
        for t in state.task_forces
    )
    return replace(state, task_forces=tfs, water=replace(state.water, rescuing=frozenset()))
