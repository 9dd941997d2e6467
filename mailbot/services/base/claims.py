# SPDX-License-Identifier: GPL-3.0-or-later
"""Which worker handles which letter, and one worker per game at a time (PostgreSQL).

Letters are claimed by the transaction that handles them (``FOR UPDATE SKIP LOCKED``):
another worker skips them, and if the worker dies its transaction ends and the claim
with it. A letter waits while an earlier letter of the same sender is with another
worker (or waits itself), so a player's later orders are always read after his earlier
ones. A game is changed by one transaction at a time: a letter's transaction *tries*
the game's advisory lock when it loads the game (:class:`GameBusy` when another worker
has it: the letter waits), a deadline tick *waits* for it; so they never deadlock.

On SQLite (one worker) every claim is granted and no lock is taken.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session, col, select

from mailbot.errors import GameBusy
from mailbot.services.base.transactions import HELD_GAMES
from mailbot.store.game_tables import Game
from mailbot.store.models import Inbound, InboundState
from mailbot.store.presence import lock_key

_LOCKED = HELD_GAMES  # session.info: ids of the games this transaction holds
_BUSY = "mailbot.games_busy"  # session.info: ids of the games another worker held when asked


def _shared(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def game_key(game_id: int) -> int:
    return lock_key(f"game:{game_id}")


def lock_game(session: Session, game_id: int) -> None:
    """Wait for the game (a deadline tick); held until the transaction ends."""
    if _shared(session):
        session.execute(sa.text("SELECT 1 FROM pg_advisory_xact_lock(:k)"), {"k": game_key(game_id)})
        session.info.setdefault(_LOCKED, set()).add(game_id)


def try_games_on_load(session: Session) -> None:
    """From now on, every game this transaction loads is locked for it, or GameBusy is raised."""
    if _shared(session):
        event.listen(session, "loaded_as_persistent", _try_lock)


def try_games(session: Session, game_ids: Collection[int]) -> set[int]:
    """Of ``game_ids``, the games this transaction holds now: those it held, and those whose lock
    it got, all asked in one statement (PostgreSQL; on SQLite every game). A game another worker
    holds is left out: its letters wait, as when they load it (:class:`GameBusy`)."""
    if not _shared(session):
        return set(game_ids)
    held: set[int] = session.info.setdefault(_LOCKED, set())
    keys = {game_key(game_id): game_id for game_id in sorted(set(game_ids) - held)}
    if keys:
        got = {keys[key] for (key,) in session.connection().execute(_TRY_GAMES, {"keys": list(keys)})}
        held.update(got)
        session.info.setdefault(_BUSY, set()).update(set(keys.values()) - got)
    return held & set(game_ids)


def busy_elsewhere(session: Session) -> AbstractSet[int]:
    """The games another worker held when this transaction asked for them (:func:`try_games`):
    a letter to one waits at once, instead of finding the game busy under its savepoint, whose
    rollback would drop all the transaction keeps. A hint for the transaction: the game may be
    free by now, and its letter is tried again soon."""
    busy: AbstractSet[int] = session.info.get(_BUSY, frozenset())
    return busy  # read each letter: the set itself, not a copy


#: each key whose lock this transaction got (a lock it holds already is granted again)
_TRY_GAMES = sa.text(
    "SELECT t.key FROM unnest(CAST(:keys AS bigint[])) AS t(key) WHERE pg_try_advisory_xact_lock(t.key)"
)


def _try_lock(session: OrmSession, obj: Any) -> None:
    if not isinstance(obj, Game) or obj.id is None:
        return
    held: set[int] = session.info.setdefault(_LOCKED, set())
    if obj.id in held:
        return
    # On the raw connection: the ORM is still loading the row that brought us here.
    got = session.connection().execute(
        sa.text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": game_key(obj.id)}
    )
    if not got.scalar():
        raise GameBusy(f"game {obj.id} is being changed by another worker")
    held.add(obj.id)


def claim_next(
    session: Session, limit: int, skip: Collection[int]
) -> tuple[list[int], list[tuple[int, str]]]:
    """The next stored letters in order of receipt that no other worker holds, up to ``limit``
    and none of ``skip``, claimed in one statement: their ids, and those of them this
    transaction may handle now, as :func:`claim_letters` gives them.

    Two workers that asked for the letters first and claimed them after took the same ones,
    and the second found them all taken; claimed this way, each gets letters of its own.
    """
    query = (
        select(Inbound.id, Inbound.sender)
        .where(Inbound.state == InboundState.NEW)
        .order_by(col(Inbound.received_at), col(Inbound.id))
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    if skip:
        query = query.where(col(Inbound.id).not_in(sorted(skip)))
    claimed = session.exec(query).all()
    ids = [int(i or 0) for i, _sender in claimed]
    senders = {int(i or 0): sender for i, sender in claimed}
    if not _shared(session):
        return ids, [(i, senders[i]) for i in ids]
    return ids, _in_turn(session, ids, senders)


def claim_letters(session: Session, ids: Sequence[int]) -> list[tuple[int, str]]:
    """The letters of ``ids`` this transaction may handle, as (id, sender), in the given order.

    Letters another worker has claimed are skipped, and so is any letter whose sender has an
    earlier letter still waiting that is not among those claimed here.
    """
    if not ids:
        return []
    claimed = session.exec(
        select(Inbound.id, Inbound.sender)
        .where(col(Inbound.id).in_(ids), Inbound.state == InboundState.NEW)
        .with_for_update(skip_locked=True)
    ).all()
    senders = {int(i or 0): sender for i, sender in claimed}
    if not _shared(session):
        return [(i, senders[i]) for i in ids if i in senders]
    return _in_turn(session, ids, senders)


def _in_turn(session: Session, ids: Sequence[int], senders: dict[int, str]) -> list[tuple[int, str]]:
    waiting = session.exec(
        select(Inbound.id, Inbound.sender, Inbound.received_at).where(
            Inbound.state == InboundState.NEW, col(Inbound.sender).in_(set(senders.values()))
        )
    ).all()
    first_elsewhere: dict[str, tuple[Any, int]] = {}  # sender -> his earliest letter not claimed here
    for i, sender, received in waiting:
        key = (received, int(i or 0))
        first = first_elsewhere.get(sender)
        if i not in senders and (first is None or key < first):
            first_elsewhere[sender] = key
    received_at = {int(i or 0): received for i, _sender, received in waiting}
    turn = []
    for i in ids:
        if i not in senders or i not in received_at:
            continue
        blocker = first_elsewhere.get(senders[i])
        if blocker is None or (received_at[i], i) < blocker:
            turn.append((i, senders[i]))
    return turn


@event.listens_for(OrmSession, "after_soft_rollback")
def _forget_on_rollback(session: OrmSession, _previous: SessionTransaction) -> None:
    session.info.pop(_LOCKED, None)  # asked again, PostgreSQL says whether we still hold it


@event.listens_for(OrmSession, "after_transaction_end")
def _forget_on_end(session: OrmSession, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_LOCKED, None)
        session.info.pop(_BUSY, None)
