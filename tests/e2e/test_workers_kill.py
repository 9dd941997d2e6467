# SPDX-License-Identifier: GPL-3.0-or-later
"""Two real ``mailbot run`` workers on one PostgreSQL store and one mailbox; one is killed -9.

During a burst of ORDERS letters the worker that reads the mailbox is killed with SIGKILL.
The other takes the mailbox over and finishes: every letter is handled exactly once (one
confirmation each, orders stored once), letters sent after the kill are read, and every
letter written goes out.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlmodel import Session, select

from mailbot.store import db
from mailbot.store.game_tables import OrderSet
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from mailbot.store.presence import reader_role, role_held, workers_running
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import BotProcess, deliver, wait_until

pytestmark = pytest.mark.slow  # spread over the test processes (tests/conftest.py)

GAMES = 6
ROUNDS = 12  # letters per player: 6 games x 2 seats x 12 = 144 letters


@pytest.fixture
def workers(mail_rig: MailRig, tmp_path: Path, db_url: str) -> Iterator[tuple[BotProcess, BotProcess]]:
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first = BotProcess(mail_rig, tmp_path / "first")
    first.use_store(db_url)
    second = BotProcess(mail_rig, tmp_path / "second")
    second.address = first.address  # the same mailbox and the same bot
    second.use_store(db_url)
    yield first, second
    first.stop()
    second.stop()


def _orders(sender: str, to: str, tag: str, n: int) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, f"{tag} orders {n}"
    msg["Message-ID"] = make_msgid(domain="players.test")
    attack = 1 + n % 3
    msg.set_content(f"ORDERS\nATTACK {attack}\nDEFEND {3 - attack}\nEND\n")
    return msg.as_bytes()


def _counts(url: str) -> tuple[list[Inbound], list[Outbound], list[OrderSet]]:
    engine = db.make_engine(url)
    try:
        with Session(engine) as session:
            return (
                list(session.exec(select(Inbound))),
                list(session.exec(select(Outbound))),
                list(session.exec(select(OrderSet))),
            )
    finally:
        engine.dispose()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
async def test_the_reader_killed_during_a_burst_loses_nothing_and_repeats_nothing(
    mail_rig: MailRig, workers: tuple[BotProcess, BotProcess], db_url: str
) -> None:
    first, second = workers
    letters: list[tuple[str, bytes]] = []
    for _ in range(GAMES):
        north, south = mail_rig.new_address(), mail_rig.new_address()
        _game, tags = first.seat_duel("gm@players.test", north, south)
        letters += [(p, _orders(p, first.address, tags[p], n)) for n in range(ROUNDS) for p in (north, south)]
    engine = db.make_engine(db_url)
    role = reader_role(first.address, "INBOX")
    try:
        first.start()
        await wait_until(lambda: role_held(engine, role), 30, "the first worker reading the mailbox")
        second.start()
        await wait_until(lambda: workers_running(engine) == 2, 30, "two workers running")

        before, after = letters[: len(letters) * 2 // 3], letters[len(letters) * 2 // 3 :]
        burst = asyncio.create_task(deliver(mail_rig, first.address, before, per_second=60))
        await wait_until(lambda: len(_counts(db_url)[0]) >= 30, 30, "the burst under way")
        assert first.proc is not None
        os.kill(first.proc.pid, signal.SIGKILL)  # the reader, mid-burst
        first.proc.wait(10)
        await burst
        await deliver(mail_rig, first.address, after, per_second=200)  # only the survivor reads these

        def finished() -> bool:
            inbound, outbound, _ = _counts(db_url)
            handled = [r for r in inbound if r.state is not InboundState.NEW]
            return len(handled) == len(letters) and all(r.state is OutboundState.SENT for r in outbound)

        await wait_until(finished, 90, "every letter handled and every confirmation sent")
        assert workers_running(engine) == 1 and role_held(engine, role)  # the survivor reads the mailbox
    finally:
        engine.dispose()

    inbound, outbound, orders = _counts(db_url)
    assert len(inbound) == len(letters)  # each stored once
    assert Counter(r.state for r in inbound) == {InboundState.PROCESSED: len(letters)}
    replies = Counter(r.inbound_id for r in outbound if r.inbound_id is not None)
    assert len(replies) == len(letters) and set(replies.values()) == {1}  # one confirmation each
    assert set(Counter(o.inbound_id for o in orders if o.inbound_id is not None).values()) == {1}
    assert "now holds mailbox:" in second.log_text()  # it took the mailbox over
