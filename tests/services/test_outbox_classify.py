# SPDX-License-Identifier: GPL-3.0-or-later
"""How the outbox treats each kind of SMTP failure (fake sink, SQLite file).

A broken transport pauses everything and spends no letter's retries; a reply about
one letter fails or postpones that letter only; anything unexpected fails its row
alone; ``send_due`` never raises.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosmtplib
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.errors import (
    SmtpAddressError,
    SmtpError,
    SmtpPermanentError,
    SmtpTemporaryError,
    SmtpTransportError,
)
from mailbot.mail.smtp import _classify
from mailbot.services.post.outbox import Outbox, RetryPolicy
from mailbot.store import db
from mailbot.store.models import Outbound, OutboundState

START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
POLICY = RetryPolicy(base=10, maximum=100, max_attempts=4)
#: the transport's probe back-off, slow here so each step of it can be seen
PROBE = RetryPolicy(base=10, maximum=100)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class ScriptedSink:
    """Raises ``errors[recipient]`` for that recipient, ``down`` for everyone while set."""

    def __init__(self) -> None:
        self.down: Exception | None = None
        self.errors: dict[str, Exception] = {}
        self.calls: list[str] = []
        self.sent: list[str] = []

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.calls.append(recipient)
        if self.down is not None:
            raise self.down
        if recipient in self.errors:
            raise self.errors[recipient]
        self.sent.append(recipient)

    async def close(self) -> None:
        return None


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = db.make_engine(f"sqlite:///{tmp_path}/outbox.db")
    db.upgrade(engine)
    yield engine
    engine.dispose()


class Rig:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.clock = Clock()
        self.sink = ScriptedSink()
        self.notices: list[str] = []
        self.outbox = Outbox(
            engine=engine,
            sink=self.sink,
            clock=self.clock,
            retry=POLICY,
            on_failure=self._notice,
            probe=PROBE,
        )

    def _notice(self, _session: Session, row: Outbound, _now: datetime) -> None:
        self.notices.append(row.recipient)

    def queue(self, count: int, prefix: str = "p") -> list[str]:
        recipients = [f"{prefix}{i}@players.test" for i in range(count)]
        with Session(self.engine) as session, session.begin():
            for recipient in recipients:
                session.add(
                    Outbound(
                        message_id=f"{recipient}-{len(self.rows())}@bot.test",
                        sender="bot@example.test",
                        recipient=recipient,
                        raw=b"Subject: hi\r\n\r\nhi\r\n",
                        next_attempt_at=self.clock(),
                        created_at=self.clock(),
                    )
                )
        return recipients

    def rows(self) -> list[Outbound]:
        with Session(self.engine) as session:
            return list(session.exec(select(Outbound).order_by(col(Outbound.id))))

    def by_recipient(self) -> dict[str, Outbound]:
        return {row.recipient: row for row in self.rows()}


@pytest.fixture
def rig(sqlite: Engine) -> Rig:
    return Rig(sqlite)


def _refused(code: int) -> aiosmtplib.SMTPRecipientsRefused:
    return aiosmtplib.SMTPRecipientsRefused([aiosmtplib.SMTPRecipientRefused(code, "no", "x@players.test")])


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (aiosmtplib.SMTPAuthenticationError(535, "5.7.8 Authentication failed"), SmtpTransportError),
        (aiosmtplib.SMTPSenderRefused(530, "5.7.0 Authentication required", "bot@x"), SmtpTransportError),
        (aiosmtplib.SMTPSenderRefused(454, "4.7.0 TLS not available", "bot@x"), SmtpTransportError),
        (aiosmtplib.SMTPDataError(421, "4.3.0 closing"), SmtpTransportError),
        (_refused(421), SmtpTransportError),
        (aiosmtplib.SMTPServerDisconnected("gone"), SmtpTransportError),
        (aiosmtplib.SMTPConnectError("refused"), SmtpTransportError),
        (aiosmtplib.SMTPConnectResponseError(554, "no service"), SmtpTransportError),
        (aiosmtplib.SMTPHeloError(501, "bad helo"), SmtpTransportError),
        (aiosmtplib.SMTPReadTimeoutError("slow"), SmtpTransportError),
        (aiosmtplib.SMTPNotSupported("no STARTTLS"), SmtpTransportError),
        (ConnectionRefusedError(111, "refused"), SmtpTransportError),
        (ConnectionResetError(104, "reset"), SmtpTransportError),
        (ssl.SSLError(1, "bad handshake"), SmtpTransportError),
        (TimeoutError(), SmtpTransportError),
        (_refused(550), SmtpPermanentError),
        (_refused(553), SmtpPermanentError),
        (aiosmtplib.SMTPDataError(554, "5.6.0 message rejected"), SmtpPermanentError),
        (aiosmtplib.SMTPDataError(552, "5.3.4 too big"), SmtpPermanentError),
        (aiosmtplib.SMTPSenderRefused(553, "5.1.8 bad sender", "bot@x"), SmtpPermanentError),
        (_refused(450), SmtpTemporaryError),
        (_refused(452), SmtpTemporaryError),
        (aiosmtplib.SMTPDataError(451, "4.3.0 try later"), SmtpTemporaryError),
    ],
)
def test_smtp_errors_are_sorted_into_link_or_letter(exc: Exception, kind: type[SmtpError]) -> None:
    assert type(_classify(exc)) is kind


def test_transport_error_is_a_connection_error_but_not_a_letter_error() -> None:
    assert issubclass(SmtpTransportError, ConnectionError)
    assert not issubclass(SmtpTransportError, (SmtpTemporaryError, SmtpPermanentError))
    assert issubclass(SmtpAddressError, SmtpPermanentError)


async def test_transport_outage_stops_the_batch_and_spends_no_attempts(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mailbot.services.post.outbox")
    rig.queue(5)
    rig.sink.down = SmtpTransportError("SMTPAuthenticationError: 535 5.7.8 Authentication failed")

    report = await rig.outbox.send_due()

    assert (report.sent, report.failed, report.retried, report.paused) == (0, 0, 0, True)
    assert len(rig.sink.calls) == 1  # stopped at once
    assert {row.state for row in rig.rows()} == {OutboundState.PENDING}
    assert {row.attempts for row in rig.rows()} == {0}
    assert {row.next_attempt_at for row in rig.rows()} == {START}
    assert rig.outbox.transport_down_since == START
    assert rig.outbox.next_due() == START + timedelta(seconds=10)
    assert rig.notices == []


async def test_a_paused_outbox_waits_for_its_backoff_then_probes_once(rig: Rig) -> None:
    rig.queue(3)
    rig.sink.down = SmtpTransportError("ConnectionRefusedError: refused")
    await rig.outbox.send_due()

    rig.clock.advance(9)
    assert (await rig.outbox.send_due()).paused
    assert len(rig.sink.calls) == 1  # nothing tried before the backoff is over
    rig.clock.advance(1)
    await rig.outbox.send_due()
    assert len(rig.sink.calls) == 2
    assert rig.outbox.next_due() == rig.clock() + timedelta(seconds=20)  # doubled
    for _ in range(6):
        rig.clock.advance(1000)
        await rig.outbox.send_due()
    assert rig.outbox.next_due() == rig.clock() + timedelta(seconds=100)  # capped at the maximum
    assert {(row.state, row.attempts) for row in rig.rows()} == {(OutboundState.PENDING, 0)}
    assert rig.outbox.transport_down_since == START


async def test_outage_is_logged_once_and_the_recovery_once(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mailbot.services.post.outbox")
    rig.queue(4)
    rig.sink.down = SmtpTransportError("SMTPServerDisconnected: gone")
    for _ in range(5):
        await rig.outbox.send_due()
        rig.clock.advance(1000)
    rig.sink.down = None

    report = await rig.outbox.send_due()

    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    infos = [r for r in caplog.records if r.levelno == logging.INFO and "back" in r.getMessage()]
    assert len(errors) == 1 and "paused" in errors[0].getMessage()
    assert len(infos) == 1
    assert report.sent == 4 and not report.paused
    assert rig.outbox.transport_down_since is None
    assert rig.outbox.next_due() is None
    assert {(row.state, row.attempts) for row in rig.rows()} == {(OutboundState.SENT, 1)}
    assert rig.notices == []


async def test_recipient_5xx_fails_only_that_letter(rig: Rig) -> None:
    first, bad, last = rig.queue(3)
    rig.sink.errors[bad] = SmtpPermanentError("550 5.1.1 <bad> User unknown")

    report = await rig.outbox.send_due()

    rows = rig.by_recipient()
    assert (report.sent, report.failed) == (2, 1)
    assert rows[bad].state is OutboundState.FAILED and rows[bad].last_error == "550 5.1.1 <bad> User unknown"
    assert rows[first].state is rows[last].state is OutboundState.SENT
    assert rig.notices == [bad]
    assert rig.outbox.transport_down_since is None


async def test_recipient_4xx_postpones_only_that_letter_and_the_batch_goes_on(rig: Rig) -> None:
    first, busy, last = rig.queue(3)
    rig.sink.errors[busy] = SmtpTemporaryError("450 4.2.1 mailbox busy")

    report = await rig.outbox.send_due()

    rows = rig.by_recipient()
    assert (report.sent, report.retried, report.paused) == (2, 1, False)
    assert (rows[busy].state, rows[busy].attempts) == (OutboundState.PENDING, 1)
    assert rows[busy].next_attempt_at == START + timedelta(seconds=10)
    assert rows[first].state is rows[last].state is OutboundState.SENT


@pytest.mark.parametrize(
    "error",
    [
        UnicodeEncodeError("ascii", "üser@players.test", 0, 1, "ordinal not in range(128)"),
        RuntimeError("a bug in the sink"),
        KeyError("surprise"),
    ],
)
async def test_an_unexpected_exception_fails_that_row_and_the_batch_goes_on(
    rig: Rig, error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    first, odd, last = rig.queue(3)
    rig.sink.errors[odd] = error

    report = await rig.outbox.send_due()  # never raises

    rows = rig.by_recipient()
    assert (report.sent, report.failed) == (2, 1)
    reason = rows[odd].last_error
    assert rows[odd].state is OutboundState.FAILED
    assert reason is not None and type(error).__name__ in reason
    assert rows[first].state is rows[last].state is OutboundState.SENT
    assert any(r.exc_info for r in caplog.records)  # logged with its traceback
    assert rig.notices == [odd]


async def test_an_address_that_cannot_be_sent_fails_alone_with_the_reason(rig: Rig) -> None:
    first, wide, last = rig.queue(3)
    reason = f"the address {wide} cannot be sent without SMTPUTF8, which smtp:25 does not offer"
    rig.sink.errors[wide] = SmtpAddressError(reason)

    report = await rig.outbox.send_due()

    rows = rig.by_recipient()
    assert (report.sent, report.failed) == (2, 1)
    assert rows[wide].last_error == reason
    assert rows[first].state is rows[last].state is OutboundState.SENT


async def test_a_broken_gm_notice_still_leaves_the_row_failed(rig: Rig) -> None:
    (bad,) = rig.queue(1)
    rig.sink.errors[bad] = SmtpPermanentError("550 no such user")

    def broken(_session: Session, _row: Outbound, _now: datetime) -> None:
        raise RuntimeError("notice template broke")

    rig.outbox.on_failure = broken

    report = await rig.outbox.send_due()

    (row,) = rig.rows()
    assert report.failed == 1
    assert (row.state, row.attempts, row.last_error) == (OutboundState.FAILED, 1, "550 no such user")


async def test_send_due_never_raises_even_when_the_database_is_gone(rig: Rig, tmp_path: Path) -> None:
    rig.queue(2)
    rig.outbox.engine = db.make_engine(f"sqlite:///{tmp_path}/missing-dir/none.db")
    try:
        report = await rig.outbox.send_due()
    finally:
        rig.outbox.engine.dispose()
    assert report.sent == 0
