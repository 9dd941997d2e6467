# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters that cannot be read get one line back when a sender can be found, never two.

Hostile Message-IDs leave no threading header in the reply (real SMTP: tests/e2e/test_unreadable_mail.py).
"""

from __future__ import annotations

import os

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.services.inbox.answers import UNREADABLE_LINE
from mailbot.store.models import Inbound, InboundState, Outbound
from mailbot.testing.fakes import FakeMailbox, FakeSource
from tests.services.game_helpers import parse, text
from tests.services.helpers import Wired, letter

SENDER = "alice@players.test"


def nested(depth: int, *, head: bytes = b"") -> bytes:
    """A letter whose parts nest ``depth`` levels deep: more than the e-mail library can walk."""
    top = b"From: " + SENDER.encode() + b"\r\nSubject: deep\r\nMessage-ID: <deep-%d@players.test>\r\n" % depth
    opening = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n) for n in range(depth)
    )
    closing = b"".join(b"\r\n--b%d--\r\n" % n for n in reversed(range(depth)))
    return top + head + opening + b"Content-Type: text/plain\r\n\r\nPING" + closing


async def _handle(wired: Wired, *raws: bytes) -> None:
    box = FakeMailbox()
    for raw in raws:
        box.deliver(raw)
    await wired.intake.poll(FakeSource(box), box.uidvalidity)
    wired.processor.process_pending()
    await wired.outbox.send_due()


def _rows(engine: Engine) -> list[Inbound]:
    with Session(engine) as session:
        return list(session.exec(select(Inbound).order_by(col(Inbound.id))))


async def test_a_letter_nested_two_thousand_deep_gets_one_line_back(engine: Engine) -> None:
    wired = Wired(engine)
    await _handle(wired, nested(2000), letter(sender="bob@players.test", subject="PING"))

    deep, ping = _rows(engine)
    assert deep.state is InboundState.PROCESSED and deep.reason.startswith("unreadable message: ")
    assert ping.state is InboundState.PROCESSED  # the batch went on
    answer, pong = wired.sink.sent
    assert answer.recipient == SENDER
    reply = parse(answer.raw)
    assert reply["Subject"] == "Re: deep"
    assert reply["In-Reply-To"] == "<deep-2000@players.test>"
    assert reply["Auto-Submitted"] == "auto-replied"
    lines = [line for line in text(parse(answer.raw)).splitlines() if line.strip()]
    assert lines[:3] == ["Hello,", "== Your letter could not be read ==", UNREADABLE_LINE]
    assert lines[3:] == ["-- ", "mailbot, the game moderator. Send HELP for the list of commands."]
    assert "PING: how your letter was read" in text(parse(pong.raw))


async def test_an_unreadable_letter_handled_again_is_not_answered_again(engine: Engine) -> None:
    wired = Wired(engine)
    await _handle(wired, nested(2000))
    with Session(engine) as session, session.begin():  # as a restore or a retry of the letter would
        session.get_one(Inbound, 1).state = InboundState.NEW
    wired.processor.process_pending()
    await wired.outbox.send_due()

    assert len(wired.sink.sent) == 1
    with Session(engine) as session:
        assert len(session.exec(select(Outbound)).all()) == 1
    assert _rows(engine)[0].state is InboundState.PROCESSED


@pytest.mark.parametrize(
    "head",
    [b"Auto-Submitted: auto-replied\r\n", b"Return-Path: <>\r\n", b"Precedence: bulk\r\n"],
    ids=["auto-replied", "null sender", "bulk"],
)
async def test_unreadable_machine_mail_is_never_answered(engine: Engine, head: bytes) -> None:
    wired = Wired(engine)
    await _handle(wired, nested(2000, head=head))

    (row,) = _rows(engine)
    assert row.state is InboundState.IGNORED
    assert wired.sink.sent == []


@pytest.mark.parametrize(
    "raw",
    [b"", b"\r\n\r\n", b"17 " + os.urandom(64).replace(b":", b"") + b"\n", b"just some text\n"],
    ids=["empty", "blank lines", "random bytes", "text"],
)
async def test_bytes_with_nobody_to_answer_are_shunted_with_their_reason(engine: Engine, raw: bytes) -> None:
    wired = Wired(engine)
    await _handle(wired, raw)

    (row,) = _rows(engine)
    assert row.state is InboundState.SHUNTED
    assert row.reason == "MessageFormatError: no header lines: not an e-mail message"
    assert row.traceback
    assert wired.sink.sent == []


@pytest.mark.parametrize(
    "message_id",
    [b"<" + b"x" * 5000 + b"@players.test>", b"<nul\x80here@players.test>", b"<[x]@players.test>"],
    ids=["5000 characters", "NUL as Dovecot stores it", "no atom"],
)
async def test_a_hostile_message_id_is_answered_without_threading_headers(
    engine: Engine, message_id: bytes
) -> None:
    wired = Wired(engine)
    raw = (
        b"From: " + SENDER.encode() + b"\r\nSubject: PING\r\nMessage-ID: " + message_id + b"\r\n\r\nPING\r\n"
    )
    await _handle(wired, raw)

    (sent,) = wired.sink.sent
    head = sent.raw.partition(b"\r\n\r\n")[0]
    assert b"In-Reply-To" not in head and b"References" not in head and b"=?" not in head
    assert "PING: how your letter was read" in text(parse(sent.raw))


async def test_a_from_of_twenty_thousand_addresses_has_nobody_to_answer_and_the_batch_goes_on(
    engine: Engine,
) -> None:
    """Read in bounded time (``mime.MAX_PARSED_HEADER``; it took 3.7 s of CPU): no sender, no answer."""
    wired = Wired(engine)
    addresses = ", ".join(f"a{n}@players.test" for n in range(20_000))
    hostile = (
        f"From: {addresses}\r\nSubject: PING\r\nMessage-ID: <many@players.test>\r\n\r\nPING\r\n".encode()
    )
    await _handle(wired, hostile, letter(sender="bob@players.test", subject="PING"))

    many, ping = _rows(engine)
    assert (many.sender, many.state, many.reason) == ("", InboundState.IGNORED, "no usable sender")
    assert ping.state is InboundState.PROCESSED
    (pong,) = wired.sink.sent
    assert pong.recipient == "bob@players.test"


@pytest.mark.parametrize(
    "sender",
    [
        "=?utf-8?q?=3Cbob=40players=2Etest=3E?=",
        "alice@plàyers.test",  # 8-bit header bytes, as some clients send them
        "böb@players.test",
    ],
    ids=["brackets-in-an-encoded-word", "a-domain-outside-ascii", "a-local-part-outside-ascii"],
)
async def test_a_sender_no_smtp_server_takes_is_not_answered(engine: Engine, sender: str) -> None:
    """Player trial: a From decoded to '<bob@players.test>' was answered; SMTP refused the reply,
    the row failed, the GM was told and ``mailbot status`` went red, all from one stranger's letter."""
    wired = Wired(engine)
    raw = f"From: {sender}\r\nSubject: PING\r\nMessage-ID: <odd@players.test>\r\n\r\nPING\r\n".encode()
    await _handle(wired, raw, letter(sender="bob@players.test", subject="PING"))
    odd, ping = _rows(engine)
    assert (odd.state, odd.reason) == (InboundState.IGNORED, "no usable sender"), odd.sender
    assert ping.state is InboundState.PROCESSED
    assert [sent.recipient for sent in wired.sink.sent] == ["bob@players.test"]
