# SPDX-License-Identifier: GPL-3.0-or-later
"""A writer waiting for SQLite's write lock takes it as soon as it is free (``begin_writing`` asks
every ``LOCK_POLL`` seconds) and gives up with SQLite's own error after the connection's
``busy_timeout``, which it leaves as it found it."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from mailbot.services.base.transactions import begin_writing, holds_write_lock
from mailbot.store import db


def _holder(path: Path, seconds: float, started: threading.Event) -> None:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    started.set()
    time.sleep(seconds)
    other.execute("COMMIT")
    other.close()


def _held(path: Path, seconds: float) -> threading.Thread:
    """Another connection holding the write lock for ``seconds`` (it has it when this returns)."""
    started = threading.Event()
    holder = threading.Thread(target=_holder, args=(path, seconds, started))
    holder.start()
    started.wait(5)
    return holder


def _engine(tmp_path: Path) -> tuple[sa.engine.Engine, Path]:
    path = tmp_path / "lock.db"
    engine = db.make_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    return engine, path


def test_the_lock_is_taken_soon_after_it_is_freed(tmp_path: Path) -> None:
    engine, path = _engine(tmp_path)
    holder = _held(path, 0.05)
    begun = time.monotonic()
    with Session(engine) as session:
        begin_writing(session)
        waited = time.monotonic() - begun
        assert holds_write_lock(session)
        busy = session.connection().exec_driver_sql("PRAGMA busy_timeout").scalar()
        session.rollback()
    holder.join()
    engine.dispose()
    assert 0.03 < waited < 0.05 + 0.02  # SQLite's own wait would have slept to about 0.078 s
    assert busy == 10000  # the connection's own wait is back for everything else


def test_a_lock_held_too_long_is_sqlites_error(tmp_path: Path) -> None:
    engine, path = _engine(tmp_path)
    holder = _held(path, 0.5)
    with Session(engine) as session:
        session.connection().exec_driver_sql("PRAGMA busy_timeout = 100")
        begun = time.monotonic()
        with pytest.raises(sa.exc.OperationalError, match="locked"):
            begin_writing(session)
        assert 0.1 <= time.monotonic() - begun < 0.3
        assert session.connection().exec_driver_sql("PRAGMA busy_timeout").scalar() == 100
    holder.join()
    engine.dispose()
