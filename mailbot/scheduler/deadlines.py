# SPDX-License-Identifier: GPL-3.0-or-later
"""APScheduler drives deadlines, early processing and reminders; the database is the truth.

Jobs are only wake-up calls: each one runs ``tick``, which looks at the
database and does whatever is due (``runners.deadlines.Deadlines.tick_games``: one tick at a time; a
call during a tick makes it go round once more). So the job list can be thrown away and
rebuilt from the open steps at any moment (start-up, after every change),
and a job that fires twice does nothing the second time.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

log = logging.getLogger(__name__)

SAFETY_INTERVAL = timedelta(seconds=60)
# A tick of many games runs for a while (off the event loop). A job that fires meanwhile must
# still reach ``tick``, which then only asks the running tick for one more round: were it
# skipped as "already running", a deadline passed during a long tick would wait for the next
# safety run.
TICKS_AT_ONCE = 8


class DeadlineScheduler:
    def __init__(
        self,
        *,
        tick: Callable[[], Awaitable[None]],
        wake_times: Callable[[], Iterable[datetime]],
        clock: Callable[[], datetime],
    ) -> None:
        self._tick = tick
        self._wake_times = wake_times
        self._clock = clock
        self._scheduler = AsyncIOScheduler(timezone="UTC")
        self._wakes: dict[datetime, str] = {}  # wake time -> id of its job (gone once it fired)
        self._ids = itertools.count()

    def start(self) -> None:
        self._scheduler.add_job(
            self._tick,
            IntervalTrigger(seconds=SAFETY_INTERVAL.total_seconds()),
            id="safety",
            max_instances=TICKS_AT_ONCE,
        )
        self._scheduler.start()
        self.rebuild()

    def rebuild(self) -> None:
        """Make the wake-up jobs the ones the database asks for now.

        Only what changed is touched: a time no longer asked for loses its job, a new one (or
        one whose job has fired) gets one, at once if it is past. Replacing them all took
        160 ms of the event loop with 1,000 running games, after every round of letters.
        """
        wanted = set(self._wake_times())
        pending = {job.id for job in self._scheduler.get_jobs()}
        for when, job_id in list(self._wakes.items()):
            if when in wanted and job_id in pending:
                continue  # still asked for, still waiting
            if job_id in pending:
                self._scheduler.remove_job(job_id)
            del self._wakes[when]
        now = self._clock()
        for when in sorted(wanted - self._wakes.keys()):
            job_id = f"wake-{next(self._ids)}"
            self._scheduler.add_job(
                self._tick,
                DateTrigger(run_date=max(when, now)),
                id=job_id,
                misfire_grace_time=None,
                max_instances=TICKS_AT_ONCE,
            )
            self._wakes[when] = job_id
        log.debug("scheduler rebuilt: %d wake-up(s)", len(self._wakes))

    def jobs(self) -> list[datetime]:
        return sorted(job.next_run_time for job in self._scheduler.get_jobs() if job.id != "safety")

    def shutdown(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
