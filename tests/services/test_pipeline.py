# SPDX-License-Identifier: GPL-3.0-or-later
"""The mail pipeline's services on SQLite and PostgreSQL, with fake mail adapters."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.store import repo
from mailbot.store.models import Inbound, InboundState, MailboxCursor, Outbound, OutboundState
from mailbot.testing.fakes import FakeMailbox, FakeSource
from tests.services.helpers import GM, Wired, letter


def _inbound(engine: Engine) -> list[Inbound]:
    with Session(engine) as session:
        return list(session.exec(select(Inbound).order_by(col(Inbound.id))))


def _outbound(engine: Engine) -> list[Outbound]:
    with Session(engine) as session:
        return list(session.exec(select(Outbound).order_by(col(Outbound.id))))


def _text(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


async def test_intake_stores_raw_mail_moves_cursor_and_flags_after_commit(engine: Engine) -> None:
    box = FakeMailbox(uidvalidity=7)
    raws = [letter(subject=f"PING {i}") for i in range(250)]
    for raw in raws:
        box.deliver(raw)
    wired, source = Wired(engine), FakeSource(box)

    result = await wired.intake.poll(source, box.uidvalidity)

    assert (result.fetched, result.stored) == (250, 250)
    assert max(source.fetch_sizes) <= 100
    rows = _inbound(engine)
    assert [row.raw for row in rows] == raws
    assert {row.state for row in rows} == {InboundState.NEW}
    assert box.seen == set(range(1, 251))
    with Session(engine) as session:
        cursor = session.get_one(MailboxCursor, "INBOX")
    assert (cursor.uidvalidity, cursor.last_uid) == (7, 250)


async def test_same_message_id_twice_is_stored_once(engine: Engine) -> None:
    box = FakeMailbox()
    raw = letter(message_id="dup-1@players.test")
    box.deliver(raw)
    box.deliver(raw.replace(b"PING", b"PING", 1) + b"\n")  # a second delivery, bytes may differ
    wired = Wired(engine)

    result = await wired.intake.poll(FakeSource(box), box.uidvalidity)

    assert (result.fetched, result.stored) == (2, 1)
    wired.processor.process_pending()
    assert len(_outbound(engine)) == 1


async def test_without_message_id_the_content_hash_deduplicates(engine: Engine) -> None:
    box = FakeMailbox()
    raw = letter(message_id=None)
    box.deliver(raw)
    box.deliver(raw)
    box.deliver(letter(message_id=None, subject="HELP"))
    result = await Wired(engine).intake.poll(FakeSource(box), box.uidvalidity)
    assert (result.fetched, result.stored) == (3, 2)


async def test_uidvalidity_change_rereads_without_reprocessing(engine: Engine) -> None:
    box = FakeMailbox(uidvalidity=1)
    for i in range(5):
        box.deliver(letter(subject=f"PING {i}"))
    wired, source = Wired(engine), FakeSource(box)
    await wired.intake.poll(source, box.uidvalidity)
    wired.processor.process_pending()

    box.renumber(uidvalidity=2)
    box.deliver(letter(subject="PING new"))
    result = await wired.intake.poll(source, box.uidvalidity)
    wired.processor.process_pending()

    assert (result.fetched, result.stored) == (6, 1)
    assert len(_inbound(engine)) == 6
    assert len(_outbound(engine)) == 6


async def test_reconcile_flags_mail_stored_before_a_crash(engine: Engine) -> None:
    box = FakeMailbox()
    for _ in range(3):
        box.deliver(letter())
    wired, source = Wired(engine), FakeSource(box)
    await wired.intake.poll(source, box.uidvalidity)
    box.seen.clear()  # as if the process died between the commit and STORE \Seen

    await wired.intake.reconcile(source, box.uidvalidity)

    assert box.seen == {1, 2, 3}
    assert (await wired.intake.poll(source, box.uidvalidity)).fetched == 0


async def test_ping_reply_is_threaded_automatic_and_multipart(engine: Engine) -> None:
    box = FakeMailbox()
    box.deliver(letter(subject="ping", body="PING\nhelp\n", message_id="orig-1@players.test"))
    wired = Wired(engine)
    await wired.intake.poll(FakeSource(box), box.uidvalidity)

    assert wired.processor.process_pending() == 1
    report = await wired.outbox.send_due()

    assert report.sent == 1
    sent = wired.sink.sent[0]
    msg = email.message_from_bytes(sent.raw, policy=email.policy.default)
    assert sent.recipient == "alice@players.test"
    assert msg["In-Reply-To"] == "<orig-1@players.test>"
    assert "<orig-1@players.test>" in msg["References"]
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg.get_content_type() == "multipart/alternative"
    text = _text(sent.raw)
    assert "From: alice@players.test" in text
    assert "line 1: PING" in text and "line 2: HELP" in text
    assert _outbound(engine)[0].state is OutboundState.SENT
    assert _inbound(engine)[0].state is InboundState.PROCESSED


async def test_unrecognised_line_is_quoted_with_a_pointer_to_help(engine: Engine) -> None:
    box = FakeMailbox()
    box.deliver(letter(subject="hello", body="FROBNICATE the carriers\nHELP\n"))
    wired = Wired(engine)
    await wired.intake.poll(FakeSource(box), box.uidvalidity)
    wired.processor.process_pending()
    await wired.outbox.send_due()

    text = _text(wired.sink.sent[0].raw)
    assert 'Line 1: "FROBNICATE the carriers"' in text
    assert "send HELP for the list" in text
    assert "PING" in text  # the help section lists the commands


async def test_auto_replies_bounces_and_lists_are_ignored_never_answered(engine: Engine) -> None:
    box = FakeMailbox()
    box.deliver(letter(headers={"Auto-Submitted": "auto-replied"}))
    box.deliver(letter(headers={"Precedence": "bulk"}))
    box.deliver(letter(headers={"List-Id": "<wargames.lists.example>"}))
    box.deliver(letter(sender="MAILER-DAEMON@mx.example.test"))
    box.deliver(letter(subject="Out of Office: away until Monday"))
    box.deliver(letter(sender="bot@example.test"))
    wired = Wired(engine)
    await wired.intake.poll(FakeSource(box), box.uidvalidity)

    wired.processor.process_pending()

    rows = _inbound(engine)
    assert {row.state for row in rows} == {InboundState.IGNORED}
    assert all(row.reason for row in rows)
    assert _outbound(engine) == []


async def test_too_large_letter_gets_a_short_answer(engine: Engine) -> None:
    box = FakeMailbox()
    box.deliver(letter(body="PING\n" + "x" * 80 + "\n" * 5000 + "y" * 300_000))
    wired = Wired(engine)
    await wired.intake.poll(FakeSource(box), box.uidvalidity)
    wired.processor.process_pending()
    await wired.outbox.send_due()

    answer = " ".join(_text(wired.sink.sent[0].raw).split())
    assert "too large" in answer and "at most 256 kB, their text at most 64,000 characters" in answer


async def test_a_failing_handler_shunts_the_letter_and_the_loop_goes_on(engine: Engine) -> None:
    box = FakeMailbox()
    box.deliver(letter(subject="PING"))
    box.deliver(letter(subject="HELP"))
    wired = Wired(engine)

    def broken(*_args: object) -> None:
        raise RuntimeError("handler bug")

    wired.processor.handlers["PING"] = broken
    await wired.intake.poll(FakeSource(box), box.uidvalidity)
    wired.processor.process_pending()

    first, second = _inbound(engine)
    assert first.state is InboundState.SHUNTED
    assert first.traceback is not None and "handler bug" in first.traceback
    assert second.state is InboundState.PROCESSED
    assert [row.inbound_id for row in _outbound(engine)] == [second.id]


async def test_temporary_failures_back_off_then_deliver(engine: Engine) -> None:
    wired = Wired(engine)
    box = FakeMailbox()
    box.deliver(letter())
    await wired.intake.poll(FakeSource(box), 1)
    wired.processor.process_pending()
    wired.sink.fail_with = "temporary"

    first = await wired.outbox.send_due()
    again = await wired.outbox.send_due()  # not due yet: nothing tried
    row = _outbound(engine)[0]

    assert (first.retried, again.retried) == (1, 0)
    assert row.state is OutboundState.PENDING and row.attempts == 1
    assert row.last_error is not None and "421" in row.last_error
    assert (row.next_attempt_at - wired.clock()).total_seconds() == 10
    wired.sink.fail_with = None
    wired.clock.advance(10)
    assert (await wired.outbox.send_due()).sent == 1
    assert _outbound(engine)[0].state is OutboundState.SENT


async def test_backoff_doubles_and_gives_up_after_max_attempts(engine: Engine) -> None:
    wired = Wired(engine)
    box = FakeMailbox()
    box.deliver(letter())
    await wired.intake.poll(FakeSource(box), 1)
    wired.processor.process_pending()
    wired.sink.fail_with = "temporary"
    delays = []
    for _ in range(4):
        await wired.outbox.send_due()
        row = _outbound(engine)[0]
        delays.append((row.next_attempt_at - wired.clock()).total_seconds())
        wired.clock.advance(1000)
    assert delays[:3] == [10, 20, 40]
    assert _outbound(engine)[0].state is OutboundState.FAILED


async def test_permanent_failure_is_kept_and_the_gm_is_told(engine: Engine) -> None:
    wired = Wired(engine)
    box = FakeMailbox()
    box.deliver(letter(sender="ghost@nowhere.test"))
    await wired.intake.poll(FakeSource(box), 1)
    wired.processor.process_pending()
    wired.sink.permanent_for.add("ghost@nowhere.test")

    report = await wired.outbox.send_due()

    failed, notice = _outbound(engine)
    assert report.failed == 1
    assert failed.state is OutboundState.FAILED
    assert failed.last_error is not None and "550" in failed.last_error
    assert notice.recipient == GM and notice.kind == "gm-notice"
    assert [s.recipient for s in wired.sink.sent] == [GM]
    assert "ghost@nowhere.test" in _text(wired.sink.sent[0].raw)


async def test_rows_left_sending_by_a_crash_go_out_again_with_the_same_id(engine: Engine) -> None:
    wired = Wired(engine)
    box = FakeMailbox()
    box.deliver(letter())
    await wired.intake.poll(FakeSource(box), 1)
    wired.processor.process_pending()
    with Session(engine) as session, session.begin():
        row = session.exec(select(Outbound)).one()
        row.state = OutboundState.SENDING
        message_id = row.message_id

    assert wired.outbox.recover() == 1
    await wired.outbox.send_due()

    assert len(wired.sink.sent) == 1
    assert f"<{message_id}>".encode() in wired.sink.sent[0].raw


async def test_letters_are_handled_in_server_receipt_order_not_date_header(engine: Engine) -> None:
    wired = Wired(engine)
    box = FakeMailbox()
    # The first to arrive claims a later Date: the server's receipt order wins.
    box.deliver(
        letter(subject="PING first-arrived", date=datetime(2026, 12, 1, tzinfo=UTC)), when=wired.clock.now
    )
    wired.clock.advance(60)
    box.deliver(
        letter(subject="PING second-arrived", date=datetime(2026, 1, 1, tzinfo=UTC)), when=wired.clock.now
    )
    await wired.intake.poll(FakeSource(box), 1)
    with Session(engine) as session:
        ids = repo.pending_inbound_ids(session)
    subjects = [row.subject for row in _inbound(engine) if row.id in ids]
    assert subjects == ["PING first-arrived", "PING second-arrived"]
