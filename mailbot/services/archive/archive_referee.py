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

import hashlib
import html
import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
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

#: the shortest section of a referee's view worth showing once for the game, a link in its place
ONCE = 1000
#: the shortest section of a referee's view worth leaving to the letter that shows it too
IN_LETTER = 400
_SECTION = re.compile(r"(?=<h3[\s>])")
_HEADING = re.compile(r"<h3[^<>]*>.*?</h3>", re.DOTALL)
#: what a letter's page adds to the game's HTML: a style attribute's rule named
#: (``archive_html``), a table's body as the sender's CSS inliner writes it
_PRESENTED = re.compile(r' data-style="[0-9a-f]{8}"|</?tbody>')

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


def shown_once(
    views: Mapping[int, RefereeView], pages: Mapping[int, str], titles: Mapping[int, str]
) -> dict[int, RefereeView]:
    """``views`` (in step order) with each section of their HTML (an ``<h3>`` heading and what
    follows it up to the next) that an earlier view holds the same shown there only: the later
    ones keep the heading and say where it is (a Flat Top view's order grammar, the same at
    every step, and its victory points between two losses: 0.54 MB of a whole game's referee
    pages). ``pages`` and ``titles``: each view's page, from the site's root, and step title."""
    split = {key: _SECTION.split(view.html) for key, view in views.items() if view.html and key in pages}
    counts = Counter(section for sections in split.values() for section in set(sections[1:]))
    first: dict[str, int] = {}
    shown = dict(views)
    for key, sections in split.items():
        parts = sections[:1]
        for section in sections[1:]:
            heading = _HEADING.match(section)
            if counts[section] < 2 or len(section) < ONCE or heading is None:
                parts.append(section)
                continue
            anchor = "once-" + hashlib.sha256(section.encode("utf-8")).hexdigest()[:12]
            if first.setdefault(section, key) == key:
                parts.append(f'<div id="{anchor}">\n{section}</div>\n')
                continue
            there = first[section]
            href = posixpath.relpath(pages[there], posixpath.dirname(pages[key])) + f"#{anchor}"
            parts.append(
                f'{heading.group(0)}\n<p class="muted">The same as at {html.escape(titles.get(there, ""))}: '
                f'<a href="{href}">shown there</a>.</p>\n'
            )
        shown[key] = replace(views[key], html="".join(parts))
    return shown


Letter = tuple[str, str, str]  # a letter of a step: its seat, its page from the root, that page's text


def in_letters(
    views: Mapping[int, RefereeView], pages: Mapping[int, str], letters: Mapping[int, Sequence[Letter]]
) -> dict[int, RefereeView]:
    """``views`` with each section of their HTML that a letter of the same step shows as it is
    (a Flat Top side's own forces, as its letter gave them: 0.3 MB of a whole game's referee
    pages) kept on that letter's page only: the view keeps the heading and links there.
    ``letters``: each step's letters, by step id; ``pages``: each view's page."""
    shown = dict(views)
    for key, view in views.items():
        found = [(seat, page, _PRESENTED.sub("", text)) for seat, page, text in letters.get(key, ())]
        if not view.html or key not in pages or not found:
            continue
        sections = _SECTION.split(view.html)
        parts = sections[:1]
        for section in sections[1:]:
            heading = _HEADING.match(section)
            letter = next((item for item in found if section.rstrip() in item[2]), None)
            if letter is None or heading is None or len(section) < IN_LETTER:
                parts.append(section)
                continue
            href = posixpath.relpath(letter[1], posixpath.dirname(pages[key]))
            parts.append(
                f'{heading.group(0)}\n<p class="muted">The same as in the letter to '
                f'{html.escape(letter[0])} at this step: <a href="{href}">shown there</a>.</p>\n'
            )
        shown[key] = replace(view, html="".join(parts))
    return shown
