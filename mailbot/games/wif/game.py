# SPDX-License-Identifier: GPL-3.0-or-later
"""World in Flames, last impulse test (seed 002, 12.): the moderator keeps the turn-end number.

One step is one impulse: the moving side mails its impulse's end (weather,
passes, last die), the moderator rolls the d10s, adds them to the turn-end
number and says whether the turn goes on. Nothing is hidden: every event goes
to every side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from mailbot.core.defaults import read_defaults
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
from mailbot.games.wif import view as report
from mailbot.games.wif.orders import (
    Context,
    LastDie,
    Pass,
    Status,
    Weather,
    WifOrder,
    parse_lines,
)
from mailbot.games.wif.rules import (
    DIE_SIDES,
    MAX_WEATHER,
    MIN_WEATHER,
    PASS_BONUS,
    ImpulseRoll,
    apply_impulse,
    pass_bonus,
)
from mailbot.games.wif.state import (
    FIRST_RULES,
    ImpulseRecord,
    WifState,
    dump_state,
    initial_state,
    load_state,
    read_sides,
    scenario_table,
)

RULE = "seed 002, 12. Last impulse test"


class WifTurnEndGame:
    """The :class:`mailbot.core.game.Game` plugin for the last impulse test."""

    name: ClassVar[str] = "wif-turn-end"
    aliases: ClassVar[tuple[str, ...]] = ("wif", "world-in-flames", "last-impulse")
    title: ClassVar[str] = "World in Flames: last impulse test"
    hidden_information: ClassVar[bool] = False
    options: ClassVar[tuple[GameOption, ...]] = (
        GameOption("first", "the side that moves first (a side of the scenario)"),
        GameOption("first_rule", "who opens the later turns", str, choices=tuple(FIRST_RULES)),
        GameOption("turns", "turns played (default: the scenario's; standard 6)", int, low=1, high=1000),
        GameOption("weather", "the weather number (dice)", int, 2, low=MIN_WEATHER, high=MAX_WEATHER),
        GameOption("threshold", "impulse total that ends the turn", int, low=1),
        GameOption("first_by_turn", "who opens each turn, turn 1 first (empty: by first_rule)", list),
        GameOption("neutral", "powers that are neutral besides the scenario's", list),
    )

    def seats(self, scenario: str, data: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(side.name for side in read_sides(scenario_table(scenario, data)))

    def new_game(self, setup: Setup, *, dice: Dice) -> WifState:
        # No dice are needed before the first impulse ends.
        defaults = read_defaults(setup.data.get("defaults", {}), "World in Flames data")
        table = scenario_table(setup.scenario, setup.data)
        return initial_state(table, setup.seats, setup.options, defaults)

    def step(self, state: WifState) -> Step | None:
        if state.finished:
            return None
        return Step(
            key=f"T{state.turn}.I{state.impulse}",
            turn=state.turn,
            kind=StepKind.ORDERS,
            owing=frozenset({state.mover.name}),
            title=f"Turn {state.turn}, impulse {state.impulse}: the {state.mover.name} end their impulse",
        )

    def parse(self, state: WifState, seat: str, lines: Sequence[Line]) -> Parsed[WifOrder]:
        if state.finished:
            return refuse_all(lines, "the game is over")
        if seat != state.mover.name:
            return refuse_all(lines, f"this is the {state.mover.name} impulse: the {seat} send nothing now")
        return parse_lines(lines, Context(seat, state.mover.powers, state.weather))

    def default_orders(self, state: WifState, seat: str) -> Sequence[str]:
        # Silence means: no power passed, same weather, the last die rolled is the last die.
        return ()

    def resolve(
        self, state: WifState, orders: Mapping[str, Sequence[WifOrder]], *, dice: Dice
    ) -> Outcome[WifState]:
        if state.finished:
            return Outcome(state, (), True, state.result)
        mine = tuple(orders.get(state.mover.name, ()))
        state, events = _declare(state, mine)
        record = _roll_impulse(state, mine, dice)
        events.append(report.roll_event(state, record, _unsent(state, mine)))
        after = replace(state, total=record.roll.after, weather=record.weather, log=(*state.log, record))
        if not record.roll.ends_turn:
            events.extend(report.continue_events(after, record))
            return Outcome(replace(after, impulse=state.impulse + 1), tuple(events))
        final, end_events = _end_turn(after)
        return Outcome(final, (*events, *end_events), final.finished, final.result)

    def view(self, state: WifState, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        return report.build_view(self.title, state, events, seat, self.order_help(state, seat or ""))

    def public_view(self, state: WifState, events: Sequence[Event]) -> Mapping[str, Any]:
        """What observers read (``core.game.Spectated``): nothing here is hidden, so every seat's
        report less its order help."""
        return report.public_view(self.title, state, events)

    def order_help(self, state: WifState, seat: str) -> Sequence[str]:
        return report.order_help(state, seat)

    def dump(self, state: WifState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> WifState:
        return load_state(data)


def _declare(state: WifState, orders: Sequence[WifOrder]) -> tuple[WifState, list[Event]]:
    """NEUTRAL and WAR lines take effect before the dice, so a neutral's pass already counts for nothing."""
    neutral = list(state.neutral)
    events = []
    for order in orders:
        if not isinstance(order, Status):
            continue
        for power in order.powers:
            if power in neutral:
                neutral.remove(power)
            if order.neutral:
                neutral.append(power)
        events.append(report.status_event(state, order))
    return replace(state, neutral=tuple(neutral)), events


