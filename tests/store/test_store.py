# SPDX-License-Identifier: GPL-3.0-or-later
"""The store on SQLite and PostgreSQL: migrations, types, uniqueness."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

from mailbot.store import db, repo
from mailbot.store.models import Inbound, Outbound, OutboundState

NOW = datetime(2026, 11, 21, 12, 30, tzinfo=UTC)


def test_migrations_create_exactly_the_model_tables(empty_db_url: str) -> None:
    engine = db.make_engine(empty_db_url)
    try:
        assert sa.inspect(engine).get_table_names() == []
        db.upgrade(engine)
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
        assert diff == []
    finally:
        engine.dispose()


def test_upgrade_is_idempotent(engine: Engine) -> None:
    db.upgrade(engine)
    assert {"inbound", "outbound", "mailbox_cursor"} <= set(sa.inspect(engine).get_table_names())


def test_a_store_at_the_newest_revision_is_only_asked_its_version(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert db.current_revision(engine) == db.head_revision() == _last_script_revision()

    def migrate(*_args: object) -> None:
        raise AssertionError("alembic ran on a store already at the newest revision")

    monkeypatch.setattr("alembic.command.upgrade", migrate)
    db.upgrade(engine)


def test_a_store_behind_the_newest_revision_is_brought_up_to_it(engine: Engine) -> None:
    from alembic import command

    def columns() -> set[tuple[str, str]]:
        """Every table's columns: the newest revision may add a table or only a column."""
        seen = sa.inspect(engine)
        return {(table, c["name"]) for table in seen.get_table_names() for c in seen.get_columns(table)}

    newest = columns()
    command.downgrade(db.alembic_config(engine), "-1")
    assert db.current_revision(engine) != db.head_revision()
    assert columns() != newest
    db.upgrade(engine)
    assert db.current_revision(engine) == db.head_revision()
    assert columns() == newest


def _last_script_revision() -> str:
    names = sorted(p.name for p in (db.MIGRATIONS / "versions").glob("[0-9]*.py"))
    return names[-1].split("_")[0]


def test_sqlite_runs_in_wal_mode(tmp_path: object) -> None:
    eng = db.make_engine(f"sqlite:///{tmp_path}/w.db")
    with eng.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    eng.dispose()


def _item(key: str, raw: bytes = b"x") -> repo.NewInbound:
    return repo.NewInbound(1, raw, NOW, None, key, "0" * 64, "a@b.test", "s")


def test_raw_bytes_and_aware_times_round_trip(engine: Engine) -> None:
    raw = bytes(range(256)) * 10
    with Session(engine) as session, session.begin():
        repo.add_inbound(session, "INBOX", 99, [_item("sha:1", raw)], NOW)
    with Session(engine) as session:
        row = session.get_one(Inbound, 1)
    assert row.raw == raw
    assert row.received_at == NOW and row.received_at.tzinfo is not None


def test_duplicate_key_is_refused_by_the_database_too(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        repo.add_inbound(session, "INBOX", 1, [_item("mid:a")], NOW)
    with Session(engine) as session, session.begin():
        assert repo.add_inbound(session, "INBOX", 1, [_item("mid:a"), _item("mid:a")], NOW) == 0
    with pytest.raises(sa.exc.IntegrityError), Session(engine) as session, session.begin():
        session.add(
            Inbound(
                mailbox="X", dedupe_key="mid:a", content_hash="0", raw=b"", received_at=NOW, stored_at=NOW
            )
        )


def test_outbox_due_ordering_and_next_due(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        for i, due in enumerate([NOW, NOW.replace(hour=13), NOW.replace(hour=11)]):
            session.add(
                Outbound(
                    message_id=f"m{i}@x",
                    sender="b@x",
                    recipient="r@x",
                    raw=b"",
                    next_attempt_at=due,
                    created_at=NOW,
                )
            )
    with Session(engine) as session:
        due = repo.due_outbound(session, NOW)
        assert [row.message_id for row in due] == ["m0@x", "m2@x"]
        assert repo.next_outbound_due(session) == NOW.replace(hour=11)
        assert repo.count_by_state(session, Outbound) == {OutboundState.PENDING.value: 3}
