# SPDX-License-Identifier: GPL-3.0-or-later
"""The watchdog inside a running moderator: a work loop that hangs while letters wait is
restarted and the letters are answered; one that hangs for good makes the service stop with
StallError (``mailbot run`` then exits 3, for systemd or the container to start it anew)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, select

from mailbot.app import Bot
from mailbot.errors import StallError
from mailbot.settings import BotSettings, ImapSettings, Settings, StoreSettings
from mailbot.store.models import Inbound, InboundState
from mailbot.testing.fakes import FakeSink
from mailbot.testing.mailrig import free_ports
from tests.services.helpers import BOT, letter


def _bot(tmp_path: Path) -> Bot:
    settings = Settings(
        store=StoreSettings(url=f"sqlite:///{tmp_path}/bot.db"),
        # Nobody listens there: the reader keeps trying (a sign of life), reads nothing.
        imap=ImapSettings(port=free_ports(1)[0], reconnect_min=0.1, reconnect_max=0.2, security="none"),
        bot=BotSettings(address=BOT, handling_process=False, stall_seconds=1.0, stall_restarts=2),
    )
    bot = Bot(settings, sink=FakeSink())
    bot.upgrade()
    return bot


def _letter_waiting(bot: Bot) -> None:
    """A letter stored a while ago and not handled: work due."""
    bot.inject(letter(subject="PING"))
    with Session(bot.engine) as session, session.begin():
        row = session.exec(select(Inbound)).one()
        row.stored_at = datetime.now(UTC) - timedelta(minutes=5)


def _states(bot: Bot) -> list[InboundState]:
    with Session(bot.engine) as session:
        return [row.state for row in session.exec(select(Inbound))]


async def test_a_hung_work_loop_is_restarted_and_the_letter_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    bot = _bot(tmp_path)
    _letter_waiting(bot)
    real, calls = bot.work.once, []

    async def hangs_once() -> None:
        calls.append(1)
        if len(calls) == 1:
            await asyncio.Event().wait()  # as a conversation with no timeout would
        await real()

    monkeypatch.setattr(bot.work, "once", hangs_once)
    stop = asyncio.Event()
    run = asyncio.create_task(bot.run(stop))
    try:
        for _ in range(200):  # handled, then its answer sent
            if _states(bot) == [InboundState.PROCESSED] and bot.outbox.sink.sent:  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        await asyncio.wait_for(run, 20)
    assert _states(bot) == [InboundState.PROCESSED] and len(calls) >= 2
    assert [s.recipient for s in bot.outbox.sink.sent] == ["alice@players.test"]  # type: ignore[attr-defined]
    assert "watchdog: letters and outbox stalled (1 letter stored 5 min" in caplog.text
    bot.engine.dispose()


@pytest.mark.slow
async def test_a_loop_that_stays_hung_stops_the_service_with_stall_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = _bot(tmp_path)
    _letter_waiting(bot)

    async def hangs() -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(bot.work, "once", hangs)
    with pytest.raises(
        StallError, match=r"letters and outbox: 1 letter stored .* no progress after 2 restart"
    ):
        await asyncio.wait_for(bot.run(asyncio.Event()), 30)
    assert _states(bot) == [InboundState.NEW]  # nothing lost: the next start handles it
    bot.engine.dispose()
