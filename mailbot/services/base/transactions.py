# SPDX-License-Identifier: GPL-3.0-or-later
"""Write transactions that read first, safe beside other threads writing to the same SQLite file.

pysqlite sends ``BEGIN`` only before the first data change, so a transaction that reads
first (and one that uses savepoints, whose first SAVEPOINT would open the transaction and
whose RELEASE would commit it) must open the transaction itself. A plain ``BEGIN`` there
takes a read snapshot; if another connection commits before we write, SQLite refuses the
upgrade at once ("database is locked", no waiting). ``BEGIN IMMEDIATE`` takes the write
lock up front, waiting for it (``busy_timeout``) instead: reading, handling and game ticks
run in worker threads side by side, each with its own connection.

A transaction that holds the write lock that way also sees nobody else's changes until it
ends, so it may keep what it read (:func:`kept`): the seats of a game, read once for a whole
batch of letters instead of twice per letter. What is kept is dropped when the transaction
ends or any part of it (a savepoint) is rolled back.
"""

from __future__ import annotations

import sqlite3
import time
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session

from mailbot.store import writers

_WRITER = "mailbot.writer"  # session.info: this transaction holds SQLite's write lock
_KEPT = "mailbot.kept"  # session.info: {name: {key: value}} read in this transaction
#: session.info: ids of the games whose advisory lock this transaction holds (PostgreSQL,
#: ``claims``); dropped with any rollback, when PostgreSQL is asked again
HELD_GAMES = "mailbot.games_locked"
#: how often a writer asks for SQLite's write lock while it waits (as long as the connection's
#: ``busy_timeout`` says, ``store.db``)
LOCK_POLL = 0.0005
#: how long a run of write transactions (a tick's games) waits at most, between two of them, for
#: the writers that wait to take the write lock (:func:`hand_over`): each asks every
#: ``LOCK_POLL`` once its thread has the GIL again, which a busy thread of its process may keep
#: for 5 ms (``sys.getswitchinterval``)
HAND_OVER = 0.02


def begin_writing(session: Session) -> None:
    """Open the caller's transaction as a writer now (SQLite); elsewhere nothing is needed."""
    connection = session.connection()
    driver = connection.connection.driver_connection
    if isinstance(driver, sqlite3.Connection) and not driver.in_transaction:
        _begin_immediate(connection, driver)
        session.info[_WRITER] = True


def _begin_immediate(connection: Any, driver: sqlite3.Connection) -> None:
    """``BEGIN IMMEDIATE``, asking again every ``LOCK_POLL`` seconds while another writer holds the lock.

    SQLite's own wait (``busy_timeout``) sleeps 1, 2, 5, 10, 15, 20 ms... between tries, so a
    lock held for 5 ms was taken 8 ms later, and one held for a batch of letters (40 ms) up
    to 20 ms later: the reader and the letter process hand the lock to each other hundreds of
    times a minute. Past the connection's ``busy_timeout`` the last try is the engine's, so its
    error is SQLAlchemy's, as before.
    """
    waits = int(driver.execute("PRAGMA busy_timeout").fetchone()[0])
    deadline = time.monotonic() + waits / 1000
    driver.execute("PRAGMA busy_timeout = 0")
    try:
        begun = _try_begin(driver)
        if begun is False:
            # Counted while it waits: a long run of writes (a tick) lets it in (``hand_over``).
            with writers.waiting_for(connection.engine.url.database or ""):
                while begun is False and time.monotonic() < deadline:
                    time.sleep(LOCK_POLL)
                    begun = _try_begin(driver)
        if not begun:  # not a wait, or waited too long: the engine's try says what it is
            connection.exec_driver_sql("BEGIN IMMEDIATE")
    finally:
        driver.execute(f"PRAGMA busy_timeout = {waits}")


def _try_begin(driver: sqlite3.Connection) -> bool | None:
    """True: begun; False: another writer holds the lock; None: any other error."""
    try:
        driver.execute("BEGIN IMMEDIATE")
        return True
    except sqlite3.OperationalError as exc:
        return False if "locked" in str(exc) else None


