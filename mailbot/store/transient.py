# SPDX-License-Identifier: GPL-3.0-or-later
"""Which store errors say "not now" rather than "this is wrong".

A letter, a game's tick or an outbox row that meets one of these did nothing wrong: the
database was locked by another process, its server restarted, the pool lost its
connections, two workers' transactions collided, the disk filled up. The caller leaves its
work as it was (the letter ``new``, the game running, the row queued) and tries again after
a back-off; nothing is parked, paused or failed for it. Anything else is an error in that
one piece of work.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy.exc as sa_exc
from sqlalchemy.engine import Engine

from mailbot.errors import StoreUnavailable

#: SQLite's own words for a store that is busy or cannot write for now (``OperationalError``
#: also covers "no such table" or a syntax error, which are bugs, not outages)
_SQLITE_TRANSIENT = (
    "database is locked",
    "database table is locked",
    "database schema is locked",
    "database or disk is full",
    "disk i/o error",
    "unable to open database",
    "attempt to write a readonly database",
    "locking protocol",
)


def _psycopg_transient(exc: BaseException) -> bool:
    """PostgreSQL (psycopg): a lost or refused connection, a server shutting down, a
    serialization failure or deadlock, a full disk are ``OperationalError`` there; a
    connection closed under a statement is an ``InterfaceError``."""
    try:
        import psycopg
    except ImportError:  # the PostgreSQL driver is optional
        return False
    return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)


def _one(exc: BaseException) -> bool:
    if isinstance(exc, StoreUnavailable):
        return True
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, sa_exc.DisconnectionError | sa_exc.InvalidatePoolError | sa_exc.TimeoutError):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return any(words in text for words in _SQLITE_TRANSIENT)
    if isinstance(exc, OSError) and exc.errno is not None and exc.errno == 28:  # ENOSPC: disk full
        return True
    return _psycopg_transient(exc)


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc``, or an error it was raised from, says the store is unavailable for now.

    SQLAlchemy wraps the driver's error (``.orig``) and Python chains the rest
    (``__cause__``, ``__context__``): all of them are looked at.
    """
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if _one(current):
            return True
        orig = getattr(current, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, current.__cause__, current.__context__]
    return False


def describe(exc: BaseException) -> str:
    """One line for the log: the error's type and its first line."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:300]


def writable(engine: Engine) -> bool:
    """Whether the store takes a write now: SQLite's write lock (``BEGIN IMMEDIATE``, waiting as
    long as the connection's ``busy_timeout``), elsewhere a round trip to the server. A store
    that cannot is unavailable, not broken; any other error is raised."""
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                connection.exec_driver_sql("BEGIN IMMEDIATE")
                connection.exec_driver_sql("ROLLBACK")
            else:
                connection.exec_driver_sql("SELECT 1")
    except Exception as exc:
        if is_transient(exc):
            return False
        raise
    return True
