# SPDX-License-Identifier: GPL-3.0-or-later
"""The hour's spine: which sub-step of the game hour is pending, and what each one is.

A Flat Top hour is an ORDERS step owed by both sides (``T{n}.orders``); when AFs declared
attacks it goes on in a CHOICE step owed by the attacking side(s) only (``T{n}.strike``, then
``T{n}.losses`` when the attacker ranks the enemy plane types lost: seed 003, 15 LI 1 and 3);
when TFs met, in the sub-steps of a surface battle owed by both sides, the BHT sealed (seed
003, 19). Which one is pending follows from the saved state alone (:func:`pending`: the
battle under way in ``state.pending``, if any, else the hour's orders); each is a
:class:`Phase` that says what step it is, reads a side's lines, answers for a silent side and
resolves. The plugin
(:mod:`.game`) asks :func:`pending` once for each of these and never tests the state itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Protocol

from mailbot.core.dice import Dice
from mailbot.core.game import Line, Outcome, Parsed, Step, StepKind, refuse_all
from mailbot.games.flattop import view as report
from mailbot.games.flattop.combat.battle import BHT, DEFAULT_PRIORITY, ENGAGE, STRIKE
from mailbot.games.flattop.hour import surface_flow
from mailbot.games.flattop.hour.resolve import resolve_strike, resolve_surface, resolve_turn
from mailbot.games.flattop.hour.sub_phase import sub_rules
from mailbot.games.flattop.hour.surface_flow import DEFAULT_BHT, combatant, engagement
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
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

DEFAULT_ORDERS = ("HOLD",)

Orders = Mapping[str, Sequence[FtOrder]]


class Phase(Protocol):
    """One kind of pending sub-step. ``side`` is always one of the state's seats (the plugin
    refuses the others before asking)."""

    def step(self, state: FlatTopState) -> Step: ...

    def parse(self, state: FlatTopState, side: Side, lines: Sequence[Line]) -> Parsed[FtOrder]: ...

    def defaults(self, state: FlatTopState, side: Side) -> Sequence[str]: ...

    def resolve(self, state: FlatTopState, orders: Orders, dice: Dice) -> Outcome[FlatTopState]: ...


class HourOrders:
    """The hour's ORDERS step, owed by both sides; a night hour after a night hour is quiet
    (:mod:`.quiet`): played at once on the standing orders, so the timing of letters tells nothing."""

    def step(self, state: FlatTopState) -> Step:
        title = report.step_title(state)
        return Step(
            f"T{state.turn}.orders", state.turn, StepKind.ORDERS, frozenset(state.seats), title,
            quiet=quiet_hour(state),
        )  # fmt: skip

    def parse(self, state: FlatTopState, side: Side, lines: Sequence[Line]) -> Parsed[FtOrder]:
        return parse_lines(own_context(state, side), lines)

    def defaults(self, state: FlatTopState, side: Side) -> Sequence[str]:
        return standing_orders(state, side) if quiet_hour(state) else DEFAULT_ORDERS

    def resolve(self, state: FlatTopState, orders: Orders, dice: Dice) -> Outcome[FlatTopState]:
        return resolve_turn(state, orders, dice)


class StrikeChoice:
    """The attacking side's choices in an air battle (seed 003, 15 LI 1: which target each
    AF strikes; LI 3: ranking the enemy plane types lost), owed by the choosers alone; a silent
    side's standing PRIORITY and RANK answer it (design/flattop.md)."""

    def step(self, state: FlatTopState) -> Step:
        battle = state.pending.battle
        assert battle is not None  # pending() chose this phase for it
        kind = "strike" if battle.phase == STRIKE else "losses"
        return Step(
            f"T{state.turn}.{kind}", state.turn, StepKind.CHOICE, battle.choosers(),
            report.step_title(state), duration=timedelta(hours=state.options.strike_hours),
        )  # fmt: skip

    def parse(self, state: FlatTopState, side: Side, lines: Sequence[Line]) -> Parsed[FtOrder]:
        battle = state.pending.battle
        assert battle is not None
        if side.value not in battle.choosers():
            return refuse_all(lines, "nothing is owed by your side in this step")
        planes = tuple(state.rules.planes)
        if battle.phase == STRIKE:
            ctx = StrikeContext(side, battle, {a.number: a for a in state.own_air(side)}, planes)
            return parse_combat(lines, lambda text: read_strike_line(ctx, text))
        return parse_combat(lines, lambda text: read_losses_line(battle, side, planes, text))

    def defaults(self, state: FlatTopState, side: Side) -> Sequence[str]:
        battle = state.pending.battle
        assert battle is not None
        own = state.side(side)
        if battle.phase == STRIKE:
            return (f"PRIORITY {' '.join(own.priority or DEFAULT_PRIORITY)}",)
        return (f"RANK {' '.join(own.ranking)}",) if own.ranking else ()

    def resolve(self, state: FlatTopState, orders: Orders, dice: Dice) -> Outcome[FlatTopState]:
        return resolve_strike(state, orders, dice)


