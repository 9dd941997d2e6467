# SPDX-License-Identifier: GPL-3.0-or-later
"""Outages a real ``mailbot run`` heals by itself, with real parts: its PostgreSQL server stopped
and started while letters arrive (one worker and two), its SMTP server presenting a certificate
nobody trusts and then refusing the login, its SQLite file locked by another process across a
deadline. Each ends with every letter answered exactly once, soon after the fault ends, and
no game paused.

The outages here last 12 s, not the minutes of the field: long enough for every back-off to
reach its cap (8 s, after 7.5 s of doubling from 0.5 s), so what heals them heals a long one,
and the suite stays short.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlmodel import Session, select

from mailbot.store import db
from mailbot.store.game_tables import Game, GameStatus, StepRow, StepState
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from mailbot.store.presence import reader_role, role_held, workers_running
from mailbot.testing.mailrig import MailRig, free_ports
from tests.e2e.botproc import BotProcess, deliver, parse, wait_until
from tests.e2e.faultsmtp import FaultSmtp
from tests.e2e.pgcluster import PgCluster

pytestmark = pytest.mark.slow  # spread over the test processes (tests/conftest.py)

OUTAGE = float(os.environ.get("MAILBOT_TEST_OUTAGE_SECONDS", "12"))  # 60 for the field's length
#: how soon after the fault ends every letter must be answered (the issue's bound)
HEALED_WITHIN = 60.0


def _letter(sender: str, to: str, subject: str, body: str) -> tuple[str, bytes, str]:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg_id = make_msgid(domain="players.test")
    msg["Message-ID"] = msg_id
    msg.set_content(body)
    return sender, msg.as_bytes(), msg_id


async def _deliver(rig: MailRig, to: str, letters: list[tuple[str, bytes, str]], per_second: float) -> None:
    await deliver(rig, to, [(sender, raw) for sender, raw, _msg_id in letters], per_second)


def _rows(url: str) -> tuple[list[Inbound], list[Outbound], list[Game]]:
    engine = db.make_engine(url)
    try:
        with Session(engine) as session:
            return (
                list(session.exec(select(Inbound))),
                list(session.exec(select(Outbound))),
                list(session.exec(select(Game))),
            )
    except Exception:  # the store is still away (the test polls through the outage)
        return [], [], []
    finally:
        engine.dispose()


def _all_answered(url: str, count: int) -> bool:
    inbound, outbound, _ = _rows(url)
    handled = [row for row in inbound if row.state is InboundState.PROCESSED]
    return len(handled) == count and bool(outbound) and all(r.state is OutboundState.SENT for r in outbound)


async def _replies_in_mailboxes(rig: MailRig, players: list[str]) -> Counter[str]:
    """In-Reply-To of every letter the players' mailboxes hold: what reached them, how often."""
    seen: Counter[str] = Counter()
    for player in players:
        for raw in await rig.fetch_all(player, rig.player_password):
            seen[str(parse(raw)["In-Reply-To"] or "")] += 1
    return seen


def _assert_answered_once(url: str, letters: list[tuple[str, bytes, str]]) -> None:
    inbound, outbound, games = _rows(url)
    assert Counter(row.state for row in inbound) == {InboundState.PROCESSED: len(letters)}
    replies = Counter(row.inbound_id for row in outbound if row.inbound_id is not None)
    assert set(replies.values()) == {1} and len(replies) == len(letters)  # one reply a letter
    assert {row.state for row in outbound} == {OutboundState.SENT}
    assert {game.status for game in games} == {GameStatus.RUNNING}  # no game paused


# -- PostgreSQL stopped and started while letters arrive ------------------------------------


@pytest.fixture
def cluster() -> Iterator[PgCluster]:
    pg = PgCluster()
    pg.start()
    yield pg
    pg.close()


