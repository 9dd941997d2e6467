# SPDX-License-Identifier: GPL-3.0-or-later
"""One worker per SQLite store: an exclusive OS lock on ``<db>.lock`` while ``mailbot run`` runs.

SQLite has no row leases, so two workers on one file would handle letters twice and
requeue each other's messages in ``sending``. ``Bot.run`` takes this lease first and
releases it on shutdown; the kernel drops it when the process dies (even by kill -9),
so a crashed worker never blocks the next one. PostgreSQL stores take no lease here.
"""

from __future__ import annotations

import fcntl
import os
import weakref
from pathlib import Path

import sqlalchemy as sa

from mailbot.errors import ConfigError


class Lease:
    """A held lock file; ``release`` is idempotent, and dropping the object releases it too."""

    def __init__(self, database: Path | None, fd: int | None) -> None:
        self.database = database
        self._fd = fd
        # An exception between taking the lease and the caller's ``finally`` must not keep it.
        self._finalizer = weakref.finalize(self, os.close, fd) if fd is not None else None

    @property
    def held(self) -> bool:
        return self._finalizer is not None and self._finalizer.alive

    def release(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # closing the descriptor drops the flock


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".lock")


def sqlite_database(url: str) -> Path | None:
    """The database file of a SQLite URL; None for other stores and in-memory SQLite."""
    sa_url = sa.make_url(url)
    if sa_url.get_backend_name() != "sqlite" or not sa_url.database or sa_url.database == ":memory:":
        return None
    return Path(sa_url.database).resolve()


def acquire(database: Path) -> Lease:
    """Take the exclusive lease on ``database``; ConfigError when another process holds it."""
    path = lock_path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ConfigError(
            f"another mailbot run already uses {database}; on SQLite only one worker may run "
            "(use PostgreSQL for several)"
        ) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())  # who holds it, for a curious operator
    return Lease(database, fd)


def acquire_for(url: str) -> Lease:
    """The store's worker lease: held on SQLite, an empty lease on PostgreSQL (several may run)."""
    database = sqlite_database(url)
    return Lease(None, None) if database is None else acquire(database)
