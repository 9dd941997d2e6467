# SPDX-License-Identifier: GPL-3.0-or-later
"""Workers' presence on a real PostgreSQL store: one mailbox reader, takeover when it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine

from mailbot.services.health.status import gather_status, status_lines
from mailbot.store import db
from mailbot.store.presence import Presence, role_held, workers_running

ROLE = "mailbox:bot@example.test/INBOX"


@pytest.fixture
def pg(db_url: str) -> Iterator[Engine]:
    engine = db.make_engine(db_url)
    yield engine
    engine.dispose()


ON_PG = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def _started(engine: Engine) -> Presence:
    presence = Presence(engine)
    presence.start()
    return presence


@ON_PG
def test_one_reader_per_mailbox_and_the_next_takes_over_when_it_stops(pg: Engine) -> None:
    first, second = _started(pg), _started(pg)
    try:
        assert first.hold(ROLE) and first.hold(ROLE)  # asked again, still held
        assert not second.hold(ROLE)
        assert second.hold("mailbox:another/INBOX")  # another mailbox is another role
        assert first.alive(second.worker_key) and second.alive(first.worker_key)
        first.stop()
        # The server ends a closed session (and frees its locks) a moment after the close.
        deadline = time.monotonic() + 5
        while second.alive(first.worker_key) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not second.alive(first.worker_key)
        assert second.hold(ROLE) and second.holds(ROLE)
    finally:
        first.stop()
        second.stop()


_HOLDER = """
import sys, time
from mailbot.services.health.status import gather_status, status_lines
from mailbot.store import db
from mailbot.store.presence import Presence, role_held, workers_running
presence = Presence(db.make_engine(sys.argv[1]))
presence.start()
assert presence.hold(sys.argv[2])
print(presence.worker_key, flush=True)
time.sleep(120)
"""


@ON_PG
def test_a_reader_killed_with_sigkill_is_taken_over_and_counted_dead(pg: Engine, db_url: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, db_url, ROLE], stdout=subprocess.PIPE, env={**os.environ}
    )
    try:
        assert holder.stdout is not None
        key = int(holder.stdout.readline())
        me = _started(pg)
        try:
            assert not me.hold(ROLE) and me.alive(key)
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait(10)
            deadline = time.monotonic() + 10
            while not me.hold(ROLE):  # PostgreSQL ends the dead process's session at once
                assert time.monotonic() < deadline, "the mailbox was never taken over"
                time.sleep(0.1)
            assert not me.alive(key)
        finally:
            me.stop()
    finally:
        holder.kill()
        holder.wait(10)
        if holder.stdout is not None:
            holder.stdout.close()


@ON_PG
def test_a_presence_not_started_is_alone_and_leaves_no_lock_behind(pg: Engine) -> None:
    lone, worker = Presence(pg), _started(pg)
    try:
        assert lone.holds(ROLE) and lone.hold(ROLE)  # a one-off command: alone by definition
        assert lone.alive(worker.worker_key) and not lone.alive(12345)
        assert worker.hold(ROLE)  # nothing the lone one did kept the role
    finally:
        worker.stop()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_on_sqlite_the_only_worker_holds_everything(pg: Engine) -> None:
    presence = _started(pg)
    assert not presence.shared and presence.hold(ROLE) and presence.holds(ROLE)
    assert presence.alive(presence.worker_key) and not presence.alive(presence.worker_key + 1)


@ON_PG
def test_status_counts_running_workers_and_says_whether_one_reads_the_mailbox(pg: Engine) -> None:
    db.upgrade(pg)
    assert workers_running(pg) == 0 and role_held(pg, ROLE) is False
    first, second = _started(pg), _started(pg)
    try:
        assert workers_running(pg) == 2 and role_held(pg, ROLE) is False
        assert second.hold(ROLE)
        report = gather_status(pg, datetime.now(UTC), ROLE)
        assert (report.workers, report.mailbox_reader) == (2, True)
        assert "workers: 2 running; one of them reads the mailbox" in status_lines(report)
        second.stop()
        report = gather_status(pg, datetime.now(UTC), ROLE)
        assert (report.workers, report.mailbox_reader) == (1, False)
        assert any("none reads the mailbox" in note for note in report.notes)
    finally:
        first.stop()
        second.stop()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_status_on_sqlite_does_not_guess_about_workers(pg: Engine) -> None:
    db.upgrade(pg)
    report = gather_status(pg, datetime.now(UTC), ROLE)
    assert (report.workers, report.mailbox_reader) == (None, None)
    assert not any(line.startswith("workers:") for line in status_lines(report))