class SurfaceRound:
    """A sub-step of a surface battle (seed 003, 19), owed by both sides; the BHT number is
    sealed, the other choices are plain."""

    def step(self, state: FlatTopState) -> Step:
        fight = state.pending.surface
        assert fight is not None
        sealed = fight.phase == BHT
        kind = StepKind.SEALED if sealed else StepKind.CHOICE
        labels = ("BHT",) if sealed else ()
        hours = timedelta(hours=state.options.strike_hours)
        title = report.step_title(state)
        return Step(fight.key, state.turn, kind, frozenset(state.seats), title, hours, labels)

    def parse(self, state: FlatTopState, side: Side, lines: Sequence[Line]) -> Parsed[FtOrder]:
        ctx = surface_context(state, side)
        return parse_combat(lines, lambda text: read_surface_line(ctx, text))

    def defaults(self, state: FlatTopState, side: Side) -> Sequence[str]:
        """A silent side: its standing SURFACE policy, the default BHT number; the fire defaults
        are the flow's (``combat.surface_flow``: ships without a line fire by the default allocation)."""
        fight = state.pending.surface
        assert fight is not None
        if fight.phase == ENGAGE:
            return ("ENGAGE" if state.side(side).engage else "AVOID",)
        if fight.phase == BHT:
            return (f"BHT {DEFAULT_BHT}",)
        return ()

    def resolve(self, state: FlatTopState, orders: Orders, dice: Dice) -> Outcome[FlatTopState]:
        return resolve_surface(state, orders, dice)


HOUR, STRIKE_CHOICE, SURFACE_ROUND = HourOrders(), StrikeChoice(), SurfaceRound()


def pending(state: FlatTopState) -> Phase:
    """The sub-step the game waits for: a surface battle under way, else an air battle's
    choices, else the hour's orders (a surface battle is fought out before the hour goes on)."""
    if state.pending.surface is not None:
        return SURFACE_ROUND
    if state.pending.battle is not None:
        return STRIKE_CHOICE
    return HOUR


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
        submarines=sub_rules(state) if state.options.submarines else None,  # seed 003, 27: a game option
        wind_variant=state.options.launch_wind == "variant",  # the game option launch_wind (6.10)
    )


def surface_context(state: FlatTopState, side: Side) -> SurfaceContext:
    """What a side may name in a surface sub-step: its own ships there, the enemy's numbers."""
    fight = state.pending.surface
    assert fight is not None
    own = combatant(state, fight, side)
    enemy = () if fight.phase == ENGAGE else tuple(engagement(state, fight).enemy(side).numbers.values())
    names = {s.name.upper().replace(" ", "-"): s.name for s in own.afloat}
    return SurfaceContext(fight.phase, names, enemy, surface_flow.silent_ships(state, fight, side))
