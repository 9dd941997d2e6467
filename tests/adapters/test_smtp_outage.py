# SPDX-License-Identifier: GPL-3.0-or-later
"""The outbox and the real SMTP sink against a real aiosmtpd server on loopback.

The server runs in this test's event loop so a test can flip its AUTH backend between
"down" (535 for every login) and "up", and count exactly what it received.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from sqlalchemy.engine import Engine
from sqlmodel import Session as DbSession
from sqlmodel import col, select

from mailbot.mail.compose import Outgoing
from mailbot.mail.smtp import SmtpConfig, SmtpSink
from mailbot.render.templates import Rendered
from mailbot.services.post.outbox import Outbox, RetryPolicy, enqueue
from mailbot.store import db
from mailbot.store.models import Outbound, OutboundState

# auth_required without TLS is what we want on a loopback test server.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

HOST = "127.0.0.1"
BOT = "bot@example.test"
PASSWORD = "s3cret"
START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    mail_options: list[str]
    content: bytes


@dataclass
class Backend:
    """The server's handler and authenticator: AUTH answers 535 while ``auth_up`` is False."""

    auth_up: bool = True
    auth_refused: int = 0
    connections: int = 0
    received: list[Received] = field(default_factory=list)

    def authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        good = isinstance(auth_data, LoginPassword) and auth_data.password == PASSWORD.encode()
        if self.auth_up and good:
            return AuthResult(success=True, auth_data=auth_data)
        self.auth_refused += 1
        return AuthResult(success=False, handled=False)  # handled=False: aiosmtpd answers 535

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if address.endswith("@nowhere.test"):
            return "550 5.1.1 User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        self.received.append(
            Received(str(envelope.mail_from), list(envelope.rcpt_tos), list(envelope.mail_options), content)
        )
        return "250 2.0.0 OK"


