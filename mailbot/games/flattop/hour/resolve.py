# SPDX-License-Identifier: GPL-3.0-or-later
"""One game hour of Flat Top (standard 5 sequence with seed 003's changes).

The phases, in order, each wiring a rules module (none is re-implemented here):

0. ships an hour at anchor in a friendly harbour replenish (Expanded Ship Function 7, a design
   default: ``supply``);
1. weather (``map.weather.weather_phase``; seed 003, 6.3 and 6.4.1);
2. orders take effect: DECEPTION policies, TF plots, then air operations in
   the order of standard 8.10 (reference A.5.4; ``hour.air_ops``): READY
   (arming), launches, Just Landed -> Readying with the Readying Factor left,
   UNREADY. The boxes change before movement; a new AF takes off from its TF's
   hex after the TF has moved (reference A.7);
3. shadowing (``observation.shadowing``; seed 003, 11.2 and 11.3: the roll is secret);
   then launch into the wind (standard 6.10, ``air.resolve_wind``);
4. TF movement (``map.movement.move_task_forces``);
5. initiative (``initiative``; seed 003, 13 with the catch-up bonus);
6. plane movement, segment by segment in initiative order (seed 003, 7 and 14:
   simultaneous "in a given player's segment"); within a side's segment all
   non-search movement first (LAND, FLY), then its searches ("all
   non-searching movement is conducted before all search movement"), each
   searcher followed by the AFs that rendezvous with it, then the other
   side's special interception of that segment's flights; ``observation.search``
   rolls each sighting with the side's own labels; landings roll at night
   (``air.landing``);
7. observation by TFs, bases, radar and coastwatchers (``observation.observe``;
   7.5, 7.9.5, 7.9.6, 7.12), and condition reports composed per the target
   owner's DECEPTION policy (``observation.reports``) into each side's
   ``observation.knowledge``;
8. the Combat Phase (``combat.phase``): when AFs declared attacks the turn stops here,
   the attacking side gets the precise makeup and a ``T<n>.strike`` choice step
   (:func:`resolve_strike` goes on from there), else interceptions are fought at once;
9. end of turn: AFs past their range are lost (8.5.5), sinking ships count down
   (15 LI 4), victory points for bases (seed 003's VP change), the clock moves on;
   the game ends at the scenario's end, on an automatic victory after a 2400 turn, or
   when a side has nothing left to fight with.

Events: a side hears of its own units only (audience = that side); the
referee (empty audience) gets every roll and every true position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from mailbot.core.dice import Dice
from mailbot.core.game import EVERYONE, Event, Outcome
from mailbot.games.flattop.combat.battle import LOSSES
from mailbot.games.flattop.combat.damage_bases import repair_base
from mailbot.games.flattop.combat.damage_ships import hours_pass_tf
from mailbot.games.flattop.fleet import FleetOrder, organise, tow, tow_holds
from mailbot.games.flattop.hour import air_ops, rescue, sub_air, sub_phase, surface_flow
from mailbot.games.flattop.hour.aftermath import SINKING
from mailbot.games.flattop.hour.bombard import bombardments
from mailbot.games.flattop.hour.combat_phase import apply_rankings, run_combat
from mailbot.games.flattop.hour.declare import brief, declare
from mailbot.games.flattop.hour.resolve_flight import run_followers, run_non_search
from mailbot.games.flattop.hour.resolve_intercept import run_intercepts
from mailbot.games.flattop.hour.resolve_observe import observe_all
from mailbot.games.flattop.hour.resolve_search import follow_shadowed, run_searches, run_shadowing
from mailbot.games.flattop.hour.resolve_wind import turn_into_the_wind
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.supply import replenish
from mailbot.games.flattop.hour.turn import Turn, home_landings, jettison_aloft, lost_aloft
from mailbot.games.flattop.initiative import roll_initiative
from mailbot.games.flattop.map.arrivals import arrivals_due, pending, place_arrivals
from mailbot.games.flattop.map.movement import move_task_forces
from mailbot.games.flattop.map.weather import storm_hexes, weather_phase
from mailbot.games.flattop.observation.reports import record
from mailbot.games.flattop.observation.shadowing import seen_refs
from mailbot.games.flattop.orders.checks import place_key
from mailbot.games.flattop.orders.combat import CombatOrder
from mailbot.games.flattop.orders.types import (
    AirPolicy,
    Engage,
    Fly,
    FtOrder,
    Plot,
    Priority,
    Rank,
    Ready,
    Search,
    SetDeception,
    Tow,
    Unready,
    Wake,
)
from mailbot.games.flattop.orders.wake import clock, night_after_night
from mailbot.games.flattop.quiet import woken
from mailbot.games.flattop.state import FlatTopState, InitiativeNote
from mailbot.games.flattop.units import LaunchType, Ship, Side, TaskForce
from mailbot.games.flattop.victory import Verdict
from mailbot.games.flattop.victory_end import automatic, final, fleet, nothing_left
from mailbot.games.flattop.victory_scoring import air_lost, bases_at_turn_start, damage_at_end


def resolve_turn(
    state: FlatTopState, orders: Mapping[str, Sequence[FtOrder]], dice: Dice
) -> Outcome[FlatTopState]:
    by_side = {s.side: tuple(orders.get(s.side.value, ())) for s in state.sides}
    turn = Turn(state, dice, by_side)
    replenish(turn)  # Expanded Ship Function 7: ships an hour at anchor in a harbour (supply.py)
    rescue.decay_all(turn)
    _weather(turn)
    _orders_take_effect(turn)
    run_shadowing(turn)
    turn_into_the_wind(turn)
    sub_phase.before_movement(turn)  # seed 003, 27.2: submarines move by depth (option submarines)
    _tf_movement(turn)
    _new_afs_take_off(turn)
    winner = _initiative(turn)
    follow_shadowed(turn)
    sub_phase.after_movement(turn)  # 27.2.2: depths change during movement
    for side in sorted(turn.sides(), key=lambda s: s is not winner):
        # Seed 003, 7 and 14: air movement is simultaneous "in a given player's segment",
        # segments in initiative order; within a segment non-search movement comes first.
        run_non_search(turn, side)
        run_followers(turn, side, run_searches(turn, side))
        jettison_aloft(turn, side)
        # Special interception (14.13) as the non-moving side sees this segment's flights.
        run_intercepts(turn, side)
    sub_air.air_sub_search(turn)  # 27.5.3: low AFs' "sub search" rolls for periscope submarines
    observe_all(turn)
    _record_knowledge(turn)
    rescue.air_sightings(turn)
    shelled = bombardments(turn)  # A.11.7: surface combat against the base in the hex
    battle = declare(turn, shelled)
    if battle is not None:
        brief(turn, battle)
        turn.state = replace(turn.state, pending=replace(turn.state.pending, battle=battle))
        return Outcome(turn.state, tuple(turn.events))
    run_combat(turn, None, {})
    return _after_air(turn, shelled)


def _after_air(turn: Turn, attacked: frozenset[str] = frozenset()) -> Outcome[FlatTopState]:
    """Reference A.10: surface combat comes after the air attacks of the hour."""
    turn.state = surface_flow.begin(turn.state)
    if turn.state.pending.surface is not None:
        return Outcome(turn.state, tuple(turn.events))
    return _end_of_turn(turn, attacked)


def resolve_surface(
    state: FlatTopState, orders: Mapping[str, Sequence[FtOrder]], dice: Dice
) -> Outcome[FlatTopState]:
    """One sub-step of the hour's surface battles (``combat.surface_flow``)."""
    assert state.pending.surface is not None
    by_side = {s.side: tuple(orders.get(s.side.value, ())) for s in state.sides}
    turn = Turn(state, dice, {})
    following = surface_flow.resolve_phase(turn, state.pending.surface, by_side)
    turn.state = replace(turn.state, pending=replace(turn.state.pending, surface=following))
    if following is not None:
        return Outcome(turn.state, tuple(turn.events))
    return _end_of_turn(turn)


