# SPDX-License-Identifier: GPL-3.0-or-later
"""A tick of every running game, one transaction each, where letters are handled (the letter
process, or a worker thread here): whatever is due in a game is done, and a game whose tick
raises is tried again or paused with its GM told, while the other games go on."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlalchemy.engine import Engine
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

from mailbot.core import lifecycle
from mailbot.letterproc import MailboxHealth
from mailbot.runners import Beats
from mailbot.services.base import queries
from mailbot.services.base.claims import lock_game
from mailbot.services.base.transactions import begin_writing
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
        for game_id in self.running_games():
            yield self.tick_game(game_id, watch)

    def running_games(self) -> list[int]:
        """The running games, and those in set-up whose set-up waits for its dice reveals."""
        with Session(self.engine) as session:
            query = select(Game.id).where(Game.status == GameStatus.RUNNING)
            found = {game_id for game_id in session.exec(query) if game_id is not None}
            found.update(session.exec(_WAITING_SETUPS))
            return sorted(found)

    def tick_game(self, game_id: int, watch: MailboxHealth) -> str:
        with self.game_lock:
            try:
                # Nothing is read from the game's rows after the commit: expiring them is waste.
                with Session(self.engine, expire_on_commit=False) as session, session.begin():
                    begin_writing(session)  # the tick reads much, then writes: a writer from the start
                    lock_game(session, game_id)  # other workers' letters to it wait until we commit
                    # The tick resolves from the step's snapshot and writes the state anew: the
                    # ~50 kB saved state is read only if something asks for it (a reminder's view).
                    game = session.exec(_TICKED_GAME, params={"game_id": game_id}).one()
                    line = f"game {game_id}: {self.turns.tick(session, game, self.interlock(watch))}"
                self.strikes.pop(game_id, None)
                return line
            except Exception as exc:
                return f"game {game_id}: {self._failed(game_id, exc)}"
            finally:
                self.beats.tick = time.monotonic()

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
