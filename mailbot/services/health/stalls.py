# SPDX-License-Identifier: GPL-3.0-or-later
"""Work that is due and untouched, read from the store: what an operator must hear about before
the players do.

A stall is work that has waited longer than ``stall`` while nothing of its kind was done:
replies due and none sent, letters stored and none handled, a deadline passed and its step
still open. It is read from the store alone, so ``mailbot status`` beside a running (or a
dead) service sees it as well as the service's own watchdog, whichever worker or process
does the work. A busy loop working through a backlog is not stalled: it sends or handles.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, func, select

from mailbot.store.game_tables import Game, GameStatus, StepRow, StepState
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState

OUTBOX, LETTERS, DEADLINES = "outbox", "letters", "deadlines"


@dataclass(frozen=True)
class Stall:
    loop: str  # OUTBOX, LETTERS or DEADLINES
    reason: str  # for a person: "12 replies due for 9 min, none sent (last error: ...)"


def _minutes(span: timedelta) -> str:
    """``40 s``, ``1 min 40 s``; past an hour in hours and minutes, past two days in days and hours."""
    seconds = max(int(span.total_seconds()), 0)
    if seconds >= 2 * 86_400:
        return f"{seconds // 86_400} d {seconds % 86_400 // 3600} h"
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def _outbox(session: Session, now: datetime, since: datetime) -> Stall | None:
    waiting = (Outbound.state == OutboundState.PENDING, col(Outbound.next_attempt_at) <= since)
    oldest_due = func.min(Outbound.next_attempt_at)
    count, oldest = session.exec(select(func.count(), oldest_due).where(*waiting)).one()
    if not count or oldest is None:
        return None
    if session.exec(select(Outbound.id).where(col(Outbound.sent_at) > since).limit(1)).first() is not None:
        return None  # sending goes on (a backlog)
    error = session.exec(
        select(Outbound.last_error).where(*waiting, col(Outbound.last_error) != "").order_by(col(Outbound.id))
    ).first()
    reason = f"{count} repl{'y' if count == 1 else 'ies'} due for {_minutes(now - oldest)}, none sent"
    return Stall(OUTBOX, reason + (f" (last error: {error[:200]})" if error else ""))


def _letters(session: Session, now: datetime, since: datetime) -> Stall | None:
    waiting = (Inbound.state == InboundState.NEW, col(Inbound.stored_at) <= since)
    count, oldest = session.exec(select(func.count(), func.min(Inbound.stored_at)).where(*waiting)).one()
    if not count or oldest is None:
        return None
    if session.exec(select(Inbound.id).where(col(Inbound.processed_at) > since).limit(1)).first() is not None:
        return None  # handling goes on (a backlog)
    plural = "letter" if count == 1 else "letters"
    return Stall(LETTERS, f"{count} {plural} stored {_minutes(now - oldest)} ago, none handled")


def _deadlines(session: Session, now: datetime, since: datetime) -> Stall | None:
    # Early processing is left out: a WAIT or a late correction may rightly hold it.
    query = select(StepRow.game_id, StepRow.key, StepRow.deadline_at, Game.grace_seconds).where(
        StepRow.game_id == Game.id, Game.status == GameStatus.RUNNING, StepRow.state == StepState.OPEN
    )
    late: list[tuple[timedelta, int, str]] = []
    for game_id, key, deadline_at, grace in session.exec(query):
        due = deadline_at + timedelta(seconds=grace)
        if due <= since:
            late.append((now - due, game_id, key))
    if not late:
        return None
    span, game_id, key = max(late)
    more = f" and {len(late) - 1} more" if len(late) > 1 else ""
    return Stall(DEADLINES, f"game {game_id} step {key} due {_minutes(span)} ago, not processed{more}")


def find_stalls(session: Session, now: datetime, stall: timedelta) -> list[Stall]:
    """Every kind of work due for longer than ``stall`` with nothing of its kind done meanwhile."""
    since = now - stall
    found = (_outbox(session, now, since), _letters(session, now, since), _deadlines(session, now, since))
    return [item for item in found if item is not None]