def others_wait(engine: sa.engine.Engine) -> bool:
    """Whether another writer waits for this SQLite file's write lock now (never elsewhere)."""
    return engine.dialect.name == "sqlite" and writers.others_wait(engine.url.database or "")


def hand_over(engine: sa.engine.Engine) -> None:
    """Between two write transactions of a run (SQLite): the writers that wait take the write
    lock first (at most ``HAND_OVER`` is waited for them). SQLite serves no queue: a process
    that commits and begins again at once takes the lock back before the others ask, and the
    outbox's claims and sent marks waited through a whole tick of a thousand games, its reports
    sent after it instead of during it. A writer stops being counted when it has the lock."""
    if not others_wait(engine):
        return
    deadline = time.monotonic() + HAND_OVER
    while others_wait(engine) and time.monotonic() < deadline:
        time.sleep(LOCK_POLL)


def holds_write_lock(session: OrmSession) -> bool:
    """Whether :func:`begin_writing` took SQLite's write lock for this transaction."""
    return bool(session.info.get(_WRITER))


def kept(session: OrmSession, name: str) -> dict[Any, Any] | None:
    """What this transaction keeps under ``name``; None where it may not keep anything (it does
    not hold the write lock, so others may change what it read)."""
    if not holds_write_lock(session):
        return None
    return shelf(session, name)


def kept_for(session: OrmSession, name: str, game_id: int) -> dict[Any, Any] | None:
    """What this transaction keeps under ``name`` of the game ``game_id``: as :func:`kept`, and
    on PostgreSQL while it holds the game's lock (:data:`HELD_GAMES`), which the service's
    writers of a game's rows take (letters, deadline ticks): what it read stays as read until
    it ends. The GM's command line does not wait for it; a change it makes meanwhile is seen by
    the next batch, as a letter handled a moment earlier would not have seen it either. The
    shelf holds other games' rows too; a caller reads and writes only this game's."""
    if holds_write_lock(session) or game_id in session.info.get(HELD_GAMES, ()):
        return shelf(session, name)
    return None


def forget(session: OrmSession, name: str, key: Any) -> None:
    """Take ``key`` off this transaction's shelf ``name``, if it is there (the row changed)."""
    shelves: dict[str, dict[Any, Any]] | None = session.info.get(_KEPT)
    if shelves is not None and name in shelves:
        shelves[name].pop(key, None)


def shelf(session: OrmSession, name: str) -> dict[Any, Any]:
    """The shelf ``name`` of this transaction, whether or not it may keep anything (what is on
    it was put there by a caller that might: :func:`kept`, :func:`kept_for`)."""
    shelves: dict[str, dict[Any, Any]] = session.info.setdefault(_KEPT, {})
    return shelves.setdefault(name, {})


@event.listens_for(OrmSession, "after_soft_rollback")
def _drop_on_rollback(session: OrmSession, _previous: SessionTransaction) -> None:
    session.info.pop(_KEPT, None)  # a savepoint rolled back: rows it loaded or changed are gone


