# SPDX-License-Identifier: GPL-3.0-or-later
"""Loops that cannot die: a failing game, letter handling or mailbox read is logged, parked and passed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from mailbot.runners import games as games_runner
from mailbot.services.base import transactions
from mailbot.store import writers
from mailbot.store.game_tables import GameStatus, StepRow, StepState
from tests.services.game_helpers import Harness, tag_of, to
from tests.services.helpers import GM

NORTH, SOUTH = "north@players.test", "south@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _running(h: Harness) -> int:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    code = h.seat(game_id, "south").invite_code
    h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n")
    return game_id


def _break(h: Harness, game_id: int) -> None:
    """Leave the open step with a snapshot its plugin cannot load (as a rules bug would)."""
    with Session(h.bot.engine) as session, session.begin():
        step = session.exec(
            select(StepRow).where(StepRow.game_id == game_id, StepRow.state == StepState.OPEN)
        ).one()
        step.snapshot = {"broken": True}
        session.add(step)


def test_a_game_that_raises_is_paused_and_its_gm_told_while_the_others_go_on(h: Harness) -> None:
    broken, healthy = _running(h), _running(h)
    for game_id in (broken, healthy):  # both sides send: the interlock has no reason to pause
        for seat, address in (("north", NORTH), ("south", SOUTH)):
            secret = h.seat(game_id, seat).secret
            h.mail(address, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nEND\n")
    _break(h, broken)
    h.flush()
    letters = h.tick(49 * 3600)  # a first failure may be a passing fault: tried again, not paused
    assert h.game(broken).status is GameStatus.RUNNING
    letters += h.tick()  # the same error again, the store answering: paused
    assert h.bot.tick_once() == [f"game {healthy}: idle"]  # the broken game is paused, not retried
    assert h.game(broken).status is GameStatus.PAUSED
    assert h.game(healthy).status is GameStatus.RUNNING
    assert [s.key for s in h.steps(healthy) if s.state is StepState.RESOLVED] == ["setup", "T1.orders"]
    gm = [m["Subject"] for m in to(letters, GM)]
    assert any("error in the game's tick" in subject for subject in gm)
    told = [
        m for m in to(letters, NORTH) if "paused" in m["Subject"] and tag_of(m).startswith(f"[DU-{broken}")
    ]
    assert told, "the broken game's players hear that it is paused"
    assert "KeyError" not in str(told[0]), "players are not shown the error text"


async def test_the_work_loop_survives_a_failure_and_goes_on(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = h.bot.processor.process_pending

    def flaky() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the store went away")
        return real()

    monkeypatch.setattr(h.bot.processor, "process_pending", flaky)
    monkeypatch.setattr("mailbot.runners.work.WORK_BACKOFF_MIN", 0.01)
    stop = asyncio.Event()
    loop = asyncio.create_task(h.bot.work.loop(stop))
    await asyncio.sleep(0.2)
    h.bot.wake.set()
    await asyncio.sleep(0.2)
    stop.set()
    h.bot.wake.set()
    await asyncio.wait_for(loop, 5)
    assert len(calls) >= 2
    assert h.bot.loop_failures["work"] == 1


async def test_the_reading_loop_survives_a_non_imap_failure(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = asyncio.Event()
    calls = []

    async def serve(source: object, _stop: asyncio.Event) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("a letter the store cannot hold")
        stop.set()

    monkeypatch.setattr(h.bot.reader, "_serve", serve)
    h.bot.settings.imap.reconnect_min = 0.01
    await asyncio.wait_for(h.bot.reader.loop(stop), 5)
    assert len(calls) == 2
    assert h.bot.loop_failures["intake"] == 1


async def test_the_work_loop_survives_the_store_failing_while_it_waits(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between rounds the loop asks the store when the outbox is next due: a store that fails
    then (PostgreSQL shutting down) is backed off like any other failure; the loop lives on."""
    import sqlalchemy as sa

    real, calls = h.bot.outbox.next_due, []

    def failing_once() -> object:
        calls.append(1)
        if len(calls) == 1:
            shutting = Exception("FATAL: the database system is shutting down")
            raise sa.exc.OperationalError("SELECT", {}, shutting, connection_invalidated=True)
        return real()

    monkeypatch.setattr(h.bot.outbox, "next_due", failing_once)
    monkeypatch.setattr("mailbot.runners.work.WORK_BACKOFF_MIN", 0.01)
    stop = asyncio.Event()
    loop = asyncio.create_task(h.bot.work.loop(stop))
    for _ in range(100):
        if len(calls) >= 2:
            break
        await asyncio.sleep(0.05)
    assert not loop.done(), "the work loop ended"
    stop.set()
    h.bot.wake.set()
    await asyncio.wait_for(loop, 5)
    assert len(calls) >= 2 and h.bot.loop_failures["work"] == 1