def resolve_strike(
    state: FlatTopState, orders: Mapping[str, Sequence[FtOrder]], dice: Dice
) -> Outcome[FlatTopState]:
    """The strike choice is in (or defaulted): fight the Combat Phase, then end the turn."""
    assert state.pending.battle is not None
    by_side = {
        s.side: tuple(o for o in orders.get(s.side.value, ()) if isinstance(o, CombatOrder))
        for s in state.sides
    }
    turn = Turn(replace(state, pending=replace(state.pending, battle=None)), dice, {})
    attacked = frozenset(t.base for t in state.pending.battle.targets if t.base)
    if state.pending.battle.phase == LOSSES:
        apply_rankings(turn, state.pending.battle, by_side)
        return _after_air(turn, attacked)
    waiting = run_combat(turn, state.pending.battle, by_side)
    if waiting is not None:
        turn.state = replace(turn.state, pending=replace(turn.state.pending, battle=waiting))
        return Outcome(turn.state, tuple(turn.events))
    return _after_air(turn, attacked)


def _weather(turn: Turn) -> None:
    st = turn.state
    weather, facts = weather_phase(st.weather, st.scenario, st.rules.weather, st.time, turn.dice)
    turn.state = replace(st, weather=weather)
    turn.facts(facts)


def _orders_take_effect(turn: Turn) -> None:
    for side in turn.sides():
        orders = turn.orders[side]
        _organise(turn, side, orders)
        rescue.pick_up(turn, side)
        rescue.offload(turn, side)
        rescue.disembark(turn, side)
        for order in orders:
            _standing_order(turn, side, order)
        for order in (o for o in orders if isinstance(o, Ready)):
            turn.state = air_ops.ready(turn.state, side, order)
            armed = f", armed {order.arm.value}" if order.arm else ""
            turn.tell(side, "ready", f"{order.place}: {order.count} {order.plane} readied{armed}")
        for order in orders:
            if isinstance(order, Search | Fly) and order.launch is not None:
                _launch(turn, side, order)
        turn.state = air_ops.just_landed_to_readying(turn.state, side, _readying_used(orders))
        for order in (o for o in orders if isinstance(o, Unready)):
            turn.state = air_ops.unready(turn.state, side, order)
            turn.tell(side, "unready", f"{order.place}: {order.count} {order.plane} back to Readying")


