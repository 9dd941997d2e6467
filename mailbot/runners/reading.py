# SPDX-License-Identifier: GPL-3.0-or-later
"""The mailbox read for ever into ``inbound`` rows: IMAP IDLE or polling, reconnecting with
back-off; any failure is logged and retried, never the end. With several workers on one store
only the worker that holds the reader's role reads; the others take over when it is gone."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime

from mailbot.errors import ImapError
from mailbot.letterproc import MailboxHealth
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.runners import Beats, Failures, pause
from mailbot.services.inbox.intake import Intake
from mailbot.settings import Settings
from mailbot.store.presence import Presence
from mailbot.store.transient import describe, is_transient

log = logging.getLogger(__name__)


class Reader:
    def __init__(
        self,
        *,
        settings: Settings,
        imap: Callable[[], ImapConfig],
        intake: Intake,
        presence: Presence,
        role: str,
        clock: Callable[[], datetime],
        beats: Beats,
        failures: Failures,
        wake: asyncio.Event,
        first_read: Callable[[], None],
    ) -> None:
        """``imap`` gives the server's settings for each connection (a password file is read
        again); ``wake`` wakes the work loop for the letters a read brought; ``first_read`` is called
        after the first good read since the start or since a failure (the deadlines waited)."""
        self.settings = settings
        self.imap = imap
        self.intake = intake
        self.presence = presence
        self.role = role
        self.clock = clock
        self.beats = beats
        self.failures = failures
        self.wake = wake
        self.first_read = first_read
        self.imap_failures: list[datetime] = []
        # When the mailbox was last read through. A moderator that reads no mailbox (tests,
        # one-off commands) judges by the letters it was given; ``run`` clears this until its
        # first read.
        self.read_at: datetime | None = clock()

    async def loop(self, stop: asyncio.Event) -> None:
        """Read the mailbox for ever: any failure is logged, backed off and retried, never the end."""
        s = self.settings.imap
        delay = s.reconnect_min
        while not stop.is_set():
            if not await asyncio.to_thread(self.presence.hold, self.role):
                # Another worker reads this mailbox; take over when it is gone.
                await pause(stop, self.settings.workers.takeover_seconds)
                continue
            self.beats.read = time.monotonic()  # trying to read is life, whatever the server says
            source = ImapSource(self.imap())
            try:
                await self._serve(source, stop)
            except ImapError as exc:
                self.imap_failures.append(self.clock())
                log.warning("IMAP trouble (%s); reconnecting in %.1f s", exc, delay)
            except Exception as exc:  # a store or parser failure must not end reading: log, back off, retry
                self.imap_failures.append(self.clock())
                self.failures["intake"] += 1
                if is_transient(exc):
                    log.warning("store unavailable (%s); reading again in %.1f s", describe(exc), delay)
                else:
                    log.exception("the reading loop failed; retrying in %.1f s", delay)
            else:
                delay = s.reconnect_min
            finally:
                with contextlib.suppress(Exception):
                    await source.close()
            await pause(stop, delay)
            delay = min(delay * 2, s.reconnect_max)

    async def _serve(self, source: ImapSource, stop: asyncio.Event) -> None:
        s = self.settings.imap
        uidvalidity = await source.connect()
        await source.ensure_folder()
        await self.intake.reconcile(source, uidvalidity)
        while not stop.is_set():
            if not await asyncio.to_thread(self.presence.hold, self.role):
                log.warning("this worker lost the mailbox (its store connection broke); reading stops")
                return
            result = await self.intake.poll(source, uidvalidity)
            self.beats.read = time.monotonic()
            self.was_read(result.fetched)
            await source.wait_for_news(s.idle, s.idle_timeout, s.poll_interval)

    def was_read(self, fetched: int) -> None:
        """After each read through the mailbox. The first since start, and the first after a
        failure to read, also ask for a tick: a deadline judged before it waited for it
        ("waiting for the mailbox to be read"), and the letters it brought may all have been
        handled before it ended (by the work loop, while the read acknowledged them), so no
        handling round would ask for that tick again."""
        last = self.read_at
        first = last is None or bool(self.imap_failures and self.imap_failures[-1] >= last)
        self.read_at = self.clock()
        del self.imap_failures[:-100]  # only those since the last good read count; keep a few
        if first:
            self.first_read()
        if fetched:
            self.wake.set()

    def health(self) -> MailboxHealth:
        """What this moderator knows of its mailbox, for a tick's interlock: whether it was read
        since start, and the failures to read it since the last good read.

        A tick takes it once, before it handles the stored letters: a read that ends while the
        tick runs counts from the next tick (which that read asks for), never for games judged
        without its letters.
        """
        read_at = self.read_at
        failures = tuple(t for t in self.imap_failures if read_at is None or t >= read_at)
        return MailboxHealth(read_at is not None, failures)
