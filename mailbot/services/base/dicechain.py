# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice that neither the GM nor the GM with one player can steer (issue 31; ``core.hashchain``).

The server's step seeds come from the game's own hash chain (``ServerChain``), drawn when the
game is created and published by its anchor (the set-up commitment) before any letter counts:
each step attempt takes the next element, a rollback too. A seat that sent ``CHAIN <anchor>``
(best in its JOIN letter) reveals one fixed value per round (``REVEAL <round> <value>``); the
dice of a step with chained seats mix only the server element and those reveals.

The set-up (round 1) opens when the game is created, before any anchor can be logged, and is
rolled once every seat has joined. Its dice count the anchors logged by then (a JOIN letter's
CHAIN, or an invited seat's CHAIN letter): the entry that closes them (``setup-reveals``) is
written when the last seat joins, and only after it are round-1 reveals taken, so no seat can
choose its chain knowing another's reveal. With no anchor then, the set-up rolls as before
(version 2, the JOIN letters' entropy).

A seat handed to a new player (REPLACE) ends its chain (``dice-chain-ended``): the old anchor
counts for the step open then and for none opened after; the new player's first CHAIN counts
from the next step that opens.

The chain entries ``dicemail`` and ``setupdice`` write::

    dice-chain        {"seat", "anchor", "message_id"}                  a seat's anchor, once a player
    dice-chain-ended  {"seat", "anchor"}                                the seat has a new player
    setup-reveals     {"step", "attempt", "round", "seats", "deadline"} the set-up's chained seats
    reveal            {"step", "attempt", "round", "seat", "value", "message_id"}
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, event, insert, update
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session, SQLModel, col, select

from mailbot.core import hashchain
from mailbot.services.base import chainlog
from mailbot.store.game_tables import ChainRow, ServerChain, StepRow

_KINDS = ("dice-chain", "dice-chain-ended", "reveal", "setup-reveals", "step-opened")
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
_SERVER_CHAIN = SQLModel.metadata.tables["server_chain"]  # ServerChain's
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
    """The game's seed chain's anchor: its last checkpoint (``H^n(root)``), where a chain has them,
    instead of the ten thousand hashes up from the root."""
    chain = session.get(ServerChain, game_id)
    if chain is None:
        return None
    if chain.checkpoints:
        return hashchain.element_from(chain.checkpoints, 0, chain.length).hex()
    return hashchain.anchor(bytes.fromhex(chain.root), chain.length)


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

    def counted_at(self, step: StepRow) -> tuple[int, int | None]:
        """(position before which anchors count, round) for the step attempt: where it opened,
        or for the set-up where its anchors were closed when every seat had joined (-1 while
        none were, or when there was none: version 2)."""
        position, round_ = self.opened(step)
        if step.kind != "setup" or round_ is None:
            return position, round_
        for at, kind, p in self.rows:
            if kind == "setup-reveals" and p.get("attempt") == step.attempt:
                return at, round_
        return -1, round_

    def _current(self, before: int | None) -> dict[str, tuple[int, str]]:
        """Each seat's chain before ``before``: (position, anchor) of the first anchor its player
        logged; a seat handed to a new player has none until that player's first CHAIN."""
        found: dict[str, tuple[int, str]] = {}
        for position, kind, p in self.rows:
            if before is not None and position >= before:
                break
            if kind == "dice-chain":
                found.setdefault(str(p["seat"]), (position, str(p["anchor"])))
            elif kind == "dice-chain-ended":
                found.pop(str(p["seat"]), None)
        return found

    def anchors(self, before: int | None = None) -> dict[str, str]:
        """Each seat's anchor, only those logged (and not ended) before ``before``."""
        return {seat: anchor for seat, (_, anchor) in self._current(before).items()}

    def last(self, seat: str, before: int | None = None) -> tuple[int, str] | None:
        """The latest known element of the seat's chain counted before ``before``: (round, value)
        of its last reveal, (0, anchor) else; the next player's chain is not this one."""
        chain = self._current(before).get(seat)
        if chain is None:
            return None
        start, latest = chain[0], (0, chain[1])
        for position, kind, p in self.rows:
            if position <= start or p.get("seat") != seat:
                continue
            if kind == "dice-chain":
                break
            if kind == "reveal" and int(p["round"]) > latest[0]:
                latest = (int(p["round"]), str(p["value"]))
        return latest

    def reveals(self, step: StepRow) -> dict[str, str]:
        return {
            str(p["seat"]): str(p["value"])
            for _, kind, p in self.rows
            if kind == "reveal" and (p.get("step"), p.get("attempt")) == (step.key, step.attempt)
        }

    def setup_awaited(self, setup: StepRow) -> dict[str, bool] | None:
        """The set-up's chained seats, each True when nothing more is awaited from it: its
        round-1 reveal is in, or its chain ended (REPLACE) so that none can come. None while
        seats are still to join, or when none had a chain then (the set-up waits for nothing)."""
        position, round_ = self.counted_at(setup)
        closed = self.anchors(before=position) if round_ is not None and position >= 0 else {}
        if not closed:
            return None
        revealed, now = self.reveals(setup), self.anchors()
        return {seat: seat in revealed or now.get(seat) != anchor for seat, anchor in closed.items()}

    def chained(self, step: StepRow) -> dict[str, str] | None:
        """The step's chained seats with their reveals (``""``: none), or None: dice version 2."""
        position, round_ = self.counted_at(step)
        anchors = self.anchors(before=position) if round_ is not None and position >= 0 else {}
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


def report_lines(session: Session, step: StepRow, seat: str, *, owes: bool = True) -> list[str]:
    """What a report says of the seat's say in the open step's dice: a chained seat's round and
    the REVEAL line it wants; a seat without a chain, who knows the dice before they are rolled
    and how to send a chain.

    A chained seat that owes nothing (``owes`` False: the side not moving) has its say all the
    same (``Links.chained`` counts every chained seat), but the step does not wait for it: it is
    told it may send the line alone, before the step is processed, and not "with your orders"."""
    links = Links.read(session, step.game_id)
    position, round_ = links.opened(step)
    if round_ is None:
        return []
    anchors = links.anchors(before=position)
    command = f"  python3 verify.py reveal {step.game_id} {seat} {round_}"
    if seat in anchors and not owes:
        return [
            f"Dice round: {round_}. You send no orders now, but you may send the line that",
            command,
            "prints, alone in a letter: your say in this step's dice. The step does",
            "not wait for it: it counts if it comes before the step is processed",
            "(soon after the orders owed are in); else your seat shows as withheld.",
        ]
    if seat in anchors:
        return [
            f"Dice round: {round_}. With your orders send the line that",
            command,
            "prints: your say in this step's dice.",
        ]
    how = [
        "A dice chain gives you a say: send the line that",
        f"  python3 verify.py chain {step.game_id} {seat}",
        "prints from a passphrase you keep (the welcome letter tells how);",
        "it counts from the next step.",
    ]
    if anchors:
        return [
            "Your seat has no dice chain: this step's dice come from the server's",
            "seed chain and the reveals of the seats that have one; your letters",
            "do not count for them.",
            *how,
        ]
    return [*UNCHAINED, *how]


# What a seat without a chain is told when no seat has one (README, "Dice nobody can steer").
UNCHAINED = (
    "No seat has a dice chain. This step's dice are the server's seed,",
    "which the game master holds, mixed with the letters' Message-IDs",
    "and NONCE lines, which he sees as they come: he can know the dice",
    "before the step is rolled, and with a player who writes last choose",
    "among them.",
)


def end_chain(session: Session, game_id: int, seat: str, now: datetime) -> None:
    """REPLACE: the seat's chain was the old player's; it counts for the step open now and for
    none opened after, and the new player's first CHAIN is taken (``dicemail.take_anchor``)."""
    anchor = Links.read(session, game_id).anchors().get(seat)
    if anchor is not None:
        chainlog.append(session, game_id, "dice-chain-ended", {"seat": seat, "anchor": anchor}, now)


def close_setup(session: Session, setup: StepRow, deadline: datetime, now: datetime) -> list[str]:
    """Every seat has joined: the anchors logged by now are the set-up's chained seats (none:
    an empty list, nothing logged, the set-up rolls as before). From here on round-1 reveals are
    taken, and no later anchor counts for the set-up."""
    links = Links.read(session, setup.game_id)
    _, round_ = links.opened(setup)
    seats = sorted(links.anchors())
    if round_ is None or not seats:
        return []
    payload = {
        "step": setup.key,
        "attempt": setup.attempt,
        "round": round_,
        "seats": seats,
        "deadline": deadline.isoformat(),
    }
    chainlog.append(session, setup.game_id, "setup-reveals", payload, now)
    return seats


def setup_waits(session: Session, setup: StepRow) -> bool:
    """Whether the set-up waits for round-1 reveals: its anchors are closed, some still to come."""
    awaited = Links.read(session, setup.game_id).setup_awaited(setup)
    return awaited is not None and not all(awaited.values())


def round_lines(session: Session, step: StepRow) -> list[str]:
    """A reopened step's round: the seed chain's next element, nobody's pick."""
    _, round_ = Links.read(session, step.game_id).opened(step)
    if round_ is None:
        return []
    return [
        f"Its dice take round {round_} of the seed chain (the next element, nobody's choice);",
        f"players with a dice chain send REVEAL {round_} (python3 verify.py reveal).",
    ]
