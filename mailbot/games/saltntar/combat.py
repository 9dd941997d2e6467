# SPDX-License-Identifier: GPL-3.0-or-later
"""The naval-combat turn as three steps (seed 001, "Game Turn in Naval Combat").

1. The Wind Roll (when the turn opens, as in a racing turn).
2.-5. The opening step (``T<n>.orders``): Luck Rolls, Strain Rolls, the
   initiative roll ("If some kind of initiative system is being used, roll for
   initiative now!": each side rolls ``[initiative] dice``, highest first, ties
   roll again: a design default), then "Both sides make their first half move
   ... sides move in reverse order of initiative. The side with the highest
   initiative moves last."
6.-7. The missile step (``T<n>.fire``): "Both sides may launch missile
   attacks, magic spells in the order of initiative" (declared by mail,
   recorded in initiative order), then the second half move in reverse
   initiative order; "Any ship that does a second change of direction must
   mark 1 Strain!"
8. The closing step (``T<n>.close``): "Roll for ramming, boarding and any kind
   of other actions allowed by the combat system being used." The combat
   system is the group's own: the moderator records each declaration and the
   RESULT lines the players send, in initiative order, and applies none of
   them. The maneuvers declared "at the end of each game turn" take hold here.

Within a half move every ship moves at the same time (the race or chase is
decided by when each ship entered a cell); the reverse initiative order is the
order of the report, which is what a tabletop group uses to place its ships.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mailbot.core.dice import Dice
from mailbot.core.game import Event, Outcome
from mailbot.games.saltntar.moves import Track, move_half
from mailbot.games.saltntar.orders import DeclareOrder, Order
from mailbot.games.saltntar.resolve import Plan, close_turn, collect, copy_state, decided, outcome, reveal
from mailbot.games.saltntar.state import CLOSE, FIRE, State
from mailbot.games.saltntar.strain import strain_rolls
from mailbot.games.saltntar.wind import luck_rolls

INITIATIVE_RULE = "Salt'n'Tar: initiative in naval combat (design default: highest first, ties roll again)"
_TIE_ROUNDS = 5  # then the scenario's seat order breaks a tie


def roll_initiative(state: State, dice: Dice) -> tuple[tuple[str, ...], Event]:
    """Each side with a ship afloat rolls; returns the seats highest first and the event."""
    seats = [seat for seat in state.seats if state.fleet(seat)]
    scores: dict[str, list[int]] = {seat: [] for seat in seats}
    tied = list(seats)
    for attempt in range(_TIE_ROUNDS):
        suffix = f"/again{attempt}" if attempt else ""
        for seat in tied:
            label = f"initiative/T{state.turn}/{seat}{suffix}"
            scores[seat].append(dice.dice(label, state.rules.initiative, rule=INITIATIVE_RULE).total)
        tied = _still_tied(scores, tied)
        if not tied:
            break
    order = tuple(sorted(seats, key=lambda seat: ([-score for score in scores[seat]], seats.index(seat))))
    rolled = "; ".join(f"{seat} {'/'.join(map(str, scores[seat]))}" for seat in seats)
    text = (
        f"Initiative ({state.rules.initiative} a side, a design default): {rolled}. "
        f"Order of initiative: {', '.join(order)}; half moves in reverse order."
    )
    return order, Event("initiative", text, data={"order": list(order), "scores": scores})


def _still_tied(scores: Mapping[str, list[int]], seats: Sequence[str]) -> list[str]:
    """Seats whose latest roll equals another's among those that were tied before."""
    latest = [scores[seat][-1] for seat in seats]
    return [seat for seat, score in zip(seats, latest, strict=True) if latest.count(score) > 1]


def _half(state: State, changes: Mapping[str, int], half: int) -> list[Event]:
    tracks: list[Track] = []
    events: list[Event] = []
    for seat in reversed(state.initiative):
        for ship in state.fleet(seat):
            ws = max(0, state.wind.speed + ship.luck)
            track, event = move_half(state, ship, changes.get(ship.name, 0), ws, half)
            tracks.append(track)
            events.append(event)
    return events + decided(state, tracks)


def opening(before: State, orders: Mapping[str, Sequence[Order]], dice: Dice) -> Outcome[State]:
    """Steps 2 to 5: luck, Strain, initiative, the first half move."""
    state = copy_state(before)
    plan = collect(state, orders)
    events = reveal(state, orders)
    personal, luck_events = luck_rolls(state, plan.luck, dice)
    for ship in state.ships:
        ship.luck = personal.get(ship.name, 0)
    events += luck_events + strain_rolls(state, dice)
    state.initiative, event = roll_initiative(state, dice)
    events.append(event)
    first = {name: changes[0] for name, changes in plan.turns.items() if changes}
    for name, changes in plan.turns.items():
        state.ship(name).second = changes[1] if len(changes) > 1 else 0
    events += _half(state, first, 0)
    if state.finished:
        events.append(Event("result", state.result, data={"winners": list(state.winners)}))
    state.phase = FIRE
    return outcome(state, events)


def _declarations(state: State, plan: Plan, kinds: Sequence[str]) -> list[Event]:
    """The declarations of these kinds, side by side in the order of initiative."""
    events = []
    for seat in state.initiative or state.seats:
        for who, order in plan.declared:
            if who == seat and order.kind in kinds:
                events.append(_recorded(seat, order))
    return events


def _recorded(seat: str, order: DeclareOrder) -> Event:
    what = "result" if order.kind == "RESULT" else "declaration"
    text = f"{seat}: {order.text} (recorded; the group's combat system resolves it)."
    if order.kind == "RESULT":
        text = f"Result recorded for {seat}: {order.words}."
    data = {
        "seat": seat,
        "kind": order.kind,
        "ship": order.ship,
        "target": order.target,
        "words": order.words,
    }
    return Event(what, text, data=data)


def missiles(before: State, orders: Mapping[str, Sequence[Order]], dice: Dice) -> Outcome[State]:
    """Steps 6 and 7: missiles and spells in initiative order, the second half move."""
    state = copy_state(before)
    plan = collect(state, orders)
    events = reveal(state, orders) + _declarations(state, plan, ("FIRE", "SPELL"))
    second = {ship.name: ship.second for ship in state.ships if ship.afloat}
    second |= {name: changes[0] for name, changes in plan.turns.items() if changes}
    events += _half(state, second, 1)
    if state.finished:
        events.append(Event("result", state.result, data={"winners": list(state.winners)}))
    state.phase = CLOSE
    return outcome(state, events)


def closing(before: State, orders: Mapping[str, Sequence[Order]], dice: Dice) -> Outcome[State]:
    """Step 8 and the end of the turn: ramming, boarding, actions and results recorded."""
    state = copy_state(before)
    plan = collect(state, orders)
    events = reveal(state, orders) + _declarations(state, plan, ("RAM", "BOARD", "ACTION", "RESULT"))
    return outcome(state, events + close_turn(state, plan, dice))