@pytest.mark.parametrize("count", [1, 2], ids=["one worker", "two workers"])
async def test_postgresql_stopped_while_letters_arrive(
    mail_rig: MailRig, tmp_path: Path, cluster: PgCluster, count: int
) -> None:
    bots = []
    for n in range(count):
        (tmp_path / f"w{n}").mkdir()
        bot = BotProcess(mail_rig, tmp_path / f"w{n}")
        bot.address = bots[0].address if bots else bot.address  # one mailbox, one bot
        bot.use_store(cluster.url)
        bots.append(bot)
    address, players, letters = bots[0].address, [], []
    for _ in range(3):
        north, south = mail_rig.new_address(), mail_rig.new_address()
        _game, tags = bots[0].seat_duel("gm@players.test", north, south)
        players += [north, south]
        for n in range(10):
            for player in (north, south):
                attack = 1 + n % 3
                body = f"ORDERS\nATTACK {attack}\nDEFEND {3 - attack}\nEND\n"
                letters.append(_letter(player, address, f"{tags[player]} orders {n}", body))
    engine = db.make_engine(cluster.url)
    try:
        for bot in bots:
            bot.start()
        await wait_until(lambda: role_held(engine, reader_role(address, "INBOX")), 30, "a worker reading")
        await wait_until(lambda: workers_running(engine) == count, 30, "the workers running")
        engine.dispose()
        third = len(letters) // 3
        await _deliver(mail_rig, address, letters[:third], per_second=40)
        cluster.stop()  # mid-burst: connections cut
        down = time.monotonic()
        await _deliver(mail_rig, address, letters[third : 2 * third], per_second=40)
        await asyncio.sleep(max(OUTAGE - (time.monotonic() - down), 0))
        cluster.start()
        back = time.monotonic()
        await _deliver(mail_rig, address, letters[2 * third :], per_second=40)
        await wait_until(
            lambda: _all_answered(cluster.url, len(letters)), HEALED_WITHIN, "every letter answered"
        )
        healed = time.monotonic() - back
    finally:
        for bot in bots:
            bot.stop()
        engine.dispose()
    _assert_answered_once(cluster.url, letters)
    reached = await _replies_in_mailboxes(mail_rig, players)
    assert [reached[msg_id] for _s, _r, msg_id in letters] == [1] * len(letters)  # each once, none twice
    assert healed < HEALED_WITHIN
    print(f"{count} worker(s): every letter answered {healed:.1f} s after PostgreSQL was back")


# -- SMTP: a certificate nobody trusts, then 535, then fine --------------------------------


@pytest.fixture
def fault_smtp(mail_rig: MailRig, tmp_path: Path) -> Iterator[FaultSmtp]:
    assert mail_rig.dovecot is not None
    server = FaultSmtp(mail_rig.dovecot.cert_path, mail_rig.dovecot.key_path, tmp_path)
    server.start()
    yield server
    server.stop()


async def test_an_untrusted_certificate_then_535_then_the_server_right(
    mail_rig: MailRig, tmp_path: Path, fault_smtp: FaultSmtp
) -> None:
    bot = BotProcess(mail_rig, tmp_path, smtp={"port": fault_smtp.port})
    players = [mail_rig.new_address() for _ in range(4)]
    pings = [_letter(p, bot.address, "PING", "PING\n") for p in players]
    try:
        bot.start()
        fault_smtp.mode = "badcert"
        await _deliver(mail_rig, bot.address, pings[:2], per_second=10)
        await asyncio.sleep(OUTAGE)
        fault_smtp.mode = "refuse"
        await _deliver(mail_rig, bot.address, pings[2:], per_second=10)
        await asyncio.sleep(OUTAGE)
        assert fault_smtp.messages() == [] and fault_smtp.logins_refused >= 1
        fault_smtp.mode = "ok"
        right = time.monotonic()
        await wait_until(lambda: len(fault_smtp.messages()) >= len(pings), HEALED_WITHIN, "every reply sent")
        await asyncio.sleep(2)  # nothing more comes: no reply twice
    finally:
        bot.stop()
    messages = fault_smtp.messages()
    answered = Counter(str(parse(m.raw)["In-Reply-To"]) for m in messages)
    assert [answered[msg_id] for _s, _r, msg_id in pings] == [1] * len(pings)
    assert len(messages) == len(pings)
    last = max(m.at for m in messages) - right
    assert last < 15  # the probe's back-off stops growing at 8 s
    log = bot.log_text()
    assert "SSLCertVerificationError" in log and "SMTP transport back" in log
    print(f"every reply sent {last:.1f} s after the SMTP server was right")


# -- SQLite locked by another process across a deadline --------------------------------------

LOCKER = (
    "import sqlite3, sys, time\n"
    "c = sqlite3.connect(sys.argv[1]); c.execute('BEGIN IMMEDIATE')\n"
    "print('locked', flush=True); time.sleep(float(sys.argv[2]))\n"
)


#: the deadline's distance from the game's start: time for the bot to start and confirm the orders
DEADLINE_IN = 25.0


