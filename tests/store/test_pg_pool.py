# SPDX-License-Identifier: GPL-3.0-or-later
"""The PostgreSQL test databases used again (``tests/pgpool.py``) are as fresh copies would be."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from mailbot.store import db
from mailbot.store.models import Inbound
from tests.conftest import _drop
from tests.pgpool import PgPool


@pytest.fixture
def pool(pg_admin_url: str, _pg_template: str) -> Iterator[PgPool]:
    admin = sa.create_engine(pg_admin_url, isolation_level="AUTOCOMMIT")
    made = PgPool(admin, _pg_template, _drop)
    yield made
    made.close()
    admin.dispose()


def _names(pool: PgPool) -> set[str]:
    with pool.admin.connect() as conn:
        return {str(name) for (name,) in conn.execute(sa.text("SELECT datname FROM pg_database"))}


def _store_a_letter(url: str) -> int:
    engine = db.make_engine(url)
    try:
        with Session(engine) as session, session.begin():
            now = datetime.now(UTC)
            row = Inbound(
                mailbox="INBOX", dedupe_key="k", content_hash="h", raw=b"x", received_at=now, stored_at=now
            )
            session.add(row)
            session.flush()
            return int(row.id or 0)
    finally:
        engine.dispose()


def test_a_used_database_comes_back_empty_with_ids_from_the_start(pool: PgPool) -> None:
    assert pool.reusable, "the test cluster's role is a superuser"
    name = pool.take()
    first = _store_a_letter(pool.url(name))
    pool.give_back(name)
    assert pool.free == [name]
    again = pool.take()
    assert again == name
    assert _store_a_letter(pool.url(again)) == first  # empty, and its ids start again
    pool.give_back(again)


@pytest.mark.parametrize(
    "change",
    ["ALTER TABLE inbound ADD COLUMN extra integer", "UPDATE alembic_version SET version_num = 'older'"],
    ids=["a column added", "another revision"],
)
def test_a_database_whose_schema_changed_is_dropped(pool: PgPool, change: str) -> None:
    name = pool.take()
    engine = sa.create_engine(pool.url(name))
    with engine.begin() as conn:
        conn.execute(sa.text(change))
    engine.dispose()
    pool.give_back(name)
    assert pool.free == []
    assert name not in _names(pool)


def test_a_transaction_left_open_does_not_keep_its_database_from_being_emptied(pool: PgPool) -> None:
    name = pool.take()
    engine = sa.create_engine(pool.url(name))
    conn = engine.connect()
    conn.execute(sa.text("LOCK TABLE inbound IN ACCESS EXCLUSIVE MODE"))  # held: never committed
    pool.give_back(name)
    assert pool.free == [name]
    conn.invalidate()  # its session was ended: nothing to roll back
    conn.close()
    engine.dispose()
