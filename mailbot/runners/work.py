# SPDX-License-Identifier: GPL-3.0-or-later
"""The stored letters handled and the outbox sent, for ever: a failure is logged and backed
off, never the end. Woken by reading (letters came), by ticks (their reports are queued), by
other workers on the store (``store.wakeups``: letters they stored, batches they committed
while letters waited here) and when the next retry of a letter is due."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime

from mailbot.runners import Failures, pause
from mailbot.runners.letters import Letters
from mailbot.services.post.outbox import Outbox
from mailbot.settings import Settings
from mailbot.store import counts, wakeups
from mailbot.store.presence import Presence
from mailbot.store.transient import describe, is_transient

log = logging.getLogger(__name__)

#: the loop's back-off after a failure, doubling up to the maximum (seconds): short, so a store
#: that is back is used again within seconds
WORK_BACKOFF_MIN = 0.5
WORK_BACKOFF_MAX = 8.0
#: how soon letters that waited for another worker (or its game) are tried again (seconds);
#: while this worker hears the others (they say when they commit a batch), each try that finds
#: them still waiting doubles the wait, up to ``WAITING_RETRY_MAX``: the notice wakes it sooner
WAITING_RETRY = 0.05
WAITING_RETRY_MAX = 1.0
#: how often a worker that does not hear the others (its listening connection broke) looks for
#: letters they stored, whatever ``workers.poll_seconds`` says
DEAF_POLL_SECONDS = 0.5
#: during a long round of letter handling, how often the outbox looks for replies it committed
SEND_DURING_ROUND = 0.1


class Work:
    def __init__(
        self,
        *,
        settings: Settings,
        outbox: Outbox,
        letters: Letters,
        presence: Presence,
        role: str,
        clock: Callable[[], datetime],
        wake: asyncio.Event,
        failures: Failures,
        letters_handled: Callable[[], None],
    ) -> None:
        """``letters_handled`` is called after a round that handled letters (or, with several
        workers, now and then): they may have made a step ready early."""
        self.settings = settings
        self.outbox = outbox
        self.letters = letters
        self.presence = presence
        self.role = role
        self.clock = clock
        self.wake = wake
        self.failures = failures
        self.letters_handled = letters_handled
        self._last_sweep = 0.0
        self._waiting_retry = WAITING_RETRY
        self._handled_elsewhere = False  # a batch was committed elsewhere during this round
        #: whether this worker hears the others now (``store.wakeups.Listener``; set by ``run``)
        self.listening: Callable[[], bool] = lambda: False

    def heard(self, what: str) -> None:
        """Another worker said something on the store (in the event loop). A batch committed
        elsewhere matters only while letters here wait for one; letters stored (or a notice
        that may have been missed while not listening) are looked for now."""
        if what == wakeups.HANDLED and not self.letters.left_waiting:
            self._handled_elsewhere = True  # the round under way may yet leave letters waiting for it
            return
        self._waiting_retry = WAITING_RETRY
        self.wake.set()

    async def loop(self, stop: asyncio.Event) -> None:
        """Handle letters and send mail for ever: a failure is logged and backed off, never the end."""
        delay = WORK_BACKOFF_MIN
        while not stop.is_set():
            try:
                await self.once()
                delay = WORK_BACKOFF_MIN
                await self._sleep_until_woken()  # it reads the store too: inside the guard
            except Exception as exc:  # a store outage, a bug: must not stop all handling and sending
                self.failures["work"] += 1
                if is_transient(exc):
                    log.warning("store unavailable (%s); letters wait %.1f s", describe(exc), delay)
                else:
                    log.exception("the work loop failed; going on in %.1f s", delay)
                await pause(stop, delay)
                delay = min(delay * 2, WORK_BACKOFF_MAX)

    async def once(self) -> None:
        # Letters are handled off the loop while the outbox sends: a long send (a deadline's
        # reports) must not keep the players' letters waiting, nor they the reports. While a
        # tick holds the games the letters wait (the tick wakes this loop when it is done).
        self._handled_elsewhere = False
        handling = asyncio.ensure_future(self.letters.round(wait=False))
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
        # Letters (here or, with several workers, anywhere) may have made a step ready early. Only
        # the worker that reads the mailbox ticks games: the others need not look at them.
        if (handled and self.presence.holds(self.role)) or self._shared_round_due():
            self.letters_handled()
        if handled:
            self.wake.set()  # their replies are due now: the next round sends them

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
        return self.presence.holds(self.role)

    async def _sleep_until_woken(self) -> None:
        timeout = await asyncio.to_thread(self.sleep_seconds)
        try:
            await asyncio.wait_for(self.wake.wait(), timeout=timeout)
            counts.note("work woken")
        except TimeoutError:
            counts.note("work timed out")
        self.wake.clear()

    def sleep_seconds(self) -> float:
        """How long the loop may sleep unless woken (it reads the store: blocking)."""
        due = self.outbox.next_due()
        timeout = 60.0 if due is None else max((due - self.clock()).total_seconds(), 0.05)
        # Letters the GM's commands queue from another process wake nobody: look again soon.
        timeout = min(timeout, self.settings.bot.outbox_poll_seconds)
        listening = self.listening()
        if self.presence.shared:  # another worker may read the mail and not be heard: look now and then
            poll = self.settings.workers.poll_seconds
            timeout = min(timeout, poll if listening else min(poll, DEAF_POLL_SECONDS))
        if self.letters.left_waiting:  # letters wait for another worker (or its game)
            soon = self._handled_elsewhere or not listening
            timeout = min(timeout, WAITING_RETRY if soon else self._waiting_retry)
            self._waiting_retry = min(self._waiting_retry * 2, WAITING_RETRY_MAX)
        else:
            self._waiting_retry = WAITING_RETRY
        return min(timeout, 60.0)
