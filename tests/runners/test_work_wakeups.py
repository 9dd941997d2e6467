# SPDX-License-Identifier: GPL-3.0-or-later
"""What wakes the work loop of a worker that shares its store, and how long it may sleep: an
idle or waiting worker is woken by the others' notices (``store.wakeups``) and polls slowly,
as a safety net; while it hears nobody it polls as often as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot.runners import work
from mailbot.store import wakeups
from tests.services.game_helpers import Harness

ON_PG = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url, outbox_poll_seconds=30.0)
    yield harness
    harness.bot.engine.dispose()


@ON_PG
def test_a_batch_committed_elsewhere_wakes_only_a_worker_whose_letters_wait(h: Harness) -> None:
    loop = h.bot.work
    loop.heard(wakeups.HANDLED)
    assert not h.bot.wake.is_set()  # nothing waits here: no round for it
    h.bot.processor.waiting = 2
    loop.heard(wakeups.HANDLED)
    assert h.bot.wake.is_set()
    h.bot.wake.clear()
    h.bot.processor.waiting = 0
    for what in (wakeups.LETTERS, ""):  # letters stored elsewhere, or a notice maybe missed
        loop.heard(what)
        assert h.bot.wake.is_set()
        h.bot.wake.clear()


@ON_PG
def test_a_worker_that_hears_the_others_polls_slowly_and_backs_off_while_letters_wait(h: Harness) -> None:
    loop = h.bot.work
    loop.listening = lambda: True
    assert loop.sleep_seconds() == h.bot.settings.workers.poll_seconds == 5.0
    h.bot.processor.waiting = 1
    waits = [loop.sleep_seconds() for _ in range(7)]
    assert waits == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0]  # the notice of the batch wakes it sooner
    loop.heard(wakeups.HANDLED)  # that notice came: the next wait starts short again
    assert loop.sleep_seconds() == work.WAITING_RETRY
    h.bot.processor.waiting = 0
    loop.sleep_seconds()
    h.bot.processor.waiting = 1
    assert loop.sleep_seconds() == work.WAITING_RETRY  # a new wait starts short
    assert loop.sleep_seconds() == 2 * work.WAITING_RETRY


@ON_PG
def test_a_batch_committed_elsewhere_during_a_round_has_the_letters_it_left_waiting_tried_soon(
    h: Harness,
) -> None:
    loop = h.bot.work
    loop.listening = lambda: True
    h.bot.processor.waiting = 1
    for _ in range(4):
        loop.sleep_seconds()  # waited long already: the back-off is at 0.8 s
    h.bot.processor.waiting = 0  # a new round is under way; nothing waits yet
    loop.heard(wakeups.HANDLED)  # another worker commits a batch meanwhile
    assert not h.bot.wake.is_set()
    h.bot.processor.waiting = 1  # the round ends leaving letters that may have waited for it
    assert loop.sleep_seconds() == work.WAITING_RETRY


@ON_PG
def test_a_worker_that_hears_nobody_polls_as_often_as_before(h: Harness) -> None:
    loop = h.bot.work
    assert loop.sleep_seconds() == work.DEAF_POLL_SECONDS
    h.bot.processor.waiting = 1
    assert [loop.sleep_seconds() for _ in range(3)] == [work.WAITING_RETRY] * 3


def test_alone_on_sqlite_a_worker_does_not_poll_for_other_workers(tmp_path: Path) -> None:
    harness = Harness(f"sqlite:///{tmp_path}/alone.db", outbox_poll_seconds=30.0)
    try:
        assert harness.bot.work.sleep_seconds() == 30.0
    finally:
        harness.bot.engine.dispose()