@asynccontextmanager
async def smtp_server(backend: Backend, *, smtputf8: bool) -> AsyncIterator[int]:
    """A real aiosmtpd server requiring AUTH; yields its port; drops every connection on exit."""
    loop = asyncio.get_running_loop()
    sessions: set[SMTP] = set()

    def factory() -> SMTP:
        smtp = SMTP(
            backend,
            hostname="mx.example.test",
            enable_SMTPUTF8=smtputf8,
            authenticator=backend.authenticate,
            auth_required=True,
            auth_require_tls=False,
            loop=loop,
        )
        sessions.add(smtp)
        backend.connections += 1
        return smtp

    server = await loop.create_server(factory, HOST, 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        tasks = []
        for smtp in sessions:
            if smtp.transport is not None:
                smtp.transport.close()
            task = getattr(smtp, "_handler_coroutine", None)  # cancelled by connection_lost
            if isinstance(task, asyncio.Task):
                tasks.append(task)
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = db.make_engine(f"sqlite:///{tmp_path}/outbox.db")
    db.upgrade(engine)
    yield engine
    engine.dispose()


_ids = itertools.count(1)


class Bot:
    """An outbox with the real SmtpSink, an injected clock and a failure-notice recorder."""

    def __init__(self, engine: Engine, port: int) -> None:
        self.engine = engine
        self.clock = Clock()
        self.notices: list[str] = []
        config = SmtpConfig(host=HOST, port=port, security="none", user=BOT, password=PASSWORD, timeout=5)
        self.sink = SmtpSink(config)
        self.outbox = Outbox(
            engine=engine,
            sink=self.sink,
            clock=self.clock,
            retry=RetryPolicy(base=30, maximum=600, max_attempts=3),
            on_failure=lambda _s, row, _n: self.notices.append(row.recipient),
        )

    def queue(self, recipients: list[str]) -> None:
        with DbSession(self.engine) as session, session.begin():
            for recipient in recipients:
                out = Outgoing(
                    sender=BOT,
                    sender_name="mailbot",
                    recipient=recipient,
                    subject="Turn 3 report",
                    body=Rendered(text="Ihr Zug, Spieler\n", html="<p>Ihr Zug</p>"),
                    message_id=f"out-{next(_ids)}@example.test",
                    date=START,
                )
                enqueue(session, out, kind="report", now=self.clock())

    def rows(self) -> list[Outbound]:
        with DbSession(self.engine) as session:
            return list(session.exec(select(Outbound).order_by(col(Outbound.id))))

    def states(self) -> Counter[OutboundState]:
        return Counter(row.state for row in self.rows())


def players(count: int) -> list[str]:
    return [f"player-{i}@players.test" for i in range(count)]


async def test_auth_outage_loses_nothing_and_sends_each_letter_once(sqlite: Engine) -> None:
    backend = Backend(auth_up=False)
    async with smtp_server(backend, smtputf8=True) as port:
        bot = Bot(sqlite, port)
        recipients = players(50)
        bot.queue(recipients)
        try:
            for _ in range(8):  # the auth backend is down: 535 on every login
                report = await bot.outbox.send_due()
                assert (report.sent, report.failed, report.paused) == (0, 0, True)
                bot.clock.advance(3600)  # past any backoff
            # One connection per round (aiosmtplib tries PLAIN, then LOGIN): the batch stopped at once.
            assert (backend.connections, backend.auth_refused) == (8, 16)
            assert backend.received == []
            assert bot.states() == {OutboundState.PENDING: 50}
            assert {row.attempts for row in bot.rows()} == {0}  # no retry budget spent
            assert bot.outbox.transport_down_since == START
            assert bot.notices == []

            backend.auth_up = True
            report = await bot.outbox.send_due()
            again = await bot.outbox.send_due()
        finally:
            await bot.sink.close()

    assert (report.sent, report.failed, again.sent) == (50, 0, 0)
    assert bot.outbox.transport_down_since is None
    assert bot.states() == {OutboundState.SENT: 50}
    delivered = Counter(rcpt for item in backend.received for rcpt in item.rcpt_tos)
    assert delivered == Counter(recipients)  # every letter exactly once


async def test_auth_outage_probes_after_a_short_back_off_and_resumes_within_its_cap(sqlite: Engine) -> None:
    """The server's refusal is probed by one letter after 0.5 s, doubling up to 8 s (the
    default ``smtp.reconnect_max``): once the login works again, the next probe finds it
    within 8 s and everything goes out; no letter spent an attempt on the outage."""
    backend = Backend(auth_up=False)
    async with smtp_server(backend, smtputf8=True) as port:
        bot = Bot(sqlite, port)
        bot.queue(players(3))
        try:
            await bot.outbox.send_due()
            assert bot.outbox.next_due() == START + timedelta(seconds=0.5)
            bot.clock.advance(0.4)
            await bot.outbox.send_due()  # still backing off: the server is not asked
            assert backend.connections == 1
            bot.clock.advance(0.1)
            await bot.outbox.send_due()
            assert backend.connections == 2
            assert bot.outbox.next_due() == bot.clock() + timedelta(seconds=1)
            for _ in range(8):  # a long outage: the probe's back-off stops growing at 8 s
                bot.clock.advance(3600)
                await bot.outbox.send_due()
            assert bot.outbox.next_due() == bot.clock() + timedelta(seconds=8)
            backend.auth_up = True
            bot.clock.advance(8)
            report = await bot.outbox.send_due()
            assert (report.sent, report.paused) == (3, False)
            assert bot.outbox.transport_down_since is None
            assert {row.attempts for row in bot.rows()} == {1}  # the sending itself, no outage's
        finally:
            await bot.sink.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
    return port


async def test_connection_refused_pauses_without_touching_the_letters(sqlite: Engine) -> None:
    bot = Bot(sqlite, _closed_port())
    bot.queue(players(5))
    try:
        report = await bot.outbox.send_due()
    finally:
        await bot.sink.close()
    assert report.paused and report.sent == report.failed == 0
    assert bot.states() == {OutboundState.PENDING: 5}
    assert {row.attempts for row in bot.rows()} == {0}
    assert bot.outbox.transport_down_since == START


async def test_unknown_recipient_fails_alone_and_the_batch_goes_on(sqlite: Engine) -> None:
    backend = Backend()
    async with smtp_server(backend, smtputf8=True) as port:
        bot = Bot(sqlite, port)
        bot.queue(["a@players.test", "ghost@nowhere.test", "b@players.test"])
        try:
            report = await bot.outbox.send_due()
        finally:
            await bot.sink.close()
    assert (report.sent, report.failed) == (2, 1)
    ghost = next(row for row in bot.rows() if row.recipient == "ghost@nowhere.test")
    assert ghost.state is OutboundState.FAILED and ghost.last_error is not None and "550" in ghost.last_error
    assert bot.notices == ["ghost@nowhere.test"]
    assert [item.rcpt_tos for item in backend.received] == [["a@players.test"], ["b@players.test"]]


async def test_non_ascii_address_goes_out_with_smtputf8(sqlite: Engine) -> None:
    backend = Backend()
    async with smtp_server(backend, smtputf8=True) as port:
        bot = Bot(sqlite, port)
        bot.queue(["a@players.test", "üser@players.test", "b@players.test"])
        try:
            report = await bot.outbox.send_due()
        finally:
            await bot.sink.close()
    assert (report.sent, report.failed) == (3, 0)
    assert bot.states() == {OutboundState.SENT: 3}
    assert [item.rcpt_tos for item in backend.received] == [
        ["a@players.test"],
        ["üser@players.test"],
        ["b@players.test"],
    ]
    assert ["SMTPUTF8" in item.mail_options for item in backend.received] == [False, True, False]


async def test_non_ascii_address_fails_alone_without_smtputf8(sqlite: Engine) -> None:
    backend = Backend()
    async with smtp_server(backend, smtputf8=False) as port:
        bot = Bot(sqlite, port)
        bot.queue(["a@players.test", "üser@players.test", "b@players.test"])
        try:
            report = await bot.outbox.send_due()  # never raises
        finally:
            await bot.sink.close()
    assert (report.sent, report.failed) == (2, 1)
    wide = next(row for row in bot.rows() if row.recipient == "üser@players.test")
    assert wide.state is OutboundState.FAILED
    assert wide.last_error is not None
    assert "the address üser@players.test cannot be sent without SMTPUTF8" in wide.last_error
    assert bot.outbox.transport_down_since is None
    assert [item.rcpt_tos for item in backend.received] == [["a@players.test"], ["b@players.test"]]
