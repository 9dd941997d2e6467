# SPDX-License-Identifier: GPL-3.0-or-later
"""Observers: addresses that read a game without playing it (the judges' OBSERVE, issue 33).

An observer gets what every seat is told and nothing a single seat is: each step's public
letter (the game's public report where it declares one, ``core.game.Spectated``; else the
public events of the step), the step that opens and its deadline, the GM's announcements,
press sent to ALL, and the result. Never a seat's report, map, orders or seals. Observer
letters carry the game's tag without a secret (``[DU-3]``) and no thread: a reply to one
counts for no seat, and the archive, which lists each game's letters by their thread, keeps
none of them (it counts the observers; their addresses stay with the GM).

A game may forbid observers (``game create --no-observers``): OBSERVE is then refused and
the GM cannot add any. A finished game takes none either.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core import deadlines
from mailbot.core.commands import Command
from mailbot.core.game import Event, Spectated, public_events
from mailbot.mail.compose import Attachment
from mailbot.render.maps import MapError, draw_map
from mailbot.render.templates import Renderer
from mailbot.services.base import queries
from mailbot.services.base.tags import tag
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import Game, GameStatus, Observer, SeatStatus, StepRow, row_id
from mailbot.store.rows import new_row

log = logging.getLogger(__name__)


class Change(StrEnum):
    """What adding or removing an observer did; each is said to whoever asked."""

    ADDED = "added"
    ALREADY = "already observes"
    REMOVED = "removed"
    NOT_OBSERVING = "does not observe"
    FORBIDDEN = "this game takes no observers"
    FINISHED = "the game is over"
    PLAYS = "plays a seat of this game: a player gets its letters as a player"


def observers(session: Session, game_id: int) -> list[Observer]:
    query = select(Observer).where(Observer.game_id == game_id).order_by(col(Observer.id))
    return list(session.exec(query))


def watching(session: Session, game: Game) -> list[Observer]:
    """Whom a letter of ``game`` goes to besides its seats: nobody without a query when the game
    has no observer (most games; ``Game.observed``); read without flushing the step's rows."""
    if not game.observed:
        return []
    with session.no_autoflush:
        return observers(session, row_id(game))


def observes(session: Session, address: str) -> bool:
    """Whether ``address`` observes any game (its refused orders or press then say why)."""
    return session.exec(select(Observer.id).where(Observer.address == address.lower())).first() is not None


def add(session: Session, game: Game, address: str, *, by: str, now: datetime) -> Change:
    if not game.observers_allowed:
        return Change.FORBIDDEN
    if game.status is GameStatus.FINISHED:
        return Change.FINISHED
    address = address.strip().lower()
    if any(row.address == address for row in observers(session, row_id(game))):
        return Change.ALREADY
    # A player of the game is none of its observers (GM trial: he got every public letter twice,
    # and a letter saying his orders would be refused).
    seats = queries.seats(session, row_id(game))
    if any(
        s.address.lower() == address and s.status in (SeatStatus.ACTIVE, SeatStatus.INVITED) for s in seats
    ):
        return Change.PLAYS
    session.add(new_row(Observer, game_id=row_id(game), address=address, added_at=now, added_by=by))
    game.observed = True
    # The log counts observers without naming them: the chain goes into every seat's archive.
    queries.note(session, game, "observer-added", {"by": by}, now)
    return Change.ADDED


def remove(session: Session, game: Game, address: str, *, by: str, now: datetime) -> Change:
    address = address.strip().lower()
    row = next((o for o in observers(session, row_id(game)) if o.address == address), None)
    if row is None:
        return Change.NOT_OBSERVING
    session.delete(row)
    game.observed = any(o is not row for o in observers(session, row_id(game)))
    queries.note(session, game, "observer-removed", {"by": by}, now)
    return Change.REMOVED


def subject(game: Game, news: str) -> str:
    """An observer letter's subject: the tag without a secret, so a reply counts for no seat."""
    return f"[{tag(game)}] {game.title}: {news} (observer)"


def how_to_stop(game: Game) -> str:
    return f"To stop these letters, send UNOBSERVE {row_id(game)} to the moderator."


