# SPDX-License-Identifier: GPL-3.0-or-later
"""Late letters: orders written for a step that closed before they reached the mail server.

A letter that names no step was once taken for whatever step was open when it was read, so
orders that came ten seconds after a deadline quietly became the next step's orders, written
without its report. Such a letter is now late for the closed step, and said to be: nothing of
it is used. A letter is taken as written for the closed step when it came after that step
closed and either answers the bot's letter asking for that step's orders, or was written
(its Date, when within an hour before its receipt, else its receipt) before the bot's first
letter for the open step was sent to the seat. Naming the open step (``ORDERS T2``) always
uses the letter for it. A seat that owed nothing in the closed step cannot have written for it:
its letter is read for the open step, which it owes, so no orders are lost that way.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import bindparam
from sqlmodel import Session, col

from mailbot.core import deadlines
from mailbot.services.base import queries
from mailbot.services.base.transactions import kept_for, shelf
from mailbot.services.inbox.auth import Seated
from mailbot.services.inbox.handling import Context
from mailbot.store.game_tables import StepRow
from mailbot.store.models import Outbound


def late_letter(ctx: Context, who: Seated, step: StepRow) -> tuple[str, list[str]]:
    """The closed step the letter is late for and what happens to it; ("", []) when it is not late.

    The cheap tests first (this runs for every orders letter of a batch): a letter that came
    before ``step`` opened (when the step before it closed) is not late, and the closed step is
    read only for a letter found late.
    """
    if ctx.row.received_at < step.opened_at:
        return "", []
    if not (_answers_closed(ctx, who, step) or _written_before_asked(ctx, who, step)):
        return "", []
    closed = _closed_before(ctx.session, step)
    if closed is None:
        return "", []
    title, closed_at, owing = closed
    if who.seat.name not in owing:
        # The seat owed nothing there, so its letter cannot be orders for it: they are the open
        # step's, which it owes (``open_step_for`` checked that).
        return "", []
    zone = who.seat.timezone or who.game.timezone
    return title, [
        f"Your letter reached the mail server at {deadlines.local_time(ctx.row.received_at, zone)},",
        f"after {title} was resolved ({deadlines.local_time(closed_at, zone)}) without it.",
        f"Nothing in it was used, not for {step.title} either: that step is open",
        f"until {deadlines.local_time(step.deadline_at, zone)}. Read its report, then send orders for it;",
        f"a letter with ORDERS {step.key} is read for it as it stands.",
    ]


#: the game's step resolved last before the given one opened (seats taken is no step of play)
_CLOSED_BEFORE = (
    sa.select(col(StepRow.title), col(StepRow.closed_at), col(StepRow.owing))
    .where(
        col(StepRow.game_id) == bindparam("game_id"),
        col(StepRow.closed_at).is_not(None),
        col(StepRow.id) != bindparam("step_id"),
        col(StepRow.kind) != "setup",
    )
    .order_by(col(StepRow.closed_at).desc(), col(StepRow.id).desc())
    .limit(1)
)


def _closed_before(session: Session, step: StepRow) -> tuple[str, datetime, list[str]] | None:
    """The title, closing time and owing seats of the step resolved last before ``step`` opened."""
    # On the connection, as ``_FIRST_ASK``: a flush here wrote the batch's earlier letters one
    # statement at a time, which cost more than all the rest of an orders letter's handling.
    # Unless a step opened in this transaction waits to be written (a GM's FORCE earlier in the
    # batch closed one step and opened the next): the closing may wait with it.
    if queries.steps_waiting(session):
        session.flush()
    found = session.connection().execute(_CLOSED_BEFORE, {"game_id": step.game_id, "step_id": step.id})
    row = found.first()
    return None if row is None or row[1] is None else (row[0], row[1], list(row[2] or ()))


def _answers_closed(ctx: Context, who: Seated, step: StepRow) -> bool:
    """Whether the bot's letter the writer answers (the nearest one to his seat) asked for another step."""
    for item in ctx.extra.get("answered", ()):
        if item.game_id == who.game.id and item.seat == who.seat.name and item.step_key:
            return bool(item.step_key != step.key)
    return False


