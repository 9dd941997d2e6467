# SPDX-License-Identifier: GPL-3.0-or-later
"""Rows added under SQLite's write lock get the ids SQLite would give them, and go in as one
``executemany`` per table instead of one ``INSERT ... RETURNING`` each
(``transactions._number_new_rows``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.services.base.transactions import begin_writing
from mailbot.store.models import Inbound, Outbound
from mailbot.store.rows import new_row

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def _letter(n: int) -> Outbound:
    return new_row(
        Outbound,
        message_id=f"m{n}@x.test",
        sender="b@x.test",
        recipient="p@x.test",
        raw=b"r",
        next_attempt_at=NOW,
        created_at=NOW,
    )


@pytest.fixture
def statements(engine: Engine) -> Iterator[Counter[tuple[str, bool]]]:
    seen: Counter[tuple[str, bool]] = Counter()

    def count(
        _conn: object, _cursor: object, statement: str, _params: object, _ctx: object, many: bool
    ) -> None:
        seen[statement.split(" (", maxsplit=1)[0].split("\n", maxsplit=1)[0], many] += 1

    sa.event.listen(engine, "before_cursor_execute", count)
    yield seen
    sa.event.remove(engine, "before_cursor_execute", count)


def _ids(engine: Engine) -> list[int]:
    with Session(engine) as session:
        return [row_id for row_id in session.exec(select(Outbound.id).order_by(col(Outbound.id))) if row_id]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_rows_get_the_next_ids_in_the_order_added(
    engine: Engine, statements: Counter[tuple[str, bool]]
) -> None:
    with Session(engine) as session, session.begin():
        session.add_all([_letter(n) for n in range(3)])  # numbered by the database, 1 to 3
    with Session(engine) as session, session.begin():
        session.exec(sa.delete(Outbound).where(col(Outbound.id) == 2))  # type: ignore[call-overload]
    statements.clear()
    with Session(engine) as session, session.begin():
        begin_writing(session)
        rows = [_letter(n) for n in range(3, 13)]
        session.add_all(rows)
        session.flush()
        assert [row.id for row in rows] == list(range(4, 14))  # one past the largest, as SQLite would
    assert statements[("INSERT INTO outbound", True)] == 1  # all ten in one executemany
    assert not statements[("INSERT INTO outbound", False)]
    assert _ids(engine) == [1, 3, *range(4, 14)]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_rolled_back_savepoint_gives_its_ids_back(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        begin_writing(session)
        session.add(_letter(0))
        session.flush()
        with pytest.raises(sa.exc.IntegrityError), session.begin_nested():
            session.add_all([_letter(1), _letter(0)])  # the second repeats a unique Message-ID
        later = _letter(2)
        session.add(later)
        session.flush()
        assert later.id == 2
    assert _ids(engine) == [1, 2]


def test_without_the_write_lock_the_database_numbers_the_rows(
    engine: Engine, statements: Counter[tuple[str, bool]]
) -> None:
    with Session(engine) as session, session.begin():
        rows = [_letter(n) for n in range(3)]
        session.add_all(rows)
        session.flush()
        assert [row.id for row in rows] == [1, 2, 3]
    assert not statements[("SELECT max", False)]


def _stored(n: int) -> Inbound:
    return new_row(
        Inbound,
        mailbox="INBOX",
        dedupe_key=f"mid:<{n}@x.test>",
        content_hash="0" * 64,
        raw=b"r",
        received_at=NOW,
        stored_at=NOW,
    )


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_largest_ids_of_several_tables_are_read_in_one_statement(
    engine: Engine, statements: Counter[tuple[str, bool]]
) -> None:
    with Session(engine) as session, session.begin():
        session.add_all([_letter(n) for n in range(3)] + [_stored(n) for n in range(5)])
    statements.clear()
    with Session(engine) as session, session.begin():
        begin_writing(session)
        letters, stored = [_letter(n) for n in range(3, 5)], [_stored(n) for n in range(5, 8)]
        session.add_all([*letters, *stored])
        session.flush()
        assert [row.id for row in letters] == [4, 5] and [row.id for row in stored] == [6, 7, 8]
    selects = [key for key in statements.elements() if key[0].startswith("SELECT")]
    assert selects == [("SELECT", False)]  # "SELECT (SELECT max(...)), (SELECT max(...))": both at once
    assert statements[("INSERT INTO outbound", True)] == statements[("INSERT INTO inbound", True)] == 1
