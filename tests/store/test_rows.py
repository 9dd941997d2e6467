# SPDX-License-Identifier: GPL-3.0-or-later
"""``new_row`` builds the row the model's constructor builds: the same fields, the same defaults,
the same pydantic bookkeeping, and the same row in the database (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, select

from mailbot.store.game_tables import ChainRow, Game, OrderSet, Report, RollRow, StepRow
from mailbot.store.models import Outbound, OutboundState
from mailbot.store.rows import new_row

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def _game() -> dict[str, Any]:
    return {
        "plugin": "duel",
        "scenario": "standard",
        "title": "T",
        "deadline_spec": "48h",
        "gm_address": "gm@x.test",
        "gm_secret": "s",
        "created_at": NOW,
    }


def _step(game_id: int) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "key": "T1",
        "turn": 1,
        "kind": "orders",
        "title": "Turn 1",
        "owing": ["north"],
        "opened_at": NOW,
        "deadline_at": NOW,
        "seed": "ab",
        "commitment": "cd",
    }


def cases(game_id: int, step_id: int) -> list[tuple[type[SQLModel], dict[str, Any]]]:
    return [
        (
            ChainRow,
            {
                "game_id": game_id,
                "position": 0,
                "kind": "orders",
                "payload": {"a": [1, 2]},
                "prev_hash": "0" * 64,
                "hash": "1" * 64,
                "created_at": NOW,
            },
        ),
        (OrderSet, {"step_id": step_id, "seat": "north", "lines": ["ATTACK 1"], "received_at": NOW}),
        (
            OrderSet,
            {
                "step_id": step_id,
                "seat": "south",
                "lines": [],
                "sealed": {"X": {"value": 3}},
                "current": False,
                "salt": "ff",
                "received_at": NOW,
            },
        ),
        (
            Outbound,
            {
                "message_id": "m@x.test",
                "sender": "bot@x.test",
                "recipient": "p@x.test",
                "raw": b"raw",
                "next_attempt_at": NOW,
                "created_at": NOW,
                "game_id": game_id,
            },
        ),
        (
            Outbound,
            {
                "message_id": "n@x.test",
                "sender": "bot@x.test",
                "recipient": "p@x.test",
                "raw": b"",
                "kind": "report",
                "state": OutboundState.SENT,
                "next_attempt_at": NOW,
                "created_at": NOW,
            },
        ),
        (
            Report,
            {
                "game_id": game_id,
                "seat": "",
                "turn": 1,
                "step_key": "T1",
                "subject": "s",
                "text": "t",
                "html": "h",
                "chain_head": "c",
                "created_at": NOW,
            },
        ),
        (RollRow, {"step_id": step_id, "position": 0, "data": {"faces": [6]}}),
        (StepRow, {**_step(game_id), "key": "T2", "snapshot": {"s": 1}}),
        (Game, _game()),
    ]


def _parents(engine: Engine) -> tuple[int, int]:
    with Session(engine) as session, session.begin():
        game = Game(**_game())
        session.add(game)
        session.flush()
        step = StepRow(**_step(game.id or 0))
        session.add(step)
        session.flush()
        return game.id or 0, step.id or 0


def _columns(row: SQLModel) -> dict[str, Any]:
    return {key: value for key, value in row.model_dump().items() if key != "id"}


def _stored(engine: Engine, row: SQLModel) -> dict[str, Any]:
    """The row as the database gives it back; the insert is rolled back (unique keys)."""
    with Session(engine) as session:
        session.add(row)
        session.flush()
        key = sa.inspect(row).identity
        session.expunge(row)
        found = session.get(type(row), key)
        assert found is not None
        columns = _columns(found)
        session.rollback()
        return columns


def test_a_new_row_is_the_constructors_row(engine: Engine) -> None:
    game_id, step_id = _parents(engine)
    for model, values in cases(game_id, step_id):
        made, built = model(**values), new_row(model, **values)
        assert made.model_dump() == built.model_dump(), model
        assert made.__pydantic_fields_set__ == built.__pydantic_fields_set__
        assert repr(made) == repr(built)
        assert _stored(engine, made) == _stored(engine, built), model


def test_the_defaults_are_fresh_for_every_row() -> None:
    first = new_row(OrderSet, step_id=1, seat="a", received_at=NOW)
    second = new_row(OrderSet, step_id=1, seat="b", received_at=NOW)
    first.lines.append("X")
    assert second.lines == [] and first.sealed is not second.sealed


def test_a_row_with_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field colour"):
        new_row(OrderSet, step_id=1, seat="a", received_at=NOW, colour="red")


def test_a_new_row_is_pending_in_its_session(engine: Engine) -> None:
    game_id, _step_id = _parents(engine)
    row = new_row(ChainRow, game_id=game_id, position=0, kind="k", prev_hash="p", hash="h", created_at=NOW)
    assert sa.inspect(row).transient
    with Session(engine) as session, session.begin():
        session.add(row)
        assert row in session.new
        found = session.exec(select(ChainRow).where(ChainRow.game_id == game_id)).one()  # autoflush
        assert found is row and row.payload == {}
