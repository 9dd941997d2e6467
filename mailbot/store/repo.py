# SPDX-License-Identifier: GPL-3.0-or-later
"""Queries and state changes on the mail tables. Callers own the transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, func, select

from mailbot.store.models import (
    Inbound,
    InboundState,
    MailboxCursor,
    Outbound,
    OutboundState,
)


@dataclass(frozen=True)
class NewInbound:
    """What intake knows of one fetched message before it becomes a row."""

    uid: int
    raw: bytes
    received_at: datetime
    message_id: str | None
    dedupe_key: str
    content_hash: str
    sender: str
    subject: str


def get_cursor(session: Session, mailbox: str) -> MailboxCursor | None:
    return session.get(MailboxCursor, mailbox)


def set_cursor(session: Session, mailbox: str, uidvalidity: int, last_uid: int, now: datetime) -> None:
    cursor = session.get(MailboxCursor, mailbox)
    if cursor is None:
        cursor = MailboxCursor(mailbox=mailbox, uidvalidity=uidvalidity, last_uid=last_uid, updated_at=now)
    else:
        cursor.uidvalidity, cursor.last_uid, cursor.updated_at = uidvalidity, last_uid, now
    session.add(cursor)


def existing_keys(session: Session, keys: Sequence[str]) -> set[str]:
    if not keys:
        return set()
    rows = session.exec(select(Inbound.dedupe_key).where(col(Inbound.dedupe_key).in_(keys)))
    return set(rows)


def add_inbound(
    session: Session, mailbox: str, uidvalidity: int | None, items: Sequence[NewInbound], now: datetime
) -> int:
    """Insert the items whose dedupe key is new; returns how many were stored."""
    seen = existing_keys(session, [item.dedupe_key for item in items])
    stored = 0
    for item in items:
        if item.dedupe_key in seen:
            continue
        seen.add(item.dedupe_key)
        session.add(_inbound_row(mailbox, uidvalidity, item, now))
        stored += 1
    return stored


def _inbound_row(mailbox: str, uidvalidity: int | None, item: NewInbound, now: datetime) -> Inbound:
    return Inbound(
        mailbox=mailbox,
        uidvalidity=uidvalidity,
        uid=item.uid,
        message_id=item.message_id,
        dedupe_key=item.dedupe_key,
        content_hash=item.content_hash,
        raw=item.raw,
        received_at=item.received_at,
        stored_at=now,
        sender=item.sender[:320],
        subject=item.subject[:998],
    )


def pending_inbound_ids(session: Session, limit: int = 100) -> list[int]:
    """Stored letters not yet handled, in the mail server's order of receipt."""
    query = (
        select(Inbound.id)
        .where(Inbound.state == InboundState.NEW)
        .order_by(col(Inbound.received_at), col(Inbound.id))
        .limit(limit)
    )
    return [row for row in session.exec(query) if row is not None]


def add_outbound(session: Session, row: Outbound) -> Outbound:
    session.add(row)
    return row


def due_outbound(session: Session, now: datetime, limit: int = 50) -> list[Outbound]:
    query = (
        select(Outbound)
        .where(Outbound.state == OutboundState.PENDING, col(Outbound.next_attempt_at) <= now)
        .order_by(col(Outbound.id))
        .limit(limit)
    )
    return list(session.exec(query))


def next_outbound_due(session: Session) -> datetime | None:
    query = select(func.min(Outbound.next_attempt_at)).where(Outbound.state == OutboundState.PENDING)
    return session.exec(query).one()


def requeue_sending(session: Session) -> int:
    """After a crash, rows left in ``sending`` may or may not have been accepted.

    They are sent again with the same Message-ID: the one documented window in
    which a recipient can get a message twice (receivers may de-duplicate by ID).
    """
    rows = list(session.exec(select(Outbound).where(Outbound.state == OutboundState.SENDING)))
    for row in rows:
        row.state = OutboundState.PENDING
        session.add(row)
    return len(rows)


def count_by_state(session: Session, model: type[Inbound] | type[Outbound]) -> dict[str, int]:
    query = select(model.state, func.count()).group_by(model.state)
    return {str(getattr(state, "value", state)): n for state, n in session.exec(query)}
