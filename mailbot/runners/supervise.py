# SPDX-License-Identifier: GPL-3.0-or-later
"""The loops' tasks, and the watchdog that restarts a loop it sees stalled: each loop with its
own idea of being stalled (no sign of life while work is due) and of a restart."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.runners import Beats, silent
from mailbot.runners.deadlines import Deadlines
from mailbot.runners.letters import Letters
from mailbot.runners.reading import Reader
from mailbot.runners.work import Work
from mailbot.services.health.stalls import DEADLINES, LETTERS, OUTBOX, Stall, find_stalls
from mailbot.services.health.watchdog import Watchdog
from mailbot.services.post.outbox import Outbox
from mailbot.settings import Settings

Loop = Coroutine[Any, Any, None]
#: how long a stop waits for the work loop to end its round: a letter the SMTP server has just
#: accepted is then marked sent, not left ``sending`` to go out a second time after the restart
#: (cancelled between the server's 250 and the commit, a reply reached the player and stayed
#: ``sending``); a longer round (a deadline's reports) is cancelled, as a crash would leave it
STOP_GRACE = 5.0


class Tasks:
    """The running loops by name."""

    def __init__(self) -> None:
        self.running: dict[str, asyncio.Task[None]] = {}

    def start(self, name: str, loop: Loop) -> None:
        self.running[name] = asyncio.create_task(loop, name=f"mailbot-{name}")

    def ended(self, name: str) -> str | None:
        task = self.running.get(name)
        return "the loop ended" if task is not None and task.done() else None

    async def restart(self, name: str, loop: Loop) -> None:
        old = self.running.get(name)
        if old is not None and not old.done():
            old.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(old, timeout=10)
        self.start(name, loop)

    async def stop_all(self, *, finishing: Sequence[str] = ()) -> None:
        """Cancel every loop; the ``finishing`` ones, which have seen the stop, first get
        :data:`STOP_GRACE` seconds to end their round by themselves. The others (the watchdog
        first: it would restart a loop that ended) are cancelled at once."""
        tasks = list(self.running.values())
        waiting = [task for name, task in self.running.items() if name in finishing]
        for task in tasks:
            if task not in waiting:
                task.cancel()
        if waiting:
            await asyncio.wait(waiting, timeout=STOP_GRACE)
        for task in waiting:
            task.cancel()  # no-op for a task that ended
        await asyncio.gather(*tasks, return_exceptions=True)


def stalls_in(
    engine: Engine, clock: Callable[[], datetime], stall_seconds: float
) -> Callable[[], list[Stall]]:
    """What the store shows stalled (blocking: the watchdog reads it in a worker thread)."""

    def stalls() -> list[Stall]:
        with Session(engine) as session:
            return find_stalls(session, clock(), timedelta(seconds=stall_seconds))

    return stalls


def watchdog_for(
    settings: Settings,
    *,
    stalls: Callable[[], list[Stall]],
    tasks: Tasks,
    beats: Beats,
    reader: Reader,
    work: Work,
    letters: Letters,
    deadlines: Deadlines,
    outbox: Outbox,
    stop: asyncio.Event,
) -> Watchdog:
    """Every loop watched, each with its own idea of being stalled and of a restart."""
    bot = settings.bot
    watchdog = Watchdog(stalls=stalls, stall_seconds=bot.stall_seconds, max_restarts=bot.stall_restarts)
    imap = settings.imap
    # The reader shows life after every read and every try to connect; IDLE keeps it quiet
    # for up to ``idle_timeout`` (plus a timed-out command or two).
    reading_quiet = imap.idle_timeout + 2 * imap.timeout + bot.stall_seconds

    def reading(_stalls: Sequence[Stall]) -> str | None:
        return tasks.ended("reading") or silent("no read of the mailbox", beats.read, reading_quiet)

    async def restart_reading() -> None:
        await tasks.restart("reading", reader.loop(stop))

    def working(found_stalls: Sequence[Stall]) -> str | None:
        found = {stall.loop: stall.reason for stall in found_stalls}
        outbox_idle = silent("outbox idle", outbox.last_run_at, bot.stall_seconds)
        if OUTBOX in found and outbox_idle:  # a paused transport still probes: not a stall here
            return f"{found[OUTBOX]}, {outbox_idle}"
        return tasks.ended("work") or found.get(LETTERS)

    async def restart_work() -> None:
        letters.kill()  # a round that never ends holds the work loop
        await tasks.restart("work", work.loop(stop))

    def ticking(found_stalls: Sequence[Stall]) -> str | None:
        late = next((stall.reason for stall in found_stalls if stall.loop == DEADLINES), None)
        idle = silent("no tick", beats.tick, bot.stall_seconds)
        return f"{late}, {idle}" if late and idle else None

    async def restart_deadlines() -> None:
        letters.kill()  # a tick that never ends holds the games
        deadlines.restart()

    watchdog.watch("reading", reading, restart_reading)
    watchdog.watch("letters and outbox", working, restart_work)
    watchdog.watch("deadlines", ticking, restart_deadlines)
    return watchdog