class ObserverLetters:
    """Writes the observers' letters; ``Reports`` calls it beside every seat's letters."""

    def __init__(self, *, postman: Postman, renderer: Renderer, clock: Callable[[], datetime]) -> None:
        self.postman = postman
        self.renderer = renderer
        self.clock = clock

    def welcome(self, session: Session, game: Game, address: str) -> None:
        """The first letter: what an observer gets, that he only reads, and where the game stands."""
        step = queries.open_step(session, row_id(game))
        lines = [
            f"You observe {game.title} ({tag(game)}: {game.plugin}, scenario {game.scenario}).",
            "You get the public letter of each step (what every player is told), the game",
            "master's announcements, press sent to ALL, and the result; never a player's report.",
            "Observers only read: orders and press from you are refused.",
            f"Game status: {game.status.value}",
            *self._open_lines(game, step),
            how_to_stop(game),
        ]
        letter = Draft(address, subject(game, "you observe this game")).section("Observing", lines)
        self.postman.post(session, letter, kind="observer", now=self.clock())

    def step(
        self,
        session: Session,
        game: Game,
        news: str,
        events: Sequence[Event],
        nxt: StepRow | None,
        *,
        turn: int,
    ) -> None:
        """The public letter of a step (``events`` of it; none for the opening) to every observer."""
        watchers = watching(session, game)
        if not watchers:
            return
        plugin = queries.plugin(game)
        state = plugin.load(game.state)
        public = public_events(events)
        view = plugin.public_view(state, public) if isinstance(plugin, Spectated) else None
        body = self.renderer.render(f"{game.plugin}/report", {"r": view, "due": None}) if view else None
        picture = self._map(game, view, turn)
        for watcher in watchers:
            letter = Draft(watcher.address, subject(game, news), body=body)
            if view is None:
                said = [event.text for event in public] or ["Nothing that every player is told."]
                letter.section("What every player was told", said)
            if picture is not None:
                letter.attachments.append(picture)
            self._next_section(letter, game, nxt)
            letter.footer.append(how_to_stop(game))
            self.postman.post(session, letter, kind="observer", now=self.clock())

    @staticmethod
    def _map(game: Game, view: Mapping[str, Any] | None, turn: int) -> Attachment | None:
        """The public view's map, for a game that draws one (drawn from the public view alone)."""
        if view is None:
            return None
        try:
            picture = draw_map(game.plugin, view)
            if picture is None:
                return None
            return Attachment(f"map-public-turn{turn}.png", picture.png(), "image", "png")
        except MapError:
            log.exception("game %s: the observers' letter goes out without its map", game.id)
            return None

    def _next_section(self, letter: Draft, game: Game, nxt: StepRow | None) -> None:
        if nxt is None:
            letter.section("The game is over", [game.result or "The game has ended."])
            return
        letter.section(f"Now open: {nxt.title}", self._open_lines(game, nxt)[1:])

    @staticmethod
    def _open_lines(game: Game, step: StepRow | None) -> list[str]:
        if step is None:
            return [f"Result: {game.result}"] if game.result else []
        return [
            f"Open step: {step.title}",
            f"Deadline: {deadlines.local_time(step.deadline_at, game.timezone)} ({game.timezone})",
        ]

    def notice(self, session: Session, game: Game, title: str, lines: Sequence[str]) -> None:
        """An announcement every seat gets alike (a pause, a new deadline, the end): also to observers."""
        for watcher in watching(session, game):
            letter = Draft(watcher.address, subject(game, title)).section(title, lines)
            letter.footer.append(how_to_stop(game))
            self.postman.post(session, letter, kind="observer", now=self.clock())

    def press(self, session: Session, game: Game, author: str, lines: Sequence[str]) -> None:
        """Press a seat sent to ALL: broadcast press is public, so observers read it too."""
        self.notice(session, game, f"Press from {author} to all", lines)


def refused(command: Command, ctx: Context, reply: Reply, what: str) -> None:
    """A letter that is no seat's brought ``what`` (orders, press...): an observer is told plainly
    that observers only read, with the line quoted. Said to the sender's own address only."""
    if observes(ctx.session, ctx.letter.sender):
        reply.problem(command.line, command.text, f"observers only read: {what} from an observer are refused")
