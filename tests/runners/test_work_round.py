# SPDX-License-Identifier: GPL-3.0-or-later
"""One round of the work loop handles letters and sends mail side by side: a long pass over
many letters does not hold back the mail already queued, nor the reverse."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services.game_helpers import Harness, letter

STRANGER = "someone@else.test"


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/round.db")
    yield harness
    harness.bot.engine.dispose()


async def test_queued_mail_goes_out_while_letters_are_still_being_handled(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    h.bot.inject(letter(sender=STRANGER, subject="help", body="HELP\n"))
    h.bot.processor.process_pending()  # its answer waits in the outbox
    h.bot.inject(letter(sender=STRANGER, subject="ping", body="PING\n"))
    handling, release = threading.Event(), threading.Event()
    real = h.bot.processor.process_pending

    def slow_pass() -> int:
        handling.set()
        assert release.wait(10), "the test never let the pass go on"
        return real()

    monkeypatch.setattr(h.bot.processor, "process_pending", slow_pass)
    round_ = asyncio.create_task(h.bot.work.once())
    try:
        for _ in range(500):  # up to 5 s: the queued answer must go out during the pass
            if h.sink.sent and handling.is_set():  # (the pass's thread may start after the send)
                break
            await asyncio.sleep(0.01)
        assert handling.is_set() and not release.is_set()
        assert len(h.sink.sent) == 1, "the queued answer waited for the letters' pass"
    finally:
        release.set()
        await round_
    h.bot.wake.clear()
    await h.bot.work.once()  # the PING's answer, handled in the first round, goes in the next
    assert len(h.sink.sent) == 2
