# SPDX-License-Identifier: GPL-3.0-or-later
"""The watchdog: a loop stalled while work is due is restarted, then given up on; a store that
cannot be read blames no loop."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
import sqlalchemy as sa

from mailbot.services.health.stalls import LETTERS, OUTBOX, Stall
from mailbot.services.health.watchdog import Watchdog


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Loop:
    """A watched loop: stalled while ``stuck`` (and work is due), restarted by the watchdog."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.stuck = True
        self.restarts = 0

    def stalled(self, stalls: Sequence[Stall]) -> str | None:
        due = next((stall.reason for stall in stalls if stall.loop == self.kind), None)
        return due if due and self.stuck else None

    async def restart(self) -> None:
        self.restarts += 1


def _dog(stalls: list[Stall], clock: Clock, **kw: float) -> Watchdog:
    return Watchdog(stalls=lambda: list(stalls), stall_seconds=90, max_restarts=2, monotonic=clock, **kw)


async def test_a_stalled_loop_is_restarted_then_given_time_then_given_up_on() -> None:
    clock, stalls = Clock(), [Stall(OUTBOX, "12 replies due for 9 min 0 s, none sent")]
    dog, outbox, letters = _dog(stalls, clock), Loop(OUTBOX), Loop(LETTERS)
    dog.watch("outbox", outbox.stalled, outbox.restart)
    dog.watch("letters", letters.stalled, letters.restart)

    await dog.check()
    assert (outbox.restarts, letters.restarts) == (1, 0)  # nothing due for letters: left alone
    clock.now += 30
    await dog.check()
    assert outbox.restarts == 1  # a restarted loop is given stall_seconds to show progress
    clock.now += 61
    await dog.check()
    assert outbox.restarts == 2 and dog.fatal is None
    clock.now += 91
    await dog.check()
    assert outbox.restarts == 2
    assert dog.fatal == "outbox: 12 replies due for 9 min 0 s, none sent; no progress after 2 restart(s)"
    assert dog.report()["loops"]["outbox"] == {"stalled": stalls[0].reason, "restarts": 2}


async def test_progress_after_a_restart_clears_the_count() -> None:
    clock, stalls = Clock(), [Stall(LETTERS, "3 letters stored 2 min 0 s ago, none handled")]
    dog, letters = _dog(stalls, clock), Loop(LETTERS)
    dog.watch("letters", letters.stalled, letters.restart)
    await dog.check()
    letters.stuck = False  # the restart helped
    clock.now += 100
    await dog.check()
    assert dog.report()["loops"]["letters"] == {"stalled": None, "restarts": 0}
    letters.stuck = True  # stalled again much later: restarted again, not given up on
    for _ in range(2):
        clock.now += 100
        await dog.check()
    assert letters.restarts == 3 and dog.fatal is None


async def test_a_store_that_cannot_be_read_blames_no_loop_for_work_due() -> None:
    def down() -> list[Stall]:
        raise sa.exc.OperationalError(
            "SELECT 1", {}, Exception("connection refused"), connection_invalidated=True
        )

    loop = Loop(OUTBOX)
    dog = Watchdog(stalls=down, stall_seconds=90, max_restarts=1, monotonic=Clock())
    dog.watch("outbox", loop.stalled, loop.restart)
    for _ in range(5):
        await dog.check()
    assert loop.restarts == 0 and dog.fatal is None
    assert dog.report()["notes"] == [
        "the store cannot be read: OperationalError: (builtins.Exception) connection refused"
    ]


async def test_the_watchdog_outlives_a_failing_look_and_stops_the_service_when_it_gives_up() -> None:
    looks = 0

    def flaky() -> list[Stall]:
        nonlocal looks
        looks += 1
        if looks == 1:
            raise RuntimeError("a bug in a look")
        return [Stall(OUTBOX, "due")]

    loop = Loop(OUTBOX)
    dog = Watchdog(stalls=flaky, stall_seconds=0.01, max_restarts=1, check_seconds=0.01)
    dog.watch("outbox", loop.stalled, loop.restart)
    stop = asyncio.Event()
    await asyncio.wait_for(dog.run(stop), timeout=5)
    assert stop.is_set() and loop.restarts == 1 and looks >= 3
    assert dog.fatal is not None and dog.fatal.startswith("outbox: due;")


@pytest.mark.parametrize("restarts", [1, 3])
async def test_max_restarts_is_the_number_tried(restarts: int) -> None:
    clock, loop = Clock(), Loop(OUTBOX)
    dog = Watchdog(
        stalls=lambda: [Stall(OUTBOX, "due")], stall_seconds=10, max_restarts=restarts, monotonic=clock
    )
    dog.watch("outbox", loop.stalled, loop.restart)
    while dog.fatal is None:
        await dog.check()
        clock.now += 11
    assert loop.restarts == restarts


async def test_a_loop_that_ended_is_restarted_while_the_store_cannot_be_read() -> None:
    def down() -> list[Stall]:
        raise sa.exc.OperationalError("SELECT 1", {}, Exception("refused"), connection_invalidated=True)

    ended, restarts = True, []

    def stalled(_stalls: Sequence[Stall]) -> str | None:
        return "the loop ended" if ended else None

    async def restart() -> None:
        restarts.append(1)

    dog = Watchdog(stalls=down, stall_seconds=90, max_restarts=2, monotonic=Clock())
    dog.watch("work", stalled, restart)
    await dog.check()
    assert restarts == [1] and dog.store_trouble is not None
