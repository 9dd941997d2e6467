# SPDX-License-Identifier: GPL-3.0-or-later
"""A writer waiting for SQLite's write lock takes it as soon as it is free (``begin_writing`` asks
every ``LOCK_POLL`` seconds) and gives up with SQLite's own error after the connection's
``busy_timeout``, which it leaves as it found it; while it waits it is counted, for a run of
writes to let it in (``store.writers``, ``transactions.hand_over``)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from mailbot.services.base import transactions
from mailbot.services.base.transactions import (
    HAND_OVER,
    begin_writing,
    hand_over,
    holds_write_lock,
    others_wait,
)
from mailbot.store import db, writers


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


def test_a_writer_is_counted_while_it_waits_and_a_run_of_writes_lets_it_in(tmp_path: Path) -> None:
    """``store.writers``: the count a tick reads to end its transaction early (``others_wait``) and
    to wait for the writers before it begins again (``hand_over``)."""
    engine, path = _engine(tmp_path)
    assert not others_wait(engine)
    holder = _held(path, 0.3)
    got: list[float] = []

    def writer() -> None:
        with Session(engine) as session:
            begin_writing(session)  # waits for the holder: counted meanwhile
            got.append(time.monotonic())
            session.rollback()

    waiter = threading.Thread(target=writer)
    waiter.start()
    for _ in range(200):
        if others_wait(engine):
            break
        time.sleep(0.005)
    assert others_wait(engine), "a writer waiting for the lock is counted"
    holder.join()
    handed = time.monotonic()
    hand_over(engine)  # returns once the waiter has the lock
    waiter.join()
    assert got and got[0] <= time.monotonic()
    assert time.monotonic() - handed < HAND_OVER + 0.05
    assert not others_wait(engine), "counted no longer once it has the lock"
    engine.dispose()


def test_a_run_of_writes_waits_for_nobody_when_nobody_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _path = _engine(tmp_path)
    slept: list[float] = []
    monkeypatch.setattr(transactions.time, "sleep", slept.append)
    hand_over(engine)
    assert slept == []
    writers.slots_for(engine.url.database or "").add(1)  # someone waits, and never gets it
    try:
        begun = time.monotonic()
        monkeypatch.undo()
        hand_over(engine)
        assert HAND_OVER <= time.monotonic() - begun < HAND_OVER + 0.05, "waits at most HAND_OVER"
    finally:
        writers.slots_for(engine.url.database or "").add(-1)
    engine.dispose()