def _deadline_in(url: str, game_id: int, seconds: float) -> float:
    """Move the open step's deadline to ``seconds`` from now (before the bot starts); its monotonic time."""
    engine = db.make_engine(url)
    try:
        with Session(engine) as session, session.begin():
            step = session.exec(
                select(StepRow).where(StepRow.game_id == game_id, StepRow.state == StepState.OPEN)
            ).one()
            step.deadline_at = datetime.now(UTC) + timedelta(seconds=seconds)
    finally:
        engine.dispose()
    return time.monotonic() + seconds


async def test_a_sqlite_file_locked_across_a_deadline_pauses_no_game(
    mail_rig: MailRig, tmp_path: Path
) -> None:
    bot = BotProcess(mail_rig, tmp_path)
    north, south = mail_rig.new_address(), mail_rig.new_address()
    game_id, tags = bot.seat_duel("gm@players.test", north, south, deadline="1m")
    deadline = _deadline_in(bot.db_url, game_id, DEADLINE_IN)  # a minute is the shortest a GM sets
    orders = [
        _letter(p, bot.address, f"{tags[p]} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
        for p in (north, south)
    ]
    pings = [_letter(mail_rig.new_address(), bot.address, "PING", "PING\n") for _ in range(6)]
    try:
        bot.start()
        await _deliver(mail_rig, bot.address, orders, per_second=10)
        await wait_until(lambda: _all_answered(bot.db_url, 2), 30, "the orders confirmed")
        await asyncio.sleep(max(deadline - OUTAGE / 2 - time.monotonic(), 0))  # the deadline in the lock
        locker = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LOCKER, str(tmp_path / "bot.db"), str(OUTAGE), stdout=subprocess.PIPE
        )
        assert locker.stdout is not None and (await locker.stdout.readline()).strip() == b"locked"
        assert time.monotonic() < deadline, "the orders took so long that the deadline passed unlocked"
        await _deliver(mail_rig, bot.address, pings, per_second=10)  # letters arrive, the deadline passes
        await locker.wait()
        free = time.monotonic()

        def resolved() -> bool:
            engine = db.make_engine(bot.db_url)
            try:
                with Session(engine) as session:
                    steps = session.exec(select(StepRow).where(StepRow.game_id == game_id)).all()
                    return any(s.key == "T1.orders" and s.state is StepState.RESOLVED for s in steps)
            finally:
                engine.dispose()

        await wait_until(
            lambda: resolved() and _all_answered(bot.db_url, 8), HEALED_WITHIN, "the deadline and letters"
        )
        healed = time.monotonic() - free
    finally:
        bot.stop()
    _assert_answered_once(bot.db_url, orders + pings)
    assert f"game {game_id}: paused" not in bot.log_text()
    print(f"deadline processed and every letter answered {healed:.1f} s after the lock ended")


# -- a stalled outbox is seen from outside ------------------------------------------------


async def test_a_stalled_outbox_shows_in_status_and_status_exits_non_zero(
    mail_rig: MailRig, tmp_path: Path
) -> None:
    """Nothing listens where the bot sends: its replies wait. ``mailbot status`` (another process,
    reading the store) says so within ``stall_seconds`` (90 s shipped, 5 s here) and exits 1."""
    bot = BotProcess(mail_rig, tmp_path, smtp={"port": free_ports(1)[0]}, bot={"stall_seconds": 5.0})
    status = [sys.executable, "-m", "mailbot", "status", "--json", "--config", str(bot.config)]
    try:
        bot.start()
        ping = _letter(mail_rig.new_address(), bot.address, "PING", "PING\n")
        await _deliver(mail_rig, bot.address, [ping], 10)
        handled = lambda: any(r.state is InboundState.PROCESSED for r in _rows(bot.db_url)[0])  # noqa: E731
        await wait_until(handled, 30, "the PING handled")
        asked = time.monotonic()
        while True:
            done = subprocess.run(status, capture_output=True, text=True, check=False, timeout=60)
            report = json.loads(done.stdout)
            if report["stalls"] or time.monotonic() - asked > 60:
                break
            assert done.returncode == 0 and report["ok"] is True
            await asyncio.sleep(1)
    finally:
        bot.stop()
    assert done.returncode == 1 and report["ok"] is False
    (stall,) = report["stalls"]
    assert stall["loop"] == "outbox" and stall["reason"].startswith("1 reply due for ")
    assert "ConnectionRefusedError" in stall["reason"] or "Connect call failed" in stall["reason"]
    assert time.monotonic() - asked < 30
