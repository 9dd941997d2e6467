# SPDX-License-Identifier: GPL-3.0-or-later
"""The outbox: outgoing mail is written as a row in the caller's transaction and sent later.

Sending a row: mark it ``sending`` and commit, hand it to SMTP, mark it ``sent``.
A crash after SMTP accepted it but before the ``sent`` commit leaves it in
``sending``; on restart it goes out again with the same Message-ID. That is
the only way a recipient can get a message twice (documented in the README).
Temporary failures (4xx, connection trouble) retry with exponential backoff;
permanent ones (5xx) mark the row ``failed`` and tell the game master.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.errors import SmtpPermanentError, SmtpTemporaryError, StoreError
from mailbot.mail.compose import Outgoing, compose
from mailbot.store import repo
from mailbot.store.models import Outbound, OutboundState

log = logging.getLogger(__name__)


class Sink(Protocol):
    async def send(self, sender: str, recipient: str, raw: bytes) -> None: ...
    async def close(self) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    base: float = 30.0
    maximum: float = 3600.0
    max_attempts: int = 10

    def delay(self, attempts: int) -> timedelta:
        return timedelta(seconds=min(self.base * 2 ** max(attempts - 1, 0), self.maximum))


def enqueue(
    session: Session, out: Outgoing, *, kind: str, now: datetime, inbound_id: int | None = None
) -> Outbound:
    """Add a rendered message to the outbox inside the caller's transaction."""
    row = Outbound(
        message_id=out.message_id,
        sender=out.sender,
        recipient=out.recipient,
        subject=out.subject[:998],
        kind=kind,
        raw=compose(out),
        inbound_id=inbound_id,
        next_attempt_at=now,
        created_at=now,
    )
    return repo.add_outbound(session, row)


@dataclass
class SendReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0


FailureNotice = Callable[[Session, Outbound, datetime], None]


def _no_notice(_session: Session, _row: Outbound, _now: datetime) -> None:
    return None


def _no_checkpoint(_name: str) -> None:
    return None


class Outbox:
    def __init__(
        self,
        *,
        engine: Engine,
        sink: Sink,
        clock: Callable[[], datetime],
        retry: RetryPolicy | None = None,
        on_failure: FailureNotice = _no_notice,
        checkpoint: Callable[[str], None] = _no_checkpoint,
    ) -> None:
        self.engine = engine
        self.sink = sink
        self.clock = clock
        self.retry = retry or RetryPolicy()
        self.on_failure = on_failure
        self.checkpoint = checkpoint

    def recover(self) -> int:
        """At start-up: rows a crash left in ``sending`` go out again (same Message-ID)."""
        with Session(self.engine) as session, session.begin():
            return repo.requeue_sending(session)

    def next_due(self) -> datetime | None:
        with Session(self.engine) as session:
            return repo.next_outbound_due(session)

    async def send_due(self) -> SendReport:
        """Send every due row; stop early when the server is unreachable."""
        report = SendReport()
        while True:
            with Session(self.engine) as session:
                rows = repo.due_outbound(session, self.clock())
            if not rows:
                return report
            for row in rows:
                if not await self._send_one(row, report):
                    return report

    async def _send_one(self, row: Outbound, report: SendReport) -> bool:
        """Returns False when the link is down and the rest should wait."""
        if row.id is None:
            raise StoreError("an outbox row without an id")  # rows come from the database
        self._mark(row.id, OutboundState.SENDING)
        try:
            await self.sink.send(row.sender, row.recipient, row.raw)
        except SmtpPermanentError as exc:
            self._fail(row.id, str(exc))
            report.failed += 1
            return True
        except SmtpTemporaryError as exc:
            self._postpone(row.id, str(exc), report)
            return False
        self.checkpoint("after-smtp")
        self._mark(row.id, OutboundState.SENT)
        report.sent += 1
        return True

    def _mark(self, row_id: int, state: OutboundState) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get_one(Outbound, row_id)
            row.state = state
            if state is OutboundState.SENT:
                row.sent_at = self.clock()
                row.attempts += 1

    def _postpone(self, row_id: int, error: str, report: SendReport) -> None:
        now = self.clock()
        with Session(self.engine) as session, session.begin():
            row = session.get_one(Outbound, row_id)
            row.attempts += 1
            row.last_error = error[:2000]
            if row.attempts >= self.retry.max_attempts:
                self._give_up(session, row, now)
                report.failed += 1
                return
            row.state = OutboundState.PENDING
            row.next_attempt_at = now + self.retry.delay(row.attempts)
            report.retried += 1
        log.warning("delivery of %s postponed: %s", row_id, error)

    def _fail(self, row_id: int, error: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get_one(Outbound, row_id)
            row.attempts += 1
            row.last_error = error[:2000]
            self._give_up(session, row, self.clock())

    def _give_up(self, session: Session, row: Outbound, now: datetime) -> None:
        row.state = OutboundState.FAILED
        log.error("delivery of message %s to %s failed: %s", row.id, row.recipient, row.last_error)
        self.on_failure(session, row, now)
