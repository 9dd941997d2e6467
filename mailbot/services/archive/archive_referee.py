# SPDX-License-Identifier: GPL-3.0-or-later
"""The referee's whole view of each step, for the archive of a game that has ended.

The referee's view is not stored: the GM gets no report per step (no ``Report``
row with seat ""). It is re-derived instead, the way ``Turns.compute`` made it:
the state the step opened on, every seat's stored orders (the defaults
included), and the dice stream keyed by the revealed seed, the players'
entropy and the orders digest. The plugin's ``view(state, events, None)`` is
then rendered with the game's own report template. A step whose replay does
not give the stored orders digest and the very rolls logged (the rules changed
since it was played) is not shown as the referee's view; its rolls still are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core import lifecycle
from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Line, Outcome
from mailbot.errors import MailbotError
from mailbot.registry import AnyGame
from mailbot.render.archive_pages import RefereeView
from mailbot.render.templates import Renderer
from mailbot.services.base import dicechain, queries
from mailbot.store.game_tables import Game, RollRow, StepRow, row_id

NOT_REPLAYED = (
    "The referee's view of this step could not be derived again from the stored orders and dice "
    "(the rules may have changed since it was played); the rolls below are as they were logged."
)


def referee_views(
    session: Session, game: Game, steps: Sequence[StepRow], renderer: Renderer
) -> dict[int, RefereeView]:
    """The referee's view of every played step, by step id (the set-up: the starting position)."""
    plugin = queries.plugin(game)
    views: dict[int, RefereeView] = {}
    first = next((s for s in steps if s.key != "setup"), None)
    for step in steps:
        if step.key == "setup":
            views[row_id(step)] = _starting(game, plugin, first, renderer)
        elif step.closed_at is not None and step.orders_digest:
            views[row_id(step)] = _played(session, game, plugin, step, renderer)
    return views


def _render(game: Game, renderer: Renderer, model: Any, note: str) -> RefereeView:
    rendered = renderer.render(f"{game.plugin}/report", {"r": model})
    return RefereeView(text=rendered.text, html=rendered.html, note=note)


def _starting(game: Game, plugin: AnyGame, first: StepRow | None, renderer: Renderer) -> RefereeView:
    if first is None:
        return RefereeView(note="The game never started: there is no starting position.")
    state = plugin.load(first.snapshot)
    return _render(game, renderer, plugin.view(state, (), None), "The position after the set-up rolls.")


def _played(session: Session, game: Game, plugin: AnyGame, step: StepRow, renderer: Renderer) -> RefereeView:
    try:
        outcome = replay(session, plugin, step)
    except MailbotError:  # a state the plugin no longer loads: the logged rolls stand alone
        outcome = None
    if outcome is None:
        return RefereeView(note=NOT_REPLAYED)
    view = plugin.view(outcome.state, outcome.events, None)
    return _render(game, renderer, view, "Derived again from the stored orders and the revealed dice.")


def replay(session: Session, plugin: AnyGame, step: StepRow) -> Outcome[Any] | None:
    """Resolve a played step again; None when it does not give the logged digest and rolls."""
    state = plugin.load(step.snapshot)
    held = {seat: row.lines for seat, row in queries.current_orders(session, row_id(step)).items()}
    filled = lifecycle.fill_defaults(step.owing, held, lambda seat: plugin.default_orders(state, seat))
    digest = order_digest(filled.orders)
    if digest != step.orders_digest:
        return None
    inputs = dicechain.step_dice(session, step, lambda: queries.step_entropy(session, step))
    dice = DiceStream(bytes.fromhex(step.seed), inputs.digest_for_dice(digest), step.key, inputs.entropy)
    parsed = {
        seat: plugin.parse(state, seat, [Line(n, text) for n, text in enumerate(lines, 1)]).orders
        for seat, lines in filled.orders.items()
    }
    outcome = plugin.resolve(state, parsed, dice=dice)
    logged = session.exec(select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position)))
    if [roll.as_dict() for roll in dice.log] != [row.data for row in logged]:
        return None
    return outcome