def _organise(turn: Turn, side: Side, orders: Sequence[FtOrder]) -> None:
    """TF organisation first (``fleet``): the TFs that plot, launch and move are the new ones."""
    rules = kit(turn.state).victory
    for order in orders:
        if isinstance(order, FleetOrder):
            turn.state, told, entries = organise(turn.state, side, order, rules)
            if told:
                turn.tell(side, "fleet", told)
            turn.state = replace(turn.state, score=turn.state.score.scored(entries))
        elif isinstance(order, Tow):
            turn.state, told = tow(turn.state, side, order, kit(turn.state).towing)
            turn.tell(side, "tow", told)


def _standing_order(turn: Turn, side: Side, order: FtOrder) -> None:
    st = turn.state
    if isinstance(order, SetDeception):
        turn.state = st.with_side(replace(st.side(side), deception=order.policy))
        turn.tell(side, "deception", f"Deception policy: {order.policy.value}")
    elif isinstance(order, Priority):
        turn.state = st.with_side(replace(st.side(side), priority=order.types))
        turn.tell(side, "priority", f"Standing target priority: {' '.join(order.types) or 'the default'}")
    elif isinstance(order, AirPolicy):
        own = st.side(side)
        dive = own.cap_dive if order.dive is None else order.dive
        escorts = own.escort_priority if order.escorts is None else order.escorts
        turn.state = st.with_side(replace(own, cap_dive=dive, escort_priority=escorts))
        first = " ".join(escorts) or "the largest groups"
        turn.tell(
            side,
            "air-policy",
            f"Standing: CAP dives {'yes' if dive else 'no'}; escorts shoot first at {first}",
        )
    elif isinstance(order, Engage):
        turn.state = st.with_side(replace(st.side(side), engage=order.on))
        turn.tell(side, "surface", f"Standing surface order: {'ENGAGE' if order.on else 'AVOID'}")
    elif isinstance(order, Rank):
        turn.state = st.with_side(replace(st.side(side), ranking=order.planes))
        turn.tell(side, "rank", f"Standing order of enemy plane types to destroy: {' '.join(order.planes)}")
    elif isinstance(order, Wake):
        _wake(turn, side, order)
    elif isinstance(order, Plot):
        tfs = tuple(
            replace(t, plot=order.legs) if t.side is side and t.number == order.tf else t
            for t in st.task_forces
        )
        turn.state = replace(st, task_forces=tfs)


