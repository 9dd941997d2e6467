# SPDX-License-Identifier: GPL-3.0-or-later
"""A step a deadline tick opens gets its id without being written (``transactions.number_now``).

Where the transaction holds SQLite's write lock the id is the one the database would give, so
the tick need not flush each game to learn it: a try's games are written together. What reads
steps on the connection (the next attempt, the step closed before a late letter's) still sees
the steps this transaction has not written yet.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from mailbot.services.base import queries
from mailbot.services.base.transactions import begin_writing, number_now
from mailbot.services.play.lateness import _closed_before
from mailbot.store.game_tables import OrderSet, StepRow, StepState
from mailbot.store.rows import new_row
from tests.services.test_chain_head_cache import _game

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _step(game_id: int, key: str, attempt: int = 1) -> StepRow:
    return new_row(
        StepRow,
        game_id=game_id,
        key=key,
        attempt=attempt,
        turn=1,
        kind="orders",
        title=key,
        opened_at=NOW,
        deadline_at=NOW,
        seed="00" * 32,
        commitment="",
    )


def _opened(session: Session, step: StepRow) -> None:
    """Added as ``Games._add_step`` adds a step: numbered now, else written to learn its id."""
    session.add(step)
    if not number_now(session, step):
        session.flush()


def _orders(step_id: int) -> OrderSet:
    return new_row(OrderSet, step_id=step_id, seat="north", lines=["A"], received_at=NOW)


def test_a_step_is_numbered_as_the_database_would_and_written_with_what_names_it(engine: Engine) -> None:
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        session.add(_step(game_id, "t0"))
    with Session(engine) as session, session.begin():
        begin_writing(session)
        first, second = _step(game_id, "t1"), _step(game_id, "t2")
        session.add(first)
        numbered = number_now(session, first)
        if engine.dialect.name != "sqlite":
            assert not numbered, "PostgreSQL numbers its rows itself: the caller flushes"
            return
        assert numbered
        session.add(_orders(int(first.id or 0)))  # names the step before it is written
        session.add(second)
        assert number_now(session, second)
        assert (first.id, second.id) == (2, 3)
        assert session.connection().execute(sa.text("SELECT count(*) FROM step")).scalar() == 1, "not written"
    with Session(engine) as session:
        steps = session.exec(select(StepRow.id, StepRow.key).order_by(StepRow.id)).all()
        assert [tuple(s) for s in steps] == [(1, "t0"), (2, "t1"), (3, "t2")]
        assert session.exec(select(OrderSet.step_id)).all() == [2]


def test_a_step_added_unnumbered_before_it_leaves_the_numbering_to_the_flush(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL numbers every row itself")
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        begin_writing(session)
        earlier, later = _step(game_id, "t1"), _step(game_id, "t2")
        session.add(earlier)
        session.add(later)
        assert not number_now(session, later), "it would take an id before the row added first"


def test_the_foreign_keys_are_still_checked_at_the_commit(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL numbers every row itself: nothing is deferred")
    game_id = _game(engine)
    try:
        with Session(engine) as session, session.begin():
            begin_writing(session)
            step = _step(game_id, "t1")
            session.add(step)
            assert number_now(session, step)
            session.add(_orders(999))  # no such step
    except sa.exc.IntegrityError:
        pass
    else:
        raise AssertionError("orders naming no step were committed")
    with Session(engine) as session:
        assert session.exec(select(StepRow)).all() == [], "the whole transaction rolled back"


def test_steps_read_on_the_connection_see_those_not_written_yet(engine: Engine) -> None:
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        done = _step(game_id, "t1")
        session.add(done)
    with Session(engine) as session, session.begin():
        begin_writing(session)
        done = session.exec(select(StepRow).where(StepRow.key == "t1")).one()
        done.state, done.closed_at = StepState.RESOLVED, NOW
        session.add(done)
        nxt = _step(game_id, "t2")
        _opened(session, nxt)
        found = _closed_before(session, nxt)
        assert found is not None and found[0] == "t1", "the step this transaction closed"


def test_the_next_attempt_counts_a_step_of_the_key_not_written_yet(engine: Engine) -> None:
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        session.add(_step(game_id, "t1"))
    with Session(engine) as session, session.begin():
        begin_writing(session)  # as a tick
        assert queries.next_attempt(session, game_id, "t1") == 2
        _opened(session, _step(game_id, "t1", attempt=2))
        assert queries.next_attempt(session, game_id, "t1") == 3
        assert queries.next_attempt(session, game_id, "t2") == 1
