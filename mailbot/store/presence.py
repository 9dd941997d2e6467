# SPDX-License-Identifier: GPL-3.0-or-later
"""Several workers on one PostgreSQL store: who is alive, and who reads which mailbox.

Each ``mailbot run`` keeps one connection of its own open for as long as it runs
and holds PostgreSQL *session* advisory locks on it: one on its random worker key
(while it holds that, it is alive) and one per mailbox it reads (one reader per
mailbox). PostgreSQL drops them all when that connection ends, and it ends when
the process dies, even by ``kill -9``: its mailbox is taken over by the next worker
that asks, and the outbox rows it had claimed are given back (:meth:`alive`).

Rows are claimed by the transactions that handle them (``FOR UPDATE SKIP LOCKED``
and transaction advisory locks per game): those leases end with the transaction.

On SQLite there is one worker (``store/lease.py``): it holds every mailbox, and no
other worker is alive.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import threading
from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger(__name__)


#: the first half of every worker's two-part presence key (``pg_advisory_lock(int4, int4)``):
#: ``pg_locks`` shows them apart from the one-part keys of roles and games, so they can be counted
WORKER_CLASS = 0x6D62


def lock_key(name: str) -> int:
    """A signed 64-bit advisory-lock key for a name (``mailbox:INBOX``, ``migrations``)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


def reader_role(user: str, mailbox: str) -> str:
    """The role of reading one IMAP mailbox (one worker at a time holds it)."""
    return f"mailbox:{user}/{mailbox}"


def is_shared(engine: Engine) -> bool:
    """Whether several workers may use this store (PostgreSQL)."""
    return engine.dialect.name == "postgresql"


class Presence:
    """This worker's presence connection. Thread-safe: one statement at a time on it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.shared = is_shared(engine)
        self.worker_key = secrets.randbits(30) + 1  # the second half of its presence key: a positive int4
        self._conn: Connection | None = None
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> None:
        """Open the presence connection and say this worker is alive (PostgreSQL)."""
        if not self.shared:
            return
        with self._lock:
            self._connect()
            self._started = True

    def stop(self) -> None:
        with self._lock:
            self._drop()
            self._started = False

    def _connect(self) -> Connection:
        if self._conn is None:
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            conn.detach()  # its own, never back to the pool: closing it must end the session and its locks
            conn.execute(
                sa.text("SELECT 1 FROM pg_advisory_lock(:c, :k)"), {"c": WORKER_CLASS, "k": self.worker_key}
            )
            self._conn = conn
        return self._conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        self._held.clear()
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()  # closing the session releases every advisory lock it holds

    def _query(self, sql: str, key: int) -> bool:
        """One statement on the presence connection; a broken connection is dropped (and with
        it every lock this worker held) and the error raised."""
        values = {"k": key, "c": WORKER_CLASS}
        if not self._started:  # not running as a worker (a one-off command): a passing connection
            with self.engine.connect() as conn:
                return bool(conn.execute(sa.text(sql), values).scalar())
        try:
            return bool(self._connect().execute(sa.text(sql), values).scalar())
        except Exception:
            self._drop()
            raise

    def hold(self, name: str) -> bool:
        """Hold the named role (``mailbox:<name>``) if nobody else does; True while held.

        Asked again by the holder, it checks that the presence connection still lives:
        if it broke, the role was lost with it (another worker may have it now).
        """
        if not (self.shared and self._started):
            return True  # alone (see holds)
        with self._lock:
            try:
                if name in self._held:
                    return self._query("SELECT :k = 0", 0)  # the connection lives: the lock is held
                if not self._query("SELECT pg_try_advisory_lock(:k)", lock_key(name)):
                    return False
            except Exception as exc:  # the store is unreachable: hold nothing until it is back
                log.warning("presence connection failed (%s); holding nothing", exc)
                return False
            self._held.add(name)
            log.info("this worker (%x) now holds %s", self.worker_key, name)
            return True

    def refresh(self) -> None:
        """Make sure the presence connection lives. A restarted server ends it, and with it this
        worker's presence: others would take it for dead (and send its claimed letters again)
        until it reconnects, so it reconnects at once. The roles lost with it are asked for
        again by the loops that hold them (``hold`` sees they are gone)."""
        if not (self.shared and self._started):
            return
        with self._lock:
            try:
                self._query("SELECT :k = 0", 0)
            except Exception as exc:  # dropped by _query: connect afresh, taking the worker's lock again
                log.warning("presence connection lost (%s); reconnecting", exc)
                try:
                    self._connect()
                except Exception as again:  # the server is still away: the next refresh tries again
                    log.warning("presence connection not back yet (%s)", again)

    def holds(self, name: str) -> bool:
        """Whether this worker held ``name`` when last asked (no query). A bot that is not
        running as a worker (a one-off command, a test) is alone and holds everything."""
        return not (self.shared and self._started) or name in self._held

    def alive(self, worker_key: int) -> bool:
        """Whether the worker with this key is running (it holds its presence lock)."""
        if worker_key == self.worker_key:
            return True
        if not self.shared:
            return False  # one worker per SQLite store: any other key is a dead process
        # One statement: whoever gets the lock gives it back at once (a dead worker's key).
        sql = (
            "SELECT CASE WHEN pg_try_advisory_lock(:c, :k) THEN NOT pg_advisory_unlock(:c, :k) ELSE true END"
        )
        with self._lock:
            return self._query(sql, worker_key)

    @contextlib.contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        """Wait for and hold ``name`` for a while: one worker at a time upgrades the schema."""
        if not (self.shared and self._started):
            yield
            return
        key = lock_key(name)
        with self._lock:
            self._query("SELECT 1 FROM pg_advisory_lock(:k)", key)
        try:
            yield
        finally:
            with self._lock, contextlib.suppress(Exception):
                self._query("SELECT pg_advisory_unlock(:k)", key)


_HERE = "database = (SELECT oid FROM pg_database WHERE datname = current_database())"


def workers_running(engine: Engine) -> int | None:
    """How many workers run on this store now (PostgreSQL); None on SQLite, which cannot tell."""
    if not is_shared(engine):
        return None
    sql = (
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 "
        f"AND classid = :c AND {_HERE}"
    )
    with engine.connect() as conn:
        return int(conn.execute(sa.text(sql), {"c": WORKER_CLASS}).scalar() or 0)


def role_held(engine: Engine, name: str) -> bool | None:
    """Whether some worker holds the role now (PostgreSQL); None on SQLite."""
    if not is_shared(engine):
        return None
    key = lock_key(name) & 0xFFFF_FFFF_FFFF_FFFF  # pg_locks shows the key's halves unsigned
    sql = (
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
        f"AND classid = :hi AND objid = :lo AND {_HERE}"
    )
    with engine.connect() as conn:
        return bool(conn.execute(sa.text(sql), {"hi": key >> 32, "lo": key & 0xFFFF_FFFF}).scalar())
