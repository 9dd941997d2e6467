# SPDX-License-Identifier: GPL-3.0-or-later
"""What use cases read about a game: its plugin, seats, open step, current orders, entropy.

Plain functions over the caller's session. A batch of letters keeps what it reads for its
transaction (``kept``): a game's seats, its open step and that step's current orders are read
once, and the listeners below forget a step's kept orders when orders are added or changed.
``note`` appends to the game's chain log.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any, cast

from sqlalchemy import bindparam, event
from sqlalchemy.orm import QueryableAttribute, defer, object_session
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, func, select

from mailbot.core.dice import player_entropy
from mailbot.core.sealed import SealBox
from mailbot.errors import ConfigError
from mailbot.registry import AnyGame, find_game
from mailbot.services.base import chainlog
from mailbot.services.base.transactions import forget, holds_write_lock, kept, kept_for, shelf
from mailbot.store.game_tables import ChainRow, Game, GameStatus, OrderSet, Seat, StepRow, StepState, row_id

_CURRENT = "current-orders"  # kept: {step id: {seat: OrderSet}}, the step's current orders
_STEP_GAMES = "step-games"  # kept: {step id: game id} of the open steps kept (their orders may be too)


# The queries of every letter and every tick, built once with their values as parameters:
# building a statement (its clauses, then its cache key) cost twice as much as running it.
_SEATS = select(Seat).where(Seat.game_id == bindparam("game_id")).order_by(col(Seat.id))
_OPEN_STEP = select(StepRow).where(StepRow.game_id == bindparam("game_id"), StepRow.state == StepState.OPEN)
#: a game's steps in order, each without its snapshot of the game (read from the store if asked
#: for): a Flat Top game's steps hold ~110 kB of it each, 8 MB by the end of a game
_GAME_STEPS = (
    select(StepRow)
    .where(StepRow.game_id == bindparam("game_id"))
    .order_by(col(StepRow.id))
    .options(defer(cast("QueryableAttribute[Any]", StepRow.snapshot)))
)
#: many games at once (``read_ahead``), with or without their saved state
_GAMES = select(Game).where(col(Game.id).in_(bindparam("ids", expanding=True)))
_GAMES_STATELESS = _GAMES.options(defer(cast("QueryableAttribute[Any]", Game.state)))
#: a step key's last attempt (built once with its values as parameters)
_LAST_ATTEMPT = select(func.max(StepRow.attempt)).where(
    StepRow.game_id == bindparam("game_id"), StepRow.key == bindparam("key")
)
_CURRENT_ORDERS = select(OrderSet).where(OrderSet.step_id == bindparam("step_id"), col(OrderSet.current))
_ENTROPY = (
    select(ChainRow.position, ChainRow.payload)
    .where(
        ChainRow.game_id == bindparam("game_id"),
        ChainRow.kind == "entropy",
        col(ChainRow.payload)["step"].as_string() == bindparam("key"),
        col(ChainRow.payload)["attempt"].as_integer() == bindparam("attempt"),
    )
    .order_by(col(ChainRow.position))
)


def _forget_orders(session: OrmSession, step_id: int) -> None:
    forget(session, _CURRENT, step_id)


@event.listens_for(OrmSession, "transient_to_pending")
def _orders_added(session: OrmSession, row: object) -> None:
    """New orders for a step: its kept current orders are read again (whoever added them)."""
    if isinstance(row, OrderSet):
        _forget_orders(session, row.step_id)


@event.listens_for(OrderSet.current, "set")
def _orders_changed(row: OrderSet, _value: object, _old: object, _initiator: object) -> None:
    session = object_session(row)
    if session is not None:
        _forget_orders(session, row.step_id)


def settled(session: Session, model: type[Any]) -> bool:
    """Whether no row of ``model`` waits in the session to be written (added, changed, deleted)."""
    pending = (session.new, session.dirty, session.deleted)
    return not any(isinstance(row, model) for rows in pending for row in rows)


def quiet(session: Session, model: type[Any]) -> AbstractContextManager[object]:
    """Where a query reads ``model``'s table alone: without autoflush when no row of it waits.

    The autoflush would write every pending row of the letter (its chain links, the reply) in a
    flush of its own, and the query would read the same; the rows go with the next flush.
    """
    return session.no_autoflush if settled(session, model) else nullcontext()


def plugin(game: Game) -> AnyGame:
    return find_game(game.plugin)


def seats(session: Session, game_id: int) -> list[Seat]:
    known = kept_for(session, "seats", game_id)  # a batch of letters asks for the same game's seats often
    if known is not None and game_id in known:
        return list(known[game_id])
    rows = list(session.exec(_SEATS, params={"game_id": game_id}))
    if known is not None:
        known[game_id] = rows
    return list(rows)


def seat(session: Session, game_id: int, name: str) -> Seat | None:
    """A seat by name, in any case (players write "axis" for the plugin's "Axis")."""
    wanted = name.strip().lower()
    return next((s for s in seats(session, game_id) if s.name.lower() == wanted), None)


def game_steps(session: Session, game_id: int) -> list[StepRow]:
    """The game's steps, oldest first, their snapshots left in the store until read."""
    return list(session.exec(_GAME_STEPS, params={"game_id": game_id}))


def open_step(session: Session, game_id: int) -> StepRow | None:
    """The game's open step; a batch of letters keeps it for its transaction (``kept``)."""
    known = kept_for(session, "open-step", game_id)
    step: StepRow | None = known.get(game_id) if known is not None else None
    if step is not None and step.state is StepState.OPEN:  # one closed meanwhile is read again
        return step
    with quiet(session, StepRow):
        step = session.exec(_OPEN_STEP, params={"game_id": game_id}).first()
    if known is not None and step is not None:
        known[game_id] = step
        shelf(session, _STEP_GAMES)[row_id(step)] = game_id
    return step


def _kept_orders(session: Session, step_id: int) -> dict[Any, Any] | None:
    """The shelf of current orders where this transaction may keep the step's (:func:`kept_for`
    its game, known from the open steps it keeps)."""
    if holds_write_lock(session):
        return kept(session, _CURRENT)
    game_id = shelf(session, _STEP_GAMES).get(step_id)
    return None if game_id is None else kept_for(session, _CURRENT, game_id)


def current_orders(session: Session, step_id: int) -> dict[str, OrderSet]:
    """Each seat's current orders for the step, in the table's order (the oldest first)."""
    known = _kept_orders(session, step_id)  # a batch of letters reads one step's orders again and again
    if known is not None and step_id in known:
        return dict(known[step_id])
    with quiet(session, OrderSet):
        found = {row.seat: row for row in session.exec(_CURRENT_ORDERS, params={"step_id": step_id})}
    if known is not None:
        known[step_id] = dict(found)
    return found


def orders_replaced(session: Session, step_id: int, before: Mapping[str, OrderSet], row: OrderSet) -> None:
    """``row`` is now its seat's current set (``before``: the step's current orders until now).

    Kept as the step's current orders, as the table will read: the seat's earlier set is
    no longer current, and the new row is the newest.
    """
    known = _kept_orders(session, step_id)
    if known is not None:
        held = {seat: held for seat, held in before.items() if seat != row.seat}
        known[step_id] = held | {row.seat: row}


def read_ahead(session: Session, game_ids: Collection[int], *, state: bool = True) -> None:
    """Read, for many games at once, what handling their letters reads: each game, its seats,
    its open step, that step's current orders and the chain's last link (a query for each).
    ``state=False`` leaves each game's saved state in the store until it is asked for (a tick
    resolves from the step's snapshot: a Flat Top state is ~50 kB).

    Only for the games whose rows the transaction may keep (:func:`kept_for`: on SQLite all,
    with the write lock; on PostgreSQL those whose lock it holds); games whose seats it keeps
    already are left alone. The caches fill as the one-game queries would fill them.
    """
    keeping = {game_id for game_id in game_ids if kept_for(session, "seats", game_id) is not None}
    seats, held = shelf(session, "seats"), shelf(session, "read-ahead")
    wanted = sorted(game_id for game_id in keeping if game_id not in seats)
    if not wanted:
        return
    # The games stay loaded for the transaction: ``session.get`` finds them.
    held[tuple(wanted)] = session.exec(_GAMES if state else _GAMES_STATELESS, params={"ids": wanted}).all()
    found: dict[int, list[Seat]] = {game_id: [] for game_id in wanted}
    for seat in session.exec(select(Seat).where(col(Seat.game_id).in_(wanted)).order_by(col(Seat.id))):
        found[seat.game_id].append(seat)
    seats.update(found)
    _read_steps_ahead(session, wanted)
    chainlog.read_heads(session, wanted)  # on SQLite: PostgreSQL reads a game's head as it appends


def _read_steps_ahead(session: Session, game_ids: Sequence[int]) -> None:
    steps, orders, step_games = (
        shelf(session, "open-step"),
        shelf(session, _CURRENT),
        shelf(session, _STEP_GAMES),
    )
    query = select(StepRow).where(col(StepRow.game_id).in_(game_ids), StepRow.state == StepState.OPEN)
    for step in session.exec(query.order_by(col(StepRow.id))):
        known = steps.get(step.game_id)
        if known is None or known.state is not StepState.OPEN:  # the first, as ``open_step`` reads
            steps[step.game_id] = step
            step_games[row_id(step)] = step.game_id
    ids = [row_id(steps[game_id]) for game_id in game_ids if game_id in steps]
    current: dict[int, dict[str, OrderSet]] = {step_id: {} for step_id in ids if step_id not in orders}
    if not current:
        return
    query_orders = select(OrderSet).where(col(OrderSet.step_id).in_(list(current)), col(OrderSet.current))
    for row in session.exec(query_orders.order_by(col(OrderSet.id))):  # the table's order
        current[row.step_id][row.seat] = row
    orders.update(current)


def next_attempt(session: Session, game_id: int, key: str) -> int:
    """The attempt a step of ``key`` opened now would be: one past the game's last of that key."""
    # The number alone: loading the rows would read back each one's saved game state. Read on
    # the connection, so nothing is flushed first; a step of the key this transaction added
    # and has not written yet (``transactions.number_now``) counts too.
    largest = session.connection().execute(_LAST_ATTEMPT, {"game_id": game_id, "key": key}).scalar()
    waiting = [
        row.attempt
        for row in session.new
        if isinstance(row, StepRow) and (row.game_id, row.key) == (game_id, key)
    ]
    return 1 + max([largest or 0, *waiting])


def steps_waiting(session: Session) -> bool:
    """Whether a step added in this transaction is not written yet (``transactions.number_now``):
    the step closed before it may not be written either."""
    return any(isinstance(row, StepRow) for row in session.new)


def setup_step(session: Session, game_id: int) -> StepRow | None:
    query = select(StepRow).where(StepRow.game_id == game_id, StepRow.key == "setup")
    return session.exec(query.order_by(col(StepRow.id).desc())).first()


def opened_before(session: Session, step: StepRow) -> StepRow | None:
    """The first earlier attempt of a sealed step whose values were opened (it was resolved)."""
    query = select(StepRow).where(
        StepRow.game_id == step.game_id,
        StepRow.key == step.key,
        StepRow.attempt < step.attempt,
        col(StepRow.closed_at).is_not(None),
    )
    return session.exec(query.order_by(col(StepRow.attempt))).first()


def step_entropy(session: Session, step: StepRow) -> tuple[str, int]:
    """The mixed player entropy of one step attempt and how many letters contributed."""
    # The step is picked out by the database: a game's entropy links grow with every letter.
    # Read on the connection, so nothing is flushed first (a deadline tick flushed the game
    # before it here, for nothing); this transaction's links are added from what it appended.
    params = {"game_id": step.game_id, "key": step.key, "attempt": step.attempt}
    links: dict[int, Mapping[str, Any]] = dict(session.connection().execute(_ENTROPY, params).all())
    for row in chainlog.appended_for(session, step.game_id, ("entropy",), step.key, step.attempt):
        links.setdefault(row.position, row.payload)
    found = [(str(p["seat"]), str(p["message_id"]), str(p["nonce"])) for _, p in sorted(links.items())]
    return player_entropy(found), len(found)


def note(session: Session, game: Game, kind: str, payload: Mapping[str, Any], now: datetime) -> None:
    """Log ``kind`` in the game's chain; nothing once the game is over. Its log is closed: each
    seat was sent the final head and the number of entries (``Reports.closing``), and a later
    entry (a seat's letter that crossed the concession) made that letter disagree with the
    archive, which ``verify.py --letters`` then reported as a rewrite."""
    if game.status is not GameStatus.FINISHED:
        chainlog.append(session, id_of(game), kind, payload, now)


def id_of(game: Game) -> int:
    if game.id is None:
        raise ConfigError("game has no id yet")
    return game.id


def step_labels(step: StepRow) -> list[str]:
    return [str(label).lower() for label in step.seal_labels]


def box_of(step: StepRow, held: Mapping[str, OrderSet]) -> SealBox:
    """The step's seal box as stored: every value held, receipts recomputed (never read from storage)."""
    box = SealBox.new(step.key, step.owing, step_labels(step))
    entries = [
        {"seat": seat, "label": label, "value": item["value"], "salt": item["salt"], "defaulted": False}
        for seat, row in held.items()
        for label, item in row.sealed.items()
    ]
    return SealBox.load({**box.dump(), "entries": entries})
