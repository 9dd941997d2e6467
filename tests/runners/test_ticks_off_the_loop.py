# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline ticks in worker threads: the event loop stays free, every game is judged once,
and the reports of the games done go out while later games are still being resolved."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from sqlmodel import Session

from mailbot.letterproc import MailboxHealth
from mailbot.runners import deadlines as deadlines_runner
from mailbot.runners import games as games_runner
from mailbot.services.inbox import inbound
from mailbot.store.game_tables import StepState
from tests.services.game_helpers import Harness
from tests.services.helpers import letter

NORTH, SOUTH = "north@players.test", "south@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _ready(h: Harness, games: int) -> list[int]:
    """Running duels whose both sides sent orders; the clock past their deadline."""
    ids = []
    for _ in range(games):
        game_id = h.create()
        h.invite(game_id, "north", NORTH)
        h.invite(game_id, "south", SOUTH)
        for seat, address in (("north", NORTH), ("south", SOUTH)):
            secret = h.seat(game_id, seat).secret
            h.mail(address, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
        ids.append(game_id)
    h.clock.advance(49 * 3600)
    return ids


def _slow_games(h: Harness, monkeypatch: pytest.MonkeyPatch, seconds: float) -> list[tuple[int, int]]:
    """Each game's tick takes ``seconds`` longer (in its worker thread); records (game, letters sent
    so far) as each tick begins."""
    real = h.bot.ticker._tick_in
    started: list[tuple[int, int]] = []

    def slow(session: Session, game_id: int, watch: MailboxHealth) -> str:
        started.append((game_id, len(h.sink.sent)))
        time.sleep(seconds)
        return real(session, game_id, watch)

    monkeypatch.setattr(h.bot.ticker, "_tick_in", slow)
    return started


def _resolved(h: Harness, game_id: int) -> list[str]:
    return [step.key for step in h.steps(game_id) if step.state is StepState.RESOLVED]


def test_the_loop_stays_free_and_every_game_is_judged_once(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = _ready(h, 3)
    _slow_games(h, monkeypatch, 0.1)
    beats = 0

    async def scenario() -> list[str]:
        nonlocal beats
        ticking = asyncio.create_task(h.bot.deadlines.tick_all())
        while not ticking.done():
            beats += 1
            await asyncio.sleep(0.005)
        return await ticking

    done = asyncio.run(scenario())

    assert done == [f"game {g}: processed (deadline)" for g in games]
    assert beats > 20  # the loop ran all along (0.3 s of ticking, a beat every 5 ms)
    for game_id in games:
        assert _resolved(h, game_id) == ["setup", "T1.orders"]


def test_reports_go_out_while_later_games_are_still_resolving(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Games are ticked a few at a time, one transaction for as many as ``TICK_SECONDS`` take:
    # at 0.2 s a game and 0.5 s a try, at most three games a try, so games 1-3 are committed
    # before the last begins. The last game waits for their six reports (at most 3 s: a loaded
    # machine's outbox sent four of them in the 0.4 s it had before); reports sent only after
    # the tick would never come in that wait.
    monkeypatch.setattr(games_runner, "TICK_SECONDS", 0.5)
    games = _ready(h, 6)
    h.flush()
    before = len(h.sink.sent)
    started = _slow_games(h, monkeypatch, 0.2)
    slow = h.bot.ticker._tick_in

    def last_waits(session: Session, game_id: int, watch: MailboxHealth) -> str:
        if game_id == games[-1]:
            waited = time.monotonic() + 3.0
            while len(h.sink.sent) - before < 6 and time.monotonic() < waited:
                time.sleep(0.01)
        return slow(session, game_id, watch)

    monkeypatch.setattr(h.bot.ticker, "_tick_in", last_waits)

    async def scenario() -> None:
        stop = asyncio.Event()
        working = asyncio.create_task(h.bot.work.loop(stop))
        await h.bot.deadlines.tick_all()
        for _ in range(200):  # the last game's reports
            if not h.bot.outbox.next_due():
                break
            await asyncio.sleep(0.01)
        stop.set()
        h.bot.wake.set()
        await working

    asyncio.run(scenario())

    assert [game for game, _ in started] == games
    sent_when_the_last_began = started[-1][1] - before
    assert sent_when_the_last_began >= 6  # at least the first three games' two reports each were out
    assert len(h.sink.sent) - before == 2 * len(games)


def test_a_wake_up_during_a_tick_makes_it_go_round_again_never_beside_it(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    rounds = 0
    running = 0
    most = 0

    async def tick_all() -> list[str]:
        nonlocal rounds, running, most
        rounds += 1
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.05)
        running -= 1
        return []

    monkeypatch.setattr(h.bot.deadlines, "tick_all", tick_all)

    async def scenario() -> None:
        first = asyncio.create_task(h.bot.deadlines.tick_games())
        await asyncio.sleep(0.01)
        await h.bot.deadlines.tick_games()  # comes while the first runs: returns at once
        await h.bot.deadlines.tick_games()  # so does this one; both ask for one more round
        await first

    asyncio.run(scenario())

    assert (rounds, most) == (2, 1)


async def test_the_sender_is_woken_for_games_done_at_most_every_so_often(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A wake-up for each game of a long tick had the sender claim two or three rows at a time.
    monkeypatch.setattr(deadlines_runner, "TICK_WAKE_SECONDS", 60.0)

    async def woken_by(line: str) -> bool:
        h.bot.wake.clear()
        game_done(line)
        await asyncio.sleep(0)  # the wake-up is handed to the loop from the tick's thread
        return h.bot.wake.is_set()

    game_done = h.bot.deadlines.sender_waker(asyncio.get_running_loop())
    assert not await woken_by("game 1: idle")  # nothing to send
    assert await woken_by("game 2: processed (deadline)")
    assert not await woken_by("game 3: processed (deadline)")  # within the minute: sent with the next
    monkeypatch.setattr(deadlines_runner, "TICK_WAKE_SECONDS", 0.0)
    game_done = h.bot.deadlines.sender_waker(asyncio.get_running_loop())
    assert [await woken_by(f"game {n}: reminded") for n in range(3)] == [True] * 3


def test_replies_go_out_while_a_long_round_of_letters_is_still_being_handled(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of letters is one long round: each batch's replies are sent as it commits, not
    all when the round ends."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", SOUTH)
    h.flush()
    secret = h.seat(game_id, "north").secret
    for n in range(4):
        h.bot.inject(letter(sender=NORTH, subject=f"[DU-{game_id} {secret}] PING {n}"))
    monkeypatch.setattr(inbound, "BATCH_LETTERS", 1)  # a batch (one commit) a letter
    real = h.bot.processor._process_batch
    sent_after: list[int] = []  # replies out when each batch began

    def slow(ids: list[int] | None) -> tuple[int, int]:
        before = len(h.sink.sent) - h.seen
        done = real(ids)
        if done[0]:  # a batch that took a letter (PostgreSQL's last claim finds none left)
            sent_after.append(before)
            time.sleep(0.3)  # the batch is committed; the round goes on
        return done

    monkeypatch.setattr(h.bot.processor, "_process_batch", slow)

    asyncio.run(h.bot.work.once())

    assert len(sent_after) == 4  # one round handled the four letters
    assert sent_after[-1] >= 2  # the first batches' replies were out before the last batch began
    assert len(h.sink.sent) - h.seen == 4  # and the last one by the end of the round
