# SPDX-License-Identifier: GPL-3.0-or-later
"""Whose a seat's record is: the player a seat's own archive (``ARCHIVE`` by mail) is for.

A seat keeps its name when the GM hands it to another player (``REPLACE``, or
``EJECT`` and a new player later), so "the seat's letters" hold several
players' letters. A seat's own archive is its current player's: the letters he
sent or was sent (by his address), and the seat's orders of the times he held
it. What an earlier player wrote, was told in private or held as orders is
not his, any more than another seat's. The seat's past reports reach a new
player as the game already gives them to him: the HISTORY letters of his
welcome are letters to his address.

The times a player held the seat are read from the welcome letters, each
written when an address took the seat (an invitation, a JOIN, a REPLACE); a
holding lasts until the next welcome of the seat to another address.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from mailbot.services.base import queries
from mailbot.store.game_tables import Game, OrderSet, row_id
from mailbot.store.models import Outbound

#: the kind of the letter that gives an address a seat and its secret (``Games.take_seat``)
WELCOME = "welcome"


@dataclass(frozen=True)
class Span:
    """One stretch of time a player held the seat: from ``start`` (None: the game's start) until
    ``end`` (None: still)."""

    start: datetime | None
    end: datetime | None

    def covers(self, when: datetime) -> bool:
        return (self.start is None or self.start <= when) and (self.end is None or when < self.end)


@dataclass(frozen=True)
class Holder:
    """The seat's current player: his address and the spans he held the seat."""

    seat: str
    address: str  # lower-cased, as a seat stores it
    spans: tuple[Span, ...]

    def owns_address(self, address: str) -> bool:
        """A letter from or to ``address`` is his (the seat's letters are filtered by seat first)."""
        return address.strip().lower() == self.address

    def held_at(self, when: datetime) -> bool:
        return any(span.covers(when) for span in self.spans)

    def owns_orders(self, held: OrderSet, his_letters: set[int]) -> bool:
        """His seat's orders that he sent (their letter is one of ``his_letters``), or that had no
        letter (the game's defaults) and were given while he held the seat."""
        if held.seat != self.seat:
            return False
        if held.inbound_id is not None:
            return held.inbound_id in his_letters
        return self.held_at(held.received_at)


def holder_of(session: Session, game: Game, seat: str) -> Holder:
    """The player who holds ``seat`` now (an ejected seat: its last player), with his spans."""
    found = queries.seat(session, row_id(game), seat)
    address = (found.address if found is not None else "").lower()
    name = found.name if found is not None else seat
    query = select(Outbound.created_at, Outbound.recipient).where(
        Outbound.game_id == row_id(game), Outbound.seat == name, Outbound.kind == WELCOME
    )
    welcomes = [(when, to.lower()) for when, to in session.exec(query.order_by(col(Outbound.id)))]
    return Holder(name, address, spans_of(welcomes, address))


def spans_of(welcomes: Sequence[tuple[datetime, str]], address: str) -> tuple[Span, ...]:
    """The spans ``address`` held a seat, from the seat's welcome letters (time, address), oldest
    first. Without any welcome to him (a store older than its letters): the whole game, as an
    archive of the seat was before it knew its players apart."""
    spans: list[Span] = []
    for n, (when, to) in enumerate(welcomes):
        if to != address:
            continue
        later = next((w for w, other in welcomes[n + 1 :] if other != address), None)
        spans.append(Span(when, later))
    return tuple(spans) or (Span(None, None),)
