# SPDX-License-Identifier: GPL-3.0-or-later
"""Engines and schema upgrades: SQLite (WAL) by default, PostgreSQL by URL, same code."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from mailbot.store import counts, jsoncodec

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: how JSON columns are written and read (``jsoncodec``: orjson, the standard library's results)
_JSON: dict[str, Any] = {"json_serializer": jsoncodec.dumps, "json_deserializer": jsoncodec.loads}


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL lets readers (CLI, archive export) run while the bot writes;
    # NORMAL sync is durable across process crashes, which is what we test.
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for ``url``; creates the directory of a SQLite file."""
    sa_url = sa.make_url(url)
    if sa_url.get_backend_name() == "sqlite":
        if sa_url.database and sa_url.database != ":memory:":
            Path(sa_url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, **_JSON)
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        counts.watch(engine)
        return engine
    if sa_url.drivername == "postgresql":
        url = sa_url.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    engine = sa.create_engine(url, pool_pre_ping=True, **_JSON)
    counts.watch(engine)  # for the benchmarks, when asked
    return engine


def alembic_config(engine: Engine) -> Config:
    # Alembic is loaded when the schema is looked at, not with the store: a process that only
    # reads and writes rows (the letter process, most commands) starts a tenth of a second sooner.
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (idempotent). A store already at the newest revision is
    only asked its version: alembic's own upgrade reads and runs its environment and every
    migration script to find that nothing is to be done, at each command's and each worker's
    start."""
    if revision == "head" and current_revision(engine) == head_revision():
        return
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


def current_revision(engine: Engine) -> str | None:
    """The store's schema revision (None: not made by alembic, or empty)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@lru_cache(maxsize=1)
def head_revision() -> str | None:
    """The newest revision of the shipped migrations (read once a process: they ship with the code)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(MIGRATIONS)).get_current_head()


def sqlite_file(url: str) -> str | None:
    """The file of a SQLite ``url`` as the engine names it (``url.database``); None elsewhere."""
    sa_url = sa.make_url(url)
    return sa_url.database or None if sa_url.get_backend_name() == "sqlite" else None


def in_memory(url: str) -> bool:
    """Whether ``url`` is a SQLite database that lives in one process's memory (no other process sees it)."""
    sa_url = sa.make_url(url)
    return sa_url.get_backend_name() == "sqlite" and sa_url.database in (None, "", ":memory:")
