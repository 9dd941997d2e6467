# SPDX-License-Identifier: GPL-3.0-or-later
"""The Salt'n'Tar plugin: the ``Game`` contract over the rules modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from mailbot.core.dice import Dice
from mailbot.core.game import OBSERVERS, Event, Line, Outcome, Parsed, Setup, Step, StepKind, public_events
from mailbot.core.options import GameOption
from mailbot.games.saltntar import combat
from mailbot.games.saltntar.orders import Order, parse_orders
from mailbot.games.saltntar.resolve import resolve_turn
from mailbot.games.saltntar.scenario import build_state, scenario_data, scenario_seats, wind_is_set
from mailbot.games.saltntar.state import CLOSE, FIRE, OPENING, State, dump_state, load_state
from mailbot.games.saltntar.view import build_view, order_help
from mailbot.games.saltntar.wind import wind_roll, wind_text

_TITLES = {
    OPENING: "orders",
    FIRE: "missiles, spells and second half move",
    CLOSE: "ramming, boarding and results",
}


class SaltNTarGame:
    """Sailing races and chases after seed 001, moderated by e-mail."""

    name: ClassVar[str] = "salt-n-tar"
    aliases: ClassVar[tuple[str, ...]] = ("saltntar", "salt'n'tar", "salt-and-tar", "sailing", "regatta")
    title: ClassVar[str] = "Salt'n'Tar"
    hidden_information: ClassVar[bool] = False
    options: ClassVar[tuple[GameOption, ...]] = (
        GameOption("combat", "ships may fight", bool),
        GameOption("inches_per_cell", "inches of the rules to one cell", int, low=1),
        GameOption("turn_limit", "turns before the race ends (0: none)", int),
        GameOption("catch_within", "cells within which a chaser catches", int),
        GameOption("escape_after", "turns out of reach after which a chased ship escapes (0: never)", int),
        GameOption("wind_direction", "the first wind direction, a point of the grid (default: rolled)"),
        GameOption(
            "wind_speed",
            "the first wind speed, as on the Initial Wind Speed table (default: rolled)",
            int,
            low=1,
            high=3,
        ),
        GameOption("strain_recovery", "when Strain eases", str, choices=("none", "reefed", "any")),
    )

    def seats(self, scenario: str, data: Mapping[str, Any]) -> tuple[str, ...]:
        return scenario_seats(scenario_data(scenario, data))

    def new_game(self, setup: Setup, *, dice: Dice) -> State:
        state = build_state(setup, dice)
        if wind_is_set(scenario_data(setup.scenario, setup.data), setup.options):
            # Turn 1's Wind Roll would replace a set wind at once (a speed on 2 to 5, a new
            # direction on 1 or 6), so a set wind is the first turn's; the Wind Roll comes from turn 2.
            set_note = f"set for the game: the first Wind Roll is turn 2's ({state.rules.cite('set_wind')})"
            state.wind.note = "; ".join(note for note in (state.wind.note, set_note) if note)
            return state
        initial = state.wind.note
        wind_roll(state, dice)  # turn 1 opens with its Wind Roll like every other
        state.wind.note = f"{initial}; {state.wind.note}" if initial else state.wind.note
        return state

    def step(self, state: State) -> Step | None:
        if state.finished:
            return None
        owing = frozenset(ship.seat for ship in state.ships if ship.afloat)
        phase = state.phase or OPENING
        title = f"Turn {state.turn} {_TITLES[phase]}: {wind_text(state)}"
        return Step(f"T{state.turn}.{phase}", state.turn, StepKind.ORDERS, owing, title)

    def parse(self, state: State, seat: str, lines: Sequence[Line]) -> Parsed[Order]:
        return parse_orders(state, seat, lines)

    def default_orders(self, state: State, seat: str) -> Sequence[str]:
        # Silence holds course: no turn, no luck die, no maneuver.
        return ()

    def resolve(self, state: State, orders: Mapping[str, Sequence[Order]], *, dice: Dice) -> Outcome[State]:
        if state.finished:
            return Outcome(state, (), True, state.result)
        if state.phase == FIRE:
            return combat.missiles(state, orders, dice)
        if state.phase == CLOSE:
            return combat.closing(state, orders, dice)
        if state.phase == OPENING:
            return combat.opening(state, orders, dice)
        return resolve_turn(state, orders, dice)

    def view(self, state: State, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        return build_view(state, events, seat)

    def public_view(self, state: State, events: Sequence[Event]) -> Mapping[str, Any]:
        """What observers read (``core.game.Spectated``): every ship is in plain sight, so a seat's
        report less its cards and order template, and its map."""
        return {**build_view(state, public_events(events), OBSERVERS), "help": []}

    def order_help(self, state: State, seat: str) -> Sequence[str]:
        return order_help(state, seat)

    def dump(self, state: State) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return load_state(data)
