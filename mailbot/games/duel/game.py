# SPDX-License-Identifier: GPL-3.0-or-later
"""The dice duel as a :class:`mailbot.core.game.Game` plugin (rules: :mod:`mailbot.games.duel`).

Each turn is two steps: ``T{n}.orders`` (ATTACK/DEFEND, kept secret in the
state) and ``T{n}.bid`` (a sealed initiative bid, short deadline); the turn's
dice are rolled only when the bid step resolves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any, ClassVar

from mailbot.core.dice import Dice
from mailbot.core.game import (
    Event,
    Line,
    Outcome,
    Parsed,
    Setup,
    Step,
    StepKind,
    refuse_all,
)
from mailbot.core.options import GameOption
from mailbot.errors import GameError
from mailbot.games.duel import view as report
from mailbot.games.duel.orders import Context, DuelOrder, bid_of, parse_lines, split_of
from mailbot.games.duel.rules import DEFAULT_BID, DEFAULT_SPLIT, play_turn, result_of
from mailbot.games.duel.state import (
    DEFAULT_HP,
    DEFAULT_TURNS,
    MAX_OPTION,
    SEATS,
    DuelState,
    Phase,
    SeatState,
    dump_state,
    initial_state,
    load_state,
)

#: the bid is one number: half a day is plenty, and keeps the turn from taking twice as long
BID_DURATION = timedelta(hours=12)
BID_LABEL = "bid"
#: The duel has one board and nothing to set up but its options, so one scenario name.
SCENARIOS = ("standard",)


class DuelGame:
    """Two seats, north and south, trade d6 attacks; see the package docstring for the rules."""

    name: ClassVar[str] = "duel"
    aliases: ClassVar[tuple[str, ...]] = ("dice-duel",)
    title: ClassVar[str] = "Dice duel"
    hidden_information: ClassVar[bool] = True
    options: ClassVar[tuple[GameOption, ...]] = (
        GameOption("hp", "hit points each side starts with", int, DEFAULT_HP, low=1, high=MAX_OPTION),
        GameOption("turns", "turns before the game ends", int, DEFAULT_TURNS, low=1, high=MAX_OPTION),
    )

    def seats(self, scenario: str, data: Mapping[str, Any]) -> tuple[str, ...]:
        _known(scenario)
        return SEATS

    def new_game(self, setup: Setup, *, dice: Dice) -> DuelState:
        _known(setup.scenario)
        # No dice before the first turn's bids are in.
        return initial_state(setup.seats, setup.options)

    def step(self, state: DuelState) -> Step | None:
        if state.finished:
            return None
        key = f"T{state.turn}.{state.phase.value}"
        title = report.step_title(state)
        if state.phase is Phase.ORDERS:
            return Step(key, state.turn, StepKind.ORDERS, state.living(), title)
        return Step(
            key,
            state.turn,
            StepKind.SEALED,
            state.living(),
            title,
            duration=BID_DURATION,
            seal_labels=(BID_LABEL,),
        )

    def parse(self, state: DuelState, seat: str, lines: Sequence[Line]) -> Parsed[DuelOrder]:
        closed = _closed_to(state, seat)
        if closed:
            return refuse_all(lines, closed)
        return parse_lines(lines, Context(state.phase, state.turn))

    def default_orders(self, state: DuelState, seat: str) -> Sequence[str]:
        if state.finished or seat not in state.living():
            return ()
        if state.phase is Phase.ORDERS:
            return (f"ATTACK {DEFAULT_SPLIT.attack}", f"DEFEND {DEFAULT_SPLIT.defend}")
        return (f"BID {DEFAULT_BID}",)

    def resolve(
        self, state: DuelState, orders: Mapping[str, Sequence[DuelOrder]], *, dice: Dice
    ) -> Outcome[DuelState]:
        if state.finished:
            return Outcome(state, (), True, state.result)
        if state.phase is Phase.ORDERS:
            return _close_orders(state, orders)
        return _play_turn(state, orders, dice)

    def view(self, state: DuelState, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        return report.build_view(self.title, state, events, seat, self.order_help(state, seat or ""))

    def public_view(self, state: DuelState, events: Sequence[Event]) -> Mapping[str, Any]:
        """What observers read (``core.game.Spectated``): the report of a name that is no seat, so
        no split, no die of either seat, only the public events (bids, hits taken, hit points)."""
        return report.public_view(self.title, state, events)

    def order_help(self, state: DuelState, seat: str) -> Sequence[str]:
        return report.order_help(state, seat)

    def dump(self, state: DuelState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> DuelState:
        return load_state(data)


def _known(scenario: str) -> None:
    """Refuse a scenario name the duel does not know, so that a GM's typo is not played as the
    standard game under another name; case is folded as in game names (and Salt'n'Tar's)."""
    if scenario.strip().lower() not in SCENARIOS:
        raise GameError(f"no dice duel scenario {scenario!r}; known: {', '.join(SCENARIOS)}")


def _closed_to(state: DuelState, seat: str) -> str:
    """Why this seat can send nothing now, or "" when it can."""
    if state.finished:
        return "the game is over"
    if seat not in state.names:
        return f"{seat!r} holds no seat in this duel ({', '.join(state.names)})"
    if seat not in state.living():
        return f"{seat} is down: there is nothing left to order"
    return ""


def _close_orders(state: DuelState, orders: Mapping[str, Sequence[DuelOrder]]) -> Outcome[DuelState]:
    """Keep each split secret in the state until the bids are in; no dice yet."""
    splits = {name: split_of(orders.get(name, ())) or DEFAULT_SPLIT for name in sorted(state.living())}
    seats = {name: replace(state.seat(name), pending=split) for name, split in splits.items()}
    after = replace(state.with_seats(seats), phase=Phase.BID)
    return Outcome(after, tuple(report.orders_events(state, splits)))


def _bids(state: DuelState, orders: Mapping[str, Sequence[DuelOrder]]) -> dict[str, int]:
    bids = {name: bid_of(orders.get(name, ())) for name in state.names}
    return {name: DEFAULT_BID if bid is None else bid for name, bid in bids.items()}


def _play_turn(state: DuelState, orders: Mapping[str, Sequence[DuelOrder]], dice: Dice) -> Outcome[DuelState]:
    record = play_turn(state, _bids(state, orders), dice)
    # A fresh SeatState: the pending split is spent and must not linger in the state.
    seats = {entry.seat: SeatState(entry.seat, entry.hp_end) for entry in record.seats}
    after = replace(state.with_seats(seats), log=(*state.log, record))
    events = report.turn_events(after, record)
    result = result_of(after)
    if result is not None:
        events.append(Event("game-over", result))
        return Outcome(replace(after, finished=True, result=result), tuple(events), True, result)
    following = replace(after, turn=state.turn + 1, phase=Phase.ORDERS)
    events.append(report.next_turn_event(following))
    return Outcome(following, tuple(events))
