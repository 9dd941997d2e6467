# SPDX-License-Identifier: GPL-3.0-or-later
"""PostgreSQL test databases used again: emptied after a test instead of dropped.

``CREATE DATABASE ... TEMPLATE`` copies the system catalogs with the tables: 150-250 ms a
test on a quiet machine, the larger part of a PostgreSQL test's setup (a SQLite copy takes
under 20 ms). Emptying the fourteen tables of a database a test is done with takes about 20
ms. So a test process keeps the databases its tests are done with and hands each, emptied,
to the next test that asks.

A database goes back to the pool only when it is as a fresh copy would be:
- every session on it is ended first (a test's engine left open, a listener, an open
  transaction that would block the emptying);
- every table is emptied and every sequence starts again (ids as in a fresh copy);
- its schema, the alembic revision included, has the template's fingerprint (tables,
  columns, indexes, constraints, sequences, triggers and functions): a test that changed the
  schema (a downgrade left behind) leaves a database that is dropped, not used again.
Where any step fails, or the role may not end other sessions or disable triggers (not a
superuser, e.g. on a server named by ``MAILBOT_TEST_PG_URL``), the database is dropped as
before.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

#: the schema as one digest: what a test could change in it
_FINGERPRINT = sa.text(
    """
    SELECT md5(string_agg(item, '|' ORDER BY item)) FROM (
        SELECT 'c:' || table_name || '.' || column_name || ':' || data_type || ':'
               || is_nullable || ':' || coalesce(column_default, '') AS item
          FROM information_schema.columns WHERE table_schema = 'public'
        UNION ALL SELECT 'i:' || indexdef FROM pg_indexes WHERE schemaname = 'public'
        UNION ALL SELECT 'k:' || conrelid::regclass || ':' || pg_get_constraintdef(oid)
          FROM pg_constraint WHERE connamespace = 'public'::regnamespace
        UNION ALL SELECT 's:' || sequencename FROM pg_sequences WHERE schemaname = 'public'
        UNION ALL SELECT 't:' || tgrelid::regclass || ':' || tgname FROM pg_trigger WHERE NOT tgisinternal
        UNION ALL SELECT 'f:' || proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace
        UNION ALL SELECT 'v:' || version_num FROM alembic_version
    ) AS schema
    """
)


class PgPool:
    """The test databases of one test process, on the server of ``admin``, copies of ``template``."""

    def __init__(self, admin: Engine, template: str, drop: Callable[[Engine, str], None]) -> None:
        self.admin, self.template, self._drop = admin, template, drop
        self.free: list[str] = []
        with self._connect(template) as conn:
            self.fingerprint = _fingerprint(conn)
            tables = conn.execute(sa.text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
            self.tables = sorted(str(name) for (name,) in tables if name != "alembic_version")
            sequences = conn.execute(
                sa.text("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'")
            )
            self.sequences = sorted(str(name) for (name,) in sequences)
        # One round trip. Triggers off for the session (foreign keys included): the tables empty
        # in any order.
        self._emptying = "; ".join(
            [
                "SET session_replication_role = replica",
                *(f'DELETE FROM "{table}"' for table in self.tables),
                *(f'ALTER SEQUENCE "{sequence}" RESTART' for sequence in self.sequences),
            ]
        )
        with admin.connect() as conn:
            self.reusable = bool(
                conn.execute(sa.text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).scalar()
            )

    def url(self, name: str) -> str:
        return self.admin.url.set(database=name).render_as_string(hide_password=False)

    def take(self) -> str:
        """A database as a fresh copy of the template: one a test is done with, else a new copy."""
        if self.free:
            return self.free.pop()
        name = f"mailbot_test_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        return name

    def give_back(self, name: str) -> None:
        """Keep ``name`` for the next test if it could be emptied to the template's state, else drop it."""
        if self.reusable:
            try:
                if self._emptied(name):
                    self.free.append(name)
                    return
            except sa.exc.SQLAlchemyError:
                pass
        self._drop(self.admin, name)

    def close(self) -> None:
        while self.free:
            self._drop(self.admin, self.free.pop())

    def _emptied(self, name: str) -> bool:
        with self.admin.connect() as conn:
            conn.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
        with self._connect(name) as conn:
            conn.execute(sa.text(self._emptying))
            return _fingerprint(conn) == self.fingerprint

    def _connect(self, name: str) -> Connection:
        engine = sa.create_engine(self.url(name), isolation_level="AUTOCOMMIT", poolclass=NullPool)
        return engine.connect()


def _fingerprint(conn: Connection) -> str:
    return str(conn.execute(_FINGERPRINT).scalar())
