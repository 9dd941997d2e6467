# SPDX-License-Identifier: GPL-3.0-or-later
"""Parked (shunted) letters handed back by the operator are handled once, and answered once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.services.inbox.parked import hand_back, shunted_ids
from mailbot.store import db
from mailbot.store.models import Inbound, InboundState, Outbound
from mailbot.testing.fakes import FakeMailbox, FakeSource
from tests.services.helpers import Wired, letter


async def _shunted_ping(engine: Engine) -> Wired:
    """One PING whose handling fails (a bug, a game package the service could not load)."""
    box = FakeMailbox()
    box.deliver(letter(subject="PING"))
    wired = Wired(engine)
    ping = wired.processor.handlers["PING"]

    def broken(*_args: object) -> None:
        raise RuntimeError("handler bug")

    wired.processor.handlers["PING"] = broken
    await wired.intake.poll(FakeSource(box), box.uidvalidity)
    wired.processor.process_pending()
    wired.processor.handlers["PING"] = ping  # the cause is gone
    return wired


def _answers(engine: Engine) -> list[int | None]:
    with Session(engine) as session:
        return [row.inbound_id for row in session.exec(select(Outbound).order_by(col(Outbound.id)))]


async def test_a_shunted_letter_handed_back_is_handled_and_answered_once(engine: Engine) -> None:
    wired = await _shunted_ping(engine)
    with Session(engine) as session, session.begin():
        assert shunted_ids(session) == [1]
        assert [result.outcome for result in hand_back(session, [1])] == ["queued"]
    assert wired.processor.process_pending() == 1
    with Session(engine) as session, session.begin():
        assert session.get_one(Inbound, 1).state is InboundState.PROCESSED
        again = hand_back(session, [1, 7])
    assert [result.outcome for result in again] == ["is processed, not shunted", "no such letter"]
    assert wired.processor.process_pending() == 0
    assert _answers(engine) == [1]


async def test_a_shunted_letter_answered_already_is_not_handed_back(engine: Engine) -> None:
    await _shunted_ping(engine)
    now = datetime(2026, 11, 21, tzinfo=UTC)
    with Session(engine) as session, session.begin():
        row = Outbound(message_id="m@x", sender="bot@example.test", recipient="alice@players.test", raw=b"x")
        row.created_at = row.next_attempt_at = now
        row.inbound_id = 1
        session.add(row)
    with Session(engine) as session, session.begin():
        (result,) = hand_back(session, [1])
        assert session.get_one(Inbound, 1).state is InboundState.SHUNTED
    assert result.outcome == "was answered already; not handled again"


runner = CliRunner()


async def test_the_operator_lists_and_retries_shunted_letters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{tmp_path}/cli.db"
    monkeypatch.setenv("MAILBOT_STORE__URL", url)
    engine = db.make_engine(url)
    db.upgrade(engine)
    wired = await _shunted_ping(engine)

    listed = runner.invoke(app, ["inbound", "list", "--state", "shunted"])
    assert listed.exit_code == 0, listed.output
    assert "shunted" in listed.output and "RuntimeError: handler bug" in listed.output
    assert "1 letter(s) in state shunted" in listed.output
    assert runner.invoke(app, ["inbound", "list", "--state", "lost"]).exit_code == 2
    assert runner.invoke(app, ["inbound", "retry"]).exit_code == 2  # neither ID nor --all-shunted

    retried = runner.invoke(app, ["inbound", "retry", "--all-shunted"])
    assert retried.exit_code == 0, retried.output
    assert "1 letter(s) handed back: 1" in retried.output
    assert "letter 1 handed back by the operator" in caplog.text
    assert wired.processor.process_pending() == 1
    again = runner.invoke(app, ["inbound", "retry", "1"])
    assert again.exit_code == 1 and "is processed, not shunted" in again.output
    assert _answers(engine) == [1]
    engine.dispose()
