# SPDX-License-Identifier: GPL-3.0-or-later
"""Queries and state changes on the mail tables. Callers own the transaction.

Everything fetched is stored, whatever its headers hold: text columns are
cleaned and cut to what every supported database accepts (:func:`fit_text`,
:func:`fit_key`), the raw bytes are kept as they came, and a letter whose row
the database still refuses is stored as a minimal ``shunted`` row instead.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, col, func, or_, select, update

from mailbot.store.models import (
    Inbound,
    InboundState,
    MailboxCursor,
    Outbound,
    OutboundState,
)
from mailbot.store.rows import new_row

log = logging.getLogger(__name__)

# PostgreSQL refuses NUL in text and lone surrogates (not UTF-8); SQLite takes both. C0 controls
# other than tab have no business in a header value either (CR LF are folding, dropped = unfolded).
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f]")
# Surrogates that ``surrogateescape`` did not make from an undecodable byte: replaced.
_STRAY_SURROGATE = re.compile(r"[\ud800-\udc7f\udd00-\udfff]")
# A btree entry in PostgreSQL may not exceed 2704 bytes: indexed text is kept well under it.
INDEX_BYTES = 2000
_HASH_CHARS = 16  # 64 bits of SHA-256: two different long keys do not meet


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
    letter: dict[str, Any] | None = None  # the parse kept for the letter process (``mail.parsed``)


def column_length(table: str, column: str) -> int:
    """The declared length of a text column (``max_length`` of the model field)."""
    length = getattr(SQLModel.metadata.tables[table].c[column].type, "length", None)
    if not isinstance(length, int):
        raise TypeError(f"{table}.{column} has no declared length")
    return length


_MAILBOX = column_length("inbound", "mailbox")
_MESSAGE_ID = column_length("inbound", "message_id")
_DEDUPE_KEY = column_length("inbound", "dedupe_key")
_HASH = column_length("inbound", "content_hash")
_SENDER = column_length("inbound", "sender")
_SUBJECT = column_length("inbound", "subject")
_REASON = column_length("inbound", "reason")


def clean_text(text: str) -> str:
    """``text`` as every database stores it: valid Unicode, no control characters but tab.

    Bytes a header parser kept as ``surrogateescape`` surrogates are decoded as UTF-8
    (RFC 6532 headers), anything else undecodable becomes U+FFFD.
    """
    text = _STRAY_SURROGATE.sub("\ufffd", text)
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return _CONTROL.sub("", text)


def fit_text(text: str, max_chars: int) -> str:
    """Clean and cut an informative text column (sender, subject, reason)."""
    return clean_text(text)[:max_chars]


def fit_key(text: str, max_chars: int, max_bytes: int = INDEX_BYTES) -> str:
    """Clean and cut a key column, keeping different keys different.

    A key that had to be changed ends in ``~`` and a short hash of the key as it
    came, so two long Message-IDs with a common prefix (or two that differ only
    in a NUL) stay apart, and the same ID always gives the same key.
    """
    cleaned = clean_text(text)
    if cleaned == text and len(text) <= max_chars and len(text.encode()) <= max_bytes:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    suffix = f"~{digest}"
    prefix = cleaned[: max_chars - len(suffix)]
    budget = max_bytes - len(suffix)
    prefix = prefix.encode()[:budget].decode("utf-8", "ignore")  # whole characters only
    return prefix + suffix


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
    """Insert the items whose dedupe key is new; returns how many were stored.

    The new letters go in together under one savepoint (one multi-row insert). Should the
    database refuse that, it is rolled back and each letter goes in under its own savepoint:
    a key clash (a duplicate from a concurrent writer) is skipped, and a letter the database
    refuses for any other reason is stored as ``shunted``, so one bad letter never stops the
    others.
    """
    _open_transaction(session)
    keys = [fit_key(item.dedupe_key, _DEDUPE_KEY) for item in items]
    seen = existing_keys(session, keys)
    fresh: list[NewInbound] = []
    for given, given_key in zip(items, keys, strict=True):
        item, key = given, given_key
        if key in seen:
            other = _reused_id_key(session, key, item, fresh)
            if other is None or other in seen or existing_keys(session, [other]):
                log.info("inbound %s uid %s is a duplicate of %s; skipped", mailbox, item.uid, key[:80])
                continue
            log.warning("inbound %s uid %s re-uses the Message-ID of another letter", mailbox, item.uid)
            item, key = replace(item, dedupe_key=other), other
        seen.add(key)
        fresh.append(item)
    try:
        with session.begin_nested():
            session.add_all([_inbound_row(mailbox, uidvalidity, item, now) for item in fresh])
        return len(fresh)
    except sa.exc.StatementError:
        log.info("inbound %s: a batch of %d was refused together; storing each alone", mailbox, len(fresh))
    # Rows of the rolled-back try may hold ids the database gave them: each is made again.
    return sum(_insert_one(session, _inbound_row(mailbox, uidvalidity, item, now)) for item in fresh)


#: in a dedupe key: the letter came under a Message-ID already stored for a letter of other text
REUSED_ID = "#body:"


def reuses_message_id(row: Inbound) -> bool:
    """Whether the stored letter came under the Message-ID of an earlier letter with other text."""
    return row.dedupe_key.startswith("mid:") and REUSED_ID in row.dedupe_key


def _body_hash(raw: bytes) -> str:
    """The hash of a message's body, its line ends and trailing blanks aside: the same letter
    delivered twice differs in its headers (and what relays do to white space) only."""
    _head, found, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    lines = (line.rstrip() for line in (body if found else raw).splitlines())
    return hashlib.sha256(b"\n".join(lines).strip()).hexdigest()


def _reused_id_key(session: Session, key: str, item: NewInbound, fresh: Sequence[NewInbound]) -> str | None:
    """The key of a letter whose Message-ID is stored already for a letter of other text (None
    for a true duplicate): it is stored too, to be answered that it was not read."""
    if not key.startswith("mid:"):
        return None
    earlier = next((other.raw for other in fresh if fit_key(other.dedupe_key, _DEDUPE_KEY) == key), None)
    if earlier is None:
        earlier = session.exec(select(Inbound.raw).where(Inbound.dedupe_key == key)).first()
    body = _body_hash(item.raw)
    if earlier is None or _body_hash(earlier) == body:
        return None
    return fit_key(f"{key[: _DEDUPE_KEY - 80]}{REUSED_ID}{body}", _DEDUPE_KEY)


def _open_transaction(session: Session) -> None:
    """Make the caller's transaction real before the first savepoint.

    pysqlite begins a transaction only before a data change, so a SAVEPOINT issued
    first would open the transaction itself and its RELEASE would commit it: the
    caller's later rollback (e.g. of the mailbox cursor) would then undo nothing.
    """
    conn = session.connection()
    driver = conn.connection.driver_connection
    if isinstance(driver, sqlite3.Connection) and not driver.in_transaction:
        conn.exec_driver_sql("BEGIN")


def _insert_one(session: Session, row: Inbound) -> int:
    """Insert ``row`` under a savepoint; 1 if a row was stored for it, 0 for a duplicate."""
    try:
        with session.begin_nested():
            session.add(row)
        return 1
    except sa.exc.StatementError as exc:  # the savepoint is rolled back; the batch goes on
        error, trace = exc, traceback.format_exc()
    if _key_exists(session, row.dedupe_key):
        log.info(
            "inbound %s uid %s: key %s stored meanwhile; skipped", row.mailbox, row.uid, row.dedupe_key[:80]
        )
        return 0
    log.error(
        "inbound %s uid %s refused by the database (%s); stored as shunted", row.mailbox, row.uid, error.orig
    )
    return _insert_shunted(session, row, error, trace)


def _insert_shunted(session: Session, row: Inbound, error: sa.exc.StatementError, trace: str) -> int:
    """The minimal row: raw bytes, content key and the reason, none of the headers."""
    key = f"sha:{hashlib.sha256(row.raw).hexdigest()}"
    if _key_exists(session, key):
        log.info("inbound %s uid %s: same bytes already stored as %s; skipped", row.mailbox, row.uid, key)
        return 0
    shunted = new_row(
        Inbound,
        mailbox=row.mailbox,
        uidvalidity=row.uidvalidity,
        uid=row.uid,
        dedupe_key=key,
        content_hash=key.removeprefix("sha:"),
        raw=row.raw,
        received_at=row.received_at,
        stored_at=row.stored_at,
        state=InboundState.SHUNTED,
        reason=fit_text(f"store refused: {type(error.orig or error).__name__}: {error.orig}", _REASON),
        traceback=clean_text(trace),
        processed_at=row.stored_at,
    )
    with session.begin_nested():  # if even this fails the database is in trouble: let it raise
        session.add(shunted)
    return 1


def _key_exists(session: Session, key: str) -> bool:
    return bool(existing_keys(session, [key]))


def _inbound_row(mailbox: str, uidvalidity: int | None, item: NewInbound, now: datetime) -> Inbound:
    return new_row(
        Inbound,
        mailbox=fit_text(mailbox, _MAILBOX),
        uidvalidity=uidvalidity,
        uid=item.uid,
        message_id=None if item.message_id is None else fit_key(item.message_id, _MESSAGE_ID),
        dedupe_key=fit_key(item.dedupe_key, _DEDUPE_KEY),
        content_hash=fit_text(item.content_hash, _HASH),
        raw=item.raw,
        received_at=item.received_at,
        stored_at=now,
        sender=fit_text(item.sender, _SENDER),
        subject=fit_text(item.subject, _SUBJECT),
        letter=item.letter,
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


def answered_inbound(session: Session, inbound_id: int | None) -> bool:
    """Whether a letter was written in answer to this stored letter (it is handled again)."""
    query = select(Outbound.id).where(Outbound.inbound_id == inbound_id).limit(1)
    return inbound_id is not None and session.exec(query).first() is not None


def add_outbound(session: Session, row: Outbound) -> Outbound:
    session.add(row)
    return row


def due_outbound(session: Session, now: datetime, limit: int = 50) -> list[Outbound]:
    """Due rows, locked for the caller's transaction; rows another worker is claiming right now
    are skipped (PostgreSQL; SQLite has one worker and no row locks)."""
    query = (
        select(Outbound)
        .where(Outbound.state == OutboundState.PENDING, col(Outbound.next_attempt_at) <= now)
        .order_by(col(Outbound.id))
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    return list(session.exec(query))


def unsent_to(
    session: Session, recipients: Iterable[str], before_id: int
) -> list[tuple[str, int, str, datetime]]:
    """(recipient, id, state, next attempt) of every row to these recipients not yet sent,
    below ``before_id``: what must go out before a later letter to the same person."""
    query = select(Outbound.recipient, Outbound.id, Outbound.state, Outbound.next_attempt_at).where(
        col(Outbound.recipient).in_(list(recipients)),
        col(Outbound.state).in_([OutboundState.PENDING, OutboundState.SENDING]),
        col(Outbound.id) < before_id,
    )
    return [(r, int(i or 0), str(getattr(st, "value", st)), t) for r, i, st, t in session.exec(query)]


def next_outbound_due(session: Session) -> datetime | None:
    query = select(func.min(Outbound.next_attempt_at)).where(Outbound.state == OutboundState.PENDING)
    return session.exec(query).one()


def requeue_sending(session: Session, alive: Callable[[int], bool]) -> int:
    """Rows left in ``sending`` by a worker that is gone may or may not have been accepted.

    They are sent again with the same Message-ID: the one documented window in
    which a recipient can get a message twice (receivers may de-duplicate by ID).
    Rows of a live worker (``alive(owner)``) are its own business.
    """
    owners = session.exec(
        select(Outbound.lease_owner).where(Outbound.state == OutboundState.SENDING).distinct()
    ).all()
    gone = [owner for owner in owners if owner is None or not alive(owner)]
    if not gone:
        return 0
    known = [owner for owner in gone if owner is not None]
    whose: sa.ColumnElement[bool] = col(Outbound.lease_owner).in_(known)
    if None in gone:
        whose = or_(whose, col(Outbound.lease_owner).is_(None))
    query = (
        update(Outbound)
        .where(col(Outbound.state) == OutboundState.SENDING, whose)
        .values(state=OutboundState.PENDING, lease_owner=None)
    )
    return _rowcount(session.execute(query))


def requeue_own(session: Session, owner: int) -> int:
    """This worker's own rows left in ``sending`` by a run that ended midway go back to ``pending``."""
    query = (
        update(Outbound)
        .where(col(Outbound.state) == OutboundState.SENDING, col(Outbound.lease_owner) == owner)
        .values(state=OutboundState.PENDING, lease_owner=None)
    )
    return _rowcount(session.execute(query))


def count_by_state(session: Session, model: type[Inbound] | type[Outbound]) -> dict[str, int]:
    query = select(model.state, func.count()).group_by(model.state)
    return {str(getattr(state, "value", state)): n for state, n in session.exec(query)}


def _rowcount(result: sa.Result[Any]) -> int:
    """The rows an UPDATE changed (what SQLAlchemy gives an UPDATE is a cursor result)."""
    return int(result.rowcount) if isinstance(result, sa.CursorResult) else 0