def _wake(turn: Turn, side: Side, order: Wake) -> None:
    """``orders.wake``: the letter's WAKE replaces the side's requests for the hours to come; the
    hours gone by stay on record (a combined letter counts the quiet hours before it by them)."""
    own = turn.state.side(side)
    past = tuple(t for t in own.wake if t <= turn.state.turn)
    turn.state = turn.state.with_side(replace(own, wake=past + order.turns))
    hours = order.words.lower() if order.words in ("ALL", "NONE") else order.words
    said = "no night letters" if order.words == "NONE" else f"night letters: {hours}"
    turn.tell(side, "wake", f"WAKE: {said} (both sides get a letter at an hour a side asks for)")


def _wake_call(turn: Turn) -> None:
    """The hour to come is a night hour a side asked letters for: both sides are told so, as both
    get its letter (quiet.py: its timing is public; who asked is not said)."""
    st, coming = turn.state, turn.state.turn + 1
    if woken(st, coming) and night_after_night(st.scenario, coming):
        when = clock(st.scenario.start.plus(coming - 1))
        for side in turn.sides():
            turn.tell(side, "wake", f"{when} is played with letters: a side asked to be woken (WAKE)")


def _launch(turn: Turn, side: Side, order: Search | Fly) -> None:
    launch = order.launch
    assert launch is not None
    searching = isinstance(order, Search)
    turn.state, formation = air_ops.launch(turn.state, side, order.af, launch, searching=searching)
    if formation is not None:
        turn.launched.add((side, order.af))
        kind = f", {launch.kind.value} launch" if launch.kind is not LaunchType.MINIMUM else ""
        entry = ""
        if formation.entry is not None:  # reference A.3: off-board base, via its entry hex
            where = turn.state.scenario.map.hex_id(formation.entry)
            entry = f"; in flight off the board, it appears at {where} at the end of turn {formation.arrives}"
        turn.tell(
            side,
            "launch",
            f"AF{order.af} took off from {launch.place}: {launch.planes}{kind}{entry}",
        )


def _readying_used(orders: Sequence[FtOrder]) -> dict[str, int]:
    """Readying Factor spent by the orders, by place (reference A.5.4: every box move counts)."""
    used: dict[str, int] = {}
    for order in orders:
        place, n = _box_move(order)
        if place:
            used[place_key(place)] = used.get(place_key(place), 0) + n
    return used


def _box_move(order: FtOrder) -> tuple[str, int]:
    if isinstance(order, Ready | Unready):
        return order.place, order.count
    if isinstance(order, Search | Fly) and order.launch is not None:
        return order.launch.place, order.launch.total
    return "", 0


def _tf_movement(turn: Turn) -> None:
    st = turn.state
    storms = storm_hexes(st.weather, st.rules.weather)
    staged, towed = _towing_stand_ins(st)
    tfs, moves, facts = move_task_forces(
        staged, st.scenario, st.time, st.rules.movement, storms, turn=st.turn
    )
    tfs = tuple(replace(t, ships=t.ships + towed.get((t.side, t.number), ())) for t in tfs)
    turn.state = replace(st, task_forces=tfs)
    turn.facts(facts)
    for move in moves:
        side = Side(move.side)
        if len(move.path) > 1:
            turn.moved.setdefault(side, set()).add(move.number)
        route = " ".join(st.scenario.map.hex_id(h) for h in move.path)
        note = f" (stopped: {move.stopped})" if move.stopped else ""
        if len(move.path) > 1 or move.stopped:
            turn.tell(side, "tf-moved", f"TF{move.number} moved {route}{note}")


