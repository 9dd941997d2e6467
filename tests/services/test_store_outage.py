# SPDX-License-Identifier: GPL-3.0-or-later
"""A store that is unavailable for a while (the SQLite file locked by another process, a lost
connection) pauses no game, parks no letter and leaves no reply behind: the work waits, and is
done once the store is back. Only an error that repeats with the store answering pauses a game."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from mailbot.errors import StoreUnavailable
from mailbot.store.game_tables import GameStatus, StepState
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from tests.services.game_helpers import Harness, to
from tests.services.helpers import GM, letter

NORTH, SOUTH = "north@players.test", "south@players.test"
#: another process takes the file's write lock and keeps it until told to let go
LOCKER = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1]); c.execute('BEGIN IMMEDIATE')\n"
    "print('locked', flush=True); sys.stdin.readline()\n"
)


@contextmanager
def locked_by_another_process(path: Path) -> Iterator[None]:
    proc = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield
    finally:
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(10)
        proc.stdout.close()


def _short_waits(engine: Engine) -> None:
    """Wait 0.2 s for the lock instead of the shipped 10 s (the test would take minutes)."""

    def pragma(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.execute("PRAGMA busy_timeout=200")

    sa.event.listen(engine, "connect", pragma)
    engine.dispose()


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/bot.db")
    _short_waits(harness.bot.engine)
    yield harness
    harness.bot.engine.dispose()


def _running_with_orders(h: Harness) -> int:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", SOUTH)
    for seat, address in (("north", NORTH), ("south", SOUTH)):
        secret = h.seat(game_id, seat).secret
        h.mail(address, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nEND\nWAIT\n")
    return game_id


def test_a_tick_on_a_locked_file_pauses_no_game_and_runs_once_the_file_is_free(
    h: Harness, tmp_path: Path
) -> None:
    game_id = _running_with_orders(h)
    h.clock.advance(49 * 3600)  # the deadline has passed
    with locked_by_another_process(tmp_path / "bot.db"):
        assert h.bot.tick_once() == [f"game {game_id}: store unavailable, tried again"]
        assert h.bot.tick_once() == [f"game {game_id}: store unavailable, tried again"]
    assert h.game(game_id).status is GameStatus.RUNNING
    assert not any("paused" in row.subject for row in h.outbox())
    letters = h.tick()
    assert h.game(game_id).status is GameStatus.RUNNING
    assert [s.key for s in h.steps(game_id) if s.state is StepState.RESOLVED] == ["setup", "T1.orders"]
    assert len(to(letters, NORTH)) == 1 and len(to(letters, SOUTH)) == 1  # each report once
    assert not to(letters, GM) or not any("error" in m["Subject"] for m in to(letters, GM))


def test_letters_wait_for_a_locked_file_and_are_answered_once_it_is_free(h: Harness, tmp_path: Path) -> None:
    for n in range(3):
        h.bot.inject(letter(sender=f"p{n}@players.test", subject="PING"))
    with locked_by_another_process(tmp_path / "bot.db"):
        for _ in range(2):
            with pytest.raises(StoreUnavailable):
                h.bot.processor.process_pending()
        with Session(h.bot.engine) as session:
            assert {row.state for row in session.exec(select(Inbound))} == {InboundState.NEW}
    assert h.bot.processor.process_pending() == 3
    replies = h.flush()
    assert sorted(str(m["To"]) for m in replies) == [f"p{n}@players.test" for n in range(3)]
    with Session(h.bot.engine) as session:
        assert {row.state for row in session.exec(select(Inbound))} == {InboundState.PROCESSED}


def test_a_letter_the_store_refuses_while_it_takes_other_writes_is_parked_after_three_tries(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error that looks like the store's but comes with one letter alone must not hold every
    other letter back: with the store writable, the third refusal parks that letter."""
    h.bot.inject(letter(sender="odd@players.test", subject="PING"))
    real = h.bot.processor._handle

    def refuse(session: Session, row: Inbound) -> None:
        if row.sender == "odd@players.test":
            raise sa.exc.OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))
        real(session, row)

    monkeypatch.setattr(h.bot.processor, "_handle", refuse)
    for _ in range(2):
        with pytest.raises(StoreUnavailable):
            h.bot.processor.process_pending()
    with pytest.raises(StoreUnavailable):
        h.bot.processor.process_pending()  # the third: parked
    h.bot.inject(letter(sender="fine@players.test", subject="PING"))
    assert h.bot.processor.process_pending() == 1
    with Session(h.bot.engine) as session:
        states = {row.sender: row.state for row in session.exec(select(Inbound))}
    assert states == {"odd@players.test": InboundState.SHUNTED, "fine@players.test": InboundState.PROCESSED}


def test_an_error_in_a_game_pauses_it_only_when_it_repeats(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = _running_with_orders(h)
    h.clock.advance(49 * 3600)
    real, calls = h.bot.turns.tick, []

    def once_broken(session: Session, game: Any, interlock: Any) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a passing fault")
        return real(session, game, interlock)

    monkeypatch.setattr(h.bot.turns, "tick", once_broken)
    assert h.bot.tick_once() == [f"game {game_id}: error, tried again"]
    assert h.game(game_id).status is GameStatus.RUNNING
    assert h.bot.tick_once() == [f"game {game_id}: processed (deadline)"]


def test_the_outbox_settles_a_run_the_store_failed_under(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """SMTP took the letters, then the store refused their ``sent`` marks: the worker lives, so
    no sweep would hand the rows back. Its next run marks them sent (none goes out twice) and
    puts back what was never handed over."""
    for n in range(6):
        h.bot.inject(letter(sender=f"p{n}@players.test", subject="PING"))
    h.bot.processor.process_pending()
    outbox = h.bot.outbox
    real = outbox._commit_sent

    def refused(_ids: list[int]) -> None:
        raise sa.exc.OperationalError("UPDATE outbound", {}, Exception("server closed the connection"))

    monkeypatch.setattr(outbox, "_commit_sent", refused)
    report = asyncio.run(outbox.send_due())
    assert report.stopped and report.sent >= 1
    with Session(h.bot.engine) as session:
        left = [row.state for row in session.exec(select(Outbound))]
    assert OutboundState.SENDING in left  # what the failed run left behind
    monkeypatch.setattr(outbox, "_commit_sent", real)
    asyncio.run(outbox.send_due())
    with Session(h.bot.engine) as session:
        assert {row.state for row in session.exec(select(Outbound))} == {OutboundState.SENT}
    sent = [s.recipient for s in h.sink.sent]
    assert sorted(sent) == [f"p{n}@players.test" for n in range(6)]  # each exactly once