def _both_sent(h: Harness, game_id: int) -> None:
    for seat, address in (("north", NORTH), ("south", SOUTH)):
        secret = h.seat(game_id, seat).secret
        h.mail(address, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nEND\n")


def _commits(h: Harness, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The tick's commits from now on (its letters were handled: a round of none commits on
    PostgreSQL); a try takes all four games however long they take (a busy test machine)."""
    monkeypatch.setattr(games_runner, "TICK_SECONDS", 60.0)
    h.bot.ticker.handle_letters = lambda: 0
    commits: list[int] = []
    sa.event.listen(h.bot.engine, "commit", lambda _connection: commits.append(1))
    return commits


def test_games_due_together_are_ticked_in_one_transaction(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [_running(h) for _ in range(4)]
    for game_id in games:
        _both_sent(h, game_id)
    h.flush()
    commits = _commits(h, monkeypatch)
    h.clock.advance(49 * 3600)

    lines = h.bot.tick_once()

    assert lines == [f"game {game_id}: processed (deadline)" for game_id in games]
    assert len(commits) == 1, "four games, one transaction (runners.games.TICK_GAMES)"
    for game_id in games:
        assert [s.key for s in h.steps(game_id) if s.state is StepState.RESOLVED] == ["setup", "T1.orders"]
    assert len(h.flush()) == 2 * len(games)


def test_a_try_reads_its_games_rows_a_few_games_at_a_time(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each game, its seats, open step, orders and chain head are read for ``TICK_AHEAD``
    games at once, not a query each game (on PostgreSQL a game's rows are read once its lock
    is held, as before)."""
    games = [_running(h) for _ in range(4)]
    for game_id in games:
        _both_sent(h, game_id)
    h.flush()
    _commits(h, monkeypatch)
    monkeypatch.setattr(games_runner, "TICK_AHEAD", 3)
    asked: list[str] = []
    sa.event.listen(h.bot.engine, "before_cursor_execute", lambda *a: asked.append(" ".join(a[2].split())))
    h.clock.advance(49 * 3600)

    lines = h.bot.tick_once()

    assert lines == [f"game {game_id}: processed (deadline)" for game_id in games]
    reads = {
        "game": "SELECT game.id,",
        "seats": "SELECT seat.id,",
        "open steps": "SELECT step.id,",
        "orders": "SELECT order_set.id,",
    }
    counted = {name: sum(1 for s in asked if s.startswith(start)) for name, start in reads.items()}
    if h.bot.engine.dialect.name == "sqlite":
        assert counted == {"game": 2, "seats": 2, "open steps": 2, "orders": 2}, "3 games, then 1"
        assert sum(1 for s in asked if "max(chain.position)" in s) == 2, "the chain heads, likewise"
        # The steps the try opened are numbered without a write each (``number_now``): they
        # are written with the reading ahead of the fourth game and at the commit.
        assert sum(1 for s in asked if s.startswith("INSERT INTO step ")) == 2
    else:
        assert counted["game"] == 4, "PostgreSQL: each game read once its lock is held"


def test_a_game_that_raises_among_others_costs_them_nothing_and_nothing_is_said_twice(
    h: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [_running(h) for _ in range(4)]
    for game_id in games:
        _both_sent(h, game_id)
    broken = games[2]
    _break(h, broken)  # the third of the four: the two before it were ticked in the same try
    h.flush()
    commits = _commits(h, monkeypatch)
    h.clock.advance(49 * 3600)

    with caplog.at_level(logging.INFO, logger="mailbot"):
        lines = h.bot.tick_once()

    healthy = [game_id for game_id in games if game_id != broken]
    assert lines == [
        f"game {game_id}: " + ("error, tried again" if game_id == broken else "processed (deadline)")
        for game_id in games
    ]
    assert len(commits) == 3, "the try of four rolled back; then one transaction a game, the broken one none"
    for game_id in healthy:
        assert [s.key for s in h.steps(game_id) if s.state is StepState.RESOLVED] == ["setup", "T1.orders"]
        said = [
            r for r in caplog.records if r.getMessage().startswith(f"game {game_id} step T1.orders resolved")
        ]
        assert len(said) == 1, "the rolled-back try's lines were held, not written"
    assert [s.key for s in h.steps(broken) if s.state is StepState.RESOLVED] == ["setup"]
    assert len(h.flush()) == 2 * len(healthy)


def test_a_writer_waiting_for_the_lock_ends_each_try_after_one_game(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite the outbox's claims and sent marks wait for the tick's transaction: while one
    waits, a try takes no further game and the tick lets it in before it begins again."""
    if h.bot.engine.dialect.name != "sqlite":
        pytest.skip("a SQLite file's write lock")
    games = [_running(h) for _ in range(3)]
    for game_id in games:
        _both_sent(h, game_id)
    h.flush()
    commits = _commits(h, monkeypatch)
    monkeypatch.setattr(transactions, "HAND_OVER", 0.01)  # it never gets in: nobody really waits
    waits = writers.slots_for(h.bot.engine.url.database or "")
    h.clock.advance(49 * 3600)
    waits.add(1)
    try:
        lines = h.bot.tick_once()
    finally:
        waits.add(-1)

    assert lines == [f"game {game_id}: processed (deadline)" for game_id in games]
    assert len(commits) == 3, "a transaction a game while another writer waits"
