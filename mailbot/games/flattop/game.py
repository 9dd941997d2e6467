# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top as a :class:`mailbot.core.game.Game` plugin ("Flat Top I": map, movement,
search and condition reports by e-mail; air combat and victory; rules modules: see
:mod:`mailbot.games.flattop`).

One ORDERS step per game hour (``T{n}.orders``), owed by both sides, and the
sub-steps of its battles: which is pending, and what each owes, reads and resolves, is
:mod:`phases` (the hour's spine); the grammar is in :mod:`orders.parse`, the turn in
:mod:`resolve`, the reports in :mod:`view`. A side that sends nothing plays ``HOLD``: its TFs keep their
plots (seed 003 lets plots run several turns ahead), its AFs aloft hold
their hexes, and no new flight starts.

When AFs declared attacks, the hour continues in a CHOICE step ``T{n}.strike``
owed by the attacking side(s) only (seed 003, 15 LI 1; :mod:`combat`), and, when
the attacker must rank the enemy plane types lost, ``T{n}.losses`` (15 LI 3).
A silent side's standing PRIORITY and RANK answer them (the default priority is
``combat.battle.DEFAULT_PRIORITY``).

Quiet hours (:mod:`quiet`): a night hour after a night hour is a ``quiet``
step, judged by the clock alone so that the timing of letters reveals
nothing; the moderator plays it at once on the standing orders
(:func:`quiet.standing_orders`: HOLD, and AFs aloft fly home and land).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import orjson

from mailbot.core.dice import Dice
from mailbot.core.game import Event, Line, Outcome, Parsed, Setup, Step, refuse_all
from mailbot.core.options import GameOption
from mailbot.errors import GameError
from mailbot.games.flattop import view as report
from mailbot.games.flattop.combat.crt import DEFAULT_TABLE, TABLES
from mailbot.games.flattop.hour.phases import pending
from mailbot.games.flattop.map.scenario import require_scenario
from mailbot.games.flattop.orders.decks import LAUNCH_WIND
from mailbot.games.flattop.orders.types import FtOrder
from mailbot.games.flattop.state import (
    FlatTopState,
    dump_state,
    load_state,
    new_state,
    scenario_sides,
)
from mailbot.games.flattop.units import Side
from mailbot.games.flattop.victory import totals


