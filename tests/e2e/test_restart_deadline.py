# SPDX-License-Identifier: GPL-3.0-or-later
"""Orders that reach the mail server while the bot is stopped count by their receipt time.

A real ``mailbot run`` process, real Dovecot and SMTP, real time: the open step of a running duel
has an absolute deadline a few seconds ahead. The bot is stopped; both seats' orders arrive before
the deadline, one seat's correction after it. The bot starts again after the deadline: the step is
resolved with the orders that came in time (none defaulted, the game not paused), the late
correction is refused with the reason, and the players get their reports.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.store.game_tables import Game, GameStatus, OrderSet, StepRow, StepState
from mailbot.store.models import Inbound, InboundState
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import BotProcess, parse, ping, text_of

pytestmark = pytest.mark.slow  # spread over the test processes (tests/conftest.py)

LEAD = 15  # seconds from game creation to the deadline: start, welcome letters, stop, send
ON_TIME = {"north": ["ATTACK 3", "DEFEND 0"], "south": ["ATTACK 1", "DEFEND 2"]}
LATE = ["ATTACK 2", "DEFEND 1"]


@pytest.fixture
def bot(mail_rig: MailRig, tmp_path: Path, db_url: str) -> Iterator[BotProcess]:
    proc = BotProcess(mail_rig, tmp_path)
    proc.use_store(db_url)
    yield proc
    proc.stop()


def _orders(tag: str, sender: str, to: str, lines: list[str]) -> EmailMessage:
    return ping(sender, to, subject=f"Re: {tag} orders", body="ORDERS\n" + "\n".join(lines) + "\nEND\n")


async def _mail_where(
    rig: MailRig, address: str, wanted: Callable[[EmailMessage], bool], timeout: float = 60.0
) -> EmailMessage:
    """The first letter in ``address``'s INBOX for which ``wanted`` holds, waiting for it."""
    deadline = time.monotonic() + timeout
    while True:
        for raw in await rig.fetch_all(address, rig.player_password):
            msg = parse(raw)
            if wanted(msg):
                return msg
        if time.monotonic() > deadline:
            raise AssertionError(f"{address}: no such letter after {timeout} s")
        await asyncio.sleep(0.2)


def _subject_has(word: str) -> Callable[[EmailMessage], bool]:
    return lambda msg: word in str(msg["Subject"])


async def _sleep_until(instant: datetime) -> None:
    await asyncio.sleep(max((instant - datetime.now(UTC)).total_seconds(), 0))


async def test_orders_received_while_stopped_count_after_a_restart_past_the_deadline(
    mail_rig: MailRig, bot: BotProcess
) -> None:
    gm, north, south = (mail_rig.new_address() for _ in range(3))
    deadline = (datetime.now(UTC) + timedelta(seconds=LEAD)).replace(microsecond=0)
    game_id, tags = bot.seat_duel(gm, north, south, deadline=deadline.strftime("%Y-%m-%d %H:%M:%SZ"))
    seats = {"north": north, "south": south}

    bot.start()
    for address in seats.values():
        await _mail_where(mail_rig, address, _subject_has("Welcome"), timeout=30)
    bot.stop()

    for name, address in seats.items():
        await mail_rig.send(_orders(tags[address], address, bot.address, ON_TIME[name]))
    in_time_at = datetime.now(UTC)
    # INTERNALDATE has whole seconds: keep clear of the deadline's second on both sides.
    assert in_time_at < deadline - timedelta(seconds=1), "too slow to deliver before the deadline"
    await _sleep_until(deadline + timedelta(seconds=2))
    late = _orders(tags[north], north, bot.address, LATE)
    await mail_rig.send(late)

    bot.start()
    reports = {
        name: await _mail_where(mail_rig, address, _subject_has("resolved"))
        for name, address in seats.items()
    }
    refusal = await _mail_where(
        mail_rig, north, lambda msg: msg["In-Reply-To"] == late["Message-ID"], timeout=30
    )
    assert bot.proc is not None and bot.proc.poll() is None

    assert "reached the mail server after the deadline" in text_of(refusal.as_bytes())
    for name, report in reports.items():
        assert f"[DU-{game_id} " in str(report["Subject"]), name
    eng = bot.engine()
    try:
        with Session(eng) as session:
            game = session.get_one(Game, game_id)
            steps = list(
                session.exec(select(StepRow).where(StepRow.game_id == game_id).order_by(col(StepRow.id)))
            )
            first = next(step for step in steps if step.turn == 1)  # after the set-up step
            orders = list(session.exec(select(OrderSet).where(OrderSet.step_id == first.id)))
            inbound = list(session.exec(select(Inbound).order_by(col(Inbound.id))))
            assert game.status is GameStatus.RUNNING, game.pause_reason
            assert first.state is StepState.RESOLVED
            assert first.deadline_at == deadline
            current = {row.seat: row for row in orders if row.current}
            assert {seat: row.lines for seat, row in current.items()} == ON_TIME
            assert not any(row.defaulted for row in orders)
            assert all(row.received_at < deadline for row in current.values())
            assert len(orders) == 2, "the late correction was stored"
            assert [row.state for row in inbound] == [InboundState.PROCESSED] * 3
            assert inbound[2].received_at > deadline
            assert [step.state for step in steps if step.turn == 1] == [StepState.RESOLVED, StepState.OPEN]
    finally:
        eng.dispose()
