# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm with the "linear time" rule (seed 000): the moderator runs the campaign timeline.

How steps map to examinations: the moderator examines convoys one after
another with no input from anyone until one is selected; then one step opens
("C7.play") in which every seat reports what it played and discarded for
that convoy. Resolving the step gives up those cards, examines the
following convoys up to the next selected one, fills the hands to that
convoy's size, and opens the next step. So a step is "one selected convoy",
and holds the examinations of every unselected convoy before the next one.
The examinations up to the first selected convoy happen in ``new_game``,
which cannot return events: the sheet and the hands are in the state, and
the opening report (``view`` with no events) shows both.

The convoy battle itself (suit selection, the tricks) is played by the
players as in the boxed game; the moderator keeps the time line and the deck.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from mailbot.core.defaults import read_defaults
from mailbot.core.dice import Dice
from mailbot.core.game import Event, Line, Outcome, Parsed, Setup, Step, StepKind, refuse_all
from mailbot.core.options import GameOption
from mailbot.errors import GameError
from mailbot.games.atlantic_storm import view as report
from mailbot.games.atlantic_storm.deck import (
    deal,
    deck_is_default,
    first_draw_pile,
    give_up,
    read_parts,
    replace_draw_pile,
)
from mailbot.games.atlantic_storm.orders import Discard, Play, StormOrder, parse_lines
from mailbot.games.atlantic_storm.state import PlayRecord, StormState, dump_state, load_state
from mailbot.games.atlantic_storm.timeline import (
    CONVOYS,
    DICE,
    SELECTS_FROM,
    SIDES,
    columns_after,
    hand_size,
    modifier,
    sheet_row,
    year_of,
)

RULE_SIMPLE = "seed 000, linear time: 3d6, 3 to 10 selects the convoy"
RULE_ENHANCED = "seed 000, enhanced selection algorithm: 3d6 + DR modif, 3 to 10 selects"
DEFAULT_SEATS = ("P1", "P2", "P3", "P4")
#: "2p" to "6p": the linear time rule for that many players (the others seat four)
PLAYER_SCENARIOS = tuple(f"{n}p" for n in range(2, 7))
#: "enhanced" turns the enhanced selection algorithm on unless the option says otherwise
SCENARIOS = ("standard", "enhanced", *PLAYER_SCENARIOS)


def scenario_key(scenario: str) -> str:
    """The scenario as this game knows it. An unknown name is refused: played as the standard
    game under the GM's name, a typo ("7p", "enhaced") would silently change who plays and how.
    Case is folded as in game names (and Salt'n'Tar's scenarios): "Enhanced" is "enhanced"."""
    key = scenario.strip().lower()
    if key not in SCENARIOS:
        raise GameError(f"no Atlantic Storm scenario {scenario!r}; known: {', '.join(SCENARIOS)}")
    return key