def scenario_data(name: str, data: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The raw scenario ``name`` and the tables from ``Setup.data`` (the parsed config tree)."""
    scenarios, tables = data.get("scenarios", {}), data.get("tables", {})
    if name not in scenarios:
        raise GameError(f"no Flat Top scenario {name!r} (known: {', '.join(sorted(scenarios)) or 'none'})")
    return scenarios[name], tables


class SavedStates:
    """The last few states this plugin dumped or loaded, found again by their saved form.

    One step's work hands the same saved state to ``load`` several times (resolving, the
    next step, the reports, each letter's orders), and the one ``dump`` just wrote comes
    back from the database as the next step's snapshot; reading a ~50 kB state costs
    milliseconds each time. A saved form is known by its content (a digest of its canonical
    JSON, which is cheaper than reading it), so a state found here is the one ``load`` would
    build; the same dict object is known at once by its identity (kept alive here, so the
    id is not reused; the moderator never changes a saved state in place). States are
    immutable. Each step touches one dict operation at a time (atomic), so threads that
    share the plugin can at worst miss; a full shelf is emptied, not sorted.
    """

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._states: dict[bytes, FlatTopState] = {}
        self._digests: dict[int, tuple[Mapping[str, Any], bytes]] = {}

    def find(self, data: Mapping[str, Any]) -> FlatTopState | None:
        digest = self._digest(data)
        return None if digest is None else self._states.get(digest)

    def keep(self, data: Mapping[str, Any], state: FlatTopState) -> None:
        digest = self._digest(data)
        if digest is None:
            return
        if len(self._states) >= self._size:
            self._states.clear()
        self._states[digest] = state

    def _digest(self, data: Mapping[str, Any]) -> bytes | None:
        known = self._digests.get(id(data))
        if known is not None and known[0] is data:
            return known[1]
        try:
            # orjson: a tenth of ``json``'s time for a 50 kB state, several times a step. It
            # writes a NaN as null, as the store keeps it; it refuses keys that are not strings
            # and integers over 64 bits, which are then loaded the long way.
            text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # not a saved form at all: load it the long way
            return None
        digest = hashlib.sha256(text).digest()
        if len(self._digests) >= self._size * 4:
            self._digests.clear()
        self._digests[id(data)] = (data, digest)
        return digest


class FlatTopGame:
    """Carrier battle in the Coral Sea and the Solomons, moderated (seed 003)."""

    name: ClassVar[str] = "flattop"
    aliases: ClassVar[tuple[str, ...]] = ("flat-top", "ft")
    title: ClassVar[str] = "Flat Top"
    hidden_information: ClassVar[bool] = True
    options: ClassVar[tuple[GameOption, ...]] = (
        GameOption("submarines", "submarine rules (seed 003, 27: optional)", bool),
        GameOption("crt", "the combat results table", str, DEFAULT_TABLE, choices=TABLES),
        GameOption("strike_hours", "hours for each sub-step of a surface battle", int, 12, low=1, high=168),
        GameOption(
            "launch_wind",
            "a carrier launching or landing past its Minimum LF: standard 6.10 turns it one hex into "
            "the wind; variant (reference A.4, [RW]) lets it move only 0 or 1 hex, into the wind",
            str,
            "standard",
            choices=LAUNCH_WIND,
        ),
    )

    def __init__(self) -> None:
        self._saved = SavedStates()

    def seats(self, scenario: str, data: Mapping[str, Any]) -> tuple[str, ...]:
        raw, tables = scenario_data(scenario, data)
        return tuple(side.value for side in scenario_sides(require_scenario(raw, tables)))

    def new_game(self, setup: Setup, *, dice: Dice) -> FlatTopState:
        raw, tables = scenario_data(setup.scenario, setup.data)
        # A scenario may set its own option defaults ([options], e.g. submarines); the game's win.
        options = {**raw.get("options", {}), **setup.options}
        if str(options.get("crt", DEFAULT_TABLE)) not in TABLES:
            raise GameError(f"option crt must be one of {', '.join(TABLES)}")
        if str(options.get("launch_wind", "standard")) not in LAUNCH_WIND:
            raise GameError(f"option launch_wind must be one of {', '.join(LAUNCH_WIND)}")
        return new_state(raw, tables, dice, options)

    def step(self, state: FlatTopState) -> Step | None:
        return None if state.score.finished else pending(state).step(state)

    def parse(self, state: FlatTopState, seat: str, lines: Sequence[Line]) -> Parsed[FtOrder]:
        if state.score.finished:
            return refuse_all(lines, "the game is over")
        if seat not in state.seats:
            return refuse_all(lines, f"{seat!r} is not a side in this game ({', '.join(state.seats)})")
        return pending(state).parse(state, Side(seat), lines)

    def default_orders(self, state: FlatTopState, seat: str) -> Sequence[str]:
        # Asked for owing seats only; anyone else owes nothing.
        if state.score.finished or seat not in state.seats:
            return ()
        return pending(state).defaults(state, Side(seat))

    def resolve(
        self, state: FlatTopState, orders: Mapping[str, Sequence[FtOrder]], *, dice: Dice
    ) -> Outcome[FlatTopState]:
        if state.score.finished:
            return Outcome(state, (), True, state.score.result)
        return pending(state).resolve(state, orders, dice)

    def view(self, state: FlatTopState, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        return report.build_view(self.title, state, events, seat, self.order_help(state, seat or ""))

    def order_help(self, state: FlatTopState, seat: str) -> Sequence[str]:
        return report.order_help(state, seat)

    def tallies(self, state: FlatTopState) -> Mapping[str, int]:
        """Battles fought (``core.game.Tallied``): air strikes and interceptions, surface battles."""
        score = state.score
        subs = (
            {"submarine": score.sub_battles} if state.options.submarines else {}
        )  # seed 003, 27 is optional
        return {"air": score.air_battles, "surface": score.surface_battles, **subs}

    def standing(self, state: FlatTopState) -> Sequence[str]:
        """The victory points when a concession or a draw ends the game (``core.game.Scored``):
        the totals the last report gives at the rules' own end (standard 25)."""
        scores = ", ".join(f"{side.value} {points}" for side, points in totals(state.score.ledger).items())
        return [f"Victory points when the game ended: {scores}."]

    def dump(self, state: FlatTopState) -> dict[str, Any]:
        data = dump_state(state)
        self._saved.keep(data, state)
        return data

    def load(self, data: Mapping[str, Any]) -> FlatTopState:
        state = self._saved.find(data)
        if state is None:
            state = load_state(data)
            self._saved.keep(data, state)
        return state