#: the first letter that asked a seat for a step: when it went out (None: not yet)
_FIRST_ASK = (
    sa.select(col(Outbound.sent_at))
    .where(
        col(Outbound.game_id) == bindparam("game_id"),
        col(Outbound.seat) == bindparam("seat"),
        col(Outbound.step_key) == bindparam("step_key"),
        col(Outbound.created_at) >= bindparam("opened_at"),  # a rolled-back step's key comes again
    )
    .order_by(col(Outbound.id))
    .limit(1)
)


def _written_before_asked(ctx: Context, who: Seated, step: StepRow) -> bool:
    """Whether the letter was written before the bot's first letter asking the seat for ``step``
    went out: its writer cannot have read that step's report. None queued: nothing to say."""
    asked = _first_ask(ctx.session, who, step)
    if asked is None:
        # Not in the store yet: one this batch queued (unsent) is the first, as it would be found
        # after a flush.
        return any(_asks(row, who, step) for row in ctx.session.new)
    sent_at: datetime | None = asked[0]
    # A Date has whole seconds: written at 12:00:00 may be 12:00:00.9, after a letter sent at .7
    return sent_at is None or _written(ctx) + DATE_RESOLUTION <= sent_at


def _first_ask(session: Session, who: Seated, step: StepRow) -> tuple[datetime | None] | None:
    """(when it was sent,) of the first letter that asked the seat for ``step``; None: none stored.

    This runs for every orders letter: a batch that keeps what it reads (``kept``) reads the
    first asks of every open step it read ahead in one query; otherwise one query on the
    connection (no flush, no ORM result) by a statement built once.
    """
    asks = kept_for(session, "first-asks", step.game_id)
    if asks is not None and _read_asks_ahead(session, asks, step):
        return asks.get((step.game_id, who.seat.name))
    values = {
        "game_id": step.game_id,
        "seat": who.seat.name,
        "step_key": step.key,
        "opened_at": step.opened_at,
    }
    found = session.connection().execute(_FIRST_ASK, values).first()
    return None if found is None else (found[0],)


def _read_asks_ahead(session: Session, asks: dict[Any, Any], step: StepRow) -> bool:
    """Fill ``asks`` for the open steps read ahead; False when ``step`` is not among them."""
    loaded: set[int] = asks.setdefault(_LOADED, set())
    if step.id in loaded:
        return True
    ahead = shelf(session, "open-step")  # the open steps of games kept (kept_for), of this one too
    steps = {row.game_id: row for row in ahead.values() if row.id not in loaded and row.id is not None}
    mine = steps.get(step.game_id)
    if mine is None or mine.id != step.id:
        return False
    values = {
        "game_ids": sorted(steps),
        "step_keys": sorted({row.key for row in steps.values()}),
        "since": min(row.opened_at for row in steps.values()),
    }
    for game_id, seat, step_key, created_at, sent_at in session.connection().execute(_ASKS_AHEAD, values):
        open_step = steps[game_id]
        if step_key == open_step.key and created_at >= open_step.opened_at:
            asks.setdefault((game_id, seat), (sent_at,))  # ordered by id: the first stays
    loaded.update(row.id for row in steps.values() if row.id is not None)
    return True


_LOADED = "loaded steps"
#: the letters that asked seats of several games for a step, oldest first (``_read_asks_ahead``)
_ASKS_AHEAD = (
    sa.select(
        col(Outbound.game_id),
        col(Outbound.seat),
        col(Outbound.step_key),
        col(Outbound.created_at),
        col(Outbound.sent_at),
    )
    .where(
        col(Outbound.game_id).in_(bindparam("game_ids", expanding=True)),
        col(Outbound.step_key).in_(bindparam("step_keys", expanding=True)),
        col(Outbound.created_at) >= bindparam("since"),
    )
    .order_by(col(Outbound.id))
)


def _asks(row: object, who: Seated, step: StepRow) -> bool:
    return (
        isinstance(row, Outbound)
        and row.game_id == who.game.id
        and row.seat == who.seat.name
        and row.step_key == step.key
        and row.created_at >= step.opened_at
    )


#: a Date further before the receipt than this is a wrong clock, not mail in transit
TRANSIT = timedelta(hours=1)
#: a Date header's resolution
DATE_RESOLUTION = timedelta(seconds=1)


def _written(ctx: Context) -> datetime:
    """When the letter was written: its Date when that is plausible, else when it was received."""
    date, received = ctx.letter.date, ctx.row.received_at
    if date is None or date.tzinfo is None or not received - TRANSIT <= date <= received:
        return received
    return date