def _towing_stand_ins(
    st: FlatTopState,
) -> tuple[list[TaskForce], dict[tuple[Side, int], tuple[Ship, ...]]]:
    """Seed 003, Towing: a TF with a tow moves one hex every two (or three) turns: it moves without
    its towed ships, its leg cut to the hexes the pair may make, and gets them back after."""
    staged: list[TaskForce] = []
    towed: dict[tuple[Side, int], tuple[Ship, ...]] = {}
    in_tow_now = {p.towed for p in st.tows}
    for tf in st.task_forces:
        hexes = tow_holds(st, tf)
        if hexes is None:
            staged.append(tf)
            continue
        towed[(tf.side, tf.number)] = tuple(s for s in tf.ships if s.name in in_tow_now)
        ships = tuple(s for s in tf.ships if s.name not in in_tow_now)
        # Holding: the plot waits (an empty leg is spent); moving: one hex of the next leg.
        plot = ((), *tf.plot) if not hexes else ((tf.plot[0][:1] if tf.plot else ()), *tf.plot[1:])
        staged.append(replace(tf, ships=ships, plot=plot))
    return staged, towed


def _new_afs_take_off(turn: Turn) -> None:
    """Reference A.7: new AFs "take off and move" in plane movement, after the TFs have moved
    (standard 5), so an AF launched from a TF starts in the hex the TF has reached."""
    st = turn.state
    hexes = {(t.side, f"TF{t.number}"): t.hex for t in st.task_forces}
    air = tuple(
        replace(a, hex=hexes[(a.side, a.origin)])
        if (a.side, a.number) in turn.launched and a.hex is not None and (a.side, a.origin) in hexes
        else a
        for a in st.air
    )
    turn.state = replace(st, air=air)


def _initiative(turn: Turn) -> Side:
    st = turn.state
    result = roll_initiative(st.initiative, turn.dice)
    allied, japanese = result.rolls
    note = InitiativeNote(result.winner, allied.total, japanese.total, result.tie)
    turn.state = replace(st, initiative=result.record, last_initiative=note)
    tie = " (tie: to the side without it last turn)" if result.tie else ""
    text = f"Initiative: {result.winner.value} (Allied {allied.total}, Japanese {japanese.total}){tie}"
    # Seed 003, 13 as initiative.py has it: both rolls are reported to both sides.
    turn.events.append(Event("ft.initiative", text, EVERYONE, {"winner": result.winner.value}))
    turn.referee("initiative-rolls", result.fact.text)
    return result.winner


def _record_knowledge(turn: Turn) -> None:
    st = turn.state
    policies = {s.side: s.deception for s in st.sides}
    for side in turn.sides():
        spottings = turn.spottings.get(side, [])
        known = st.side(side).knowledge
        for spotting in spottings:
            known = record(
                known,
                spotting,
                turn=st.turn,
                dice=turn.dice,
                policies=policies,
                rules=st.rules.reports,
                name=st.scenario.map.hex_id,
            )
        updated = replace(st.side(side), knowledge=known, seen=seen_refs(spottings))
        st = st.with_side(updated)
        new = len(known.of_turn(st.turn))
        if new:
            turn.tell(side, "contacts", f"{new} contact report(s) this turn: see Contacts")
    turn.state = st


def _end_of_turn(turn: Turn, attacked: frozenset[str] = frozenset()) -> Outcome[FlatTopState]:
    st, due = air_ops.arrivals(turn.state)
    for formation in due:
        where = st.scenario.map.hex_id(formation.entry) if formation.entry else "?"
        turn.tell(
            formation.side, "arrived", f"AF{formation.number} from {formation.origin} arrives at {where}"
        )
    turn.state = st
    home_landings(turn)  # reference A.3: AFs in flight to an off-board base land there
    _out_of_fuel(turn)
    rescue.into_the_water(turn)
    _sinking(turn)
    rescue.sightings(turn)
    turn.state = rescue.weigh(turn.state)
    turn.state = replace(
        turn.state,
        bases=tuple(
            repair_base(b, attacked=b.name in attacked, turn=turn.state.turn) for b in turn.state.bases
        ),
    )  # A.12: one hit a turn unless attacked this turn
    st = turn.state
    # Seed 003's VP change: bases scored for each turn they START at LF 0 or below.
    entries = bases_at_turn_start(st.bases, st.turn + 1, kit(st).victory) if st.time < st.scenario.end else ()
    turn.state = st = replace(st, score=st.score.scored(entries))
    verdict = _verdict(st)
    if verdict is not None:
        return _game_over(turn, verdict)
    _arrivals(turn)
    _wake_call(turn)
    return Outcome(replace(turn.state, turn=turn.state.turn + 1), tuple(turn.events))


