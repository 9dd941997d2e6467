# SPDX-License-Identifier: GPL-3.0-or-later
"""Composition root: builds the store, adapters and services from settings, and runs them.

Two loops share one event loop: *intake* (IMAP to ``inbound`` rows, with IDLE
or polling and reconnect with backoff) and *work* (handle stored letters, then
send the outbox). Intake wakes work; work also wakes when the next retry is due.
The scheduler's deadline ticks run beside them. The blocking parts run off the
loop, so it keeps reading and sending meanwhile: storing fetched mail in a worker
thread, handling letters and each game's tick in the letter process
(``mailbot.letterproc``, ``bot.handling_process``) or, without one, in worker
threads, where letters and game ticks take turns on one lock, since both change
games.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlalchemy.engine import Engine
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

from mailbot.core import deadlines, lifecycle
from mailbot.core.letter import RawMessage
from mailbot.errors import ImapError, StallError
from mailbot.letterproc import LetterProcess, LetterProcessError, MailboxHealth
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.mail.smtp import SmtpConfig, SmtpSink
from mailbot.render.templates import Renderer
from mailbot.scheduler.deadlines import DeadlineScheduler
from mailbot.services.archive.archive_mail import ArchiveMail
from mailbot.services.base import queries
from mailbot.services.base.claims import lock_game
from mailbot.services.base.tags import fresh_seed
from mailbot.services.base.transactions import begin_writing
from mailbot.services.health.stalls import DEADLINES, LETTERS, OUTBOX, Stall, find_stalls
from mailbot.services.health.status import Status, gather_status, serve_health
from mailbot.services.health.watchdog import Watchdog
from mailbot.services.inbox.auth import Gatekeeper
from mailbot.services.inbox.inbound import InboundProcessor
from mailbot.services.inbox.intake import Intake
from mailbot.services.inbox.intake import describe as describe_raw
from mailbot.services.play.dicemail import DICE_COMMANDS, DiceChains
from mailbot.services.play.endgame import ENDGAME_COMMANDS, Endgame
from mailbot.services.play.games import Games
from mailbot.services.play.gm import GM_COMMANDS, GmActions, GmMail
from mailbot.services.play.mailgame import PLAYER_COMMANDS, MailGame
from mailbot.services.play.reports import Reports
from mailbot.services.play.sealing import Sealing
from mailbot.services.play.turns import Turns
from mailbot.services.post.identity import Identity
from mailbot.services.post.letters import Postman
from mailbot.services.post.notices import GmNotifier
from mailbot.services.post.outbox import Outbox, RetryPolicy, Sink
from mailbot.services.post.throttle import Limits
from mailbot.settings import Settings, secret
from mailbot.store import db, lease, repo
from mailbot.store.game_tables import Game, GameStatus, Seat, StepRow, StepState
from mailbot.store.presence import Presence, reader_role
from mailbot.store.transient import describe, is_transient, writable

log = logging.getLogger(__name__)
#: the game a tick reads, without its saved state (read only if asked for, see ``Bot._tick_game``);
#: built once (building a statement with options cost more than running it)
_TICKED_GAME = (
    select(Game)
    .where(Game.id == bindparam("game_id"))
    .options(defer(cast("QueryableAttribute[Any]", Game.state)))
)

#: the work loop's back-off after a failure, doubling up to the maximum (seconds): short, so a
#: store that is back is used again within seconds
WORK_BACKOFF_MIN = 0.5
WORK_BACKOFF_MAX = 8.0
#: a tick the store failed under is tried again after this back-off, doubling up to the maximum
TICK_RETRY_MIN = 0.5
TICK_RETRY_MAX = 8.0
#: a game whose tick fails this many times running, with the store answering, is paused
GAME_STRIKES = 2
#: another worker must look dead this long before its claimed letters are sent by others
DEAD_WORKER_SECONDS = 10.0
#: the mark of a game's tick line that asks for the tick to be tried again soon
TRY_AGAIN = "tried again"
#: how soon letters that waited for another worker (or its game) are tried again (seconds)
WAITING_RETRY = 0.05
#: during a tick, the work loop is woken to send the letters of the games done at most this often
TICK_WAKE_SECONDS = 0.03
#: during a long round of letter handling, how often the outbox looks for replies it committed
SEND_DURING_ROUND = 0.1

Clock = Callable[[], datetime]


def freeze_long_lived() -> None:
    """Move what a started moderator has built (modules, templates, mappings, plugins) out of the
    cyclic collector's way: it lives as long as the process, and each collection of the young
    garbage of letters and ticks then costs less (letters 0.89 -> 0.81 ms measured)."""
    gc.collect()
    gc.freeze()


def letter_worker(settings: Settings) -> Bot:
    """The moderator of the letter process (``mailbot.letterproc``), built there from the settings.

    Handed to the process as a function of this module, so the process module never imports
    this one: app builds, and the process asks what it built for rounds.
    """
    bot = Bot(settings)
    freeze_long_lived()
    return bot


def utcnow() -> datetime:
    return datetime.now(UTC)


def _silent(what: str, beat: float | None, limit: float) -> str | None:
    """``what``, with how long, when the last sign of life (monotonic) is older than ``limit``."""
    quiet = None if beat is None else time.monotonic() - beat
    if quiet is not None and quiet <= limit:
        return None
    return what if quiet is None else f"{what} for {quiet:.0f} s"


def crash_checkpoint(points: Sequence[str]) -> Callable[[str], None]:
    """Fault injection for crash tests: a real, unclean process kill at the named point."""
    wanted = frozenset(points)

    def checkpoint(name: str) -> None:
        if name in wanted:
            log.warning("crash injected at %s", name)
            os.kill(os.getpid(), signal.SIGKILL)

    return checkpoint


def imap_config(settings: Settings) -> ImapConfig:
    s = settings.imap
    return ImapConfig(
        host=s.host,
        port=s.port,
        user=s.user,
        password=secret(s.password, s.password_file, "IMAP"),
        mailbox=s.mailbox,
        tls=s.security == "tls",
        cafile=str(s.cafile) if s.cafile else None,
        processed_folder=s.processed_folder,
        timeout=s.timeout,
        batch_size=s.batch_size,
    )


def smtp_config(settings: Settings) -> SmtpConfig:
    s = settings.smtp
    return SmtpConfig(
        host=s.host,
        port=s.port,
        security=s.security,
        user=s.user,
        password=secret(s.password, s.password_file, "SMTP"),
        cafile=str(s.cafile) if s.cafile else None,
        timeout=s.timeout,
        local_hostname=settings.bot.address.rpartition("@")[2] or "localhost",
        connections=s.connections,
    )


class Bot:
    """The running moderator: owns the engine, services and the two loops."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock = utcnow,
        sink: Sink | None = None,
        draw_seed: Callable[[], bytes] | None = None,
    ) -> None:
        """``draw_seed`` replaces the secret step seeds only where a game must replay exactly (the demo's
        published seed); every seed drawn is still committed to before any order is read."""
        self.settings = settings
        self.clock = clock
        self.engine: Engine = db.make_engine(settings.store.url)
        self.checkpoint = crash_checkpoint(settings.debug.crash_at)
        self.renderer = Renderer(settings.bot.template_overrides)
        bot = settings.bot
        self.identity = Identity(
            bot.address,
            bot.name,
            bot.gm_address,
            bot.max_message_bytes,
            bot.max_text_chars,
            Limits(bot.answers_per_hour, bot.idle_answers_per_hour),
        )
        self.wake = asyncio.Event()
        # While ``run`` runs: the process that handles letters (None: this process does).
        self.letters: LetterProcess | None = None
        self._apart = settings.bot.handling_process and clock is utcnow and draw_seed is None
        self._letters_waiting = False
        self._game_lock = threading.Lock()  # letter handling and game ticks take turns (worker threads)
        self._ticking = False
        self._tick_wanted = False
        self.imap_failures: list[datetime] = []
        self.loop_failures: Counter[str] = Counter()  # failures per loop since start, for status
        self.intake = Intake(
            engine=self.engine,
            mailbox=settings.imap.mailbox,
            clock=clock,
            batch_size=settings.imap.batch_size,
            checkpoint=self.checkpoint,
        )
        self.processor = InboundProcessor(
            engine=self.engine,
            renderer=self.renderer,
            identity=self.identity,
            clock=clock,
            new_message_id=self.new_message_id,
        )
        self.notifier = GmNotifier(
            renderer=self.renderer, identity=self.identity, new_message_id=self.new_message_id
        )
        self.postman = Postman(
            renderer=self.renderer, identity=self.identity, new_message_id=self.new_message_id
        )
        self.reports = Reports(postman=self.postman, renderer=self.renderer, clock=clock)
        self.games = Games(
            postman=self.postman, reports=self.reports, clock=clock, draw_seed=draw_seed or fresh_seed
        )
        self.turns = Turns(
            games=self.games,
            reports=self.reports,
            clock=clock,
            max_missed_share=settings.bot.max_missed_share,
        )
        self.gm = GmActions(games=self.games, turns=self.turns, postman=self.postman, clock=clock)
        self.gate = Gatekeeper(
            postman=self.postman,
            clock=clock,
            authserv_id=settings.bot.trusted_authserv_id,
            limits=self.identity.limits,
        )
        self.mailgame = MailGame(games=self.games, gate=self.gate, postman=self.postman, clock=clock)
        sealing = Sealing(games=self.games, gate=self.gate, postman=self.postman, clock=clock)
        archive_mail = ArchiveMail(gate=self.gate, postman=self.postman, clock=clock)
        self.processor.register(
            PLAYER_COMMANDS,
            {**self.mailgame.handlers(), "ARCHIVE": archive_mail.archive, "SEAL": sealing.seal},
        )
        self.processor.register(DICE_COMMANDS, DiceChains(gate=self.gate, now=clock).handlers())
        self.processor.help_extras.append(self.mailgame.game_help)
        self.processor.register(GM_COMMANDS, GmMail(actions=self.gm, gate=self.gate).handlers())
        endgame = Endgame(
            games=self.games,
            turns=self.turns,
            reports=self.reports,
            gate=self.gate,
            postman=self.postman,
            clock=clock,
        )
        self.processor.register(ENDGAME_COMMANDS, endgame.handlers())
        self.started_at = clock()
        # When the mailbox was last read through. A bot that reads no mailbox (tests, one-off
        # commands) judges by the letters it was given; ``run`` clears this until its first read.
        self.mailbox_read_at: datetime | None = clock()
        self.scheduler: DeadlineScheduler | None = None
        # Several workers may share a PostgreSQL store: this one's presence, and its roles.
        self.presence = Presence(self.engine)
        self.reader_role = reader_role(settings.imap.user, settings.imap.mailbox)
        self._last_sweep = 0.0
        self.outbox = Outbox(
            engine=self.engine,
            sink=sink or SmtpSink(smtp_config(settings)),
            clock=clock,
            retry=RetryPolicy(settings.smtp.retry_base, settings.smtp.retry_max, settings.smtp.max_attempts),
            on_failure=self.notifier.delivery_failed,
            checkpoint=self.checkpoint,
            connections=settings.smtp.connections,
            owner=self.presence.worker_key,
            alive=self.presence.alive,
            probe=RetryPolicy(settings.smtp.reconnect_min, settings.smtp.reconnect_max),
            dead_after=DEAD_WORKER_SECONDS if self.presence.shared else 0.0,
        )
        self._game_strikes: Counter[int] = Counter()  # ticks failed running, per game
        # Signs of life for the watchdog (monotonic): the last read of the mailbox (or try to
        # read it), the last tick of the games.
        self.read_beat = time.monotonic()
        self.tick_beat = time.monotonic()
        self.watchdog: Watchdog | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def new_message_id(self) -> str:
        domain = self.settings.bot.address.rpartition("@")[2] or "mailbot.localhost"
        return f"{uuid.uuid4().hex}@{domain}"

    def upgrade(self) -> None:
        db.upgrade(self.engine)

    # -- the loops ---------------------------------------------------------

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Run until ``stop`` is set (or forever)."""
        stop = stop or asyncio.Event()
        held = lease.acquire_for(self.settings.store.url)  # SQLite: one worker only, else ConfigError
        self.mailbox_read_at = None  # read before you judge: no deadline until the mailbox is read
        self.presence.start()
        with self.presence.exclusive("migrations"):  # workers starting together upgrade once
            self.upgrade()
        requeued = self.outbox.recover()
        if requeued:
            log.warning("%d message(s) left in 'sending' by a crash will be sent again", requeued)
        await self.start_letter_process()
        freeze_long_lived()
        self._start_task("reading", self.intake_loop(stop))
        self._start_task("work", self.work_loop(stop))
        self._start_scheduler()
        self.watchdog = self._watchdog(stop)
        self._start_task("watchdog", self.watchdog.run(stop))
        if self.settings.bot.health_port:
            await serve_health(self.settings.bot.health_port, self.status, until=stop)
        try:
            await stop.wait()
        finally:
            if self.scheduler is not None:
                self.scheduler.shutdown()
            tasks = list(self._tasks.values())
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.outbox.sink.close()
            await self.stop_letter_process()
            self.presence.stop()
            held.release()
        if self.watchdog.fatal is not None:
            raise StallError(self.watchdog.fatal)

    def _start_task(self, name: str, loop: Coroutine[Any, Any, None]) -> None:
        self._tasks[name] = asyncio.create_task(loop, name=f"mailbot-{name}")

    def _start_scheduler(self) -> None:
        self.scheduler = DeadlineScheduler(tick=self.tick_games, wake_times=self.wake_times, clock=self.clock)
        self.scheduler.start()

    def status(self) -> Status:
        """The store's status with this service's own view of its loops (``/health``)."""
        loops = self.watchdog.report() if self.watchdog is not None else {"notes": []}
        if self.outbox.transport_down_since is not None:
            since = self.outbox.transport_down_since.isoformat(timespec="seconds")
            loops["notes"].append(f"SMTP transport down since {since}: {self.outbox.transport_error}")
        stall = timedelta(seconds=self.settings.bot.stall_seconds)
        return gather_status(self.engine, self.clock(), self.reader_role, stall=stall, loops=loops)

    # -- the watchdog ------------------------------------------------------------

    def _watchdog(self, stop: asyncio.Event) -> Watchdog:
        """Every loop watched, each with its own idea of being stalled and of a restart."""
        bot = self.settings.bot
        watchdog = Watchdog(
            stalls=self._stalls, stall_seconds=bot.stall_seconds, max_restarts=bot.stall_restarts
        )
        imap = self.settings.imap
        # The reader shows life after every read and every try to connect; IDLE keeps it
        # quiet for up to ``idle_timeout`` (plus a timed-out command or two).
        reading_quiet = imap.idle_timeout + 2 * imap.timeout + bot.stall_seconds

        def reading(_stalls: Sequence[Stall]) -> str | None:
            return self._ended("reading") or _silent("no read of the mailbox", self.read_beat, reading_quiet)

        async def restart_reading() -> None:
            await self._restart_task("reading", self.intake_loop(stop))

        def work(stalls: Sequence[Stall]) -> str | None:
            found = {stall.loop: stall.reason for stall in stalls}
            outbox_idle = _silent("outbox idle", self.outbox.last_run_at, bot.stall_seconds)
            if OUTBOX in found and outbox_idle:  # a paused transport still probes: not a stall here
                return f"{found[OUTBOX]}, {outbox_idle}"
            return self._ended("work") or found.get(LETTERS)

        async def restart_work() -> None:
            self._kill_letter_process()  # a round that never ends holds the work loop
            await self._restart_task("work", self.work_loop(stop))

        def deadlines(stalls: Sequence[Stall]) -> str | None:
            late = next((stall.reason for stall in stalls if stall.loop == DEADLINES), None)
            idle = _silent("no tick", self.tick_beat, bot.stall_seconds)
            return f"{late}, {idle}" if late and idle else None

        async def restart_deadlines() -> None:
            self._kill_letter_process()  # a tick that never ends holds the games
            if self.scheduler is not None:
                self.scheduler.shutdown()
            self._ticking = False
            self._start_scheduler()

        watchdog.watch("reading", reading, restart_reading)
        watchdog.watch("letters and outbox", work, restart_work)
        watchdog.watch("deadlines", deadlines, restart_deadlines)
        return watchdog

    def _stalls(self) -> list[Stall]:
        with Session(self.engine) as session:
            return find_stalls(session, self.clock(), timedelta(seconds=self.settings.bot.stall_seconds))

    def _ended(self, name: str) -> str | None:
        task = self._tasks.get(name)
        return "the loop ended" if task is not None and task.done() else None

    async def _restart_task(self, name: str, loop: Coroutine[Any, Any, None]) -> None:
        old = self._tasks.get(name)
        if old is not None and not old.done():
            old.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(old, timeout=10)
        self._start_task(name, loop)

    def _kill_letter_process(self) -> None:
        if self.letters is not None:
            self.letters.kill()

    async def intake_loop(self, stop: asyncio.Event) -> None:
        """Read the mailbox for ever: any failure is logged, backed off and retried, never the end."""
        s = self.settings.imap
        delay = s.reconnect_min
        while not stop.is_set():
            if not await asyncio.to_thread(self.presence.hold, self.reader_role):
                # Another worker reads this mailbox; take over when it is gone.
                await self._pause(stop, self.settings.workers.takeover_seconds)
                continue
            self.read_beat = time.monotonic()  # trying to read is life, whatever the server says
            source = ImapSource(imap_config(self.settings))
            try:
                await self._serve_mailbox(source, stop)
            except ImapError as exc:
                self.imap_failures.append(self.clock())
                log.warning("IMAP trouble (%s); reconnecting in %.1f s", exc, delay)
            except Exception as exc:  # a store or parser failure must not end reading: log, back off, retry
                self.imap_failures.append(self.clock())
                self.loop_failures["intake"] += 1
                if is_transient(exc):
                    log.warning("store unavailable (%s); reading again in %.1f s", describe(exc), delay)
                else:
                    log.exception("the reading loop failed; retrying in %.1f s", delay)
            else:
                delay = s.reconnect_min
            finally:
                with contextlib.suppress(Exception):
                    await source.close()
            await self._pause(stop, delay)
            delay = min(delay * 2, s.reconnect_max)

    async def _serve_mailbox(self, source: ImapSource, stop: asyncio.Event) -> None:
        s = self.settings.imap
        uidvalidity = await source.connect()
        await source.ensure_folder()
        await self.intake.reconcile(source, uidvalidity)
        while not stop.is_set():
            if not await asyncio.to_thread(self.presence.hold, self.reader_role):
                log.warning("this worker lost the mailbox (its store connection broke); reading stops")
                return
            result = await self.intake.poll(source, uidvalidity)
            self.read_beat = time.monotonic()
            self.mailbox_was_read(result.fetched)
            await source.wait_for_news(s.idle, s.idle_timeout, s.poll_interval)

    def mailbox_was_read(self, fetched: int) -> None:
        """After each read through the mailbox. The first since start, and the first after a
        failure to read, also ask for a tick: a deadline judged before it waited for it
        ("waiting for the mailbox to be read"), and the letters it brought may all have been
        handled before it ended (by the work loop, while the read acknowledged them), so no
        handling round would ask for that tick again."""
        last = self.mailbox_read_at
        first = last is None or bool(self.imap_failures and self.imap_failures[-1] >= last)
        self.mailbox_read_at = self.clock()
        del self.imap_failures[:-100]  # only those since the last good read count; keep a few
        if first and self.scheduler is not None:
            self.scheduler.rebuild()
        if fetched:
            self.wake.set()

    async def work_loop(self, stop: asyncio.Event) -> None:
        """Handle letters and send mail for ever: a failure is logged and backed off, never the end."""
        delay = WORK_BACKOFF_MIN
        while not stop.is_set():
            try:
                await self.work_once()
                delay = WORK_BACKOFF_MIN
                await self._sleep_until_woken()  # it reads the store too: inside the guard
            except Exception as exc:  # a store outage, a bug: must not stop all handling and sending
                self.loop_failures["work"] += 1
                if is_transient(exc):
                    log.warning("store unavailable (%s); letters wait %.1f s", describe(exc), delay)
                else:
                    log.exception("the work loop failed; going on in %.1f s", delay)
                await self._pause(stop, delay)
                delay = min(delay * 2, WORK_BACKOFF_MAX)

    @staticmethod
    async def _pause(stop: asyncio.Event, seconds: float) -> None:
        """Wait ``seconds`` or until stopped, whichever is first."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=seconds)

    async def work_once(self) -> None:
        # Letters are handled off the loop while the outbox sends: a long send (a deadline's
        # reports) must not keep the players' letters waiting, nor they the reports. While a
        # tick holds the games the letters wait (the tick wakes this loop when it is done).
        handling = asyncio.ensure_future(self.handling_round(wait=False))
        try:
            await self.outbox.send_due()
            # A round handles every stored letter, a burst of them for seconds, and commits the
            # replies batch by batch: they go out meanwhile, not all when the round ends (one
            # worker on PostgreSQL sent the last of 1,000 replies 4 s after it had queued it).
            while not handling.done():
                await asyncio.wait({handling}, timeout=SEND_DURING_ROUND)
                if not handling.done() and await asyncio.to_thread(self.outbox.due_now):
                    await self.outbox.send_due()
        finally:
            handled = await handling
        if self.scheduler is not None and (handled or self._shared_round_due()):
            # Letters (here or, with several workers, anywhere) may have made a step ready early.
            self.scheduler.rebuild()
        if handled:
            self.wake.set()  # their replies are due now: the next round sends them

    async def start_letter_process(self) -> None:
        """Start the process that handles letters, where settings and the store allow one."""
        if self._apart and not db.in_memory(self.settings.store.url) and self.letters is None:
            # An injected clock or seed stays in this process (the demo, tests): letters too.
            letters = LetterProcess(self.settings, build=letter_worker)
            try:
                await asyncio.to_thread(letters.start)
            except LetterProcessError as exc:  # this machine cannot start one: letters stay here
                log.warning("%s; letters are handled in this process", exc)
                return
            self.letters = letters

    async def stop_letter_process(self) -> None:
        if self.letters is not None:
            await asyncio.to_thread(self.letters.stop)
            self.letters = None

    async def handling_round(self, *, wait: bool) -> int:
        """Handle the stored letters: in the letter process while ``run`` has one, else here."""
        if self.letters is None:
            return await asyncio.to_thread(self.handle_letters, wait=wait)
        done = await asyncio.to_thread(self.letters.handle, wait=wait)
        self._letters_waiting = done.waiting
        return done.handled

    def _shared_round_due(self) -> bool:
        """With several workers: now and then, give back the outbox rows of workers that died
        and look again at the deadlines (only the mailbox reader ticks games)."""
        if (
            not self.presence.shared
            or time.monotonic() - self._last_sweep < self.settings.workers.sweep_seconds
        ):
            return False
        self._last_sweep = time.monotonic()
        self.presence.refresh()  # after a server restart: back before the others take us for dead
        if requeued := self.outbox.recover():
            log.warning("%d message(s) of a worker that died will be sent again", requeued)
        return self.presence.holds(self.reader_role)

    def handle_letters(self, *, wait: bool = True) -> int:
        """Handle every stored letter (blocking: call it in a worker thread); returns how many.

        Letters and game ticks touch the same games: they take turns, never overlap. With
        ``wait=False`` nothing is done (0) while a tick has the games.
        """
        if not self._game_lock.acquire(blocking=wait):
            return 0
        try:
            return self.processor.process_pending()
        finally:
            self._game_lock.release()

    # -- games -----------------------------------------------------------------

    def interlock(self, mailbox: MailboxHealth) -> lifecycle.Watch:
        """A deadline waits for the mailbox to be read through after any failure to read it (its
        letters may not be in yet); only when reading has failed for ``imap_trouble_minutes``
        with no good read since is the game paused and the GM asked. An outage that heals by
        itself (a server restarted, a store locked for a minute) delays a deadline by that
        long, and pauses nothing."""
        lasting = timedelta(minutes=self.settings.bot.imap_trouble_minutes)
        failures = mailbox.imap_failures
        trouble = bool(failures) and self.clock() - min(failures) >= lasting
        return lifecycle.Watch(
            mailbox_read=mailbox.mailbox_read and (trouble or not failures), imap_trouble=trouble
        )

    def watch(self) -> MailboxHealth:
        """What this moderator knows of its mailbox, for a tick's interlock: whether it was read
        since start, and the failures to read it since the last good read.

        A tick takes it once, before it handles the stored letters: a read that ends while the
        tick runs counts from the next tick (which that read asks for), never for games judged
        without its letters.
        """
        read_at = self.mailbox_read_at
        failures = tuple(t for t in self.imap_failures if read_at is None or t >= read_at)
        return MailboxHealth(read_at is not None, failures)

    def tick_once(self) -> list[str]:
        """Do whatever is due in every running game (one transaction per game), here and now.

        A game whose tick raises (a bug in its rules, a state it cannot load)
        is rolled back, paused with the reason and its GM told; the other games
        go on in the same tick.
        """
        return list(self.ticks(self.watch()))

    def ticks(self, watch: MailboxHealth) -> Iterator[str]:
        """``tick_once`` a game at a time (what the letter process does when asked for a tick)."""
        if watch.mailbox_read:
            # Every letter read so far is handled before any deadline is judged.
            self.handle_letters()
        for game_id in self._running_games():
            yield self._tick_game(game_id, watch)

    async def tick_all(self) -> list[str]:
        """``tick_once`` with each game off the event loop (in the letter process while ``run``
        has one, else in a worker thread), the work loop woken as games are done, so their
        letters go out while later games are still being resolved."""
        watch = self.watch()
        game_done = self._sender_waker(asyncio.get_running_loop())
        lines = None
        if self.letters is not None:
            try:
                lines = await asyncio.to_thread(self.letters.tick, watch, game_done)
            except LetterProcessError as exc:  # died or failed: the games must not wait for it
                log.warning("%s; this tick is done in the moderator's process", exc)
        if lines is None:
            lines = []
            games = self.ticks(watch)  # a step at a time, each in a worker thread
            while (line := await asyncio.to_thread(next, games, None)) is not None:
                lines.append(line)
                game_done(line)
        self.wake.set()  # the last games' letters, and letters that came while the games were busy
        return lines

    def _sender_waker(self, loop: asyncio.AbstractEventLoop) -> Callable[[str], None]:
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

    def _running_games(self) -> list[int]:
        with Session(self.engine) as session:
            query = select(Game.id).where(Game.status == GameStatus.RUNNING).order_by(col(Game.id))
            return [game_id for game_id in session.exec(query) if game_id is not None]

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
        with self._game_lock:
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

    def _tick_game(self, game_id: int, watch: MailboxHealth) -> str:
        with self._game_lock:
            try:
                # Nothing is read from the game's rows after the commit: expiring them is waste.
                with Session(self.engine, expire_on_commit=False) as session, session.begin():
                    begin_writing(session)  # the tick reads much, then writes: a writer from the start
                    lock_game(session, game_id)  # other workers' letters to it wait until we commit
                    # The tick resolves from the step's snapshot and writes the state anew: the
                    # ~50 kB saved state is read only if something asks for it (a reminder's view).
                    game = session.exec(_TICKED_GAME, params={"game_id": game_id}).one()
                    line = f"game {game_id}: {self.turns.tick(session, game, self.interlock(watch))}"
                self._game_strikes.pop(game_id, None)
                return line
            except Exception as exc:
                return f"game {game_id}: {self._tick_failed(game_id, exc)}"
            finally:
                self.tick_beat = time.monotonic()

    def _tick_failed(self, game_id: int, exc: Exception) -> str:
        """A game whose tick raised: tried again soon while the store is at fault (locked, lost,
        full) or while the error has not repeated; paused, its GM told, only for an error that
        repeats with the store answering (an error in its own rules or state)."""
        if is_transient(exc) and not writable(self.engine):
            log.warning("game %s: store unavailable (%s); its tick is %s", game_id, describe(exc), TRY_AGAIN)
            return f"store unavailable, {TRY_AGAIN}"
        self._game_strikes[game_id] += 1
        if self._game_strikes[game_id] < GAME_STRIKES:
            log.exception("game %s failed in its tick; %s before it is paused", game_id, TRY_AGAIN)
            return f"error, {TRY_AGAIN}"
        log.exception("game %s failed in its tick again; pausing it", game_id)
        del self._game_strikes[game_id]
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

    async def tick_games(self) -> None:
        """The scheduler's job. A wake-up that comes while a tick runs makes it go round once
        more instead of running beside it (games are judged one at a time). With several
        workers only the one that reads the mailbox judges deadlines."""
        if not self.presence.holds(self.reader_role):
            return
        self._tick_wanted = True
        if self._ticking:
            return
        self._ticking = True
        retry = TICK_RETRY_MIN
        try:
            while self._tick_wanted:
                self._tick_wanted = False
                if await self._tick_round():
                    retry = TICK_RETRY_MIN
                    continue
                # The store failed under it, or a game asked to be tried again: soon, not at
                # the next wake-up (a deadline passed during an outage is judged when it ends).
                await asyncio.sleep(retry)
                retry = min(retry * 2, TICK_RETRY_MAX)
                self._tick_wanted = True
        finally:
            self._ticking = False

    async def _tick_round(self) -> bool:
        """One tick of every game; False when it must be tried again soon."""
        try:
            done = await self.tick_all()
            if any("idle" not in line for line in done) and self.scheduler is not None:
                self.scheduler.rebuild()
        except Exception as exc:  # the store, most likely: the games wait for it, none is blamed
            self.tick_beat = time.monotonic()
            if is_transient(exc):
                log.warning("a tick could not run: the store is unavailable (%s)", describe(exc))
            else:
                log.exception("a tick failed")
            return False
        self.tick_beat = time.monotonic()
        return not any(TRY_AGAIN in line for line in done)

    def wake_times(self) -> list[datetime]:
        """Every future moment at which some game may have something to do."""
        times: list[datetime] = []
        # The columns it needs, not the rows: a row brings its game's saved state (~50 kB for
        # Flat Top), and this runs after every round of letters.
        step = (col(StepRow.deadline_at), col(StepRow.early_at), col(StepRow.opened_at))
        query = sa.select(*step, col(Game.grace_seconds), col(Game.reminders)).where(
            col(StepRow.game_id) == col(Game.id),
            col(Game.status) == GameStatus.RUNNING,
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

    async def _sleep_until_woken(self) -> None:
        due = self.outbox.next_due()
        timeout = 60.0 if due is None else max((due - self.clock()).total_seconds(), 0.05)
        # Letters the GM's commands queue from another process wake nobody: look again soon.
        timeout = min(timeout, self.settings.bot.outbox_poll_seconds)
        if self.presence.shared:  # another worker may read the mail: look for letters now and then
            timeout = min(timeout, self.settings.workers.poll_seconds)
        if self.processor.waiting or self._letters_waiting:  # letters wait for another worker
            timeout = min(timeout, WAITING_RETRY)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wake.wait(), timeout=min(timeout, 60.0))
        self.wake.clear()

    # -- one-off entry points ----------------------------------------------

    def inject(self, raw: bytes) -> int:
        """Store one message as if fetched (mailbox ``inject``); returns rows stored (0 = duplicate)."""
        item = describe_raw(RawMessage(uid=0, raw=raw, received_at=self.clock()))
        with Session(self.engine) as session, session.begin():
            return repo.add_inbound(session, "inject", None, [item], self.clock())
