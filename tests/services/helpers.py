# SPDX-License-Identifier: GPL-3.0-or-later
"""Building letters and a bot wired to fakes, for service tests."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

from sqlalchemy.engine import Engine

from mailbot.mail.parsed import ParseLimits
from mailbot.render.templates import Renderer
from mailbot.services.inbox.inbound import InboundProcessor
from mailbot.services.inbox.intake import Intake
from mailbot.services.post.identity import Identity
from mailbot.services.post.notices import GmNotifier
from mailbot.services.post.outbox import Outbox, RetryPolicy
from mailbot.testing.fakes import Clock, FakeSink

BOT = "bot@example.test"
GM = "gm@example.test"


def letter(
    *,
    sender: str = "alice@players.test",
    subject: str = "PING",
    body: str = "",
    message_id: str | None = "auto",
    headers: dict[str, str] | None = None,
    date: datetime | None = None,
) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = BOT
    msg["Subject"] = subject
    msg["Date"] = format_datetime(date or datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    if message_id == "auto":
        message_id = f"{next(_ids)}@players.test"
    if message_id:
        msg["Message-ID"] = f"<{message_id}>"
    for name, value in (headers or {}).items():
        msg[name] = value
    msg.set_content(body or "\n")
    return msg.as_bytes()


_ids = itertools.count(1)


class Wired:
    """Intake, processor and outbox on one database, with a fake SMTP sink."""

    def __init__(self, engine: Engine, gm: str | None = GM) -> None:
        self.engine = engine
        self.clock = Clock()
        self.sink = FakeSink()
        counter = itertools.count(1)
        identity = Identity(BOT, "mailbot", gm)
        limits = ParseLimits(identity.max_message_bytes, identity.max_text_chars)
        self.intake = Intake(engine=engine, mailbox="INBOX", clock=self.clock, limits=limits)
        self.processor = InboundProcessor(
            engine=engine,
            renderer=Renderer(),
            identity=identity,
            clock=self.clock,
            new_message_id=lambda: f"out-{next(counter)}@example.test",
        )
        self.notifier = GmNotifier(
            renderer=self.processor.renderer,
            identity=self.processor.identity,
            new_message_id=self.processor.new_message_id,
        )
        self.outbox = Outbox(
            engine=engine,
            sink=self.sink,
            clock=self.clock,
            retry=RetryPolicy(10, 100, 4),
            on_failure=self.notifier.delivery_failed,
        )
