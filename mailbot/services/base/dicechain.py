# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice that neither the GM nor the GM with one player can steer (issue 31; ``core.hashchain``).

The server's step seeds come from the game's own hash chain (``ServerChain``), drawn when the
game is created and published by its anchor (the set-up commitment) before any letter counts:
each step attempt takes the next element, a rollback too. A seat that sent ``CHAIN <anchor>``
(best in its JOIN letter) reveals one fixed value per round (``REVEAL <round> <value>``); the
dice of a step with chained seats mix only the server element and those reveals.

The chain entries ``dicemail`` writes::

    dice-chain  {"seat", "anchor", "message_id"}                      a seat's anchor, once
    reveal      {"step", "attempt", "round", "seat", "value", "message_id"}
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, event, insert, update
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session, col, select

from mailbot.core import hashchain
from mailbot.services.base import chainlog
from mailbot.store.game_tables import ChainRow, ServerChain, StepRow

_KINDS = ("dice-chain", "reveal", "step-opened")
_MEMO = "mailbot.dice-links"  # session.info: game id -> (how many ``chainlog.appended`` it has, its Links)


@event.listens_for(OrmSession, "after_soft_rollback")
def _forget_on_rollback(session: OrmSession, _previous: SessionTransaction) -> None:
    session.info.pop(_MEMO, None)  # links read in a rolled-back savepoint may be gone


@event.listens_for(OrmSession, "after_transaction_end")
def _forget_at_end(session: OrmSession, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_MEMO, None)  # another transaction may have added links since


# -- the server's chain ---------------------------------------------------------------------


# One statement a step: the chain's next element is taken and read on the connection, so
# nothing waits to be flushed first (and no row is loaded into the session to be written back).
_SERVER_CHAIN = ServerChain.__table__  # type: ignore[attr-defined]
_C = _SERVER_CHAIN.c
_TAKE = (
    update(_SERVER_CHAIN)
    .where(_C.game_id == bindparam("game"), _C.used < _C.length)
    .values(used=_C.used + 1)
    .returning(_C.used, _C.length, _C.root, _C.checkpoints)
)


def start(session: Session, game_id: int, root: bytes) -> str:
    """A new game's seed chain; returns its anchor (the set-up step's commitment)."""
    kept = hashchain.checkpoints(root)
    values = {
        "game_id": game_id,
        "root": root.hex(),
        "length": hashchain.CHAIN_LENGTH,
        "used": 0,
        "checkpoints": [value.hex() for value in kept],
    }
    session.connection().execute(insert(_SERVER_CHAIN), values)  # as ``next_seed`` reads it
    return hashchain.element_from(kept, 0).hex()


def next_seed(session: Session, game_id: int, draw_seed: Callable[[], bytes]) -> tuple[bytes, int | None]:
    """The next step attempt's seed and round: the chain's next element (a game from before the
    chain, or one that used all of it, draws a fresh seed, round None)."""
    taken = session.connection().execute(_TAKE, {"game": game_id}).first()
    if taken is None:
        return draw_seed(), None
    used, length, root, checkpoints = taken
    if checkpoints:
        return hashchain.element_from(checkpoints, used, length), used
    return hashchain.element(bytes.fromhex(root), used, length), used


def commitment_of(seed: bytes, round_: int | None) -> str:
    """A step seed's commitment: tagged for a chain element (``core.hashchain``), else SHA-256."""
    return hashchain.seed_commitment(seed) if round_ is not None else hashlib.sha256(seed).hexdigest()


def anchor_of(session: Session, game_id: int) -> str | None:
    chain = session.get(ServerChain, game_id)
    return None if chain is None else hashchain.anchor(bytes.fromhex(chain.root), chain.length)


def committed_how(session: Session, step: StepRow) -> str:
    """How a report names the step's commitment: plain SHA-256, or a chain seed's tagged hash."""
    _, round_ = Links.read(session, step.game_id).opened(step)
    return "SHA-256 of its secret seed" if round_ is None else f"round {round_} of the seed chain"


def has_chain(session: Session, game_id: int) -> bool:
    return session.get(ServerChain, game_id) is not None


# -- the seats' chains, as the event chain holds them ---------------------------------------

# Built once (building a statement cost more than running it): read by every step's tick.
_LINKS = (
    select(ChainRow.position, ChainRow.kind, ChainRow.payload)
    .where(ChainRow.game_id == bindparam("game_id"), col(ChainRow.kind).in_(_KINDS))
    .order_by(col(ChainRow.position))
)


