# SPDX-License-Identifier: GPL-3.0-or-later
"""Parked letters: the stored letters the handling could not finish, listed and handed back.

A letter is parked (``shunted``) when handling it failed: a bug, a game package the service
could not load, a store that refused it again and again. Everything it would have written was
rolled back, so nobody was answered. Once the cause is gone (a fix, the package installed) the
operator hands it back: it becomes ``new`` again and the running service handles it as if it
had just arrived. A letter that was answered all the same is never handed back, so a letter is
never answered twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from mailbot.store import repo
from mailbot.store.models import Inbound, InboundState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Handback:
    """What became of one letter asked for: ``queued`` again, or why not."""

    inbound_id: int
    outcome: str

    @property
    def queued(self) -> bool:
        return self.outcome == "queued"


def stored_letters(session: Session, state: InboundState | None, limit: int) -> list[Inbound]:
    """Stored letters, newest first; only those in ``state`` when given."""
    query = select(Inbound).order_by(col(Inbound.id).desc()).limit(limit)
    if state is not None:
        query = query.where(Inbound.state == state)
    return list(session.exec(query))


def shunted_ids(session: Session) -> list[int]:
    query = select(Inbound.id).where(Inbound.state == InboundState.SHUNTED).order_by(col(Inbound.id))
    return [row for row in session.exec(query) if row is not None]


def hand_back(session: Session, ids: Sequence[int]) -> list[Handback]:
    """Make the shunted letters among ``ids`` ``new`` again, for the service to handle."""
    return [_hand_back_one(session, inbound_id) for inbound_id in ids]


def _hand_back_one(session: Session, inbound_id: int) -> Handback:
    row = session.get(Inbound, inbound_id)
    if row is None:
        return Handback(inbound_id, "no such letter")
    if row.state is not InboundState.SHUNTED:
        return Handback(inbound_id, f"is {row.state.value}, not shunted")
    if repo.answered_inbound(session, inbound_id):
        return Handback(inbound_id, "was answered already; not handled again")
    log.warning(
        "letter %s handed back by the operator to be handled again (it was shunted: %s)",
        inbound_id,
        row.reason or "no reason kept",
        extra={"inbound": inbound_id, "outcome": "handed back"},
    )
    # Reason and traceback stay for the record until the letter is handled again.
    row.state, row.processed_at = InboundState.NEW, None
    session.add(row)
    return Handback(inbound_id, "queued")
