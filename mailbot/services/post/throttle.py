# SPDX-License-Identifier: GPL-3.0-or-later
"""The loop breaker: at most so many answers an hour to one address, then one notice and silence.

An auto-responder that ignores the bot's ``Auto-Submitted`` header, or another
game robot, answers every answer; header rules cannot know them all. So, like
Mailman's autoresponse limits (``max_autoresponses_per_day``: past the limit
one "too many" notice, then nothing until the day is over), the bot counts
its answers to each address per hour. Letters past the limit are still read
(a player's orders still count); only the answer is withheld. Answers to
letters that carried no accepted command (a robot's letters never do) are
limited more tightly. The counters are rows, so a restart does not reset them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlmodel import Session, col, select

from mailbot.store.models import AnswerCount

WINDOW = timedelta(hours=1)
_COUNTERS = "mailbot.answer-counters"  # session.info: counters made in this transaction, by address
_NONE = "mailbot.answer-counters-none"  # session.info: addresses read ahead that had no counter


@dataclass(frozen=True)
class Limits:
    """Answers an hour to one address: in all, and to letters without an accepted command."""

    per_hour: int = 30
    idle_per_hour: int = 10


class Verdict(StrEnum):
    ANSWER = "answer"
    NOTICE = "notice"  # the one letter that says the answers stop for a while
    SILENT = "silent"


def admit(session: Session, address: str, now: datetime, limits: Limits, *, idle: bool) -> Verdict:
    """Count an answer to ``address`` and say whether it may go out (in the letter's transaction)."""
    row = _current(session, address.lower(), now)
    if row.silenced:
        return Verdict.SILENT
    row.answers += 1
    row.idle_answers += int(idle)
    if row.answers > limits.per_hour or row.idle_answers > limits.idle_per_hour:
        row.silenced = True
        return Verdict.NOTICE
    return Verdict.ANSWER


def silent_until(row: AnswerCount) -> datetime:
    return row.window_start + WINDOW


def _current(session: Session, key: str, now: datetime) -> AnswerCount:
    """The address's counter for the hour ``now`` is in: a fresh one once the last hour is over."""
    row = _counter(session, key)
    if row is None:
        row = AnswerCount(address=key, window_start=now)
        session.add(row)
        session.info.setdefault(_COUNTERS, {})[key] = row
    elif now >= silent_until(row):
        row.window_start, row.answers, row.idle_answers, row.silenced = now, 0, 0, False
    return row


def _counter(session: Session, key: str) -> AnswerCount | None:
    """The stored (or this transaction's new) counter of ``key``.

    Read without flushing: a batch of letters writes its rows together at the commit, and a
    counter made earlier in it is found in the session's own map. One a rolled-back savepoint
    took out of the session (a letter that failed) is looked up again.
    """
    made: dict[str, AnswerCount] = session.info.setdefault(_COUNTERS, {})
    row = made.get(key)
    if row is not None and row in session:
        return row
    if key in session.info.get(_NONE, ()):
        return None  # none stored: read ahead while this transaction is the only writer
    with session.no_autoflush:
        return session.get(AnswerCount, key)


def read_ahead(session: Session, addresses: Collection[str]) -> None:
    """Read the counters of a batch's senders in one query, for a transaction that keeps what it
    reads and is the only writer (SQLite's write lock), so that none is made meanwhile. A
    letter's sender as its handling reads it may differ from the stored one (a Sender header):
    that address is looked up alone."""
    keys = sorted({address.lower() for address in addresses} - set(session.info.get(_COUNTERS, {})))
    if not keys:
        return
    query = select(AnswerCount).where(col(AnswerCount.address).in_(keys))
    with session.no_autoflush:
        found = session.exec(query).all()
    session.info.setdefault(_COUNTERS, {}).update((row.address, row) for row in found)
    none: set[str] = session.info.setdefault(_NONE, set())
    none.update(set(keys) - {row.address for row in found})


def throttled(session: Session, now: datetime) -> list[tuple[str, datetime]]:
    """Addresses answered no more this hour, with the moment answers resume; soonest first."""
    query = select(AnswerCount).where(col(AnswerCount.silenced), col(AnswerCount.window_start) > now - WINDOW)
    return sorted(((row.address, silent_until(row)) for row in session.exec(query)), key=lambda x: x[1])
