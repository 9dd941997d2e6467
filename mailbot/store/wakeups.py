# SPDX-License-Identifier: GPL-3.0-or-later
"""Workers on one PostgreSQL store wake each other with ``NOTIFY`` instead of polling it.

A worker that stores letters read from the mailbox, or commits a batch of handled letters
(letters that waited for that batch may go now), says so on the channel ``mailbot_work``;
every worker ``LISTEN``\\s on a connection of its own (:class:`Listener`) and wakes its work
loop when told. PostgreSQL delivers a notification when the transaction that sent it commits
(never one that rolled back), to every session listening at that moment.

A notification can be lost: the listening connection breaks, the worker is starting. So the
work loop still looks at the store now and then (``workers.poll_seconds``), slowly: the
safety net, no longer the way a letter stored by another worker is found.

On SQLite (one worker) nothing is sent and nothing listens.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from mailbot.store import counts

log = logging.getLogger(__name__)

CHANNEL = "mailbot_work"
#: what a notification says (its payload)
LETTERS = "letters"  # letters were stored
HANDLED = "handled"  # a batch of letters was committed
#: how long the listener waits on its connection before it looks whether it must stop
LISTEN_SECONDS = 1.0
#: how long the listener waits before it connects again after its connection broke
RECONNECT_SECONDS = 2.0

_NOTIFY = sa.text("SELECT pg_notify(:channel, :what)")


def notify(bind: Session | Connection, what: str) -> None:
    """Tell the listening workers ``what`` when the caller's transaction commits (PostgreSQL)."""
    dialect = bind.get_bind().dialect if isinstance(bind, Session) else bind.dialect
    if dialect.name == "postgresql":
        bind.execute(_NOTIFY, {"channel": CHANNEL, "what": what})


class Listener:
    """A connection of its own that ``LISTEN``\\s, in a thread of its own; ``heard`` is called
    there with each notification's payload (it must hand over to the event loop itself)."""

    def __init__(self, engine: Engine, heard: Callable[[str], None]) -> None:
        self.engine = engine
        self.heard = heard
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()  # set while LISTEN is in force (tests wait for it)

    def start(self) -> None:
        if self.engine.dialect.name != "postgresql" or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="mailbot-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(LISTEN_SECONDS + 5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen()
            except Exception as exc:  # the store is away: the slow poll covers until we are back
                log.warning("not hearing the other workers (%s); again in %.0f s", exc, RECONNECT_SECONDS)
            self.listening.clear()
            self._stop.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        raw = self.engine.raw_connection()
        driver: Any = raw.driver_connection  # psycopg's own connection (detached, the pool forgets it)
        raw.detach()  # its own session, never back to the pool: it only listens
        try:
            driver.autocommit = True
            driver.execute(f"LISTEN {CHANNEL}")
            self.listening.set()
            # Anything sent while we were not listening was lost: look at the store once.
            self.heard("")
            while not self._stop.is_set():
                for notice in driver.notifies(timeout=LISTEN_SECONDS):
                    counts.note("notices heard")
                    self.heard(notice.payload)
        finally:
            with contextlib.suppress(Exception):
                raw.close()
