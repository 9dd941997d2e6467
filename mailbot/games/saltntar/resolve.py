# SPDX-License-Identifier: GPL-3.0-or-later
"""One game turn, in the order of seed 001, "Game Turn when Racing and Chasing".

1. The Wind Roll. The moderator makes it when the turn opens (at the end of
   the previous turn's resolution, or in ``new_game`` for turn 1), so that the
   players know the wind when they write their orders, as they would see the
   die at the table before deciding on a luck roll.
2. Luck Rolls for the sides that ordered ``LUCK``.
3. Strain Rolls for every ship that has marked Strain.
4. Every ship moves (turning first); the race or chase may be decided here.
5. Strain recovery (a design default, ``recovery``), then the maneuvers
   declared for the end of the turn; ships whose time is up sink.
Then the next turn opens with its Wind Roll. Naval-combat turns are three
steps instead (``combat``).

When the same seat sends two orders for one purpose (possible only across
letters, ``parse`` refuses it within one), the later order counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from mailbot.core.dice import Dice
from mailbot.core.game import Event, Outcome
from mailbot.games.saltntar import maneuvers
from mailbot.games.saltntar.moves import Track, finish_times, first_catch, move_all
from mailbot.games.saltntar.orders import DeclareOrder, LuckOrder, ManeuverOrder, Order, TurnOrder
from mailbot.games.saltntar.recovery import open_turn, recover
from mailbot.games.saltntar.state import CHASE, CHASER, OPENING, QUARRY, State
from mailbot.games.saltntar.strain import strain_rolls
from mailbot.games.saltntar.wind import luck_rolls, ship_wind, wind_roll


@dataclass
class Plan:
    turns: dict[str, tuple[int, ...]] = field(default_factory=dict)
    luck: dict[str, list[str]] = field(default_factory=dict)
    maneuvers: dict[str, str] = field(default_factory=dict)
    declared: list[tuple[str, DeclareOrder]] = field(default_factory=list)


def _own(state: State, seat: str, name: str | None) -> bool:
    return name is None or any(ship.name == name for ship in state.fleet(seat))


def collect(state: State, orders: Mapping[str, Sequence[Order]]) -> Plan:
    plan = Plan()
    for seat in state.seats:
        for order in orders.get(seat, ()):
            if not _own(state, seat, order.ship):
                continue  # parsed against this state, so only a foreign caller gets here
            if isinstance(order, TurnOrder):
                plan.turns[order.ship] = order.changes
            elif isinstance(order, LuckOrder) and state.fleet(seat):
                plan.luck[seat] = [order.ship] if order.ship else [s.name for s in state.fleet(seat)]
            elif isinstance(order, ManeuverOrder):
                plan.maneuvers[order.ship] = order.kind
            elif isinstance(order, DeclareOrder):
                plan.declared.append((seat, order))
    return plan


def reveal(state: State, orders: Mapping[str, Sequence[Order]]) -> list[Event]:
    """Orders are echoed only to their writer until now; resolution shows them to all."""
    events = []
    for seat in state.seats:
        lines = [order.text for order in orders.get(seat, ())]
        silent = f"{seat} sent no orders ({state.rules.cite('silence')})."
        text = f"{seat} ordered: {'; '.join(lines)}." if lines else silent
        events.append(Event("orders", text, data={"seat": seat, "orders": lines}))
    return events


def _end(state: State, winners: Sequence[str], result: str) -> None:
    state.finished, state.winners, state.result = True, tuple(winners), result


def _race(state: State, tracks: Sequence[Track]) -> list[Event]:
    times = finish_times(state, tracks)
    if not times:
        return []
    first = min(times.values())
    names = [name for name, when in times.items() if when == first]
    seats = list(dict.fromkeys(state.ship(name).seat for name in names))
    who = " and ".join(f"{name} ({state.ship(name).seat})" for name in names)
    if len(names) == 1:
        result = f"{who} crossed the finish line first in turn {state.turn}: {seats[0]} wins the race."
    else:
        result = f"Dead heat in turn {state.turn}: {who} crossed the finish line together."
    _end(state, seats, result)
    # What was seen on the water; the result itself is the turn's "result" event, said once.
    together = " at the same moment" if len(names) > 1 else ""
    seen = f"{who} entered the finish line{together}, {_share(first)} ({state.rules.cite('simultaneous')})."
    return [Event("finish", seen, data={"ships": names, "turn_share": str(first)})]


def _share(when: Fraction) -> str:
    if when in (0, 1):
        return "as the move began" if when == 0 else "at the end of the move"
    return f"{when.numerator}/{when.denominator} of the way through the move"


def _chase(state: State, tracks: Sequence[Track]) -> list[Event]:
    caught = first_catch(state, tracks)
    if caught is None:
        return []
    _, chaser, quarry = caught
    seat = state.ship(chaser).seat
    reach = state.course.catch_within
    result = (
        f"{chaser} ({seat}) came within {reach}'' of {quarry} in turn {state.turn}: {seat} wins the chase."
    )
    _end(state, [seat], result)
    seen = f"{chaser} closes to within {reach}'' of {quarry}, {_share(caught[0])}"
    seen += f" ({state.rules.cite('simultaneous')})."
    return [Event("caught", seen, data={"chaser": chaser, "quarry": quarry})]


def _sinkings(state: State) -> list[Event]:
    events = []
    for ship in state.ships:
        if ship.afloat and ship.sinks_after is not None and ship.sinks_after <= state.turn:
            ship.sunk = True
            events.append(Event("sunk", f"{ship.name} ({ship.seat}) goes down.", data={"ship": ship.name}))
    return events


def _seats_with(state: State, role: str) -> list[str]:
    return list(dict.fromkeys(ship.seat for ship in state.ships if ship.afloat and ship.role == role))


def _chase_over(state: State) -> None:
    chasers, quarries = _seats_with(state, CHASER), _seats_with(state, QUARRY)
    if not quarries:
        _end(
            state,
            chasers,
            f"The quarry has gone down in turn {state.turn}: the chase is won by {', '.join(chasers)}.",
        )
    elif not chasers:
        _end(state, quarries, f"No chaser is left afloat: {', '.join(quarries)} escapes.")
    elif state.turn >= state.course.escape_after:
        _end(
            state,
            quarries,
            f"The quarry is still free after {state.turn} turns: {', '.join(quarries)} escapes.",
        )


def _race_over(state: State) -> None:
    if not any(ship.afloat for ship in state.ships):
        _end(state, [], "Every ship has gone down: nobody wins the race.")
    elif state.course.turn_limit and state.turn >= state.course.turn_limit:
        _end(state, [], f"No ship crossed the finish line in {state.turn} turns: nobody wins the race.")


def close_turn(state: State, plan: Plan, dice: Dice) -> list[Event]:
    """The end of a turn after the (second half) move: recovery, maneuvers, sinkings, the
    race or chase decided, and the next turn opened with its Wind Roll."""
    events: list[Event] = []
    if not state.finished:
        events += recover(state) + _maneuvers(state, plan, dice) + _sinkings(state)
        if state.course.kind == CHASE:
            _chase_over(state)
        else:
            _race_over(state)
    if state.finished:
        events.append(Event("result", state.result, data={"winners": list(state.winners)}))
        return events
    state.turn += 1
    open_turn(state)
    state.phase = OPENING if state.course.combat else ""
    events.append(wind_roll(state, dice))
    return events


def decided(state: State, tracks: Sequence[Track]) -> list[Event]:
    """Whether these (half) moves decided the race or chase."""
    return _chase(state, tracks) if state.course.kind == CHASE else _race(state, tracks)


def _maneuvers(state: State, plan: Plan, dice: Dice) -> list[Event]:
    events = maneuvers.progress(state)
    for ship in state.ships:
        kind = plan.maneuvers.get(ship.name)
        if kind and ship.afloat:
            events += maneuvers.declare(state, ship, kind, dice)
    return events


def _move(state: State, plan: Plan, personal: Mapping[str, int]) -> list[Event]:
    winds = {ship.name: ship_wind(state, personal, ship.name) for ship in state.ships if ship.afloat}
    tracks, events = move_all(state, plan.turns, winds)
    return events + (_chase(state, tracks) if state.course.kind == CHASE else _race(state, tracks))


def copy_state(before: State) -> State:
    """Only wind, ships and the outcome change: copy those, share the immutable rest."""
    return replace(before, wind=replace(before.wind), ships=[replace(ship) for ship in before.ships])


def outcome(state: State, events: Sequence[Event]) -> Outcome[State]:
    return Outcome(state, tuple(events), state.finished, state.result)


def resolve_turn(before: State, orders: Mapping[str, Sequence[Order]], dice: Dice) -> Outcome[State]:
    state = copy_state(before)
    plan = collect(state, orders)
    events = reveal(state, orders)
    personal, luck_events = luck_rolls(state, plan.luck, dice)
    events += luck_events + strain_rolls(state, dice)
    events += _move(state, plan, personal)
    return outcome(state, events + close_turn(state, plan, dice))
