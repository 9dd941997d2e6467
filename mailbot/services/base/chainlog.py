# SPDX-License-Identifier: GPL-3.0-or-later
"""The per-game event chain in the database (see ``mailbot.core.chain`` for the hashing).

Appending needs the game's last link. The first append of a game in a transaction reads it
and writes its own link at once (unless the transaction holds SQLite's write lock from its
start, see ``transactions.begin_writing``); from then on the head is kept in the session
(``session.info``), because nobody else can append to that game behind our back until we
commit (SQLite: our write holds the database's write lock; PostgreSQL: another writer's link
at the same position waits on the unique key, then fails). The kept heads are dropped
whenever the transaction ends or any part of it (a savepoint) is rolled back, so a
rolled-back link is never chained to.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, event
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session, and_, col, func, select

from mailbot.core.chain import GENESIS, ChainEntry, entry_hash
from mailbot.services.base.transactions import holds_write_lock
from mailbot.store.game_tables import ChainRow
from mailbot.store.rows import new_row

_HEADS = "mailbot.chain-heads"  # session.info key: {game_id: (position, hash)} of this transaction
_ADDED = "mailbot.chain-added"  # session.info key: {game_id: [links appended in it, in order]}


@event.listens_for(OrmSession, "after_soft_rollback")
def _forget_on_rollback(session: OrmSession, _previous: SessionTransaction) -> None:
    session.info.pop(_HEADS, None)  # a savepoint or the whole transaction rolled back
    session.info.pop(_ADDED, None)


@event.listens_for(OrmSession, "after_transaction_end")
def _forget_on_end(session: OrmSession, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # committed, rolled back or closed: others may append now
        session.info.pop(_HEADS, None)
        session.info.pop(_ADDED, None)


def _known(session: Session) -> dict[int, tuple[int, str]]:
    heads: dict[int, tuple[int, str]] = session.info.setdefault(_HEADS, {})
    return heads


# Built once (building a statement cost more than running it); asked for by every letter and tick.
_LAST_LINK = (
    select(ChainRow.position, ChainRow.hash)
    .where(ChainRow.game_id == bindparam("game_id"))
    .order_by(col(ChainRow.position).desc())
    .limit(1)
)


def _last(session: Session, game_id: int) -> tuple[int, str]:
    """The last link's (position, hash); (-1, GENESIS) for an empty chain."""
    known = _known(session).get(game_id)
    if known is not None:
        return known
    # Read on the connection, so nothing is flushed first: a link of this game added in this
    # transaction would be known above (``append`` keeps the head), so what waits to be
    # written cannot change the answer.
    found = session.connection().execute(_LAST_LINK, {"game_id": game_id}).first()
    return (found[0], found[1]) if found is not None else (-1, GENESIS)


def read_heads(session: Session, game_ids: Collection[int]) -> None:
    """Read the last links of many games in one query, for a transaction that holds SQLite's
    write lock from its start (nobody else appends until it ends); heads it knows stay."""
    if not holds_write_lock(session):
        return
    known = _known(session)
    wanted = sorted({game_id for game_id in game_ids if game_id not in known})
    if not wanted:
        return
    last = (
        select(ChainRow.game_id, func.max(ChainRow.position).label("position"))
        .where(col(ChainRow.game_id).in_(wanted))
        .group_by(col(ChainRow.game_id))
        .subquery()
    )
    query = select(ChainRow.game_id, ChainRow.position, ChainRow.hash).join(
        last, and_(col(ChainRow.game_id) == last.c.game_id, col(ChainRow.position) == last.c.position)
    )
    found = {game_id: (position, hash_) for game_id, position, hash_ in session.exec(query)}
    for game_id in wanted:
        known[game_id] = found.get(game_id, (-1, GENESIS))


def head(session: Session, game_id: int) -> str:
    return _last(session, game_id)[1]


def appended(session: Session, game_id: int) -> list[ChainRow]:
    """The links this transaction appended to the game's chain, in order, flushed or not: what
    was read of the chain before them plus these is the chain, without a query (or a flush)."""
    added: dict[int, list[ChainRow]] = session.info.get(_ADDED, {})
    return added.get(game_id, [])


def appended_for(
    session: Session, game_id: int, kinds: Collection[str], step: str, attempt: int | None = None
) -> list[ChainRow]:
    """The links of ``kinds`` naming step ``step`` (and ``attempt``, if given) that this
    transaction appended, written or not: added to what a read on the connection found (by
    position, so that a written one counts once), they are what the chain holds of them."""
    return [
        link
        for link in appended(session, game_id)
        if link.kind in kinds
        and link.payload.get("step") == step
        and (attempt is None or link.payload.get("attempt") == attempt)
    ]


def append(session: Session, game_id: int, kind: str, payload: Mapping[str, Any], now: datetime) -> ChainRow:
    """Add one event to the game's chain, inside the caller's transaction.

    The game's first link in a transaction is written at once (from then on the head is
    ours); later ones go with the caller's next query or commit (autoflush).
    """
    kept = game_id in _known(session)
    last_position, prev = _last(session, game_id)
    position = last_position + 1
    row = new_row(
        ChainRow,
        game_id=game_id,
        position=position,
        kind=kind,
        payload=dict(payload),
        prev_hash=prev,
        hash=entry_hash(position, kind, payload, prev),
        created_at=now,
    )
    session.add(row)
    if not kept and not holds_write_lock(session):
        session.flush()  # our link is in: from now on nobody appends to this game before we commit
    _known(session)[game_id] = (position, row.hash)
    session.info.setdefault(_ADDED, {}).setdefault(game_id, []).append(row)
    return row


def entries(session: Session, game_id: int) -> list[ChainEntry]:
    rows = session.exec(select(ChainRow).where(ChainRow.game_id == game_id).order_by(col(ChainRow.position)))
    return [ChainEntry(r.position, r.kind, r.payload, r.prev_hash, r.hash) for r in rows]
