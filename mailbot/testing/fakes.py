# SPDX-License-Identifier: GPL-3.0-or-later
"""In-memory stand-ins for the mail adapters and the clock, for fast service tests and benchmarks.

They follow the same protocols as :class:`mailbot.mail.imap.ImapSource` and
:class:`mailbot.mail.smtp.SmtpSink`; the real ones are tested against Dovecot
and a real SMTP server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from mailbot.core.letter import RawMessage
from mailbot.errors import SmtpPermanentError, SmtpTemporaryError


class Clock:
    """Injected time: tests and benchmarks move it instead of waiting."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class FakeMailbox:
    """A mailbox with UIDs, a UIDVALIDITY and \\Seen flags."""

    uidvalidity: int = 1
    messages: dict[int, RawMessage] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)
    next_uid: int = 1

    def deliver(self, raw: bytes, when: datetime | None = None) -> int:
        uid = self.next_uid
        self.next_uid += 1
        self.messages[uid] = RawMessage(uid=uid, raw=raw, received_at=when or datetime.now(UTC))
        return uid

    def renumber(self, uidvalidity: int) -> None:
        """What a server does on UIDVALIDITY change: same mail, new UIDs, flags lost."""
        old = [self.messages[uid] for uid in sorted(self.messages)]
        self.uidvalidity, self.messages, self.seen, self.next_uid = uidvalidity, {}, set(), 1
        for message in old:
            self.deliver(message.raw, message.received_at)


class FakeSource:
    def __init__(self, mailbox: FakeMailbox) -> None:
        self.mailbox = mailbox
        self.fetch_sizes: list[int] = []

    async def search_after(self, last_uid: int) -> list[int]:
        return sorted(uid for uid in self.mailbox.messages if uid > last_uid)

    async def search_upto(self, last_uid: int) -> list[int]:
        return sorted(uid for uid in self.mailbox.messages if uid <= last_uid)

    async def fetch(self, uids: Sequence[int]) -> list[RawMessage]:
        self.fetch_sizes.append(len(uids))
        return [self.mailbox.messages[uid] for uid in uids if uid in self.mailbox.messages]

    async def acknowledge(self, uids: Sequence[int]) -> None:
        self.mailbox.seen.update(uids)


@dataclass
class Sent:
    sender: str
    recipient: str
    raw: bytes


class FakeSink:
    """Records sent mail; ``fail_with`` makes the next sends fail temporarily or permanently."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self.fail_with: str | None = None  # None, "temporary" or "permanent"
        self.permanent_for: set[str] = set()

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        if recipient in self.permanent_for or self.fail_with == "permanent":
            raise SmtpPermanentError(f"550 5.1.1 <{recipient}> User unknown")
        if self.fail_with == "temporary":
            raise SmtpTemporaryError("421 4.3.0 try again later")
        self.sent.append(Sent(sender, recipient, raw))

    async def close(self) -> None:
        return None
