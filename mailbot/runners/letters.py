# SPDX-License-Identifier: GPL-3.0-or-later
"""Rounds of letter handling: in the letter process while the service runs one, else here.

Letters and game ticks touch the same games: in this process they take turns on one lock
(``game_lock``, shared with ``runners.games``), never overlap.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from mailbot.letterproc import Build, LetterProcess, LetterProcessError
from mailbot.services.inbox.inbound import InboundProcessor
from mailbot.settings import Settings
from mailbot.store import db

log = logging.getLogger(__name__)


class Letters:
    def __init__(
        self,
        settings: Settings,
        processor: InboundProcessor,
        game_lock: threading.Lock,
        *,
        apart: bool,
        build: Build,
    ) -> None:
        """``apart``: handle letters in a process of their own when the store allows one (built
        there by ``build``); an injected clock or seed stays in this process (the demo, tests)."""
        self.settings = settings
        self.processor = processor
        self.game_lock = game_lock
        self.apart = apart
        self.build = build
        self.process: LetterProcess | None = None  # while ``run`` runs: the process that handles letters
        self.waiting = False  # the process's last round left letters for another worker

    def handle(self, *, wait: bool = True) -> int:
        """Handle every stored letter here (blocking: call it in a worker thread); returns how
        many. With ``wait=False`` nothing is done (0) while a tick has the games."""
        if not self.game_lock.acquire(blocking=wait):
            return 0
        try:
            return self.processor.process_pending()
        finally:
            self.game_lock.release()

    async def round(self, *, wait: bool) -> int:
        """Handle the stored letters: in the letter process while there is one, else here."""
        if self.process is None:
            return await asyncio.to_thread(self.handle, wait=wait)
        done = await asyncio.to_thread(self.process.handle, wait=wait)
        self.waiting = done.waiting
        return done.handled

    @property
    def left_waiting(self) -> bool:
        """Letters wait for another worker (their senders' letters are claimed there)."""
        return bool(self.processor.waiting) or self.waiting

    async def start(self) -> None:
        """Start the process that handles letters, where settings and the store allow one."""
        if self.apart and not db.in_memory(self.settings.store.url) and self.process is None:
            process = LetterProcess(self.settings, build=self.build)
            try:
                await asyncio.to_thread(process.start)
            except LetterProcessError as exc:  # this machine cannot start one: letters stay here
                log.warning("%s; letters are handled in this process", exc)
                return
            self.process = process

    async def stop(self) -> None:
        if self.process is not None:
            await asyncio.to_thread(self.process.stop)
            self.process = None

    def kill(self) -> None:
        """A round or tick that never ends: the process goes (the next round starts it again)."""
        if self.process is not None:
            self.process.kill()
