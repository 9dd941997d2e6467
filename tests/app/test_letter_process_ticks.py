# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline ticks in the letter process (``LetterProcess.tick``), against SQLite and PostgreSQL:
every running game judged there, each game's line passed back as it is done, the moderator's
view of its mailbox (``MailboxHealth``) obeyed, a failed tick reported and the process still serving."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mailbot.app import letter_worker
from mailbot.letterproc import LetterProcess, LetterProcessError, MailboxHealth
from mailbot.store.game_tables import GameStatus
from tests.services.game_helpers import Harness
from tests.services.helpers import GM

NORTH, SOUTH = "north@players.test", "south@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)  # its clock is a week behind the process's: every deadline has passed
    harness.bot.settings.bot.handling_process = True
    yield harness
    harness.bot.engine.dispose()


@pytest.fixture
def letters(h: Harness) -> Iterator[LetterProcess]:
    process = LetterProcess(h.bot.settings, build=letter_worker)
    process.start()
    yield process
    process.stop()


def _running(h: Harness, *, orders: bool) -> int:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    code = h.seat(game_id, "south").invite_code
    h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n")
    for seat, address in (("north", NORTH), ("south", SOUTH)) if orders else ():
        secret = h.seat(game_id, seat).secret
        h.mail(address, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nEND\n")
    return game_id


def test_every_game_is_judged_there_and_said_as_it_is_done(h: Harness, letters: LetterProcess) -> None:
    silent, ordered = _running(h, orders=False), _running(h, orders=True)
    said: list[str] = []
    lines = letters.tick(MailboxHealth(mailbox_read=True, imap_failures=()), said.append)
    assert lines == said
    assert lines[0] == f"game {silent}: paused"  # every seat silent: the interlock asks the GM
    assert lines[1].startswith(f"game {ordered}: processed")
    assert [s.key for s in h.steps(ordered)][-1] == "T1.bid"  # the next step is open
    assert h.game(silent).status is GameStatus.PAUSED
    assert any(row.recipient == GM and "paused" in row.subject for row in h.outbox())


def test_a_mailbox_not_yet_read_holds_every_deadline(h: Harness, letters: LetterProcess) -> None:
    game_id = _running(h, orders=True)
    lines = letters.tick(MailboxHealth(mailbox_read=False, imap_failures=()), lambda _line: None)
    assert lines == [f"game {game_id}: idle"]
    assert [s.key for s in h.steps(game_id)][-1] == "T1.orders"


def test_a_failed_tick_is_reported_and_the_process_goes_on(h: Harness, letters: LetterProcess) -> None:
    game_id = _running(h, orders=True)
    first = letters.pid
    with h.bot.engine.begin() as conn:  # the store refuses the tick's first query
        conn.exec_driver_sql("ALTER TABLE game RENAME TO game_away")
    try:
        with pytest.raises(LetterProcessError, match="failed a tick"):
            letters.tick(MailboxHealth(mailbox_read=False, imap_failures=()), lambda _line: None)
    finally:
        with h.bot.engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE game_away RENAME TO game")
    assert letters.tick(MailboxHealth(mailbox_read=False, imap_failures=()), lambda _line: None) == [
        f"game {game_id}: idle"
    ]
    assert letters.pid == first


def test_the_moderator_ticks_there_and_is_woken_to_send(h: Harness, letters: LetterProcess) -> None:
    game_id = _running(h, orders=True)
    h.bot.letters.process = letters
    h.bot.wake.clear()
    (line,) = asyncio.run(h.bot.deadlines.tick_all())  # not an async test: the set-up runs loops of its own
    assert line.startswith(f"game {game_id}: processed")
    assert h.bot.wake.is_set()


def test_a_tick_the_letter_process_cannot_do_is_done_in_the_moderator(
    h: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    game_id = _running(h, orders=True)

    def died(_self: LetterProcess, _watch: MailboxHealth, _done: object) -> list[str]:
        raise LetterProcessError("the letter process died (exit code -9)")

    monkeypatch.setattr(LetterProcess, "tick", died)
    # never started: its tick is the one above
    h.bot.letters.process = LetterProcess(h.bot.settings, build=letter_worker)
    h.clock.advance(49 * 3600)
    (line,) = asyncio.run(h.bot.deadlines.tick_all())  # not an async test: the set-up runs loops of its own
    assert line.startswith(f"game {game_id}: processed")
    assert "died (exit code -9); this tick is done in the moderator's process" in caplog.text


def test_a_tick_cut_short_here_leaves_no_answer_for_the_next_request(
    h: Harness, letters: LetterProcess
) -> None:
    for _ in range(2):
        _running(h, orders=False)

    def cut(_line: str) -> None:
        raise RuntimeError("the moderator's event loop has closed")

    with pytest.raises(RuntimeError):
        letters.tick(MailboxHealth(mailbox_read=False, imap_failures=()), cut)  # the second line is unread
    assert letters.pid is None  # that process is ended, not asked again
    done = letters.handle()  # a new process answers this request, not the old tick's rest
    assert (done.handled, done.waiting) == (0, False)
