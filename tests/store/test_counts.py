# SPDX-License-Identifier: GPL-3.0-or-later
"""The benchmarks' count of what the store is asked (``BENCH_SQL_COUNTS``): statements by kind
and table, transactions and pool checkouts, written by each process and added up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session, select

from mailbot.store import counts, db
from mailbot.store.models import Inbound


def test_a_statement_is_counted_by_its_verb_and_table_or_lock_function() -> None:
    assert counts.kind("SELECT inbound.id FROM inbound WHERE inbound.state = %(s)s") == "sql SELECT inbound"
    assert counts.kind("INSERT INTO chain (game_id) VALUES (%(g)s)") == "sql INSERT chain"
    assert counts.kind('UPDATE "outbound" SET state=%(s)s') == "sql UPDATE outbound"
    assert counts.kind("SELECT pg_try_advisory_xact_lock(%(k)s)") == "sql SELECT pg_try_advisory_xact_lock"
    assert counts.kind("SAVEPOINT sa_savepoint_1") == "sql SAVEPOINT"


def test_counting_is_off_unless_asked_and_each_process_writes_its_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path}/off.db")
    db.upgrade(engine)
    with Session(engine) as session:
        session.exec(select(Inbound)).all()
    assert not counts.enabled() and counts.snapshot() == {}  # off: nothing noted
    engine.dispose()

    folder = tmp_path / "counts"
    monkeypatch.setattr(counts, "_FOLDER", str(folder))
    monkeypatch.setattr(counts, "_counts", counts.Counter())
    monkeypatch.setattr(counts, "_start_writer", lambda: None)  # the test writes when it wants
    engine = db.make_engine(f"sqlite:///{tmp_path}/on.db")
    db.upgrade(engine)
    monkeypatch.setattr(counts, "_counts", counts.Counter())  # what the upgrade asked is not the test's
    with Session(engine) as session:
        session.exec(select(Inbound).where(Inbound.id == 1)).all()
    counts.note("letters rounds")
    counts._write()
    engine.dispose()
    written = json.loads(next(folder.glob("*.json")).read_text())
    assert written["letters rounds"] == 1
    assert written["pool checkout"] >= 1 and written["sql SELECT inbound"] == 1
    (folder / "other.json").write_text(json.dumps({"letters rounds": 2}))  # another process
    assert counts.gather(folder)["letters rounds"] == 3