class AtlanticStormGame:
    """The :class:`mailbot.core.game.Game` plugin for Atlantic Storm's linear time rule."""

    name: ClassVar[str] = "atlantic-storm"
    aliases: ClassVar[tuple[str, ...]] = ("atlantic", "linear-time")
    title: ClassVar[str] = "Atlantic Storm: linear time"
    hidden_information: ClassVar[bool] = True  # hands are private; the deck order comes from the dice
    options: ClassVar[tuple[GameOption, ...]] = (
        GameOption("enhanced", "the enhanced rules (default: on for the enhanced scenario)", bool),
    )

    def seats(self, scenario: str, data: Mapping[str, Any]) -> tuple[str, ...]:
        """Four players unless the data lists seats or the scenario is "2p" to "6p"."""
        key = scenario_key(scenario)
        if "seats" in data:
            return tuple(str(seat) for seat in data["seats"])
        if key in PLAYER_SCENARIOS:
            return tuple(f"P{n}" for n in range(1, int(key.removesuffix("p")) + 1))
        return DEFAULT_SEATS

    def new_game(self, setup: Setup, *, dice: Dice) -> StormState:
        key = scenario_key(setup.scenario)
        if len(setup.seats) < 2 or len(set(setup.seats)) != len(setup.seats):
            raise GameError("Atlantic Storm needs two or more distinct seats")
        enhanced = bool(setup.options.get("enhanced", key == "enhanced"))
        parts = read_parts(setup.data)
        defaults = read_defaults(setup.data.get("defaults", {}), "Atlantic Storm data")
        if not deck_is_default(setup.data):
            defaults = tuple(entry for entry in defaults if entry.key != "deck")
        state = StormState(
            tuple(setup.seats), enhanced, parts, first_draw_pile(parts, dice), defaults=defaults
        )
        opened, _events = _advance(state, dice)  # see the module docstring: shown by view instead
        return opened

    def step(self, state: StormState) -> Step | None:
        if state.finished:
            return None
        return Step(
            key=f"C{state.current}.play",
            turn=state.current,
            kind=StepKind.ORDERS,
            owing=frozenset(state.seats),
            title=f"{report.convoy_label(state.current)} is selected: report your plays",
        )

    def parse(self, state: StormState, seat: str, lines: Sequence[Line]) -> Parsed[StormOrder]:
        if state.finished:
            return refuse_all(lines, "the timeline is done: no convoy is being played")
        if seat not in state.seats:
            return refuse_all(lines, "you hold no seat in this game")
        return parse_lines(lines, state.piles.hand(seat))

    def default_orders(self, state: StormState, seat: str) -> Sequence[str]:
        return ("PASS",)

    def resolve(
        self, state: StormState, orders: Mapping[str, Sequence[StormOrder]], *, dice: Dice
    ) -> Outcome[StormState]:
        if state.finished:
            return Outcome(state, (), True, state.result())
        events: list[Event] = []
        for seat in state.seats:
            state = _report_plays(state, seat, orders.get(seat, ()), events)
        passed = [seat for seat in state.seats if not _gave_up(state, seat)]
        if passed:
            events.insert(0, report.pass_event(passed, state.current, state.cite("silence")))
        state, more = _advance(state, dice)
        events.extend(more)
        return Outcome(state, tuple(events), state.finished, state.result() if state.finished else "")

    def view(self, state: StormState, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        help_lines = self.order_help(state, seat) if seat else ["The referee sends no orders."]
        return report.build_view(self.title, state, events, seat, help_lines)

    def order_help(self, state: StormState, seat: str) -> Sequence[str]:
        return report.order_help(state, seat)

    def turn_label(self, turn: int) -> str:
        """A step's turn is its selected convoy (``core.game.Labelled``): "Convoy C4 (1940)"."""
        return report.convoy_label(turn)

    def dump(self, state: StormState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> StormState:
        return load_state(data)


def _gave_up(state: StormState, seat: str) -> bool:
    """Whether ``seat`` played or discarded anything for the convoy being played."""
    return any(
        r.convoy == state.current and r.seat == seat and (r.played or r.discarded) for r in state.plays
    )


def _report_plays(
    state: StormState, seat: str, orders: Sequence[StormOrder], events: list[Event]
) -> StormState:
    hand = state.piles.hand(seat)
    # Orders were parsed against this very hand; the filter only guards a hand-made call.
    played = tuple(o.card for o in orders if isinstance(o, Play) and o.card in hand)
    discarded = tuple(o.card for o in orders if isinstance(o, Discard) and o.card in hand)
    events.extend(report.play_events(seat, played, discarded))
    record = PlayRecord(state.current, seat, played, discarded)
    piles = give_up(state.piles, seat, (*played, *discarded))
    return replace(state, piles=piles, plays=(*state.plays, record))


def _examine(state: StormState, convoy: int, dice: Dice) -> tuple[StormState, list[Event]]:
    """One row of the sheet, after the draw pile is replaced if this convoy starts a year."""
    events = []
    year = year_of(convoy)
    if convoy == year.first and convoy > 1:
        # seed 000: "When convoy C5 is examined and perhaps selected, the 1941-1943 deck
        # part is shuffled together with half of the unplayed and discarded 1940-1943 cards"
        part = next(part for part in state.parts if part.year == year.year)
        piles, replaced = replace_draw_pile(state.piles, part, convoy, dice)
        state = replace(state, piles=piles)
        notes = [state.cite("hands_kept"), state.cite("played_discarded")]
        notes += [state.cite("odd_half")] if replaced.pool % 2 else []
        events.append(report.replacement_event(replaced, len(piles.draw), notes))
    balance, remaining = columns_after(state.sheet)
    change = modifier(balance, remaining) if state.enhanced else 0
    mods = {f"DR modif {4 * balance}/{remaining}": change} if state.enhanced else None
    rule = RULE_ENHANCED if state.enhanced else RULE_SIMPLE
    roll = dice.roll(f"convoy/C{convoy}", SIDES, DICE, rule=rule, modifiers=mods)
    row = sheet_row(balance, remaining, sum(roll.faces), enhanced=state.enhanced)
    state = replace(state, sheet=(*state.sheet, row))
    below = row.selected and row.modified < SELECTS_FROM
    note = state.cite("below_three") if below else ""
    events.append(report.examination_event(row, state.enhanced, roll.faces, note))
    return state, events


def _advance(state: StormState, dice: Dice) -> tuple[StormState, list[Event]]:
    """Examine convoys until one is selected (then deal and open its step) or all forty are done."""
    events: list[Event] = []
    while state.next_convoy <= CONVOYS:
        convoy = state.next_convoy
        state, more = _examine(state, convoy, dice)
        events.extend(more)
        if state.sheet[-1].selected:
            size = hand_size(convoy)
            piles, dealt = deal(state.piles, state.seats, size, convoy, dice)
            notes = (state.cite("reshuffle"), state.cite("deal"))
            events.extend(report.deal_events(state.seats, dealt, piles, size, convoy, notes=notes))
            return replace(state, piles=piles, current=convoy), events
    finished = replace(state, current=0)
    events.append(Event("game-over", finished.result()))
    return finished, events