def _modifiers(passed: Sequence[str], neutral: Sequence[str], count: int) -> dict[str, int]:
    """The pass bonuses as the dice log shows them: each passing power's +n on each die."""
    return {
        f"{power} passes (+{PASS_BONUS[power]} x {count} dice)": PASS_BONUS[power] * count
        for power in passed
        if power not in neutral
    }


def _unsent(state: WifState, orders: Sequence[WifOrder]) -> dict[str, str]:
    """The design defaults that stood in for what the moving side did not send."""
    notes = {}
    if not any(isinstance(o, Weather) for o in orders):
        notes["weather"] = state.cite("weather")
    if not any(isinstance(o, LastDie) for o in orders):
        notes["last_die"] = state.cite("last_die")
    return notes


def _roll_impulse(state: WifState, orders: Sequence[WifOrder], dice: Dice) -> ImpulseRecord:
    weather = next((o.number for o in orders if isinstance(o, Weather)), state.weather)
    passed = tuple(dict.fromkeys(power for o in orders if isinstance(o, Pass) for power in o.powers))
    last = next((o.position for o in orders if isinstance(o, LastDie)), weather)
    roll = dice.roll(
        f"turn-end/T{state.turn}/I{state.impulse}/{state.mover.name}",
        DIE_SIDES,
        weather,
        rule=RULE,
        modifiers=_modifiers(passed, state.neutral, weather),
    )
    bonus = pass_bonus(passed, state.neutral)
    result: ImpulseRoll = apply_impulse(state.total, roll.faces, bonus, last, state.threshold)
    return ImpulseRecord(state.turn, state.impulse, state.mover.name, weather, passed, result)


def _end_turn(state: WifState) -> tuple[WifState, list[Event]]:
    """The turn is over: move the initiative marker if due, then start the next turn or end the game."""
    events = [report.turn_end_event(state)]
    initiative = list(state.initiative)
    last = state.mover_index
    # seed 002: "If impulses end and your side had both the first and last impulse in the
    # turn, move the initiative marker 1 space towards your opponents' end of the initiative track."
    if last == state.first:
        initiative[last] += 1
    moved = replace(state, initiative=tuple(initiative))
    if last == state.first:
        events.append(report.initiative_event(moved))
    if state.turn >= state.turns:
        result = report.result_line(moved)
        events.append(Event("game-over", result))
        return replace(moved, finished=True, result=result), events
    first, source = next_first(moved, last)
    following = replace(moved, turn=state.turn + 1, impulse=1, first=first, first_from=source, total=0)
    events.append(report.turn_begins_event(following))
    return following, events


def next_first(state: WifState, last: int) -> tuple[int, str]:
    """Who opens the next turn, and where that comes from.

    The seed does not say (that is the initiative roll of the full rules). The
    scenario or the GM may name the side for each turn (``first_by_turn``);
    otherwise ``first_rule`` decides: "alternate" (the design default: the
    impulses keep alternating, the side after the last mover) or "same".
    """
    turn = state.turn + 1
    names = [side.name for side in state.sides]
    named = state.first_by_turn[turn - 1] if turn <= len(state.first_by_turn) else ""
    if named:
        return names.index(named), f"first_by_turn, {state.first_by_turn_from}"
    if state.first_rule == "same":
        return state.first, f"first_rule same: {FIRST_RULES['same']}"
    return (last + 1) % len(state.sides), FIRST_RULES["alternate"]