@dataclass(frozen=True)
class Links:
    """A game's dice links in chain order: anchors, reveals and step openings."""

    rows: list[tuple[int, str, dict[str, Any]]]

    @classmethod
    def read(cls, session: Session, game_id: int) -> Links:
        """The game's links, read from the store once a transaction (a step's reports ask for
        them for every seat, and each report is a link of its own); the links the transaction
        appends later are added from ``chainlog.appended``, not read again."""
        memo: dict[int, tuple[int, Links]] = session.info.setdefault(_MEMO, {})
        added = chainlog.appended(session, game_id)
        known = memo.get(game_id)
        if known is not None and known[0] == len(added):
            return known[1]
        if known is None:
            rows = cls._query(session, game_id)  # flushed links, this transaction's included
            fresh = added
        else:
            rows = list(known[1].rows)
            fresh = added[known[0] :]
        have = {position for position, _, _ in rows}
        more = [(r.position, r.kind, dict(r.payload)) for r in fresh if r.kind in _KINDS]
        more = [link for link in more if link[0] not in have]
        links = cls(sorted(rows + more, key=lambda link: link[0])) if more else cls(rows)
        memo[game_id] = (len(added), links)
        return links

    @classmethod
    def _query(cls, session: Session, game_id: int) -> list[tuple[int, str, dict[str, Any]]]:
        # On the connection: nothing is flushed first (``read`` adds what waits to be written).
        found = session.connection().execute(_LINKS, {"game_id": game_id})
        return [(int(p), str(k), dict(d)) for p, k, d in found]

    def opened(self, step: StepRow) -> tuple[int, int | None]:
        """The step attempt's (chain position, round); round None before the server chain."""
        for position, kind, p in self.rows:
            if kind == "step-opened" and (p.get("step"), p.get("attempt")) == (step.key, step.attempt):
                found = p.get("round")
                return position, int(found) if found is not None else None
        return -1, None

    def anchors(self, before: int | None = None) -> dict[str, str]:
        """Each seat's anchor (the first it logged), only those logged before ``before``."""
        found: dict[str, str] = {}
        for position, kind, p in self.rows:
            if kind == "dice-chain" and (before is None or position < before):
                found.setdefault(str(p["seat"]), str(p["anchor"]))
        return found

    def last(self, seat: str) -> tuple[int, str] | None:
        """The seat's latest known element: (round, value) of its last reveal, (0, anchor) else."""
        anchor = self.anchors().get(seat)
        if anchor is None:
            return None
        latest = (0, anchor)
        for _, kind, p in self.rows:
            if kind == "reveal" and p.get("seat") == seat and int(p["round"]) > latest[0]:
                latest = (int(p["round"]), str(p["value"]))
        return latest

    def reveals(self, step: StepRow) -> dict[str, str]:
        return {
            str(p["seat"]): str(p["value"])
            for _, kind, p in self.rows
            if kind == "reveal" and (p.get("step"), p.get("attempt")) == (step.key, step.attempt)
        }

    def chained(self, step: StepRow) -> dict[str, str] | None:
        """The step's chained seats with their reveals (``""``: none), or None: dice version 2."""
        position, round_ = self.opened(step)
        anchors = self.anchors(before=position) if round_ is not None else {}
        if not anchors:
            return None
        revealed = self.reveals(step)
        return {seat: revealed.get(seat, "") for seat in anchors}


@dataclass(frozen=True)
class StepDice:
    """What keys a step's dice besides its seed (``core.hashchain``, ``core.dice``)."""

    entropy: str
    count: int  # letters (version 2) or reveals (version 3) that gave it
    reveals: dict[str, str] | None  # version 3: every chained seat's reveal; None: version 2

    def digest_for_dice(self, orders_digest: str) -> str:
        """Version 3 leaves the orders out of the dice: whoever writes last could grind them."""
        return "" if self.reveals is not None else orders_digest

    def payload(self) -> dict[str, Any]:
        if self.reveals is None:
            return {}
        withheld = sorted(seat for seat, value in self.reveals.items() if not value)
        return {"dice": hashchain.DICE_VERSION, "withheld": withheld}


def step_dice(session: Session, step: StepRow, letters: Callable[[], tuple[str, int]]) -> StepDice:
    """The step's dice inputs: its chained seats' reveals, else the letters' entropy (``letters``)."""
    chained = Links.read(session, step.game_id).chained(step)
    if chained is None:
        entropy, count = letters()
        return StepDice(entropy, count, None)
    count = sum(1 for value in chained.values() if value)
    return StepDice(hashchain.reveals_digest(chained), count, chained)


def report_lines(session: Session, step: StepRow, seat: str) -> list[str]:
    """What a report says of the seat's say in the open step's dice: a chained seat's round and
    the REVEAL line it wants; a seat without a chain where others have one, that its letters
    do not count."""
    links = Links.read(session, step.game_id)
    position, round_ = links.opened(step)
    if round_ is None:
        return []
    anchors = links.anchors(before=position)
    if seat in anchors:
        return [
            f"Dice round: {round_}. With your orders send the line that",
            f"  python3 verify.py reveal {step.game_id} {seat} {round_}",
            "prints: your say in this step's dice.",
        ]
    if anchors:
        return [
            "Your seat has no dice chain: this step's dice come from the server's seed chain and",
            "the reveals of the seats that have one; your letters do not count for them.",
        ]
    return []  # as before chains: the welcome letter told how to send one


def round_lines(session: Session, step: StepRow) -> list[str]:
    """A reopened step's round: the seed chain's next element, nobody's pick."""
    _, round_ = Links.read(session, step.game_id).opened(step)
    if round_ is None:
        return []
    return [
        f"Its dice take round {round_} of the seed chain (the next element, nobody's choice);",
        f"players with a dice chain send REVEAL {round_} (python3 verify.py reveal).",
    ]
