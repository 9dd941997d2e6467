# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top as a :class:`mailbot.core.game.Game` plugin ("Flat Top I": map, movement,
search and condition reports by e-mail; air combat and victory; rules modules: see
:mod:`mailbot.games.flattop`).

One ORDERS step per game hour (``T{n}.orders``), owed by both sides; the
grammar is in :mod:`orders.parse`, the turn in :mod:`resolve`, the reports in
:mod:`view`. A side that sends nothing plays ``HOLD``: its TFs keep their
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
import json
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, ClassVar

from mailbot.core.dice import Dice
from mailbot.core.game import Event, Line, Outcome, Parsed, Setup, Step, StepKind, refuse_all
from mailbot.core.options import GameOption
from mailbot.errors import GameError
from mailbot.games.flattop import view as report
from mailbot.games.flattop.combat import surface_flow
from mailbot.games.flattop.combat.battle import BHT, DEFAULT_PRIORITY, ENGAGE, STRIKE
from mailbot.games.flattop.combat.crt import DEFAULT_TABLE, TABLES
from mailbot.games.flattop.combat.sub_phase import sub_rules
from mailbot.games.flattop.combat.surface_flow import DEFAULT_BHT, combatant, engagement
from mailbot.games.flattop.map.scenario import require_scenario
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.orders.checks import Own, place_key
from mailbot.games.flattop.orders.combat import (
    StrikeContext,
    parse_combat,
    read_losses_line,
    read_strike_line,
)
from mailbot.games.flattop.orders.parse import parse_lines
from mailbot.games.flattop.orders.surface import SurfaceContext, read_surface_line
from mailbot.games.flattop.orders.types import FtOrder
from mailbot.games.flattop.quiet import quiet_hour, standing_orders
from mailbot.games.flattop.resolve import resolve_strike, resolve_surface, resolve_turn
from mailbot.games.flattop.state import (
    FlatTopState,
    dump_state,
    load_state,
    new_state,
    scenario_sides,
)
from mailbot.games.flattop.units import Side

DEFAULT_ORDERS = ("HOLD",)


