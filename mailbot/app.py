# SPDX-License-Identifier: GPL-3.0-or-later
"""Composition root: builds the store, adapters, services and loops from settings, and runs them.

The loops are small runners (``mailbot.runners``): *reading* (IMAP to ``inbound`` rows, with
IDLE or polling and reconnect with backoff) and *work* (handle stored letters, then send the
outbox) share one event loop; reading wakes work, and work also wakes when the next retry is
due. The scheduler's deadline ticks run beside them, and a watchdog restarts a loop it sees
stalled. The blocking parts run off the loop, so it keeps reading and sending meanwhile:
storing fetched mail in a worker thread, handling letters and each game's tick in the letter
process (``mailbot.letterproc``, ``bot.handling_process``) or, without one, in worker
threads, where letters and game ticks take turns on one lock, since both change games.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.connect import imap_config, oauth2_logins, smtp_config
from mailbot.core.letter import RawMessage
from mailbot.errors import StallError
from mailbot.letterproc import MailboxHealth
from mailbot.mail.parsed import ParseLimits
from mailbot.mail.smtp import SmtpSink
from mailbot.render.maps.painting import Painter
from mailbot.render.templates import Renderer
from mailbot.runners import Beats, Failures
from mailbot.runners.deadlines import Deadlines
from mailbot.runners.games import GameTicks
from mailbot.runners.letters import Letters
from mailbot.runners.reading import Reader
from mailbot.runners.supervise import Tasks, stalls_in, watchdog_for
from mailbot.runners.work import Work
from mailbot.services.archive.archive_mail import ArchiveMail
from mailbot.services.base.tags import fresh_seed
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
from mailbot.services.play.observing import OBSERVER_COMMANDS, Observing
from mailbot.services.play.reports import Reports
from mailbot.services.play.sealing import Sealing
from mailbot.services.play.turns import Turns
from mailbot.services.post.identity import Identity
from mailbot.services.post.letters import Postman
from mailbot.services.post.notices import GmNotifier
from mailbot.services.post.outbox import Outbox, RetryPolicy, Sink
from mailbot.services.post.throttle import Limits
from mailbot.settings import Settings
from mailbot.store import db, lease, repo
from mailbot.store.presence import Presence, reader_role
from mailbot.store.wakeups import Listener

log = logging.getLogger(__name__)

#: another worker must look dead this long before its claimed letters are sent by others
DEAD_WORKER_SECONDS = 10.0

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


def crash_checkpoint(points: Sequence[str]) -> Callable[[str], None]:
    """Fault injection for crash tests: a real, unclean process kill at the named point."""
    wanted = frozenset(points)

    def checkpoint(name: str) -> None:
        if name in wanted:
            log.warning("crash injected at %s", name)
            os.kill(os.getpid(), signal.SIGKILL)

    return checkpoint


class Bot:
    """The moderator built from its settings: the store, the services and the loops
    (``mailbot.runners``), which ``run`` starts and watches."""

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
        self.wake = asyncio.Event()  # wakes the work loop: letters came, reports were queued
        self.loop_failures: Failures = Counter()  # failures per loop since start, for status
        self.beats = Beats()  # signs of life for the watchdog
        self.started_at = clock()
        self._build_letters_in(settings, clock)
        self._build_play(settings, clock, draw_seed or fresh_seed)
        self._register_commands(clock)
        # Several workers may share a PostgreSQL store: this one's presence, and its roles.
        self.presence = Presence(self.engine)
        self.reader_role = reader_role(settings.imap.user, settings.imap.mailbox)
        self.imap_oauth2, self.smtp_oauth2 = oauth2_logins(settings)
        self.outbox = self._outbox(settings, clock, sink)
        self._build_runners(
            settings, clock, apart=settings.bot.handling_process and clock is utcnow and draw_seed is None
        )
        self.tasks = Tasks()
        self.watchdog: Watchdog | None = None

    def _build_letters_in(self, settings: Settings, clock: Clock) -> None:
        """Who the moderator is, the intake that stores letters and the processor that reads them."""
        bot = settings.bot
        self.identity = Identity(
            bot.address,
            bot.name,
            bot.gm_address,
            bot.max_message_bytes,
            bot.max_text_chars,
            Limits(bot.answers_per_hour, bot.idle_answers_per_hour),
        )
        self.intake = Intake(
            engine=self.engine,
            mailbox=settings.imap.mailbox,
            clock=clock,
            batch_size=settings.imap.batch_size,
            checkpoint=self.checkpoint,
            limits=ParseLimits(bot.max_message_bytes, bot.max_text_chars),
        )
        self.processor = InboundProcessor(
            engine=self.engine,
            renderer=self.renderer,
            identity=self.identity,
            clock=clock,
            new_message_id=self.new_message_id,
        )

    def _build_play(self, settings: Settings, clock: Clock, draw_seed: Callable[[], bytes]) -> None:
        """The services that write letters and play the games: reports, games, turns, the GM's
        actions and the gate every command passes."""
        self.notifier = GmNotifier(
            renderer=self.renderer, identity=self.identity, new_message_id=self.new_message_id
        )
        self.postman = Postman(
            renderer=self.renderer, identity=self.identity, new_message_id=self.new_message_id
        )
        # On one core a second process would only add its start and its own caches' work.
        painter = Painter(apart=settings.bot.map_process and (os.cpu_count() or 1) > 1)
        self.reports = Reports(postman=self.postman, renderer=self.renderer, clock=clock, painter=painter)
        self.games = Games(postman=self.postman, reports=self.reports, clock=clock, draw_seed=draw_seed)
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

    def _register_commands(self, clock: Clock) -> None:
        """Every command a letter may carry, with the service that answers it."""
        games, gate, postman = self.games, self.gate, self.postman
        sealing = Sealing(games=games, gate=gate, postman=postman, clock=clock)
        archive_mail = ArchiveMail(gate=gate, postman=postman, clock=clock)
        player = {**self.mailgame.handlers(), "ARCHIVE": archive_mail.archive, "SEAL": sealing.seal}
        self.processor.register(PLAYER_COMMANDS, player)
        self.processor.help_extras.append(self.mailgame.game_help)
        dice = DiceChains(gate=gate, now=clock, start=games.start)
        self.processor.register(DICE_COMMANDS, dice.handlers())
        self.processor.register(GM_COMMANDS, GmMail(actions=self.gm, gate=gate).handlers())
        endgame = Endgame(
            games=games, turns=self.turns, reports=self.reports, gate=gate, postman=postman, clock=clock
        )
        self.processor.register(ENDGAME_COMMANDS, endgame.handlers())
        observing = Observing(letters=self.reports.observers, clock=clock)
        self.processor.register(OBSERVER_COMMANDS, observing.handlers())

    def _outbox(self, settings: Settings, clock: Clock, sink: Sink | None) -> Outbox:
        smtp = settings.smtp
        return Outbox(
            engine=self.engine,
            sink=sink or SmtpSink(smtp_config(settings, self.smtp_oauth2)),
            clock=clock,
            retry=RetryPolicy(smtp.retry_base, smtp.retry_max, smtp.max_attempts),
            on_failure=self.notifier.delivery_failed,
            checkpoint=self.checkpoint,
            connections=smtp.connections,
            owner=self.presence.worker_key,
            alive=self.presence.alive,
            probe=RetryPolicy(smtp.reconnect_min, smtp.reconnect_max),
            dead_after=DEAD_WORKER_SECONDS if self.presence.shared else 0.0,
        )

    def _build_runners(self, settings: Settings, clock: Clock, *, apart: bool) -> None:
        game_lock = threading.Lock()  # letter handling and game ticks take turns (worker threads)
        self.letters = Letters(settings, self.processor, game_lock, apart=apart, build=letter_worker)
        self.reader = Reader(
            settings=settings,
            imap=lambda: imap_config(settings, self.imap_oauth2),
            intake=self.intake,
            presence=self.presence,
            role=self.reader_role,
            clock=clock,
            beats=self.beats,
            failures=self.loop_failures,
            wake=self.wake,
            first_read=lambda: self.deadlines.rebuild(),  # noqa: PLW0108 (built below)
        )
        self.ticker = GameTicks(
            engine=self.engine,
            turns=self.turns,
            reports=self.reports,
            clock=clock,
            handle_letters=self.letters.handle,
            game_lock=game_lock,
            trouble_after=timedelta(minutes=settings.bot.imap_trouble_minutes),
            beats=self.beats,
        )
        self.deadlines = Deadlines(
            engine=self.engine,
            games=self.ticker,
            letters=self.letters,
            mailbox=self.reader.health,
            presence=self.presence,
            role=self.reader_role,
            clock=clock,
            wake=self.wake,
            beats=self.beats,
        )
        self.work = Work(
            settings=settings,
            outbox=self.outbox,
            letters=self.letters,
            presence=self.presence,
            role=self.reader_role,
            clock=clock,
            wake=self.wake,
            failures=self.loop_failures,
            letters_handled=self.deadlines.rebuild,
        )

    def new_message_id(self) -> str:
        domain = self.settings.bot.address.rpartition("@")[2] or "mailbot.localhost"
        return f"{uuid.uuid4().hex}@{domain}"

    def upgrade(self) -> None:
        db.upgrade(self.engine)

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Run until ``stop`` is set (or forever)."""
        stop = stop or asyncio.Event()
        held = lease.acquire_for(self.settings.store.url)  # SQLite: one worker only, else ConfigError
        self.reader.read_at = None  # read before you judge: no deadline until the mailbox is read
        self.presence.start()
        with self.presence.exclusive("migrations"):  # workers starting together upgrade once
            self.upgrade()
        requeued = self.outbox.recover()
        if requeued:
            log.warning("%d message(s) left in 'sending' by a crash will be sent again", requeued)
        await self.letters.start()
        listener = self.listen()
        freeze_long_lived()
        self.tasks.start("reading", self.reader.loop(stop))
        self.tasks.start("work", self.work.loop(stop))
        self.deadlines.start()
        self.watchdog = watchdog_for(
            self.settings,
            stalls=stalls_in(self.engine, self.clock, self.settings.bot.stall_seconds),
            tasks=self.tasks,
            beats=self.beats,
            reader=self.reader,
            work=self.work,
            letters=self.letters,
            deadlines=self.deadlines,
            outbox=self.outbox,
            stop=stop,
        )
        self.tasks.start("watchdog", self.watchdog.run(stop))
        if self.settings.bot.health_port:
            await serve_health(self.settings.bot.health_port, self.status, until=stop)
        try:
            await stop.wait()
        finally:
            self.deadlines.stop()
            self.work.wake.set()  # out of its sleep: it sees the stop
            await self.tasks.stop_all(finishing=("work",))
            await self.outbox.sink.close()
            await self.letters.stop()
            await asyncio.to_thread(listener.stop)
            self.presence.stop()
            held.release()
        if self.watchdog.fatal is not None:
            raise StallError(self.watchdog.fatal)

    def listen(self) -> Listener:
        """Hear the other workers on the store (PostgreSQL): their notices wake the work loop."""
        loop = asyncio.get_running_loop()

        def heard(what: str) -> None:  # in the listener's thread
            loop.call_soon_threadsafe(self.work.heard, what)

        listener = Listener(self.engine, heard)
        self.work.listening = listener.listening.is_set
        listener.start()
        return listener

    def status(self) -> Status:
        """The store's status with this service's own view of its loops (``/health``)."""
        loops = self.watchdog.report() if self.watchdog is not None else {"notes": []}
        if self.outbox.transport_down_since is not None:
            since = self.outbox.transport_down_since.isoformat(timespec="seconds")
            loops["notes"].append(f"SMTP transport down since {since}: {self.outbox.transport_error}")
        stall = timedelta(seconds=self.settings.bot.stall_seconds)
        return gather_status(self.engine, self.clock(), self.reader_role, stall=stall, loops=loops)

    # -- what the letter process, the command line and the tests ask of the moderator ----------

    def handle_letters(self, *, wait: bool = True) -> int:
        """Handle every stored letter here (blocking); returns how many (``runners.letters``)."""
        return self.letters.handle(wait=wait)

    def ticks(self, watch: MailboxHealth) -> Iterator[str]:
        """Do whatever is due in every running game, a game at a time (``runners.games``)."""
        return self.ticker.ticks(watch)

    def tick_once(self) -> list[str]:
        """Do whatever is due in every running game (one transaction per game), here and now.

        A game whose tick raises (a bug in its rules, a state it cannot load) is rolled back,
        paused with the reason and its GM told; the other games go on in the same tick.
        """
        return list(self.ticks(self.reader.health()))

    def inject(self, raw: bytes) -> int:
        """Store one message as if fetched (mailbox ``inject``), parsed as the reader parses it;
        returns rows stored (0 = duplicate)."""
        item = describe_raw(RawMessage(uid=0, raw=raw, received_at=self.clock()), self.intake.limits)
        with Session(self.engine) as session, session.begin():
            return repo.add_inbound(session, "inject", None, [item], self.clock())