@event.listens_for(OrmSession, "after_transaction_end")
def _drop_on_end(session: OrmSession, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        session.info.pop(_KEPT, None)
        session.info.pop(_WRITER, None)
        session.info.pop(_KEYS_AT_COMMIT, None)


@event.listens_for(OrmSession, "before_flush")
def _number_new_rows(session: OrmSession, _context: Any, _instances: Any) -> None:
    """Give new rows their ids before they are inserted, where this transaction holds the write lock.

    SQLite cannot say in which order the ids of a multi-row ``INSERT ... RETURNING`` were
    given, so SQLAlchemy inserts rows whose id the database makes one statement at a time
    (a letter makes five). Nobody else writes while we hold the write lock, so the ids SQLite
    would give (one past the largest, in the order the rows were added) are known here: rows
    that come with their ids go in as one ``executemany`` per table. What was read is kept
    for the transaction and dropped with any rollback, like everything :func:`kept`.
    """
    next_ids = kept(session, "next-ids")
    if next_ids is None:
        return  # no write lock: the database numbers the rows
    waiting: dict[sa.Table, list[Any]] = {}
    for row in session.new:
        table = _numbered_table(type(row))
        if table is not None and row.id is None:
            waiting.setdefault(table, []).append(row)
    # One row: the database numbers it as cheaply as a look at the largest id. Several tables'
    # largest ids are read in one statement (a deadline tick numbers three tables' rows).
    unknown = [table for table, rows in waiting.items() if table.name not in next_ids and len(rows) > 1]
    if unknown:
        tops = _largest_ids(tuple(unknown))
        for table, largest in zip(unknown, session.connection().execute(tops).one(), strict=True):
            next_ids[table.name] = (largest or 0) + 1
    for table, rows in waiting.items():
        next_id = next_ids.get(table.name)
        if next_id is None:
            continue
        for row in sorted(rows, key=lambda r: sa.inspect(r).insert_order):
            # Where the insert reads it (as rows.new_row sets fields): no attribute events needed.
            row.__dict__["id"], next_id = next_id, next_id + 1
        next_ids[table.name] = next_id


_KEYS_AT_COMMIT = "mailbot.keys-at-commit"  # session.info: this transaction defers its foreign keys


def number_now(session: OrmSession, row: Any) -> bool:
    """Give a row just added its id now, without writing it, where this transaction holds the
    write lock (the id the flush would give it: one past the largest, rows numbered in the order
    they were added); whether it was numbered. Elsewhere the caller flushes to learn it.

    A deadline tick hands each step it opens around by its id; a flush for it each game wrote
    the game's rows one statement a table, where a try's games are written together. Rows that
    name it (a quiet hour's defaulted orders) may then be written before it in the same flush:
    the transaction's foreign keys are checked at its commit instead (SQLite's
    ``defer_foreign_keys``, which ends with the transaction)."""
    if row.id is not None:
        return True
    next_ids = kept(session, "next-ids")
    table = _numbered_table(type(row))
    if next_ids is None or table is None:
        return False
    waiting = (other for other in session.new if other is not row and _numbered_table(type(other)) is table)
    if any(other.id is None for other in waiting):
        return False  # numbered in the order added: an earlier unnumbered row comes first
    connection = session.connection()
    if not session.info.get(_KEYS_AT_COMMIT):
        connection.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
        session.info[_KEYS_AT_COMMIT] = True
    if table.name not in next_ids:
        (largest,) = connection.execute(_largest_ids((table,))).one()
        next_ids[table.name] = (largest or 0) + 1
    row.__dict__["id"] = next_ids[table.name]
    next_ids[table.name] += 1
    return True


@cache
def _largest_ids(tables: tuple[sa.Table, ...]) -> sa.Select[Any]:
    """One statement reading each table's largest id; built once for each set of tables (a tick
    asks for the same few every time, and building it cost more than running it)."""
    return sa.select(*(sa.select(sa.func.max(table.c.id)).scalar_subquery() for table in tables))


def _numbered_table(model: type[Any]) -> sa.Table | None:
    """The table of ``model`` if SQLite numbers its rows (one integer primary key ``id``)."""
    if model not in _NUMBERED:
        _NUMBERED[model] = _find_numbered_table(model)
    return _NUMBERED[model]


_NUMBERED: dict[type[Any], sa.Table | None] = {}


def _find_numbered_table(model: type[Any]) -> sa.Table | None:
    mapper = sa.inspect(model, raiseerr=False)
    if mapper is None or len(mapper.primary_key) != 1:
        return None
    column = mapper.primary_key[0]
    table = mapper.local_table
    if column.name != "id" or not isinstance(column.type, sa.Integer) or not isinstance(table, sa.Table):
        return None
    return table