def _arrivals(turn: Turn) -> None:
    """The scenario's forces due next turn join now, so their owner sees them in the letter that
    asks for that turn's orders (``map.arrivals``); each side hears only of its own."""
    st = turn.state
    placed = place_arrivals(st.task_forces, st.bases, arrivals_due(st.scenario, st.time.next()))
    turn.state = replace(st, task_forces=placed.task_forces, bases=placed.bases)
    name = st.scenario.map.hex_id
    for force in placed.entered:
        tf = force.task_force
        turn.tell(tf.side, "arrival", f"TF{tf.number} ({len(tf.ships)} ships) arrives at {name(tf.hex)}")
    for air in placed.landed:
        turn.tell(air.side, "arrival", f"air factors arrive at {air.base}: {air.boxes.total} factor(s)")
    for air in placed.turned_away:
        turn.tell(air.side, "arrival", f"air factors for {air.base} found no room and were turned away")


def _out_of_fuel(turn: Turn) -> None:
    """8.5.5; A.13: a factor that could not land in time is lost "unnecessarily" (10 VP)."""
    st = turn.state
    for formation in [a for a in st.air if a.hex is not None and air_ops.out_of_range(st, a)]:
        turn.tell(
            formation.side, "lost", f"AF{formation.number} ran out of fuel and is lost (standard 8.5.5)"
        )
        lost_aloft(turn, formation, "fuel")


def _sinking(turn: Turn) -> None:
    """15 LI 4: a ship destroyed but delayed in sinking goes down when its hours are up; the
    planes still aboard go with her (A.12: lost for good, scored like any air loss)."""
    st = turn.state
    rules = kit(st).victory
    tfs, entries = [], []
    for tf in st.task_forces:
        after, sank = hours_pass_tf(tf, turn=st.turn)
        tfs.append(after)
        for gone in sank:
            ship = gone.ship
            turn.tell(tf.side, "sunk", f"{ship.type.value} {ship.name} sank")
            turn.referee("sunk", f"{tf.side} {ship.type.value} {ship.name} sank")
            entries += [
                air_lost(
                    p.plane, p.count, tf.side, st.turn, rules, where=f"sank.{ship.name}.{i}", cause=SINKING
                )
                for i, p in enumerate(gone.planes)
                if p.count
            ]
    turn.state = replace(st, task_forces=tuple(tfs), score=st.score.scored(entries))


def _verdict(st: FlatTopState) -> Verdict | None:
    """The game's end, if it ends now: nothing left to fight with, an automatic victory after a
    2400 turn (A.13), or the scenario's last hour; damaged ships are scored at the end (victory)."""
    rules = kit(st).victory
    ships = fleet(st.task_forces)
    beaten = [
        s.side
        for s in st.sides
        if nothing_left(s.side, ships, st.own_bases(s.side), st.own_air(s.side))
        and not pending(st.scenario, st.time, s.side)  # forces still to arrive can fight
    ]
    early = automatic(st.score.ledger, rules, hour=st.time.hour)
    if early is not None:
        return early
    if beaten:
        return Verdict(None, {}, f"The {beaten[0].value} side has nothing left to fight with.")
    if st.time >= st.scenario.end:
        return Verdict(None, {}, f"The scenario ends at {st.time.label}.")
    return None


def _game_over(turn: Turn, verdict: Verdict) -> Outcome[FlatTopState]:
    st = turn.state
    rules = kit(st).victory
    st = replace(st, score=st.score.scored(damage_at_end(fleet(st.task_forces), st.turn, rules)))
    st = replace(st, score=st.score.scored(rescue.points_at_end(st, rules)))
    if verdict.winner is None:  # not an automatic victory: the final count decides
        scored = final(st.score.ledger, rules)
        verdict = replace(scored, reason=f"{verdict.reason} {scored.reason}")
    st = replace(st, score=st.score.ended(verdict.reason))
    totals = {k.value: v for k, v in verdict.totals.items()}
    turn.events.append(Event("ft.game-over", verdict.reason, EVERYONE, {"totals": totals}))
    return Outcome(st, tuple(turn.events), True, verdict.reason)
