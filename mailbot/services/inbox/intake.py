# SPDX-License-Identifier: GPL-3.0-or-later
"""Intake: from the IMAP mailbox into ``inbound`` rows, losing nothing.

Order of work for each batch (at most 100 UIDs):

1. fetch the raw messages (BODY.PEEK, so nothing is flagged yet);
2. in ONE transaction: store each new message and move the mailbox cursor;
   each message goes in under its own savepoint, so one the database refuses
   is stored as ``shunted`` (raw bytes intact) and never stops the batch or
   comes back on the next fetch;
3. only after the commit: flag ``\\Seen`` (or move to the processed folder).

A crash before 2 refetches the batch; a crash between 2 and 3 leaves mail
unflagged but the cursor past it, and :meth:`Intake.reconcile` flags it on the
next start. Duplicates (same Message-ID, or same bytes when there is none) are
stored once whatever the reason they arrive twice, including a UIDVALIDITY
change, after which the whole mailbox is read again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import Compat32
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.core.letter import RawMessage
from mailbot.mail.mime import read_sender
from mailbot.mail.parsed import ParseLimits, parse_to_keep
from mailbot.services.base.transactions import begin_writing
from mailbot.store import repo, wakeups

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


def describe(message: RawMessage, limits: ParseLimits | None = None) -> repo.NewInbound:
    """Headers needed before the full parse: the dedupe key, sender and subject; with
    ``limits``, the full parse too, kept for the letter process (``mail.parsed``).

    Values are taken as they come; the store cleans and cuts them for the
    database (:func:`mailbot.store.repo.fit_key`). Headers that cannot be read
    at all leave the letter keyed by its bytes, never unstored.
    """
    content_hash = hashlib.sha256(message.raw).hexdigest()
    try:
        message_id, sender, subject = _headers(message.raw)
    except Exception:  # a parser bug on hostile bytes must not keep the letter out of the store
        log.warning("uid %s: headers unreadable; keyed by content", message.uid, exc_info=True)
        message_id, sender, subject = None, "", ""
    return repo.NewInbound(
        uid=message.uid,
        raw=message.raw,
        received_at=message.received_at,
        message_id=message_id,
        dedupe_key=f"mid:{message_id}" if message_id else f"sha:{content_hash}",
        content_hash=content_hash,
        sender=sender,
        subject=subject,
        letter=None if limits is None else parse_to_keep(message.raw, limits),
    )


class _RawValues(Compat32):
    """Header values as they came, not ``Header`` objects that turn every 8-bit byte into U+FFFD
    (then two different non-ASCII Message-IDs of one length would be one dedupe key)."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        return _utf8(value)


def _utf8(value: str) -> str:
    """RFC 6532 UTF-8 decoded; other 8-bit bytes stay ``surrogateescape`` for the store to judge."""
    try:
        return value.encode("ascii", "surrogateescape").decode("utf-8")
    except UnicodeError:
        return value


def _headers(raw: bytes) -> tuple[str | None, str, str]:
    headers = BytesHeaderParser(policy=_RawValues()).parsebytes(raw)
    message_id = str(headers.get("Message-ID", "") or "").strip().strip("<>").strip() or None
    # The sender as a mail client (and the letter's handling, mime.read_sender) reads it.
    found = read_sender(" ".join(str(headers.get("From", "")).split()))
    sender = "" if found is None else found[1]
    return message_id, sender, str(headers.get("Subject", "") or "")


class Intake:
    def __init__(
        self,
        *,
        engine: Engine,
        mailbox: str,
        clock: Callable[[], datetime],
        batch_size: int = 100,
        checkpoint: Checkpoint = _no_checkpoint,
        limits: ParseLimits | None = None,
    ) -> None:
        """``limits``: parse each letter as it is stored, under these limits (else only its headers)."""
        self.engine = engine
        self.limits = limits
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
        # Until a search finds nothing new: mail keeps arriving while the store writes (in a
        # worker thread), and reading it now is cheaper than another wait for news.
        while uids := await source.search_after(self._cursor(uidvalidity)):
            await self._read(source, uidvalidity, uids, result)
        return result

    async def _read(self, source: Source, uidvalidity: int, uids: list[int], result: IntakeResult) -> None:
        for start in range(0, len(uids), self.batch_size):
            batch = uids[start : start + self.batch_size]
            messages = await source.fetch(batch)
            self.checkpoint("after-fetch")
            result.fetched += len(messages)
            # In a worker thread: the event loop goes on (IDLE, sending) while the store writes.
            result.stored += await asyncio.to_thread(self._store, uidvalidity, messages, max(batch))
            self.checkpoint("after-commit")
            await source.acknowledge(batch)

    def _store(self, uidvalidity: int, messages: Sequence[RawMessage], last_uid: int) -> int:
        items = [describe(message, self.limits) for message in messages]
        now = self.clock()
        with Session(self.engine) as session, session.begin():
            begin_writing(session)  # it reads (duplicates) before it writes, beside the handling thread
            stored = repo.add_inbound(session, self.mailbox, uidvalidity, items, now)
            repo.set_cursor(session, self.mailbox, uidvalidity, last_uid, now)
            if stored:
                wakeups.notify(session, wakeups.LETTERS)  # the other workers look for them now
        if stored < len(items):
            log.info(
                "%s: %d of %d fetched letters were duplicates", self.mailbox, len(items) - stored, len(items)
            )
        return stored
