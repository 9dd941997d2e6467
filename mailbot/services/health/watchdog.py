# SPDX-License-Identifier: GPL-3.0-or-later
"""The watchdog over the service's long-running loops: none may go silent while work is due.

Each loop (reading the mailbox, handling letters, judging deadlines, sending) says how it
counts as stalled: work due in the store (:mod:`mailbot.services.health.stalls`) that nothing has
touched for ``stall_seconds``, or a sign of life of its own that is too old (the reader's
last read, the last tick, the outbox's last run), or its task that ended. The watchdog looks
every few seconds; a stalled loop is restarted in the process, then left alone for
``stall_seconds`` to show progress. A loop that stays stalled after ``max_restarts`` restarts
makes the watchdog give up: ``fatal`` says why and the service stops, to exit non-zero so
that systemd or the container starts it anew.

A store that cannot be read says nothing about the work due (the loops wait for it, as the
watchdog does): while it is away, only what needs no store is judged (a loop that ended, a
reader gone quiet).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mailbot.services.health.stalls import Stall
from mailbot.store.transient import describe, is_transient

log = logging.getLogger(__name__)


@dataclass
class _Watched:
    name: str
    stalled: Callable[[Sequence[Stall]], str | None]  # why the loop counts as stalled now, or None
    restart: Callable[[], Awaitable[None]]
    restarts: int = 0  # since it last showed progress
    quiet_until: float = 0.0  # monotonic: a restarted loop is given time to show progress
    reason: str | None = None  # why it was stalled when last looked at


class Watchdog:
    def __init__(
        self,
        *,
        stalls: Callable[[], list[Stall]],
        stall_seconds: float,
        max_restarts: int,
        check_seconds: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``stalls`` reads the store's stalled work (blocking: it runs in a worker thread)."""
        self._stalls = stalls
        self.stall_seconds = stall_seconds
        self.max_restarts = max_restarts
        self.check_seconds = check_seconds or min(15.0, stall_seconds / 4)
        self._monotonic = monotonic
        self._watched: list[_Watched] = []
        self.fatal: str | None = None  # why the watchdog gave up (the service then exits non-zero)
        self.store_trouble: str | None = None  # the store could not be read at the last look

    def watch(
        self,
        name: str,
        stalled: Callable[[Sequence[Stall]], str | None],
        restart: Callable[[], Awaitable[None]],
    ) -> None:
        self._watched.append(_Watched(name, stalled, restart))

    async def run(self, stop: asyncio.Event) -> None:
        """Look every ``check_seconds`` until stopped; gives up (sets ``stop``) when it must."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.check_seconds)
            if stop.is_set():
                return
            try:
                await self.check()
            except Exception:  # the watchdog must outlive whatever it watches
                log.exception("the watchdog's look failed; looking again in %.0f s", self.check_seconds)
            if self.fatal is not None:
                stop.set()

    async def check(self) -> None:
        """One look at every loop: restart what is stalled, give up on what stays stalled."""
        try:
            stalls = await asyncio.to_thread(self._stalls)
            self.store_trouble = None
        except Exception as exc:
            if not is_transient(exc):
                raise
            self.store_trouble = describe(exc)
            log.warning("watchdog: the store cannot be read (%s); judging without it", self.store_trouble)
            stalls = []  # what needs no store is still judged: a loop that ended, a reader gone quiet
        for watched in self._watched:
            await self._judge(watched, stalls)
            if self.fatal is not None:
                return

    async def _judge(self, watched: _Watched, stalls: Sequence[Stall]) -> None:
        watched.reason = reason = watched.stalled(stalls)
        if reason is None:
            watched.restarts = 0
            return
        now = self._monotonic()
        if now < watched.quiet_until:
            return
        if watched.restarts >= self.max_restarts:
            self.fatal = f"{watched.name}: {reason}; no progress after {watched.restarts} restart(s)"
            log.critical("watchdog gives up, the service stops to be started anew: %s", self.fatal)
            return
        watched.restarts += 1
        watched.quiet_until = now + self.stall_seconds
        log.error(
            "watchdog: %s stalled (%s); restarting it (%d of %d)",
            watched.name,
            reason,
            watched.restarts,
            self.max_restarts,
        )
        await watched.restart()

    def report(self) -> dict[str, Any]:
        """The loops as the watchdog last saw them, for ``/health``."""
        loops: dict[str, Any] = {w.name: {"stalled": w.reason, "restarts": w.restarts} for w in self._watched}
        notes = [f"{w.name} stalled: {w.reason}" for w in self._watched if w.reason]
        if self.store_trouble:
            notes.append(f"the store cannot be read: {self.store_trouble}")
        return {"loops": loops, "notes": notes}
