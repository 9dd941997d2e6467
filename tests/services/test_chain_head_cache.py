# SPDX-License-Identifier: GPL-3.0-or-later
"""The chain head kept in the transaction: fewer queries, and never a link to a rolled-back one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.core.chain import GENESIS, verify_chain
from mailbot.services.base import chainlog
from mailbot.store.game_tables import Game

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _game(engine: Engine) -> int:
    with Session(engine) as session, session.begin():
        game = Game(
            plugin="duel",
            scenario="standard",
            title="t",
            deadline_spec="48h",
            timezone="UTC",
            gm_address="gm@example.test",
            gm_secret="s",
            state={},
            created_at=NOW,
        )
        session.add(game)
        session.flush()
        return int(game.id or 0)


class Selects:
    """Counts the SELECTs on the chain table."""

    def __init__(self, engine: Engine) -> None:
        self.count = 0
        self.engine = engine

    def __enter__(self) -> Selects:
        sa.event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_exc: object) -> None:
        sa.event.remove(self.engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM chain" in statement:
            self.count += 1


def test_one_query_for_many_links_in_a_transaction(engine: Engine) -> None:
    game_id = _game(engine)
    with Selects(engine) as selects, Session(engine) as session, session.begin():
        for n in range(5):
            chainlog.append(session, game_id, "note", {"n": n}, NOW)
    assert selects.count == 1
    with Session(engine) as session:
        assert verify_chain(chainlog.entries(session, game_id)) is None
        assert [e.index for e in chainlog.entries(session, game_id)] == [0, 1, 2, 3, 4]


def _failing_letter(session: Session, game_id: int) -> None:
    with session.begin_nested():
        chainlog.append(session, game_id, "undone", {}, NOW)
        raise RuntimeError("a letter failed")


def test_a_rolled_back_savepoint_is_not_chained_to(engine: Engine) -> None:
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        chainlog.append(session, game_id, "kept", {}, NOW)
        with pytest.raises(RuntimeError):
            _failing_letter(session, game_id)
        chainlog.append(session, game_id, "after", {}, NOW)
    with Session(engine) as session:
        entries = chainlog.entries(session, game_id)
    assert [e.kind for e in entries] == ["kept", "after"]
    assert verify_chain(entries) is None


def test_a_rolled_back_transaction_leaves_no_head_behind(engine: Engine) -> None:
    game_id = _game(engine)
    session = Session(engine)
    try:
        session.begin()
        chainlog.append(session, game_id, "undone", {}, NOW)
        session.rollback()
        with session.begin():
            assert chainlog.head(session, game_id) == GENESIS
            chainlog.append(session, game_id, "first", {}, NOW)
    finally:
        session.close()
    with Session(engine) as session:
        entries = chainlog.entries(session, game_id)
    assert [(e.index, e.kind, e.prev_hash) for e in entries] == [(0, "first", GENESIS)]


def test_links_written_elsewhere_after_a_commit_are_seen(engine: Engine) -> None:
    game_id = _game(engine)
    mine = Session(engine)
    try:
        with mine.begin():
            chainlog.append(mine, game_id, "mine", {}, NOW)
        with Session(engine) as other, other.begin():  # e.g. the CLI, between two of our transactions
            chainlog.append(other, game_id, "theirs", {}, NOW)
        with mine.begin():
            chainlog.append(mine, game_id, "mine again", {}, NOW)
    finally:
        mine.close()
    with Session(engine) as session:
        entries = chainlog.entries(session, game_id)
    assert [e.kind for e in entries] == ["mine", "theirs", "mine again"]
    assert verify_chain(entries) is None