def scenario_data(name: str, data: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The raw scenario ``name`` and the tables from ``Setup.data`` (the parsed config tree)."""
    scenarios, tables = data.get("scenarios", {}), data.get("tables", {})
    if name not in scenarios:
        raise GameError(f"no Flat Top scenario {name!r} (known: {', '.join(sorted(scenarios)) or 'none'})")
    return scenarios[name], tables


def own_context(state: FlatTopState, side: Side) -> Own:
    """What a side's orders are checked against: its own units and knowledge, the public board."""
    return Own(
        side=side,
        scenario=state.scenario,
        rules=state.rules.movement,
        planes=state.rules.planes,
        tfs={tf.number: tf for tf in state.own_tfs(side)},
        bases={place_key(b.name): b for b in state.own_bases(side)},
        air={af.number: af for af in state.own_air(side)},
        knowledge=state.side(side).knowledge,
        storms=storm_hexes(state.weather, state.rules.weather),
        time=state.time,
        turn=state.turn,
        winds={w.sector: w.direction for w in state.weather.winds},  # public: the wind markers
        towed=frozenset(p.towed for p in state.tows),
        towers=frozenset(p.tower for p in state.tows),
        submarines=sub_rules(state) if state.submarines else None,  # seed 003, 27: a game option
    )


def surface_context(state: FlatTopState, side: Side) -> SurfaceContext:
    """What a side may name in a surface sub-step: its own ships there, the enemy's numbers."""
    fight = state.surface
    assert fight is not None
    own = combatant(state, fight, side)
    enemy = () if fight.phase == ENGAGE else tuple(engagement(state, fight).enemy(side).numbers.values())
    names = {s.name.upper().replace(" ", "-"): s.name for s in own.afloat}
    return SurfaceContext(fight.phase, names, enemy, surface_flow.silent_ships(state, fight, side))


def surface_defaults(state: FlatTopState, seat: str) -> tuple[str, ...]:
    """A silent side: its standing SURFACE policy, the default BHT number; the fire defaults are
    the flow's (``combat.surface_flow``: ships without a line fire by the default allocation)."""
    fight = state.surface
    if fight is None or seat not in state.seats:
        return ()
    if fight.phase == ENGAGE:
        return ("ENGAGE" if state.side(Side(seat)).engage else "AVOID",)
    if fight.phase == BHT:
        return (f"BHT {DEFAULT_BHT}",)
    return ()


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
            text = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):  # not a saved form at all: load it the long way
            return None
        digest = hashlib.sha256(text.encode("utf-8")).digest()
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
        return new_state(raw, tables, dice, options)

    def step(self, state: FlatTopState) -> Step | None:
        if state.finished:
            return None
        if state.surface is not None:
            # Seed 003, 19: every sub-step of a surface battle is owed by both sides (the BHT sealed).
            sealed = state.surface.phase == BHT
            step_kind = StepKind.SEALED if sealed else StepKind.CHOICE
            hours = timedelta(hours=state.strike_hours)
            labels = ("BHT",) if sealed else ()
            title = report.step_title(state)
            return Step(
                state.surface.key, state.turn, step_kind, frozenset(state.seats), title, hours, labels
            )
        if state.battle is not None:
            # Seed 003, 15 LI 1 and 3: a short sub-step addressed to the attacking side only.
            kind = "strike" if state.battle.phase == STRIKE else "losses"
            return Step(
                f"T{state.turn}.{kind}", state.turn, StepKind.CHOICE, state.battle.choosers(),
                report.step_title(state), duration=timedelta(hours=state.strike_hours),
            )  # fmt: skip
        owing = frozenset(state.seats)
        title = report.step_title(state)
        return Step(
            f"T{state.turn}.orders", state.turn, StepKind.ORDERS, owing, title, quiet=quiet_hour(state)
        )

    def parse(self, state: FlatTopState, seat: str, lines: Sequence[Line]) -> Parsed[FtOrder]:
        if state.finished:
            return refuse_all(lines, "the game is over")
        if seat not in state.seats:
            return refuse_all(lines, f"{seat!r} is not a side in this game ({', '.join(state.seats)})")
        if state.surface is not None:
            ctx = surface_context(state, Side(seat))
            return parse_combat(lines, lambda text: read_surface_line(ctx, text))
        if state.battle is not None:
            return self._parse_choice(state, Side(seat), lines)
        return parse_lines(own_context(state, Side(seat)), lines)

    @staticmethod
    def _parse_choice(state: FlatTopState, side: Side, lines: Sequence[Line]) -> Parsed[FtOrder]:
        battle = state.battle
        assert battle is not None
        if side.value not in battle.choosers():
            return refuse_all(lines, "nothing is owed by your side in this step")
        planes = tuple(state.rules.planes)
        if battle.phase == STRIKE:
            ctx = StrikeContext(side, battle, {a.number: a for a in state.own_air(side)}, planes)
            return parse_combat(lines, lambda text: read_strike_line(ctx, text))
        return parse_combat(lines, lambda text: read_losses_line(battle, side, planes, text))

    def default_orders(self, state: FlatTopState, seat: str) -> Sequence[str]:
        if state.finished:
            return ()
        if state.surface is not None:
            return surface_defaults(state, seat)
        if state.battle is not None:
            # The standing PRIORITY / RANK answer the sub-step (design/flattop.md); none: the defaults.
            own = state.side(Side(seat)) if seat in state.seats else None
            if own is None:
                return ()
            if state.battle.phase == STRIKE:
                return (f"PRIORITY {' '.join(own.priority or DEFAULT_PRIORITY)}",)
            return (f"RANK {' '.join(own.ranking)}",) if own.ranking else ()
        if quiet_hour(state) and seat in state.seats:
            return standing_orders(state, Side(seat))
        return DEFAULT_ORDERS

    def resolve(
        self, state: FlatTopState, orders: Mapping[str, Sequence[FtOrder]], *, dice: Dice
    ) -> Outcome[FlatTopState]:
        if state.finished:
            return Outcome(state, (), True, state.result)
        if state.surface is not None:
            return resolve_surface(state, orders, dice)
        if state.battle is not None:
            return resolve_strike(state, orders, dice)
        return resolve_turn(state, orders, dice)

    def view(self, state: FlatTopState, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        return report.build_view(self.title, state, events, seat, self.order_help(state, seat or ""))

    def order_help(self, state: FlatTopState, seat: str) -> Sequence[str]:
        return report.order_help(state, seat)

    def tallies(self, state: FlatTopState) -> Mapping[str, int]:
        """Battles fought (``core.game.Tallied``): air strikes and interceptions, surface battles."""
        subs = {"submarine": state.sub_battles} if state.submarines else {}  # seed 003, 27 is optional
        return {"air": state.air_battles, "surface": state.surface_battles, **subs}

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
