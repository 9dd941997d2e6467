# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared fixtures: databases (SQLite and a real PostgreSQL) and the mail rig plugin."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from mailbot.store import db

pytest_plugins = ["tests.rig_fixtures"]

# make test creates this role (tools/system-deps.sh); override for another server.
PG_ADMIN_URL = os.environ.get(
    "MAILBOT_TEST_PG_URL", "postgresql+psycopg://mailbot:mailbot@127.0.0.1:5432/postgres"
)


def _pg_database() -> Iterator[str]:
    name = f"mailbot_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except sa.exc.OperationalError as exc:
        admin.dispose()
        pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN_URL} (run make test): {exc}")
    try:
        yield sa.make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        try:
            _drop(admin, name)
        finally:
            admin.dispose()


def _drop(admin: Engine, name: str) -> None:
    """DROP ... WITH (FORCE) may meet an autovacuum worker in the fresh database, which a
    role without pg_signal_backend may not terminate: the worker ends soon, so try again."""
    for attempt in range(20):
        try:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            return
        except sa.exc.ProgrammingError:
            if attempt == 19:
                raise
            time.sleep(0.25)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> Iterator[str]:
    """A fresh, empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/mailbot.db"
    else:
        yield from _pg_database()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """A migrated database of each kind."""
    eng = db.make_engine(db_url)
    db.upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture(autouse=True)
def _collect_garbage_after_network_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests that open sockets collect garbage at their end, so an unclosed transport is
    reported (warnings are errors) by the test that leaked it, not by whichever test the
    garbage collector happens to run in later."""
    yield
    if any(part in request.node.nodeid for part in ("tests/adapters/", "tests/e2e/", "tests/services/")):
        import gc

        gc.collect()
