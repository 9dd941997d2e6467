# SPDX-License-Identifier: GPL-3.0-or-later
"""A wake-up that fires while a long tick runs still reaches the tick (it is not skipped)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from mailbot.scheduler import deadlines
from mailbot.scheduler.deadlines import DeadlineScheduler


async def test_the_safety_job_reaches_a_tick_that_is_still_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadlines, "SAFETY_INTERVAL", timedelta(seconds=0.1))
    calls = 0
    release = asyncio.Event()

    async def tick() -> None:  # the first call runs long; the bot's tick_games returns at once then
        nonlocal calls
        calls += 1
        if calls == 1:
            await release.wait()

    scheduler = DeadlineScheduler(tick=tick, wake_times=list, clock=lambda: datetime.now(UTC))
    scheduler.start()
    try:
        await asyncio.sleep(0.45)
        assert calls >= 3  # the safety job fired during the long tick, every time
    finally:
        release.set()
        scheduler.shutdown()
