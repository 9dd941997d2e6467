# SPDX-License-Identifier: GPL-3.0-or-later
"""Intake: from the IMAP mailbox into ``inbound`` rows, losing nothing.

Order of work for each batch (at most 100 UIDs):

1. fetch the raw messages (BODY.PEEK, so nothing is flagged yet);
2. in ONE transaction: store each new message and move the mailbox cursor;
3. only after the commit: flag ``\\Seen`` (or move to the processed folder).

A crash before 2 refetches the batch; a crash between 2 and 3 leaves mail
unflagged but the cursor past it, and :meth:`Intake.reconcile` flags it on the
next start. Duplicates (same Message-ID, or same bytes when there is none) are
stored once whatever the reason they arrive twice, including a UIDVALIDITY
change, after which the whole mailbox is read again.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.parser import BytesHeaderParser
from email.utils import parseaddr
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.core.letter import RawMessage
from mailbot.store import repo

log = logging.getLogger(__name__)

Checkpoint = Callable[[str], None]


class Source(Protocol):
    async def search_after(self, last_uid: int) -> list[int]: ...
    async def search_upto(self, last_uid: int) -> list[int]: ...
    async def fetch(self, uids: Sequence[int]) -> list[RawMessage]: ...
    async def acknowledge(self, uids: Sequence[int]) -> None: ...


@dataclass
class IntakeResult:
    fetched: int = 0
    stored: int = 0

    @property
    def duplicates(self) -> int:
        return self.fetched - self.stored


def _no_checkpoint(_name: str) -> None:
    return None


def describe(message: RawMessage) -> repo.NewInbound:
    """Headers needed before the full parse: the dedupe key, sender and subject."""
    headers = BytesHeaderParser().parsebytes(message.raw)
    content_hash = hashlib.sha256(message.raw).hexdigest()
    message_id = str(headers.get("Message-ID", "") or "").strip().strip("<>").strip() or None
    return repo.NewInbound(
        uid=message.uid,
        raw=message.raw,
        received_at=message.received_at,
        message_id=message_id,
        dedupe_key=f"mid:{message_id}" if message_id else f"sha:{content_hash}",
        content_hash=content_hash,
        sender=parseaddr(str(headers.get("From", "")))[1],
        subject=str(headers.get("Subject", "") or ""),
    )


class Intake:
    def __init__(
        self,
        *,
        engine: Engine,
        mailbox: str,
        clock: Callable[[], datetime],
        batch_size: int = 100,
        checkpoint: Checkpoint = _no_checkpoint,
    ) -> None:
        self.engine = engine
        self.mailbox = mailbox
        self.clock = clock
        self.batch_size = batch_size
        self.checkpoint = checkpoint

    def _cursor(self, uidvalidity: int) -> int:
        with Session(self.engine) as session:
            cursor = repo.get_cursor(session, self.mailbox)
        if cursor is None:
            return 0
        if cursor.uidvalidity != uidvalidity:
            log.warning("UIDVALIDITY of %s changed; re-reading it, duplicates are skipped", self.mailbox)
            return 0
        return cursor.last_uid

    async def reconcile(self, source: Source, uidvalidity: int) -> None:
        """Acknowledge mail that was stored before a crash but never flagged or moved."""
        left = await source.search_upto(self._cursor(uidvalidity))
        await source.acknowledge(left)

    async def poll(self, source: Source, uidvalidity: int) -> IntakeResult:
        """Store everything new in the mailbox; returns counts."""
        result = IntakeResult()
        uids = await source.search_after(self._cursor(uidvalidity))
        for start in range(0, len(uids), self.batch_size):
            batch = uids[start : start + self.batch_size]
            messages = await source.fetch(batch)
            self.checkpoint("after-fetch")
            result.fetched += len(messages)
            result.stored += self._store(uidvalidity, messages, max(batch))
            self.checkpoint("after-commit")
            await source.acknowledge(batch)
        return result

    def _store(self, uidvalidity: int, messages: Sequence[RawMessage], last_uid: int) -> int:
        items = [describe(message) for message in messages]
        now = self.clock()
        with Session(self.engine) as session, session.begin():
            stored = repo.add_inbound(session, self.mailbox, uidvalidity, items, now)
            repo.set_cursor(session, self.mailbox, uidvalidity, last_uid, now)
        return stored
