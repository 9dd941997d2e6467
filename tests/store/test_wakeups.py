# SPDX-License-Identifier: GPL-3.0-or-later
"""Workers wake each other through PostgreSQL (LISTEN/NOTIFY) instead of polling the store:
a notice is heard when its transaction commits and never when it rolls back, and a listener
whose connection is cut comes back and has its worker look once (a notice may be lost)."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from mailbot.store import db, wakeups
from mailbot.store.wakeups import Listener

ON_PG = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


@pytest.fixture
def pg(db_url: str) -> Iterator[Engine]:
    engine = db.make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def heard(pg: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[queue.Queue[str]]:
    monkeypatch.setattr(wakeups, "LISTEN_SECONDS", 0.1)
    monkeypatch.setattr(wakeups, "RECONNECT_SECONDS", 0.1)
    got: queue.Queue[str] = queue.Queue()
    listener = Listener(pg, got.put)
    listener.start()
    assert listener.listening.wait(10)
    assert got.get(timeout=5) == ""  # just connected: its worker looks at the store once
    yield got
    listener.stop()


@ON_PG
def test_a_notice_is_heard_when_its_transaction_commits_never_when_it_rolls_back(
    pg: Engine, heard: queue.Queue[str]
) -> None:
    with pg.connect() as conn:
        wakeups.notify(conn, wakeups.HANDLED)
        conn.rollback()
        with conn.begin():
            wakeups.notify(conn, wakeups.LETTERS)
            with pytest.raises(queue.Empty):  # not before the commit
                heard.get(timeout=0.3)
    assert heard.get(timeout=5) == wakeups.LETTERS
    with pytest.raises(queue.Empty):  # the rolled-back notice never comes
        heard.get(timeout=0.3)


@ON_PG
def test_a_listener_whose_connection_is_cut_listens_again_and_has_its_worker_look(
    pg: Engine, heard: queue.Queue[str]
) -> None:
    with pg.connect() as conn:
        cut = conn.execute(
            sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE query = :q AND datname = current_database()"
            ),
            {"q": f"LISTEN {wakeups.CHANNEL}"},
        ).all()
    assert cut == [(True,)]
    assert heard.get(timeout=10) == ""  # back, and told to look: a notice may have been lost
    with pg.begin() as conn:
        wakeups.notify(conn, wakeups.LETTERS)
    assert heard.get(timeout=5) == wakeups.LETTERS


def test_on_sqlite_nothing_is_sent_and_nothing_listens(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path}/one.db")
    try:
        listener = Listener(engine, lambda _what: None)
        listener.start()
        assert not listener.listening.is_set()
        with engine.begin() as conn:
            wakeups.notify(conn, wakeups.LETTERS)  # no statement: SQLite has no NOTIFY
        listener.stop()
    finally:
        engine.dispose()
