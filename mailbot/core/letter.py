# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter: what the moderator needs to know of one inbound e-mail.

The MIME adapter (``mailbot.mail.mime``) builds it from raw bytes; the core
reads commands from ``command_text`` only, never from the raw message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Automatic(StrEnum):
    """Why a letter was judged machine-generated (never answered: no mail loops)."""

    NO = "no"
    AUTO_SUBMITTED = "auto-submitted"
    PRECEDENCE = "precedence"
    LIST = "list"
    BOUNCE = "bounce"
    VACATION = "vacation"


@dataclass(frozen=True)
class Letter:
    """One inbound e-mail reduced to what commands are read from.

    ``body_text`` is the readable text (from text/plain, or HTML converted);
    ``command_text`` is that text with quoted replies, forwarded originals and
    signatures removed: the only text commands are read from. ``prose_text`` is
    ``command_text`` with the greetings and sign-offs it leaves out kept: what a
    message to another player (PRESS) is relayed from.
    """

    sender: str  # bare address, lower-cased domain, from From:
    sender_name: str
    subject: str
    date: datetime | None  # the sender's Date header: informative only
    message_id: str | None  # without angle brackets
    in_reply_to: str | None
    references: tuple[str, ...]
    return_path: str | None  # None when absent; "" for the null path <>
    body_text: str
    command_text: str
    automatic: Automatic = Automatic.NO
    too_large: bool = False
    headers: dict[str, str] = field(default_factory=dict)  # selected headers, e.g. Authentication-Results
    prose_text: str = ""

    @property
    def is_automatic(self) -> bool:
        return self.automatic is not Automatic.NO


@dataclass(frozen=True)
class RawMessage:
    """A message as fetched from a mailbox, before it is stored."""

    uid: int
    raw: bytes
    received_at: datetime  # the server's receipt time (IMAP INTERNALDATE), aware UTC
