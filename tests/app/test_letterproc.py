# SPDX-License-Identifier: GPL-3.0-or-later
"""The letter process's rounds (mailbot/letterproc.py) against a real SQLite file: a round that
fails says why and leaves the process serving; a process that cannot start says so at once."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
import time
from multiprocessing.context import ForkServerProcess
from pathlib import Path

import pytest

from mailbot.app import Bot, letter_worker
from mailbot.letterproc import LetterProcess, LetterProcessError
from mailbot.settings import BotSettings, Settings, StoreSettings
from mailbot.store import db, writers
from tests.services.helpers import letter


def _settings(path: Path) -> Settings:
    bot = BotSettings(address="bot@x.test", handling_process=True)
    return Settings(store=StoreSettings(url=f"sqlite:///{path}"), bot=bot)


def test_a_failed_round_is_reported_and_the_process_goes_on(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "bot.db")
    letters = LetterProcess(settings, build=letter_worker)
    letters.start()
    try:
        first = letters.pid
        with pytest.raises(LetterProcessError, match="failed a round: OperationalError"):
            letters.handle()  # no schema yet: the store refuses the round
        engine = db.make_engine(settings.store.url)
        db.upgrade(engine)
        engine.dispose()
        done = letters.handle()
        assert (done.handled, done.waiting) == (0, False)
        assert letters.pid == first  # the same process served both rounds
    finally:
        letters.stop()
    assert letters.pid is None


def test_a_process_that_cannot_start_says_so(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the store's folder would be")
    letters = LetterProcess(_settings(blocked / "bot.db"), build=letter_worker)
    with pytest.raises(LetterProcessError, match="ended as it started"):
        letters.start()
    assert letters.pid is None


def test_a_fork_server_that_cannot_start_is_a_letter_process_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No fork server (its socket's folder cannot be made, fork refused): the same error as a
    process that ended as it started, which the moderator answers by handling letters itself."""

    def no_server(_self: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ForkServerProcess, "start", no_server)
    letters = LetterProcess(_settings(tmp_path / "bot.db"), build=letter_worker)
    with pytest.raises(LetterProcessError, match=r"could not start: .*No space left"):
        letters.start()
    assert letters.pid is None


def test_letter_processes_are_forked_from_a_server_that_imported_the_moderator(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "bot.db")
    engine = db.make_engine(settings.store.url)
    db.upgrade(engine)
    engine.dispose()
    first, second = LetterProcess(settings, build=letter_worker), LetterProcess(settings, build=letter_worker)
    try:
        first.start()
        second.start()
        parents = {_parent(first.pid), _parent(second.pid)}
        assert len(parents) == 1 and os.getpid() not in parents  # one server, not this process
        (server,) = parents
        assert _parent(server) == os.getpid()
    finally:
        first.stop()
        second.stop()


def _parent(pid: int | None) -> int:
    assert pid is not None
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[1])


async def test_a_moderator_whose_letter_process_cannot_start_handles_letters_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from mailbot.app import Bot

    def refuse(_self: LetterProcess) -> None:
        raise LetterProcessError("the letter process ended as it started (exit code 1)")

    monkeypatch.setattr(LetterProcess, "start", refuse)
    bot = Bot(_settings(tmp_path / "bot.db"))
    bot.upgrade()
    try:
        await bot.letters.start()
        assert bot.letters.process is None
        assert "letters are handled in this process" in caplog.text
        assert await bot.letters.round(wait=True) == 0  # the round runs here
    finally:
        bot.engine.dispose()


def test_the_letter_process_is_counted_here_while_it_waits_for_the_write_lock(tmp_path: Path) -> None:
    """The moderator's outbox and reader see the letter process wait (``store.writers``), as the
    letter process's tick sees them: one count for the SQLite file, a slot each process."""
    settings = _settings(tmp_path / "bot.db")
    engine = db.make_engine(settings.store.url)
    db.upgrade(engine)
    engine.dispose()
    here = Bot(settings)
    here.inject(letter(sender="someone@players.test", subject="hello", body="HELP\n"))
    letters = LetterProcess(settings, build=letter_worker)
    letters.start()
    database = str(tmp_path / "bot.db")
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # the letter process's round must wait for it
        rounds: list[int] = []
        asked = threading.Thread(target=lambda: rounds.append(letters.handle().handled))
        asked.start()
        for _ in range(400):
            if writers.others_wait(database):
                break
            time.sleep(0.005)
        assert writers.others_wait(database), "its wait is counted in this process"
        holder.execute("COMMIT")
        asked.join(10)
        assert rounds == [1]
        assert not writers.others_wait(database)
    finally:
        holder.close()
        letters.stop()
        here.engine.dispose()


def test_without_shared_memory_the_letter_process_still_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The count of waiting writers is an aid, not a need: where shared memory cannot be had,
    each process counts its own and the rounds go on."""

    def no_shared_memory(*_args: object) -> None:
        raise OSError("no shared memory")

    monkeypatch.setattr(multiprocessing.get_context("forkserver"), "RawArray", no_shared_memory)
    settings = _settings(tmp_path / "bot.db")
    engine = db.make_engine(settings.store.url)
    db.upgrade(engine)
    engine.dispose()
    letters = LetterProcess(settings, build=letter_worker)
    letters.start()
    try:
        assert letters.handle().handled == 0
    finally:
        letters.stop()
