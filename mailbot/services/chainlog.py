# SPDX-License-Identifier: GPL-3.0-or-later
"""The per-game event chain in the database (see ``mailbot.core.chain`` for the hashing)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core.chain import GENESIS, ChainEntry, entry_hash
from mailbot.store.game_tables import ChainRow


def _last(session: Session, game_id: int) -> ChainRow | None:
    query = (
        select(ChainRow).where(ChainRow.game_id == game_id).order_by(col(ChainRow.position).desc()).limit(1)
    )
    return session.exec(query).first()


def head(session: Session, game_id: int) -> str:
    last = _last(session, game_id)
    return last.hash if last else GENESIS


def append(session: Session, game_id: int, kind: str, payload: Mapping[str, Any], now: datetime) -> ChainRow:
    """Add one event to the game's chain, inside the caller's transaction."""
    last = _last(session, game_id)
    position = last.position + 1 if last else 0
    prev = last.hash if last else GENESIS
    row = ChainRow(
        game_id=game_id,
        position=position,
        kind=kind,
        payload=dict(payload),
        prev_hash=prev,
        hash=entry_hash(position, kind, payload, prev),
        created_at=now,
    )
    session.add(row)
    session.flush()  # the next append in this transaction must see it
    return row


def entries(session: Session, game_id: int) -> list[ChainEntry]:
    rows = session.exec(select(ChainRow).where(ChainRow.game_id == game_id).order_by(col(ChainRow.position)))
    return [ChainEntry(r.position, r.kind, r.payload, r.prev_hash, r.hash) for r in rows]
