# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot run`` handles letters in a process of its own (mailbot/letterproc.py), on the real
mail rig: that process killed -9 during a burst is replaced and loses nothing; the moderator
killed -9 takes it along; ``handling_process = false`` keeps letters in the one process. (Deadline
ticks there: ``tests/app/test_letter_process_ticks.py``, and with a real ``mailbot run``,
``tests/e2e/test_restart_deadline.py``, the letter process being the default.)"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections import Counter
from pathlib import Path

import pytest

from mailbot.store.models import InboundState
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import BotProcess, deliver, wait_until
from tests.e2e.test_workers_kill import _orders
from tests.procs import alive

_STARTED = re.compile(r"letters are handled in process (\d+)")


def _children(bot: BotProcess) -> list[int]:
    return [int(pid) for pid in _STARTED.findall(bot.log_text())]


def _letters(bot: BotProcess, rig: MailRig, games: int, rounds: int) -> list[tuple[str, bytes]]:
    letters: list[tuple[str, bytes]] = []
    for _ in range(games):
        north, south = rig.new_address(), rig.new_address()
        _game, tags = bot.seat_duel("gm@players.test", north, south)
        letters += [(p, _orders(p, bot.address, tags[p], n)) for n in range(rounds) for p in (north, south)]
    return letters


def _answered_once(bot: BotProcess, count: int) -> None:
    inbound, outbound = bot.rows()
    assert len(inbound) == count
    assert Counter(r.state for r in inbound) == {InboundState.PROCESSED: count}
    replies = Counter(r.inbound_id for r in outbound if r.inbound_id is not None)
    assert len(replies) == count and set(replies.values()) == {1}  # one confirmation each


@pytest.mark.slow
async def test_a_killed_letter_process_is_replaced_and_loses_nothing(
    mail_rig: MailRig, tmp_path: Path
) -> None:
    bot = BotProcess(mail_rig, tmp_path, bot={"handling_process": True})
    letters = _letters(bot, mail_rig, games=4, rounds=10)
    bot.start()
    try:
        await wait_until(lambda: _children(bot), 30, "the letter process started")
        (first,) = _children(bot)
        assert first != (bot.proc.pid if bot.proc else None)
        burst = asyncio.create_task(deliver(mail_rig, bot.address, letters, per_second=50))
        await wait_until(lambda: len(bot.rows()[1]) >= 20, 30, "the first confirmations queued")
        os.kill(first, signal.SIGKILL)  # mid-burst
        await burst

        def done() -> bool:
            inbound, _ = bot.rows()
            return len(inbound) == len(letters) and all(r.state is not InboundState.NEW for r in inbound)

        await wait_until(done, 60, "every letter handled")
        _answered_once(bot, len(letters))
        # Killed between rounds it is found ended; killed in one, the round fails and is redone.
        assert len(_children(bot)) == 2
        assert re.search(r"letter process (had ended|died) \(exit code -9\)", bot.log_text())
        assert bot.proc is not None and bot.proc.poll() is None  # the moderator never stopped
    finally:
        bot.stop()
    assert not any(alive(pid) for pid in _children(bot))  # a stopped moderator stops its process


async def test_the_letter_process_ends_with_a_killed_moderator(mail_rig: MailRig, tmp_path: Path) -> None:
    bot = BotProcess(mail_rig, tmp_path, bot={"handling_process": True})
    bot.start()
    try:
        await wait_until(lambda: _children(bot), 30, "the letter process started")
        (child,) = _children(bot)
        assert bot.proc is not None
        os.kill(bot.proc.pid, signal.SIGKILL)
        bot.proc.wait(10)
        await wait_until(lambda: not alive(child), 15, "the orphaned letter process gone")
    finally:
        bot.stop()


async def test_letters_stay_in_the_one_process_when_configured(mail_rig: MailRig, tmp_path: Path) -> None:
    bot = BotProcess(mail_rig, tmp_path, bot={"handling_process": False})
    letters = _letters(bot, mail_rig, games=1, rounds=3)
    bot.start()
    try:
        await deliver(mail_rig, bot.address, letters, per_second=50)

        def done() -> bool:
            inbound, _ = bot.rows()
            return len(inbound) == len(letters) and all(r.state is not InboundState.NEW for r in inbound)

        await wait_until(done, 30, "every letter handled")
        _answered_once(bot, len(letters))
        assert not _children(bot)
    finally:
        bot.stop()
