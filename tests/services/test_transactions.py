# SPDX-License-Identifier: GPL-3.0-or-later
"""Writer transactions: SQLite's write lock taken up front, and what such a transaction may keep."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.services.base.transactions import begin_writing, holds_write_lock, kept
from mailbot.store import db


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = db.make_engine(f"sqlite:///{tmp_path}/tx.db")
    db.upgrade(engine)
    yield engine
    engine.dispose()


def _failing_letter(session: Session) -> None:
    with session.begin_nested():
        assert kept(session, "seats") == {1: ["north", "south"]}
        raise RuntimeError("a letter failed")


def test_a_writer_keeps_what_it_read_until_its_transaction_ends(sqlite: Engine) -> None:
    with Session(sqlite) as session:
        with session.begin():
            assert kept(session, "seats") is None  # not a writer yet: nothing may be kept
            begin_writing(session)
            shelf = kept(session, "seats")
            assert shelf is not None and holds_write_lock(session)
            shelf[1] = ["north", "south"]
            with pytest.raises(RuntimeError):
                _failing_letter(session)
            assert kept(session, "seats") == {}  # dropped with the rolled-back savepoint
            again = kept(session, "seats")
            assert again is not None
            again[1] = ["north"]
        assert not holds_write_lock(session)  # committed: others may write now
        with session.begin():
            assert kept(session, "seats") is None


def test_a_second_writer_waits_for_the_first_instead_of_failing(sqlite: Engine) -> None:
    """Two threads that read before they write: the second waits (busy_timeout), no "locked" error."""
    order: list[str] = []
    first_in = threading.Event()

    def first() -> None:
        with Session(sqlite) as session, session.begin():
            begin_writing(session)
            first_in.set()
            session.connection().exec_driver_sql("SELECT count(*) FROM inbound").all()
            threading.Event().wait(0.3)
            session.connection().exec_driver_sql(
                "INSERT INTO mailbox_cursor (mailbox, uidvalidity, last_uid, updated_at) "
                "VALUES ('a', 1, 1, '2026-01-01 00:00:00')"
            )
            order.append("first")

    def second() -> None:
        first_in.wait(5)
        with Session(sqlite) as session, session.begin():
            begin_writing(session)
            session.connection().exec_driver_sql("SELECT count(*) FROM mailbox_cursor").all()
            session.connection().exec_driver_sql(
                "INSERT INTO mailbox_cursor (mailbox, uidvalidity, last_uid, updated_at) "
                "VALUES ('b', 1, 1, '2026-01-01 00:00:00')"
            )
            order.append("second")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert order == ["first", "second"]
