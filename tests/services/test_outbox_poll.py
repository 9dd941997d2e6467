# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters queued by another process (the game master's commands: ``game extend``, ``invite``,
announcements) go out from the idle running service within ``bot.outbox_poll_seconds``, not at
its next wake-up a minute later (issue 33: announcements waited 30-55 s without ``--send``)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from sqlmodel import Session

from mailbot.services.post.letters import Draft
from tests.services.game_helpers import Harness


def test_a_letter_queued_elsewhere_goes_out_from_the_idle_service(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    service = Harness(url, outbox_poll_seconds=0.2)
    command = Harness(url)  # the command line: its own Bot on the same store, sending nothing
    waited: list[float] = []

    async def scenario() -> None:
        stop = asyncio.Event()
        working = asyncio.create_task(service.bot.work.loop(stop))
        await asyncio.sleep(0.5)  # the service has nothing to do: it sleeps
        with Session(command.bot.engine) as session, session.begin():
            letter = Draft("north@players.test", "An announcement").section("News", ["Hello."])
            command.bot.postman.post(session, letter, kind="notice", now=command.clock.now)
        queued = time.monotonic()
        while not service.sink.sent and time.monotonic() - queued < 10:
            await asyncio.sleep(0.02)
        waited.append(time.monotonic() - queued)
        stop.set()
        service.bot.wake.set()
        await working

    asyncio.run(scenario())
    assert [m.recipient for m in service.sink.sent] == ["north@players.test"]
    assert waited[0] < 2.0  # a poll is 0.2 s; the default sleep was a minute
    assert command.sink.sent == []
