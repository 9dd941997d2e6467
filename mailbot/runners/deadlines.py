# SPDX-License-Identifier: GPL-3.0-or-later
"""The scheduler's job: a tick of every game when one has something due (a deadline, an early
close, a reminder), in the letter process while there is one, else in worker threads; the work
loop woken as games are done, so their letters go out while later games are resolved."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import col

from mailbot.core import deadlines
from mailbot.letterproc import LetterProcessError, MailboxHealth
from mailbot.runners import Beats
from mailbot.runners.games import SETUP_WAITS, TRY_AGAIN, GameTicks
from mailbot.runners.letters import Letters
from mailbot.scheduler.deadlines import DeadlineScheduler
from mailbot.store.game_tables import Game, GameStatus, StepRow, StepState
from mailbot.store.presence import Presence
from mailbot.store.transient import describe, is_transient

log = logging.getLogger(__name__)

#: a tick the store failed under is tried again after this back-off, doubling up to the maximum
TICK_RETRY_MIN = 0.5
TICK_RETRY_MAX = 8.0
#: during a tick, the work loop is woken to send the letters of the games done at most this often
TICK_WAKE_SECONDS = 0.03


class Deadlines:
    def __init__(
        self,
        *,
        engine: Engine,
        games: GameTicks,
        letters: Letters,
        mailbox: Callable[[], MailboxHealth],
        presence: Presence,
        role: str,
        clock: Callable[[], datetime],
        wake: asyncio.Event,
        beats: Beats,
    ) -> None:
        """``mailbox`` tells what is known of the mailbox when a tick starts (``Reader.health``)."""
        self.engine = engine
        self.games = games
        self.letters = letters
        self.mailbox = mailbox
        self.presence = presence
        self.role = role
        self.clock = clock
        self.wake = wake
        self.beats = beats
        self.scheduler: DeadlineScheduler | None = None
        self._ticking = False
        self._wanted = False

    def start(self) -> None:
        self.scheduler = DeadlineScheduler(tick=self.tick_games, wake_times=self.wake_times, clock=self.clock)
        self.scheduler.start()

    def stop(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown()

    def restart(self) -> None:
        """The watchdog's restart: a new scheduler, the old one's tick forgotten."""
        self.stop()
        self._ticking = False
        self.start()

    def rebuild(self) -> None:
        """Look at every game's next moment again (letters came, a tick or a read ended)."""
        if self.scheduler is not None:
            self.scheduler.rebuild()

    async def tick_games(self) -> None:
        """The scheduler's job. A wake-up that comes while a tick runs makes it go round once
        more instead of running beside it (games are judged one at a time). With several
        workers only the one that reads the mailbox judges deadlines."""
        if not self.presence.holds(self.role):
            return
        self._wanted = True
        if self._ticking:
            return
        self._ticking = True
        retry = TICK_RETRY_MIN
        try:
            while self._wanted:
                self._wanted = False
                if await self._round():
                    retry = TICK_RETRY_MIN
                    continue
                # The store failed under it, or a game asked to be tried again: soon, not at
                # the next wake-up (a deadline passed during an outage is judged when it ends).
                await asyncio.sleep(retry)
                retry = min(retry * 2, TICK_RETRY_MAX)
                self._wanted = True
        finally:
            self._ticking = False

    async def _round(self) -> bool:
        """One tick of every game; False when it must be tried again soon."""
        try:
            done = await self.tick_all()
            if any("idle" not in line for line in done):
                self.rebuild()
        except Exception as exc:  # the store, most likely: the games wait for it, none is blamed
            self.beats.tick = time.monotonic()
            if is_transient(exc):
                log.warning("a tick could not run: the store is unavailable (%s)", describe(exc))
            else:
                log.exception("a tick failed")
            return False
        self.beats.tick = time.monotonic()
        return not any(TRY_AGAIN in line for line in done)

    async def tick_all(self) -> list[str]:
        """Every game ticked off the event loop (in the letter process while there is one, else
        in a worker thread), the work loop woken as games are done."""
        watch = self.mailbox()
        game_done = self.sender_waker(asyncio.get_running_loop())
        lines = None
        if self.letters.process is not None:
            try:
                lines = await asyncio.to_thread(self.letters.process.tick, watch, game_done)
            except LetterProcessError as exc:  # died or failed: the games must not wait for it
                log.warning("%s; this tick is done in the moderator's process", exc)
        if lines is None:
            lines = []
            games = self.games.ticks(watch)  # a step at a time, each in a worker thread
            while (line := await asyncio.to_thread(next, games, None)) is not None:
                lines.append(line)
                game_done(line)
        self.wake.set()  # the last games' letters, and letters that came while the games were busy
        return lines

    def sender_waker(self, loop: asyncio.AbstractEventLoop) -> Callable[[str], None]:
        """What a tick calls with each game's line: wakes the work loop to send that game's
        letters, at most every ``TICK_WAKE_SECONDS``. A game takes a few milliseconds, and a
        wake-up for each (a claim of two or three rows, a look at the outbox) had the sending
        process spend as much on the store as on SMTP; a wake-up a tenth of the time sends the
        same letters in larger claims, a few games later at most."""
        woken = -TICK_WAKE_SECONDS

        def game_done(line: str) -> None:
            nonlocal woken
            if "idle" not in line and time.monotonic() - woken >= TICK_WAKE_SECONDS:
                woken = time.monotonic()
                loop.call_soon_threadsafe(self.wake.set)  # from a worker thread

        return game_done

    def wake_times(self) -> list[datetime]:
        """Every future moment at which some game may have something to do."""
        times: list[datetime] = []
        # The columns it needs, not the rows: a row brings its game's saved state (~50 kB for
        # Flat Top), and this runs after every round of letters.
        step = (col(StepRow.deadline_at), col(StepRow.early_at), col(StepRow.opened_at))
        query = sa.select(*step, col(Game.grace_seconds), col(Game.reminders)).where(
            col(StepRow.game_id) == col(Game.id),
            sa.or_(col(Game.status) == GameStatus.RUNNING, SETUP_WAITS),
            col(StepRow.state) == StepState.OPEN,
        )
        with self.engine.connect() as connection:
            for deadline_at, early_at, opened_at, grace_seconds, reminders in connection.execute(query):
                times.append(deadline_at + timedelta(seconds=grace_seconds))
                if early_at is not None:
                    times.append(early_at)
                offsets = [timedelta(seconds=r) for r in reminders]
                times.extend(deadlines.reminder_times(deadline_at, offsets, opened_at))
        return times
