# SPDX-License-Identifier: GPL-3.0-or-later
"""The outbox: outgoing mail is written as a row in the caller's transaction and sent later.

Sending: a batch of due rows is marked ``sending`` in one commit, handed to SMTP (over
up to ``connections`` links at once, never two letters of one recipient at once, so each
recipient gets his in order), and marked ``sent`` in groups of a few dozen (one commit
each, at least every 50 ms). A crash after SMTP accepted a row but before its group's
``sent`` commit leaves it in ``sending``; on restart it goes out again with the same
Message-ID. That is the only way a recipient can get a message twice (documented in the
README); rows claimed but never handed to SMTP are simply sent after the restart.
Temporary failures of one letter (4xx on RCPT/DATA) retry that letter with
exponential backoff; permanent ones (5xx about it, an address that cannot be
sent) mark the row ``failed`` and tell the game master.

A broken transport (the server unreachable, TLS or AUTH refused, 421/454/530/535,
timeouts, drops) says nothing about any letter: the batch stops at once, its rows
go back to ``pending`` with their attempts unchanged, and all sending pauses while
one letter probes the server after a short back-off (``probe``: doubling up to a few
seconds, so sending resumes within that of the server being right again). The
outage is logged once when it starts and once when it ends; the game master's
per-letter notice is not used for it. ``transport_down_since`` shows it.

A run the store fails under (a lost connection, a locked file) leaves its rows as
they were: ``sending``, owned by this worker, which no sweep hands back while the
worker lives. The next run settles them first: the rows SMTP accepted (remembered
in memory until their ``sent`` mark is committed) are marked ``sent``, the others go
back to ``pending``. So nothing stays ``sending`` behind a living worker, and a
letter is sent again only if the process died between SMTP's acceptance and its mark.

Any other exception while sending one row fails that row alone, with the reason
and a logged traceback, and the batch goes on: ``send_due`` never raises.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from mailbot.errors import (
    CrashInjected,
    SmtpPermanentError,
    SmtpTemporaryError,
    SmtpTransportError,
    StoreError,
)
from mailbot.mail.compose import Outgoing, compose
from mailbot.services.base.transactions import begin_writing
from mailbot.store import counts, repo
from mailbot.store.models import Outbound, OutboundState
from mailbot.store.rows import new_row
from mailbot.store.transient import describe, is_transient

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
    row = new_row(
        Outbound,
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
    queued: list[Outbound] | None = session.info.get(_QUEUED)
    if queued is not None:
        queued.append(row)
    return repo.add_outbound(session, row)


_QUEUED = "mailbot.queued"  # session.info key: the list collect_queued handed out


def collect_queued(session: Session) -> list[Outbound]:
    """A list that from now on gets every row queued through ``session`` (what one letter caused)."""
    rows: list[Outbound] = []
    session.info[_QUEUED] = rows
    return rows


@dataclass
class SendReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0
    paused: bool = False  # the transport is down: nothing more was tried
    stopped: bool = False  # the run stopped early (the store failed): the next run settles it


FailureNotice = Callable[[Session, Outbound, datetime], None]


def _no_notice(_session: Session, _row: Outbound, _now: datetime) -> None:
    return None


def _no_checkpoint(_name: str) -> None:
    return None


#: rows claimed (marked ``sending``) per batch, and ``sent`` marks committed together
BATCH_ROWS = 100
MARK_ROWS = 25
MARK_SECONDS = 0.05
#: a batch starts with one letter alone (a probe) unless one went through within this many
#: seconds: a deadline tick wakes the sender after every game, and a probe in front of each
#: small batch left the other links idle while the reports piled up
PROBE_AFTER_SECONDS = 30.0


@dataclass(frozen=True)
class _Due:
    """What sending a row needs, read before its claim is committed (rows expire on commit)."""

    id: int
    sender: str
    recipient: str
    raw: bytes

    @classmethod
    def of(cls, row: Outbound) -> _Due:
        if row.id is None:  # rows come from the database; cannot happen
            raise StoreError("an outbox row without an id")
        return cls(row.id, row.sender, row.recipient, row.raw)


class _Marks:
    """``sent`` marks, committed every ``MARK_ROWS`` rows or ``MARK_SECONDS`` and at the end.

    A crash before a group's commit leaves its rows ``sending``: they go out again with the
    same Message-ID (the documented window, a little wider than one letter). Until its mark
    is committed, a row's id is also in ``accepted`` (the outbox's memory of what SMTP took),
    so a commit the store refuses is made by the next run instead.
    """

    def __init__(self, commit: Callable[[list[int]], None], accepted: set[int]) -> None:
        self._commit = commit
        self._accepted = accepted
        self._ids: list[int] = []
        self._since = 0.0

    async def add(self, row_id: int) -> None:
        if not self._ids:
            self._since = time.monotonic()
        self._ids.append(row_id)
        self._accepted.add(row_id)
        if len(self._ids) >= MARK_ROWS or time.monotonic() - self._since >= MARK_SECONDS:
            ids, self._ids = self._ids, []
            await asyncio.to_thread(self._commit, ids)  # the other links go on meanwhile

    def flush(self) -> None:
        ids, self._ids = self._ids, []
        if ids:
            self._commit(ids)


class _Run:
    """One claimed batch being sent: rows in order, the recipients with SMTP right now."""

    def __init__(self, rows: list[_Due], marks: _Marks) -> None:
        self.waiting = list(rows)
        self.marks = marks
        self.down = False  # the transport broke: take no more
        self.halted = False  # the batch stopped for another reason: take no more
        self._busy: set[str] = set()
        self._freed: asyncio.Event | None = None

    async def take(self) -> _Due | None:
        """The first waiting row whose recipient has no letter with SMTP; None when none is left."""
        while self.waiting and not (self.down or self.halted):
            row = next((r for r in self.waiting if r.recipient.lower() not in self._busy), None)
            if row is not None:
                self.waiting.remove(row)
                self._busy.add(row.recipient.lower())
                return row
            self._freed = self._freed or asyncio.Event()
            await self._freed.wait()  # every waiting recipient is busy: wait for one to finish
            self._freed.clear()
        return None

    def done(self, row: _Due) -> None:
        self._busy.discard(row.recipient.lower())
        self.wake()

    def wake(self) -> None:
        """Lanes waiting for a busy recipient look again."""
        if self._freed is not None:
            self._freed.set()

    def untried(self) -> list[int]:
        return [row.id for row in self.waiting]


def _set_state(
    session: Session,
    ids: list[int],
    state: OutboundState,
    *,
    only: OutboundState | None = None,
    sent_at: datetime | None = None,
    owner: int | None = None,
    unsent: bool = False,
) -> None:
    """One UPDATE for many rows; ``sent`` also stamps ``sent_at`` and counts the attempt.
    ``sending`` rows carry their ``owner`` (a worker key), the other states none.
    ``only``: rows in that state alone; ``unsent``: rows not yet sent or failed alone."""
    if not ids:
        return
    query = update(Outbound).where(col(Outbound.id).in_(ids))
    if only is not None:
        query = query.where(col(Outbound.state) == only)
    if unsent:
        query = query.where(col(Outbound.state).in_([OutboundState.PENDING, OutboundState.SENDING]))
    values: dict[str, Any] = {
        "state": state,
        "lease_owner": owner if state is OutboundState.SENDING else None,
    }
    if sent_at is not None:
        values |= {"sent_at": sent_at, "attempts": col(Outbound.attempts) + 1}
    # No loaded row is brought up to date: none of the callers reads one after this.
    session.execute(query.values(values).execution_options(synchronize_session=False))


def _top(rows: Sequence[_Due]) -> int:
    return max((row.id for row in rows), default=0)


def _in_turn(rows: list[_Due], unsent: Sequence[tuple[str, int, str, datetime]], now: datetime) -> list[_Due]:
    """``rows`` without those that must wait for an earlier letter to the same recipient: one
    in ``sending`` (another worker has it) or due but not among ``rows`` (being claimed)."""
    mine = {row.id for row in rows}
    blocked: dict[str, int] = {}  # recipient -> the earliest letter to him held elsewhere
    for recipient, row_id, state, next_at in unsent:
        elsewhere = state == OutboundState.SENDING.value or (row_id not in mine and next_at <= now)
        if elsewhere:
            blocked[recipient] = min(row_id, blocked.get(recipient, row_id))
    return [row for row in rows if row.id < blocked.get(row.recipient, row.id + 1)]


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
        connections: int = 1,
        owner: int = 0,
        alive: Callable[[int], bool] = lambda _owner: False,
        probe: RetryPolicy | None = None,
        dead_after: float = 0.0,
    ) -> None:
        """``connections``: how many letters may be with SMTP at once (the sink's links).
        ``owner`` is this worker's key, written on the rows it claims; ``alive(key)`` tells
        whether another worker still runs (its claimed rows are its own until it dies).
        ``probe``: the back-off between tries of a transport that is down (its ``maximum``
        bounds how long sending waits after the server is right again). ``dead_after``: how
        long another worker must look dead before its claimed rows are sent again (a server
        restart drops every worker's presence until it reconnects: a living one must not be
        taken for dead in that moment)."""
        self.owner = owner
        self.alive = alive
        self.engine = engine
        self.sink = sink
        self.connections = max(1, connections)
        self.clock = clock
        self.retry = retry or RetryPolicy()
        self.probe = probe or RetryPolicy(0.5, 8.0)
        self.dead_after = dead_after
        self._dead_since: dict[int, float] = {}  # workers seen dead (monotonic), not yet long enough
        self.on_failure = on_failure
        self.checkpoint = checkpoint
        self.transport_down_since: datetime | None = None  # None while the SMTP link works
        self.transport_error: str | None = None
        self._transport_failures = 0
        self._transport_retry_at: datetime | None = None
        self._link_proven_at: float | None = None  # monotonic: the server last answered a letter
        self._accepted: set[int] = set()  # rows SMTP took whose ``sent`` mark is not committed
        self._unsettled = False  # a run ended midway: its rows may still be ``sending``
        self._running: asyncio.Lock | None = None  # one run at a time (made in the event loop)
        #: monotonic: when a run last ended without the store failing under it (the watchdog's
        #: sign of progress: a run that finds nothing due, or a paused transport, counts)
        self.last_run_at: float | None = None

    def recover(self) -> int:
        """Rows a dead worker left in ``sending`` go out again (same Message-ID): at start-up,
        and now and then while several workers share the store."""
        with Session(self.engine) as session, session.begin():
            return repo.requeue_sending(session, self._not_dead_yet)

    def _not_dead_yet(self, owner: int) -> bool:
        """Whether ``owner``'s rows are still its own: it lives, or has looked dead for less
        than ``dead_after``."""
        if self.alive(owner):
            self._dead_since.pop(owner, None)
            return True
        first = self._dead_since.setdefault(owner, time.monotonic())
        return time.monotonic() - first < self.dead_after

    def next_due(self) -> datetime | None:
        """When ``send_due`` has something to do: the next due row, but not before a paused
        transport is tried again."""
        with Session(self.engine) as session:
            due = repo.next_outbound_due(session)
        if due is None or self._transport_retry_at is None:
            return due
        return max(due, self._transport_retry_at)

    def due_now(self) -> bool:
        """Whether ``send_due`` has something to do now (a read: no claim, no write lock)."""
        due = self.next_due()
        return due is not None and due <= self.clock()

    async def send_due(self) -> SendReport:
        """Send every due row; stop at once while the transport is down.

        Never raises (only the test-only CrashInjected passes through). One run at a time.
        """
        self._running = self._running or asyncio.Lock()
        async with self._running:
            return await self._run()

    async def _run(self) -> SendReport:
        report = SendReport()
        clean = False
        try:
            if self._unsettled:
                await asyncio.to_thread(self._settle)
            await self._send_batches(report)
            clean = True
        except CrashInjected:
            raise
        except Exception as exc:  # the loop must live on: the next run settles this one and goes on
            report.stopped = True
            if is_transient(exc):
                log.warning("the outbox run stopped: the store is unavailable (%s)", describe(exc))
            else:
                log.exception("the outbox run stopped early")
        finally:
            # Cancelled or failed midway: rows may be left ``sending`` (or accepted, unmarked).
            self._unsettled = self._unsettled or not clean
        if clean:
            self.last_run_at = time.monotonic()
        return report

    def _settle(self) -> None:
        """Put right what runs that ended midway left: the rows SMTP accepted are marked
        ``sent``, every other row this worker still has in ``sending`` goes back to
        ``pending`` (it was never handed to SMTP, or SMTP answered with an error the store
        could not record: at most one more try, no attempt spent). No run is under way."""
        accepted = sorted(self._accepted)
        with Session(self.engine) as session, session.begin():
            begin_writing(session)
            _set_state(session, accepted, OutboundState.SENT, sent_at=self.clock(), unsent=True)
            requeued = repo.requeue_own(session, self.owner)
        self._accepted.difference_update(accepted)
        self._unsettled = False
        if accepted or requeued:
            log.warning(
                "outbox settled after a run that stopped midway: %d marked sent, %d back in the queue",
                len(accepted),
                requeued,
            )

    async def _send_batches(self, report: SendReport) -> None:
        if self._transport_retry_at is not None and self.clock() < self._transport_retry_at:
            report.paused = True
            return
        while rows := await asyncio.to_thread(self._claim):
            if not await self._deliver(rows, report):
                report.paused = True
                return

    def _claim(self) -> list[_Due]:
        """The next due rows, marked ``sending`` (by this worker) in one commit before any is
        handed to SMTP. Rows another worker is claiming are skipped, and so is a letter whose
        recipient has an earlier one not yet sent that this claim does not hold: each person
        gets his letters in the order they were written, whichever worker sends them."""
        with Session(self.engine) as session, session.begin():
            begin_writing(session)  # SQLite: ask for the write lock the quick way (beside a long tick)
            now = self.clock()
            due = repo.due_outbound(session, now, BATCH_ROWS)
            rows = [_Due.of(row) for row in due]
            rows = _in_turn(rows, repo.unsent_to(session, {r.recipient for r in rows}, _top(rows)), now)
            _set_state(session, [row.id for row in rows], OutboundState.SENDING, owner=self.owner)
        counts.note("outbox claims")
        counts.note("outbox claims empty", not rows)
        counts.note("outbox rows claimed", len(rows))
        counts.note("outbox rows held back", len(due) - len(rows))
        return rows

    async def _deliver(self, rows: list[_Due], report: SendReport) -> bool:
        """Send a claimed batch over up to ``connections`` links; False when the transport went down.

        The first row goes alone unless the server answered a letter lately (a probe: a dead
        link costs one attempt, not one per link); then the links take rows in order, never two
        of one recipient at once, so each recipient gets his letters in the order they were
        written. Rows not tried (the link went down) go back to ``pending``; ``sent`` marks are
        committed in groups, off the event loop (a deadline tick may hold the store's write
        lock, and the other links must not wait for it).
        """
        run = _Run(rows, _Marks(self._commit_sent, self._accepted))
        try:
            if not self._link_proven():
                await self._lane(run, report, probe=True)
            lanes = [asyncio.create_task(self._lane(run, report)) for _ in range(self.connections)]
            try:
                await asyncio.gather(*lanes)
            finally:  # one lane failed (or we are cancelled): the others finish their letter, take no more
                run.halted = True
                run.wake()
                await asyncio.gather(*lanes, return_exceptions=True)
        finally:
            await asyncio.to_thread(self._end_run, run)
        return not run.down

    def _end_run(self, run: _Run) -> None:
        run.marks.flush()
        self._unclaim(run.untried())

    def _link_proven(self) -> bool:
        proven = self._link_proven_at
        return proven is not None and time.monotonic() - proven < PROBE_AFTER_SECONDS

    async def _lane(self, run: _Run, report: SendReport, *, probe: bool = False) -> None:
        while (row := await run.take()) is not None:
            try:
                await self._send_one(row, report, run)
            finally:
                run.done(row)
            if probe:
                return

    async def _send_one(self, row: _Due, report: SendReport, run: _Run) -> None:
        try:
            await self.sink.send(row.sender, row.recipient, row.raw)
        except SmtpTransportError as exc:
            self._transport_down(row.id, str(exc), first=not run.down)
            run.down = True
            return
        except SmtpPermanentError as exc:
            self._transport_up()
            self._fail(row.id, str(exc))
            report.failed += 1
            return
        except SmtpTemporaryError as exc:
            self._transport_up()
            self._postpone(row.id, str(exc), report)
            return
        except Exception as exc:
            log.exception("sending message %s to %s failed unexpectedly", row.id, row.recipient)
            self._fail(row.id, f"unexpected {type(exc).__name__} while sending: {exc}")
            report.failed += 1
            return
        self._accepted.add(row.id)  # from here on, whatever fails: this row is sent, never again
        self._transport_up()
        self.checkpoint("after-smtp")
        report.sent += 1
        await run.marks.add(row.id)

    def _commit_sent(self, ids: list[int]) -> None:
        with Session(self.engine) as session, session.begin():
            begin_writing(session)
            _set_state(session, ids, OutboundState.SENT, sent_at=self.clock())
        self._accepted.difference_update(ids)

    def _unclaim(self, ids: list[int]) -> None:
        """Rows claimed but never handed to SMTP: back to ``pending``, no attempt spent."""
        if ids:
            with Session(self.engine) as session, session.begin():
                _set_state(session, ids, OutboundState.PENDING, only=OutboundState.SENDING)

    def _transport_down(self, row_id: int, error: str, *, first: bool = True) -> None:
        """Pause all sending with the probe's back-off (once a batch); the row goes back to
        ``pending`` untouched (no attempt spent). The pause is decided before the store is
        written: a store that fails too leaves the row for the next run to settle."""
        now = self.clock()
        self._link_proven_at = None
        if first:  # else another link of the same batch already paused sending
            self._transport_failures += 1
            delay = self.probe.delay(self._transport_failures)
            self._transport_retry_at = now + delay
            self.transport_error = error
            if self.transport_down_since is None:
                self.transport_down_since = now
                log.error("SMTP transport down, all sending paused: %s", error)
            else:
                log.debug("SMTP transport still down (%s); next try in %s", error, delay)
        with Session(self.engine) as session, session.begin():
            row = session.get_one(Outbound, row_id)
            row.state = OutboundState.PENDING
            row.last_error = f"transport: {error}"[:2000]

    def _transport_up(self) -> None:
        self._link_proven_at = time.monotonic()
        if self.transport_down_since is not None:
            log.info(
                "SMTP transport back after %s; sending resumed", self.clock() - self.transport_down_since
            )
        self.transport_down_since = None
        self.transport_error = None
        self._transport_failures = 0
        self._transport_retry_at = None

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
