# SPDX-License-Identifier: GPL-3.0-or-later
"""Which store errors are outages ("not now") and which are errors of the work in hand."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import psycopg.errors
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from mailbot.errors import StoreUnavailable
from mailbot.store import db
from mailbot.store.transient import is_transient, writable


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = db.make_engine(f"sqlite:///{tmp_path}/t.db")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    yield engine
    engine.dispose()


def _raised_by(engine: Engine, sql: str) -> BaseException:
    with pytest.raises(sa.exc.SQLAlchemyError) as info, engine.begin() as connection:
        connection.exec_driver_sql(sql)
    return info.value


def test_a_file_locked_by_another_process_is_an_outage_and_not_writable(
    sqlite: Engine, tmp_path: Path
) -> None:
    other = sqlite3.connect(tmp_path / "t.db")  # another writer holds the lock (as another process would)
    other.execute("BEGIN IMMEDIATE")
    try:
        quick = sa.create_engine(f"sqlite:///{tmp_path}/t.db", connect_args={"timeout": 0.2})
        error = _raised_by(quick, "INSERT INTO t VALUES (1)")
        assert isinstance(error, sa.exc.OperationalError) and "locked" in str(error)
        assert is_transient(error)
        assert not writable(quick)
        quick.dispose()
    finally:
        other.rollback()
        other.close()
    assert writable(sqlite)


def test_errors_of_the_work_itself_are_not_outages(sqlite: Engine) -> None:
    assert not is_transient(_raised_by(sqlite, "INSERT INTO missing VALUES (1)"))  # no such table: a bug
    assert not is_transient(_raised_by(sqlite, "SELEC 1"))
    assert not is_transient(KeyError("seat"))
    assert not is_transient(ValueError("bad order"))


@pytest.mark.parametrize(
    "error",
    [
        psycopg.OperationalError("connection to server at 127.0.0.1, port 5432 failed: Connection refused"),
        psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
        psycopg.errors.SerializationFailure("could not serialize access due to concurrent update"),
        psycopg.errors.DeadlockDetected("deadlock detected"),
        psycopg.InterfaceError("the connection is closed"),
        sqlite3.OperationalError("database or disk is full"),
        sqlite3.OperationalError("disk I/O error"),
        OSError(28, "No space left on device"),
        StoreUnavailable("locked"),
    ],
    ids=lambda e: type(e).__name__ + ": " + str(e)[:30],
)
def test_outages_are_seen_wrapped_or_chained(error: Exception) -> None:
    assert is_transient(error)
    wrapped = sa.exc.OperationalError("SELECT 1", {}, error)  # as SQLAlchemy raises the driver's error
    assert is_transient(wrapped)
    chained = RuntimeError("the batch failed")
    chained.__cause__ = error
    assert is_transient(chained)


def test_an_invalidated_connection_is_an_outage() -> None:
    error = sa.exc.DBAPIError(
        "SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True
    )
    assert is_transient(error)
    assert is_transient(sa.exc.InvalidatePoolError("pool invalidated"))
    assert is_transient(sa.exc.DisconnectionError("gone"))
