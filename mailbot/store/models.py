# SPDX-License-Identifier: GPL-3.0-or-later
"""The tables. Every inbound mail and every outbound mail is a row with a state.

Schema changes go through Alembic (``mailbot/store/migrations``); a test checks
that the migrations produce exactly these tables.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum, StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel


class UTCDateTime(TypeDecorator[datetime]):
    """Stores naive UTC, returns aware UTC: SQLite keeps no zone, PostgreSQL would shift it."""

    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use aware UTC")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class InboundState(StrEnum):
    NEW = "new"
    PROCESSED = "processed"
    IGNORED = "ignored"
    SHUNTED = "shunted"


class OutboundState(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


def state_type(enum: type[Enum]) -> Any:
    # Stored as its short string value (portable), read back as the enum member.
    return sa.Enum(enum, native_enum=False, length=16, values_callable=lambda e: [m.value for m in e])


def _ts() -> Any:
    return Field(sa_type=UTCDateTime)


class Inbound(SQLModel, table=True):
    """One received message, stored raw before anything else happens to it."""

    __tablename__ = "inbound"

    id: int | None = Field(default=None, primary_key=True)
    mailbox: str = Field(max_length=200)
    uidvalidity: int | None = Field(default=None, sa_type=sa.BigInteger)
    uid: int | None = Field(default=None, sa_type=sa.BigInteger)
    message_id: str | None = Field(default=None, max_length=998, index=True)
    # "mid:<Message-ID>" or "sha:<content hash>": the same mail delivered twice is stored once.
    dedupe_key: str = Field(max_length=1000, unique=True)
    content_hash: str = Field(max_length=64)
    raw: bytes = Field(sa_type=sa.LargeBinary)
    received_at: datetime = _ts()  # the server's INTERNALDATE: the order of arrival
    stored_at: datetime = _ts()
    state: InboundState = Field(default=InboundState.NEW, sa_type=state_type(InboundState), index=True)
    reason: str = Field(default="", max_length=200)  # why ignored, in short
    sender: str = Field(default="", max_length=320)
    subject: str = Field(default="", max_length=998)
    traceback: str | None = Field(default=None, sa_type=sa.Text)
    processed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The letter as the reader parsed it when it stored it (``mail.parsed``), until it is handled:
    # the letter process takes it from here instead of parsing the raw bytes again.
    letter: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)


class AnswerCount(SQLModel, table=True):
    """How often the bot answered one address in the current hour: the loop breaker's counter
    (:mod:`mailbot.services.post.throttle`), a row so that it survives a restart."""

    __tablename__ = "answer_count"

    address: str = Field(primary_key=True, max_length=320)  # lower-cased
    window_start: datetime = _ts()  # the hour counts from the first answer in it
    answers: int = 0
    idle_answers: int = 0  # answers to letters that carried no accepted command
    silenced: bool = False  # the one notice went out: nothing more until the hour is over


class MailboxCursor(SQLModel, table=True):
    """Where intake stands in one IMAP mailbox; written in the same transaction as the mail."""

    __tablename__ = "mailbox_cursor"

    mailbox: str = Field(primary_key=True, max_length=200)
    uidvalidity: int = Field(sa_type=sa.BigInteger)
    last_uid: int = Field(default=0, sa_type=sa.BigInteger)
    updated_at: datetime = _ts()


class Outbound(SQLModel, table=True):
    """One outgoing message, fully rendered, with its delivery state (the outbox)."""

    __tablename__ = "outbound"

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=998, unique=True)
    sender: str = Field(max_length=320)
    recipient: str = Field(max_length=320, index=True)
    subject: str = Field(default="", max_length=998)
    kind: str = Field(default="reply", max_length=32)  # reply, notice, report, ...
    raw: bytes = Field(sa_type=sa.LargeBinary)
    inbound_id: int | None = Field(default=None, foreign_key="inbound.id", index=True)
    # Whom in which game the letter was written to, and the step it asks orders for: a reply
    # to it (In-Reply-To/References) names the game and seat without a tag in its subject.
    game_id: int | None = Field(default=None, index=True)
    seat: str = Field(default="", max_length=64)  # "" for the GM or no seat
    step_key: str = Field(default="", max_length=64)
    state: OutboundState = Field(default=OutboundState.PENDING, sa_type=state_type(OutboundState), index=True)
    # The worker (its presence key) that claimed the row while it is 'sending': a dead owner's
    # rows go back to 'pending' (store/presence.py).
    lease_owner: int | None = Field(default=None, sa_type=sa.BigInteger)
    attempts: int = 0
    next_attempt_at: datetime = _ts()
    last_error: str | None = Field(default=None, sa_type=sa.Text)
    created_at: datetime = _ts()
    sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
