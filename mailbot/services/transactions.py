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
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.orm import SessionTransaction
from sqlmodel import Session

_WRITER = "mailbot.writer"  # session.info: this transaction holds SQLite's write lock
_KEPT = "mailbot.kept"  # session.info: {name: {key: value}} read in this transaction


def begin_writing(session: Session) -> None:
    """Open the caller's transaction as a writer now (SQLite); elsewhere nothing is needed."""
    connection = session.connection()
    driver = connection.connection.driver_connection
    if isinstance(driver, sqlite3.Connection) and not driver.in_transaction:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        session.info[_WRITER] = True


def holds_write_lock(session: Session) -> bool:
    """Whether :func:`begin_writing` took SQLite's write lock for this transaction."""
    return bool(session.info.get(_WRITER))


def kept(session: Session, name: str) -> dict[Any, Any] | None:
    """What this transaction keeps under ``name``; None where it may not keep anything (it does
    not hold the write lock, so others may change what it read)."""
    if not holds_write_lock(session):
        return None
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
