# SPDX-License-Identifier: GPL-3.0-or-later
"""A tick of every running game where letters are handled (the letter process, or a worker
thread here): whatever is due in a game is done, and a game whose tick raises is tried again or
paused with its GM told, while the other games go on.

Games are ticked a few at a time in one transaction (``TICK_GAMES`` games or ``TICK_SECONDS``
of work): a tick costs a few milliseconds, and a transaction of its own (its begin, its flush,
its commit) was a third of that when a deadline passed in a thousand games at once. Such a
try is all or nothing: when any of its games raises, the whole try is rolled back and its
games are ticked again one transaction each, as if the try never was, so that one game's
error pauses that game alone and nothing another game wrote is lost with it."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlalchemy.engine import Engine
from sqlalchemy.orm import QueryableAttribute, defer
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from mailbot.core import lifecycle
from mailbot.errors import MailbotError
from mailbot.letterproc import MailboxHealth
from mailbot.runners import Beats
from mailbot.services.base import queries
from mailbot.services.base.claims import lock_game
from mailbot.services.base.transactions import begin_writing, hand_over, others_wait
from mailbot.services.play.reports import Reports
from mailbot.services.play.turns import Turns
from mailbot.store.game_tables import Game, GameStatus, Seat, StepRow, StepState
from mailbot.store.transient import describe, is_transient, writable

log = logging.getLogger(__name__)

#: the game a tick reads, without its saved state (read only if asked for, see ``tick_game``);
#: built once (building a statement with options cost more than running it)
_TICKED_GAME = (
    select(Game)
    .where(Game.id == bindparam("game_id"))
    .options(defer(cast("QueryableAttribute[Any]", Game.state)))
)
#: a game in set-up whose every seat has joined and whose set-up waits for the round-1 reveals
#: of the seats with a dice chain (``setupdice``): it has a deadline of its own, later than its
#: opening (a set-up still waiting for players has none)
SETUP_WAITS = sa.and_(
    col(Game.status) == GameStatus.SETUP,
    col(StepRow.key) == "setup",
    col(StepRow.deadline_at) > col(StepRow.opened_at),
)
_WAITING_SETUPS = (
    select(StepRow.game_id)
    .join(Game, col(Game.id) == col(StepRow.game_id))
    .where(SETUP_WAITS, col(StepRow.state) == StepState.OPEN)
)
#: a game whose tick fails this many times running, with the store answering, is paused
GAME_STRIKES = 2
#: the mark of a game's tick line that asks for the tick to be tried again soon
TRY_AGAIN = "tried again"
#: at most this many games are ticked in one transaction, and a transaction takes no further
#: game after this many seconds, or (SQLite) once another writer waits for the write lock:
#: the outbox's claims and sent marks are writes, and a tick of a thousand games must not keep
#: its reports from being sent meanwhile (``transactions.hand_over``)
TICK_GAMES = 20
TICK_SECONDS = 0.25
#: a try reads its games' rows this many games at a time (``queries.read_ahead``: the game, its
#: seats, open step, orders and chain head, a query each for them all); while the outbox is
#: sending, a try often ends after a few games, and what was read for the rest is wasted
TICK_AHEAD = 5
#: the loggers whose lines a try of several games holds until it commits (the services'): a
#: try that is rolled back and done again must not say twice that a step was processed
HELD_LOGGERS = "mailbot.services."


class _OneByOne(MailbotError):
    """A game of a try of several raised: the try is rolled back and its games ticked one by one."""


class GameTicks:
    def __init__(
        self,
        *,
        engine: Engine,
        turns: Turns,
        reports: Reports,
        clock: Callable[[], datetime],
        handle_letters: Callable[[], int],
        game_lock: threading.Lock,
        trouble_after: timedelta,
        beats: Beats,
    ) -> None:
        """``handle_letters`` handles the stored letters (taking ``game_lock``); ``trouble_after``:
        how long reading the mailbox must fail before a game is paused for it."""
        self.engine = engine
        self.turns = turns
        self.reports = reports
        self.clock = clock
        self.handle_letters = handle_letters
        self.game_lock = game_lock
        self.trouble_after = trouble_after
        self.beats = beats
        self.strikes: Counter[int] = Counter()  # ticks failed running, per game

    def interlock(self, mailbox: MailboxHealth) -> lifecycle.Watch:
        """A deadline waits for the mailbox to be read through after any failure to read it (its
        letters may not be in yet); only when reading has failed for ``trouble_after`` with no
        good read since is the game paused and the GM asked. An outage that heals by itself (a
        server restarted, a store locked for a minute) delays a deadline by that long, and
        pauses nothing."""
        failures = mailbox.imap_failures
        trouble = bool(failures) and self.clock() - min(failures) >= self.trouble_after
        return lifecycle.Watch(
            mailbox_read=mailbox.mailbox_read and (trouble or not failures), imap_trouble=trouble
        )

    def ticks(self, watch: MailboxHealth) -> Iterator[str]:
        """Do whatever is due in every running game, a game at a time (one line each)."""
        if watch.mailbox_read:
            # Every letter read so far is handled before any deadline is judged.
            self.handle_letters()
        games = self.running_games()
        while games:
            taken, lines = self._tick_together(games, watch)
            if lines is None:  # one game left, or the try failed: each of its games on its own
                for game_id in games[:taken]:
                    yield self.tick_game(game_id, watch)
            else:
                yield from lines
            games = games[taken:]
            if games:
                hand_over(self.engine)  # the outbox sends the reports meanwhile: it writes too

    def running_games(self) -> list[int]:
        """The running games, and those in set-up whose set-up waits for its dice reveals."""
        with Session(self.engine) as session:
            query = select(Game.id).where(Game.status == GameStatus.RUNNING)
            found = {game_id for game_id in session.exec(query) if game_id is not None}
            found.update(session.exec(_WAITING_SETUPS))
            return sorted(found)

    def tick_game(self, game_id: int, watch: MailboxHealth) -> str:
        """One game in a transaction of its own; a game that raises is tried again or paused."""
        with self.game_lock:
            try:
                # Nothing is read from the game's rows after the commit: expiring them is waste.
                with Session(self.engine, expire_on_commit=False) as session, session.begin():
                    begin_writing(session)  # the tick reads much, then writes: a writer from the start
                    line = self._tick_in(session, game_id, watch)
                self.strikes.pop(game_id, None)
                return line
            except Exception as exc:
                return f"game {game_id}: {self._failed(game_id, exc)}"
            finally:
                self.beats.tick = time.monotonic()

    def _tick_together(self, games: Sequence[int], watch: MailboxHealth) -> tuple[int, list[str] | None]:
        """The first of ``games`` ticked in one transaction (at most ``TICK_GAMES``, or what
        ``TICK_SECONDS`` allow): how many were taken, and a line each; no lines when any of
        them raised, or when one game is left (nothing of the try is kept: the caller ticks
        those games one by one)."""
        if len(games) == 1:
            return 1, None
        lines: list[str] = []
        with self.game_lock, _holding_lines() as held:
            try:
                with Session(self.engine, expire_on_commit=False) as session, session.begin():
                    begin_writing(session)
                    started = time.monotonic()
                    taken = games[:TICK_GAMES]
                    for n, game_id in enumerate(taken):
                        if n % TICK_AHEAD == 0:
                            queries.read_ahead(session, taken[n : n + TICK_AHEAD], state=False)
                        lines.append(self._try_in(session, game_id, watch))
                        self.beats.tick = time.monotonic()
                        if self.beats.tick - started > TICK_SECONDS or others_wait(self.engine):
                            break
            except _OneByOne:
                return len(lines) + 1, None  # those before it, and the one that raised
            except Exception:  # the commit, or the store: each game's own tick says what it is
                log.debug("a tick of %d games failed; ticked again one by one", len(lines), exc_info=True)
                return max(len(lines), 1), None
        for record in held:
            logging.getLogger(record.name).handle(record)
        for game_id in games[: len(lines)]:
            self.strikes.pop(game_id, None)
        return len(lines), lines

    def _try_in(self, session: Session, game_id: int, watch: MailboxHealth) -> str:
        try:
            return self._tick_in(session, game_id, watch)
        except Exception as exc:
            raise _OneByOne(f"game {game_id}") from exc

    def _tick_in(self, session: Session, game_id: int, watch: MailboxHealth) -> str:
        lock_game(session, game_id)  # other workers' letters to it wait until we commit
        # The tick resolves from the step's snapshot and writes the state anew: the ~50 kB
        # saved state is read only if something asks for it (a reminder's view).
        game = session.identity_map.get(identity_key(Game, game_id))  # read ahead by its try
        if not isinstance(game, Game):
            game = session.exec(_TICKED_GAME, params={"game_id": game_id}).one()
        return f"game {game_id}: {self.turns.tick(session, game, self.interlock(watch))}"

    def _failed(self, game_id: int, exc: Exception) -> str:
        """A game whose tick raised: tried again soon while the store is at fault (locked, lost,
        full) or while the error has not repeated; paused, its GM told, only for an error that
        repeats with the store answering (an error in its own rules or state)."""
        if is_transient(exc) and not writable(self.engine):
            log.warning("game %s: store unavailable (%s); its tick is %s", game_id, describe(exc), TRY_AGAIN)
            return f"store unavailable, {TRY_AGAIN}"
        self.strikes[game_id] += 1
        if self.strikes[game_id] < GAME_STRIKES:
            log.exception("game %s failed in its tick; %s before it is paused", game_id, TRY_AGAIN)
            return f"error, {TRY_AGAIN}"
        log.exception("game %s failed in its tick again; pausing it", game_id)
        del self.strikes[game_id]
        return self._pause_broken(game_id, exc)

    def _pause_broken(self, game_id: int, exc: Exception) -> str:
        # Players learn only that there was an error: its text could name hidden facts.
        reason = "the moderator hit an error in this game; the GM has been told"
        try:
            with Session(self.engine) as session, session.begin():
                game = session.get_one(Game, game_id)
                self.turns.pause(session, game, reason)
                detail = [f"{type(exc).__name__}: {exc}"[:2000], "The log has the traceback."]
                self.reports.gm(session, game, "error in the game's tick", detail)
        except Exception:  # the store itself may be down: the next tick tries again
            log.exception("game %s could not be paused", game_id)
            return f"could not be paused, {TRY_AGAIN}"
        return "paused (error)"

    def close_if_all_in(self, sender: str) -> list[str]:
        """``mailbot inject``: close the open step of each running game the sender plays in
        once every owing seat is in and none asked to WAIT, as a tick does when the early
        delay has passed (the delay only lets a player correct a letter; by hand there is
        nothing to wait for); otherwise say why the step stays open. One line a game."""
        with Session(self.engine) as session:
            query = select(Seat.game_id).join(Game, col(Game.id) == col(Seat.game_id))
            query = query.where(Seat.address == sender.lower(), Game.status == GameStatus.RUNNING)
            games = sorted(set(session.exec(query)))
        if not games:
            return [f"no running game has a seat for {sender}: no step to close"]
        with self.game_lock:
            return [f"game {game_id}: {self._close_if_all_in(game_id)}" for game_id in games]

    def _close_if_all_in(self, game_id: int) -> str:
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            begin_writing(session)
            lock_game(session, game_id)  # the service's letters and ticks to it wait until we commit
            game = session.get_one(Game, game_id)
            step = queries.open_step(session, game_id)
            if step is None:
                return "no open step"
            opened, seats = self.turns.facts(session, game, step)
            if lifecycle.all_in(opened, seats):
                self.turns.process(session, game, step)
                return f"every seat is in: {step.key} processed, as the service does after its early delay"
            return f"{step.key} stays open: {lifecycle.why_open(opened, seats)}"


class _Held(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        self.records.append(record)
        return False


@contextmanager
def _holding_lines() -> Iterator[list[logging.LogRecord]]:
    """The services' log lines, held in the list given instead of written, until the block ends."""
    held = _Held()
    names = [name for name in logging.root.manager.loggerDict if name.startswith(HELD_LOGGERS)]
    loggers = [logging.getLogger(name) for name in names]
    for logger in loggers:
        logger.addFilter(held)
    try:
        yield held.records
    finally:
        for logger in loggers:
            logger.removeFilter(held)
