# SPDX-License-Identifier: GPL-3.0-or-later
"""APScheduler wake-ups are rebuilt from what the database says, and only wake the tick."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from mailbot.scheduler.deadlines import DeadlineScheduler


async def test_wake_ups_fire_the_tick_and_are_rebuilt_from_the_source() -> None:
    calls: list[datetime] = []
    wanted: list[datetime] = []

    async def tick() -> None:
        calls.append(datetime.now(UTC))

    scheduler = DeadlineScheduler(tick=tick, wake_times=lambda: list(wanted), clock=lambda: datetime.now(UTC))
    soon = datetime.now(UTC) + timedelta(milliseconds=300)
    wanted[:] = [soon, soon, soon + timedelta(hours=5)]  # duplicates collapse
    scheduler.start()
    try:
        assert len(scheduler.jobs()) == 2
        await asyncio.sleep(0.8)
        assert len(calls) == 1 and calls[0] >= soon
        wanted[:] = []
        scheduler.rebuild()
        assert scheduler.jobs() == []
    finally:
        scheduler.shutdown()


async def test_a_wake_up_already_due_runs_at_once_after_a_restart() -> None:
    calls: list[int] = []

    async def tick() -> None:
        calls.append(1)

    past = datetime.now(UTC) - timedelta(hours=3)  # a deadline that passed while the bot was down
    scheduler = DeadlineScheduler(tick=tick, wake_times=lambda: [past], clock=lambda: datetime.now(UTC))
    scheduler.start()
    try:
        await asyncio.sleep(0.3)
        assert calls == [1]
    finally:
        scheduler.shutdown()
