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


async def test_a_rebuild_touches_only_the_wake_ups_that_changed() -> None:
    calls: list[int] = []

    async def tick() -> None:
        calls.append(1)

    now = datetime.now(UTC)
    later, much_later = now + timedelta(hours=1), now + timedelta(hours=2)
    wanted = [later, much_later]
    scheduler = DeadlineScheduler(tick=tick, wake_times=lambda: list(wanted), clock=lambda: datetime.now(UTC))
    added: list[object] = []
    real_add = scheduler._scheduler.add_job

    def add_job(*args: object, **kwargs: object) -> object:
        added.append(kwargs.get("trigger", args[1] if len(args) > 1 else None))
        return real_add(*args, **kwargs)

    scheduler._scheduler.add_job = add_job  # type: ignore[method-assign]
    scheduler.start()
    try:
        assert scheduler.jobs() == [later, much_later] and len(added) == 3  # the safety run and two
        scheduler.rebuild()  # nothing changed: nothing is added again
        assert len(added) == 3
        past = now - timedelta(minutes=5)
        wanted[:] = [past, much_later]  # one time gone, one new and already due
        scheduler.rebuild()
        assert len(added) == 4 and scheduler.jobs()[-1] == much_later
        await asyncio.sleep(0.3)
        assert calls == [1] and scheduler.jobs() == [much_later]  # the due one ran and is gone
        scheduler.rebuild()  # still asked for (the tick could not act yet): it wakes the tick again
        await asyncio.sleep(0.3)
        assert calls == [1, 1] and len(added) == 5
    finally:
        scheduler.shutdown()
