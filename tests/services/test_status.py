# SPDX-License-Identifier: GPL-3.0-or-later
"""The operator's status from the store, and the optional GET /health endpoint."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.core.letter import RawMessage
from mailbot.services.health.status import Status, gather_status, serve_health, status_json, status_lines
from mailbot.services.inbox.intake import describe
from mailbot.store import repo
from mailbot.store.game_tables import Game, GameStatus
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from tests.services.game_helpers import Harness
from tests.services.helpers import letter


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return Harness(f"sqlite:///{tmp_path}/status.db")


def _running_game(h: Harness, grace_minutes: int = 0) -> int:
    game_id = h.create(deadline="48h")
    h.invite(game_id, "north", "a@players.test")
    h.invite(game_id, "south", "b@players.test")
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).grace_seconds = grace_minutes * 60
    return game_id


def _set_outbound(h: Harness, row_id: int, state: OutboundState) -> None:
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Outbound, row_id).state = state


def test_counts_by_state_and_the_next_deadline_includes_grace(harness: Harness) -> None:
    first = _running_game(harness, grace_minutes=30)
    second = _running_game(harness)
    with Session(harness.bot.engine) as session, session.begin():
        session.get_one(Game, second).status = GameStatus.PAUSED  # a paused game has no deadline
    harness.create()  # a third game still in setup
    _set_outbound(harness, 1, OutboundState.FAILED)
    status = gather_status(harness.bot.engine, harness.clock())
    deadline = harness.steps(first)[-1].deadline_at
    assert status.next_deadline is not None
    assert (status.next_deadline.game_id, status.next_deadline.due) == (
        first,
        deadline + timedelta(minutes=30),
    )
    assert status.games == {"setup": 1, "running": 1, "paused": 1, "finished": 0}
    rows = harness.outbox()
    assert status.outbox["failed"] == 1 and sum(status.outbox.values()) == len(rows)
    assert status.outbox["pending"] == len(rows) - 1
    assert status.failed == 1 and not status.ok
    assert any("outbox list --state failed" in note for note in status.notes)


def test_no_game_no_mail_is_ok_and_says_unknown(harness: Harness) -> None:
    status = gather_status(harness.bot.engine, harness.clock())
    assert status.ok and status.next_deadline is None and status.last_fetch is None
    text = "\n".join(status_lines(status))
    assert "last IMAP contact: unknown" in text and "next deadline: none" in text


def test_injected_letters_are_not_imap_contact_but_fetched_ones_are(harness: Harness) -> None:
    harness.bot.inject(letter(subject="PING"))  # stored under the mailbox "inject"
    assert gather_status(harness.bot.engine, harness.clock()).last_fetch is None
    arrived = datetime(2026, 11, 21, 11, 0, tzinfo=UTC)
    item = describe(RawMessage(uid=7, raw=letter(subject="HELP"), received_at=arrived))
    with Session(harness.bot.engine) as session, session.begin():
        repo.add_inbound(session, "INBOX", 42, [item], harness.clock())
        repo.set_cursor(session, "INBOX", 42, 7, harness.clock())
    status = gather_status(harness.bot.engine, harness.clock())
    assert (status.last_fetch, status.newest_received) == (harness.clock(), arrived)
    assert status.inbound["new"] == 2


def test_shunted_letters_make_the_status_not_ok_and_stand_out(harness: Harness) -> None:
    harness.bot.inject(letter(subject="PING"))
    with Session(harness.bot.engine) as session, session.begin():
        session.get_one(Inbound, 1).state = InboundState.SHUNTED
    status = gather_status(harness.bot.engine, harness.clock())
    assert status.shunted == 1 and not status.ok
    lines = status_lines(status)
    assert "shunted 1 <-- !!" in next(line for line in lines if line.startswith("inbound:"))
    assert lines[0].endswith("ATTENTION")
    data = json.loads(status_json(status))
    assert (data["ok"], data["shunted"], data["inbound"]["shunted"]) == (False, 1, 1)


def test_auto_replies_are_counted_by_reason(harness: Harness) -> None:
    harness.bot.inject(letter(subject="Risposta automatica: turno 5"))
    harness.bot.inject(letter(subject="Automatisch antwoord: beurt 5"))
    harness.bot.inject(letter(subject="PING", headers={"Precedence": "bulk"}))
    harness.bot.inject(letter(subject="PING"))
    harness.bot.handle_letters()
    status = gather_status(harness.bot.engine, harness.clock())
    assert status.ignored == {"automatic (vacation)": 2, "automatic (precedence)": 1}
    assert status.inbound["processed"] == 1 and status.ok
    assert "ignored: automatic (vacation) 2, automatic (precedence) 1" in status_lines(status)


async def _get(port: int, request: bytes) -> tuple[str, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    await writer.wait_closed()
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body


def _port(server: asyncio.Server) -> int:
    port: int = server.sockets[0].getsockname()[1]
    return port


async def test_health_answers_the_status_json_with_200_even_when_not_ok(harness: Harness) -> None:
    _running_game(harness)
    _set_outbound(harness, 1, OutboundState.FAILED)
    stop = asyncio.Event()
    server = await serve_health(0, lambda: gather_status(harness.bot.engine, harness.clock()), until=stop)
    port = _port(server)
    line, body = await _get(port, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert line == "HTTP/1.1 200 OK"
    data = json.loads(body)
    assert data["ok"] is False and data["outbox"]["failed"] == 1 and data["games"]["running"] == 1
    assert data["next_deadline"]["game_id"] == 1
    line, _ = await _get(port, b"GET / HTTP/1.1\r\n\r\n")
    assert line == "HTTP/1.1 404 Not Found"
    line, _ = await _get(port, b"POST /health HTTP/1.1\r\n\r\n")
    assert line == "HTTP/1.1 405 Method Not Allowed"
    stop.set()
    for _ in range(100):
        if not server.is_serving():
            break
        await asyncio.sleep(0.01)
    assert not server.is_serving()
    with pytest.raises(ConnectionRefusedError):
        await asyncio.open_connection("127.0.0.1", port)


async def test_health_answers_503_when_the_store_cannot_be_read() -> None:
    def broken() -> Status:
        raise RuntimeError("database is locked")

    server = await serve_health(0, broken)
    try:
        line, body = await _get(_port(server), b"GET /health HTTP/1.1\r\n\r\n")
    finally:
        server.close()
        await server.wait_closed()
    assert line == "HTTP/1.1 503 Service Unavailable"
    assert json.loads(body) == {"ok": False, "error": "RuntimeError: database is locked"}


# -- stalls: work due and untouched ------------------------------------------------------


def test_replies_due_and_none_sent_for_the_stall_time_make_the_status_not_ok(harness: Harness) -> None:
    _running_game(harness)  # its welcome letters and first reports wait in the outbox
    waiting = len(harness.outbox())
    with Session(harness.bot.engine) as session, session.begin():
        error = "transport: SSLCertVerificationError: certificate verify failed"
        session.get_one(Outbound, 1).last_error = error
    stall = timedelta(seconds=90)
    assert gather_status(harness.bot.engine, harness.clock(), stall=stall).ok  # just queued: not late
    harness.clock.advance(100)
    status = gather_status(harness.bot.engine, harness.clock(), stall=stall)
    assert not status.ok and [stall.loop for stall in status.stalls] == ["outbox"]
    reason = f"{waiting} replies due for 1 min 40 s, none sent"
    assert status.stalls[0].reason.startswith(reason)
    assert "SSLCertVerificationError" in status.stalls[0].reason
    assert f"!! stalled outbox: {reason}" in "\n".join(status_lines(status))
    assert json.loads(status_json(status))["stalls"][0]["loop"] == "outbox"

    _set_outbound(harness, 1, OutboundState.SENT)  # sending goes on: a backlog, not a stall
    with Session(harness.bot.engine) as session, session.begin():
        session.get_one(Outbound, 1).sent_at = harness.clock() - timedelta(seconds=10)
    assert gather_status(harness.bot.engine, harness.clock(), stall=stall).stalls == []


def test_letters_stored_and_none_handled_and_a_deadline_not_processed_are_stalls(harness: Harness) -> None:
    game_id = _running_game(harness)
    _set_outbound(harness, 1, OutboundState.SENT)  # the outbox is not what this test looks at
    with Session(harness.bot.engine) as session, session.begin():
        for row in harness.outbox():
            session.get_one(Outbound, row.id).state = OutboundState.SENT
    harness.bot.inject(letter(subject="PING"))
    harness.clock.advance(49 * 3600)  # the letter waited two days, the deadline passed
    status = gather_status(harness.bot.engine, harness.clock(), stall=timedelta(seconds=90))
    found = {stall.loop: stall.reason for stall in status.stalls}
    assert found["letters"] == "1 letter stored 2 d 1 h ago, none handled"
    assert found["deadlines"] == f"game {game_id} step T1.orders due 1 h 0 min ago, not processed"
    assert not status.ok
