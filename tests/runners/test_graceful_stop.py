# SPDX-License-Identifier: GPL-3.0-or-later
"""A moderator stopped while it sends: the letter the SMTP server is accepting is marked sent
before the service ends (cancelled between the server's 250 and the commit, it stayed
``sending`` and went out again after the restart); a send that never ends does not hold the
stop for longer than the grace (``runners.supervise.STOP_GRACE``)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from sqlmodel import Session, select

from mailbot.app import Bot
from mailbot.runners import supervise
from mailbot.settings import BotSettings, ImapSettings, Settings, StoreSettings
from mailbot.store.models import Outbound, OutboundState
from mailbot.testing.fakes import FakeSink
from mailbot.testing.mailrig import free_ports
from tests.services.helpers import BOT, letter


class SlowSink(FakeSink):
    """A server that takes ``seconds`` to answer each letter (``forever``: never answers)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.sending = asyncio.Event()

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.sending.set()
        await asyncio.sleep(self.seconds)
        await super().send(sender, recipient, raw)


def _bot(tmp_path: Path, sink: FakeSink) -> Bot:
    settings = Settings(
        store=StoreSettings(url=f"sqlite:///{tmp_path}/bot.db"),
        imap=ImapSettings(port=free_ports(1)[0], reconnect_min=0.1, reconnect_max=0.2, security="none"),
        bot=BotSettings(address=BOT, handling_process=False),
    )
    bot = Bot(settings, sink=sink)
    bot.upgrade()
    bot.inject(letter(subject="PING"))
    return bot


def _outbox(bot: Bot) -> list[OutboundState]:
    with Session(bot.engine) as session:
        return [row.state for row in session.exec(select(Outbound))]


async def _stop_while_sending(bot: Bot, sink: SlowSink) -> float:
    """Run, set the stop as the first letter is being sent; how long the stop took."""
    stop = asyncio.Event()
    run = asyncio.create_task(bot.run(stop))
    await asyncio.wait_for(sink.sending.wait(), 20)
    stop.set()
    stopping = time.monotonic()
    await asyncio.wait_for(run, 20)
    return time.monotonic() - stopping


async def test_the_letter_being_sent_at_the_stop_is_marked_sent(tmp_path: Path) -> None:
    sink = SlowSink(0.5)
    bot = _bot(tmp_path, sink)
    await _stop_while_sending(bot, sink)
    assert [sent.recipient for sent in sink.sent] == ["alice@players.test"]
    assert _outbox(bot) == [OutboundState.SENT]  # not 'sending': no second copy after a restart
    bot.engine.dispose()


async def test_a_send_that_never_ends_holds_the_stop_no_longer_than_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervise, "STOP_GRACE", 0.5)
    sink = SlowSink(3600)
    bot = _bot(tmp_path, sink)
    took = await _stop_while_sending(bot, sink)
    assert took < 5 and sink.sent == []
    assert _outbox(bot) == [OutboundState.SENDING]  # as a crash leaves it: sent again at the start
    bot.engine.dispose()
