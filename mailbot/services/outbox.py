# SPDX-License-Identifier: GPL-3.0-or-later
"""The outbox: outgoing mail is written as a row in the caller's transaction and sent later.

Sending a row: mark it ``sending`` and commit, hand it to SMTP, mark it ``sent``.
A crash after SMTP accepted it but before the ``sent`` commit leaves it in
``sending``; on restart it goes out again with the same Message-ID. That is
the only way a recipient can get a message twice (documented in the README).
Temporary failures of one letter (4xx on RCPT/DATA) retry that letter with
exponential backoff; permanent ones (5xx about it, an address that cannot be
sent) mark the row ``failed`` and tell the game master.

A broken transport (the server unreachable, TLS or AUTH refused, 421/454/530/535,
timeouts, drops) says nothing about any letter: the batch stops at once, the row
goes back to ``pending`` with its attempts unchanged, and all sending pauses with
its own exponential backoff (the RetryPolicy values) until the server accepts
again. The outage is logged once when it starts and once when it ends; the game
master's per-letter notice is not used for it. ``transport_down_since`` shows it.

Any other exception while sending one row fails that row alone, with the reason
and a logged traceback, and the batch goes on: ``send_due`` never raises.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.errors import CrashInjected, SmtpPermanentError, SmtpTemporaryError, SmtpTransportError
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


@dataclass(frozen=True)
class Thread:
    """Whom in which game a letter goes to, and the step whose orders it asks for (if any)."""

    game_id: int | None = None
    seat: str = ""  # "" for the game master
    step_key: str = ""


def enqueue(
    session: Session,
    out: Outgoing,
    *,
    kind: str,
    now: datetime,
    inbound_id: int | None = None,
    thread: Thread | None = None,
) -> Outbound:
    """Add a rendered message to the outbox inside the caller's transaction."""
    thread = thread or Thread()
    row = Outbound(
        message_id=out.message_id,
        sender=out.sender,
        recipient=out.recipient,
        subject=out.subject[:998],
        kind=kind,
        raw=compose(out),
        inbound_id=inbound_id,
        game_id=thread.game_id,
        seat=thread.seat[:64],
        step_key=thread.step_key[:64],
        next_attempt_at=now,
        created_at=now,
    )
    return repo.add_outbound(session, row)


@dataclass
class SendReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0
    paused: bool = False  # the transport is down: nothing more was tried


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
        self.transport_down_since: datetime | None = None  # None while the SMTP link works
        self.transport_error: str | None = None
        self._transport_failures = 0
        self._transport_retry_at: datetime | None = None

    def recover(self) -> int:
        """At start-up: rows a crash left in ``sending`` go out again (same Message-ID)."""
        with Session(self.engine) as session, session.begin():
            return repo.requeue_sending(session)

    def next_due(self) -> datetime | None:
        """When ``send_due`` has something to do: the next due row, but not before a paused
        transport is tried again."""
        with Session(self.engine) as session:
            due = repo.next_outbound_due(session)
        if due is None or self._transport_retry_at is None:
            return due
        return max(due, self._transport_retry_at)

    async def send_due(self) -> SendReport:
        """Send every due row; stop at once while the transport is down.

        Never raises (only the test-only CrashInjected passes through).
        """
        report = SendReport()
        try:
            await self._send_batches(report)
        except CrashInjected:
            raise
        except Exception:  # the loop must live on: a database hiccup is retried next round
            log.exception("the outbox run stopped early")
        return report

    async def _send_batches(self, report: SendReport) -> None:
        if self._transport_retry_at is not None and self.clock() < self._transport_retry_at:
            report.paused = True
            return
        while True:
            with Session(self.engine) as session:
                rows = repo.due_outbound(session, self.clock())
            if not rows:
                return
            for row in rows:
                if not await self._send_one(row, report):
                    report.paused = True
                    return

    async def _send_one(self, row: Outbound, report: SendReport) -> bool:
        """Returns False when the transport is down and the rest should wait."""
        if row.id is None:  # rows come from the database; cannot happen
            log.error("skipping an outbox row without an id")
            return True
        self._mark(row.id, OutboundState.SENDING)
        try:
            await self.sink.send(row.sender, row.recipient, row.raw)
        except SmtpTransportError as exc:
            self._transport_down(row.id, str(exc))
            return False
        except SmtpPermanentError as exc:
            self._transport_up()
            self._fail(row.id, str(exc))
            report.failed += 1
            return True
        except SmtpTemporaryError as exc:
            self._transport_up()
            self._postpone(row.id, str(exc), report)
            return True
        except Exception as exc:
            log.exception("sending message %s to %s failed unexpectedly", row.id, row.recipient)
            self._fail(row.id, f"unexpected {type(exc).__name__} while sending: {exc}")
            report.failed += 1
            return True
        self._transport_up()
        self.checkpoint("after-smtp")
        self._mark(row.id, OutboundState.SENT)
        report.sent += 1
        return True

    def _transport_down(self, row_id: int, error: str) -> None:
        """Back to ``pending`` untouched (no attempt spent); pause all sending with backoff."""
        now = self.clock()
        with Session(self.engine) as session, session.begin():
            row = session.get_one(Outbound, row_id)
            row.state = OutboundState.PENDING
            row.last_error = f"transport: {error}"[:2000]
        self._transport_failures += 1
        delay = self.retry.delay(self._transport_failures)
        self._transport_retry_at = now + delay
        self.transport_error = error
        if self.transport_down_since is None:
            self.transport_down_since = now
            log.error("SMTP transport down, all sending paused: %s", error)
        else:
            log.debug("SMTP transport still down (%s); next try in %s", error, delay)

    def _transport_up(self) -> None:
        if self.transport_down_since is not None:
            log.info(
                "SMTP transport back after %s; sending resumed", self.clock() - self.transport_down_since
            )
        self.transport_down_since = None
        self.transport_error = None
        self._transport_failures = 0
        self._transport_retry_at = None

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
            if row.attempts + 1 < self.retry.max_attempts:
                row.attempts += 1
                row.last_error = error[:2000]
                row.state = OutboundState.PENDING
                row.next_attempt_at = now + self.retry.delay(row.attempts)
                report.retried += 1
                log.warning("delivery of %s postponed: %s", row_id, error)
                return
        self._fail(row_id, error)
        report.failed += 1

    def _fail(self, row_id: int, error: str) -> None:
        """Mark the row ``failed`` and tell the game master; a broken notice never keeps
        the row from ``failed`` (it is then marked without one)."""
        try:
            self._give_up(row_id, error, notify=True)
        except Exception:
            log.exception("could not tell the game master about message %s", row_id)
            self._give_up(row_id, error, notify=False)

    def _give_up(self, row_id: int, error: str, *, notify: bool) -> None:
        now = self.clock()
        with Session(self.engine) as session, session.begin():
            row = session.get_one(Outbound, row_id)
            row.attempts += 1
            row.last_error = error[:2000]
            row.state = OutboundState.FAILED
            recipient = row.recipient
            if notify:
                self.on_failure(session, row, now)
        log.error("delivery of message %s to %s failed: %s", row_id, recipient, error)
