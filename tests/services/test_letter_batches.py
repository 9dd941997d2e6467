# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters handled in batches (one transaction, a savepoint each): the guarantees of one-by-one."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.core.commands import Command
from mailbot.mail.compose import Outgoing
from mailbot.render.templates import Rendered
from mailbot.services.inbox import inbound
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.post.outbox import Thread, enqueue
from mailbot.store.models import Inbound, InboundState, Outbound
from mailbot.testing.fakes import FakeMailbox, FakeSource
from tests.services.helpers import Wired, letter


class Stop(BaseException):
    """Stands for the process dying in the middle of a batch (nothing after it runs)."""


def _rows(engine: Engine, model: type[Any]) -> list[Any]:
    with Session(engine) as session:
        return list(session.exec(select(model).order_by(col(model.id))))


async def _stored(wired: Wired, subjects: list[str]) -> None:
    box = FakeMailbox()
    for subject in subjects:
        box.deliver(letter(subject=subject))
    await wired.intake.poll(FakeSource(box), box.uidvalidity)


def _writes_then_fails(command: Command, context: Context, reply: Reply) -> None:
    """A handler that queues a letter, then breaks: the letter must leave no trace."""
    out = Outgoing(
        sender="bot@example.test",
        sender_name="bot",
        recipient="someone@example.test",
        subject="half done",
        body=Rendered("x", "<p>x</p>"),
        message_id="half-done@example.test",
        date=context.row.received_at,
    )
    enqueue(context.session, out, kind="notice", now=context.row.received_at, thread=Thread())
    context.session.flush()
    raise RuntimeError("handler bug")


async def test_a_failing_letter_in_a_batch_is_shunted_alone_and_leaves_nothing(engine: Engine) -> None:
    wired = Wired(engine)
    wired.processor.handlers["HELP"] = _writes_then_fails
    await _stored(wired, ["PING", "HELP", "PING"])

    assert wired.processor.process_pending() == 3

    first, broken, last = _rows(engine, Inbound)
    assert (first.state, broken.state, last.state) == (
        InboundState.PROCESSED,
        InboundState.SHUNTED,
        InboundState.PROCESSED,
    )
    assert broken.traceback is not None and "handler bug" in broken.traceback
    assert [row.inbound_id for row in _rows(engine, Outbound)] == [first.id, last.id]  # no half-done letter


async def test_letters_of_one_batch_share_a_transaction(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    wired = Wired(engine)
    await _stored(wired, [f"PING {n}" for n in range(7)])
    batches: list[int] = []
    real = wired.processor._process_batch

    def counted(ids: Any) -> tuple[int, int]:
        taken, handled = real(ids)
        batches.append(taken)
        return taken, handled

    monkeypatch.setattr(wired.processor, "_process_batch", counted)
    monkeypatch.setattr(inbound, "BATCH_LETTERS", 3)

    assert wired.processor.process_pending() == 7
    assert batches == [3, 3, 1]
    assert {row.state for row in _rows(engine, Inbound)} == {InboundState.PROCESSED}
    assert len(_rows(engine, Outbound)) == 7


async def test_a_death_before_the_batch_commit_leaves_every_letter_to_handle_again(engine: Engine) -> None:
    wired = Wired(engine)
    await _stored(wired, ["PING", "PING", "PING"])
    calls = []

    def dies_on_the_second(command: Command, context: Context, reply: Reply) -> None:
        calls.append(context.row.id)
        if len(calls) == 2:
            raise Stop

    real_ping = wired.processor.handlers["PING"]
    wired.processor.handlers["PING"] = dies_on_the_second
    with pytest.raises(Stop):
        wired.processor.process_pending()

    assert {row.state for row in _rows(engine, Inbound)} == {InboundState.NEW}  # the first one too
    assert _rows(engine, Outbound) == []  # nothing could have been sent

    wired.processor.handlers["PING"] = real_ping
    assert wired.processor.process_pending() == 3
    assert {row.state for row in _rows(engine, Inbound)} == {InboundState.PROCESSED}
    assert sorted(row.inbound_id for row in _rows(engine, Outbound)) == [
        row.id for row in _rows(engine, Inbound)
    ]


async def test_a_batch_that_fails_as_a_whole_is_handled_one_by_one(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    wired = Wired(engine)
    wired.processor.handlers["HELP"] = _writes_then_fails
    await _stored(wired, ["PING", "HELP", "PING"])
    real_park = wired.processor._park
    parks = []

    def park_fails_once(row: Inbound, trace: str, reason: str) -> None:
        parks.append(row.id)
        if len(parks) == 1:
            raise RuntimeError("the store refused the shunt")
        real_park(row, trace, reason)

    monkeypatch.setattr(wired.processor, "_park", park_fails_once)

    assert wired.processor.process_pending() == 3

    first, broken, last = _rows(engine, Inbound)
    assert (first.state, broken.state, last.state) == (
        InboundState.PROCESSED,
        InboundState.SHUNTED,
        InboundState.PROCESSED,
    )
    assert broken.reason == "RuntimeError: handler bug"
    # Exactly one reply per good letter: what the failed batch wrote was rolled back.
    assert [row.inbound_id for row in _rows(engine, Outbound)] == [first.id, last.id]
