# SPDX-License-Identifier: GPL-3.0-or-later
"""Chain links picked out by their payload in the database, the same on SQLite and PostgreSQL.

A step's entropy and a deadline's iCalendar SEQUENCE are read from the game's chain, which
grows with every letter and every hour; the database picks the step's links by the payload's
fields instead of every payload being read back into Python.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.core.dice import player_entropy
from mailbot.services.base import chainlog, queries
from mailbot.services.base.transactions import begin_writing
from mailbot.services.play.reports import deadline_sequence
from mailbot.store.game_tables import StepRow
from tests.services.test_chain_head_cache import _game

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def _entropy(session: Session, game_id: int, step: tuple[str, int], seat: str, nonce: str) -> None:
    key, attempt = step
    payload = {"step": key, "attempt": attempt, "seat": seat, "message_id": f"<{nonce}@t>", "nonce": nonce}
    chainlog.append(session, game_id, "entropy", payload, NOW)


def test_a_steps_entropy_is_its_own_attempts_letters_only(engine: Engine) -> None:
    game_id, other_game = _game(engine), _game(engine)
    with Session(engine) as session, session.begin():
        _entropy(session, game_id, ("t1", 1), "north", "a")
        _entropy(session, game_id, ("t1", 2), "north", "b")  # the step reopened: a new attempt
        _entropy(session, game_id, ("t10", 2), "south", "c")  # another key that starts alike
        _entropy(session, game_id, ("t1", 2), "south", "d")
        _entropy(session, other_game, ("t1", 2), "north", "e")  # another game
        chainlog.append(session, game_id, "step-opened", {"step": "t1", "attempt": 2}, NOW)
    with Session(engine) as session:
        step = StepRow(game_id=game_id, key="t1", attempt=2, turn=1, kind="orders", title="t1")
        entropy, letters = queries.step_entropy(session, step)
    assert letters == 2
    assert entropy == player_entropy([("north", "<b@t>", "b"), ("south", "<d@t>", "d")])


def test_a_steps_entropy_counts_the_links_this_transaction_has_not_written_yet_once(engine: Engine) -> None:
    """A GM's FORCE in a batch of letters resolves the step with the entropy of the letters
    before it in the same transaction, which (holding SQLite's write lock) are not written yet:
    they count, each once, and nothing is flushed for the question."""
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        _entropy(session, game_id, ("t1", 1), "north", "a")
    with Session(engine) as session, session.begin():
        begin_writing(session)
        _entropy(session, game_id, ("t1", 1), "south", "b")
        session.flush()  # written, and still among the links this transaction appended
        _entropy(session, game_id, ("t1", 1), "east", "c")
        _entropy(session, game_id, ("t2", 1), "east", "x")  # another step
        step = StepRow(game_id=game_id, key="t1", attempt=1, turn=1, kind="orders", title="t1")
        waiting = len(session.new)
        entropy, letters = queries.step_entropy(session, step)
        assert len(session.new) == waiting, "nothing flushed to answer"
    assert letters == 3
    assert entropy == player_entropy(
        [("north", "<a@t>", "a"), ("south", "<b@t>", "b"), ("east", "<c@t>", "c")]
    )


def test_a_steps_entropy_leaves_out_links_of_a_rolled_back_savepoint(engine: Engine) -> None:
    """A letter whose savepoint is rolled back adds no entropy; those before it still count."""
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        begin_writing(session)
        _entropy(session, game_id, ("t1", 1), "north", "a")  # not written: the savepoint writes it
        savepoint = session.begin_nested()
        _entropy(session, game_id, ("t1", 1), "south", "b")
        savepoint.rollback()
        step = StepRow(game_id=game_id, key="t1", attempt=1, turn=1, kind="orders", title="t1")
        entropy, letters = queries.step_entropy(session, step)
    assert letters == 1
    assert entropy == player_entropy([("north", "<a@t>", "a")])


def test_a_deadlines_sequence_counts_its_own_keys_settings(engine: Engine) -> None:
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        assert deadline_sequence(session, game_id, "t1") == 0  # never opened yet
        chainlog.append(session, game_id, "step-opened", {"step": "t1", "attempt": 1}, NOW)
        chainlog.append(session, game_id, "step-opened", {"step": "t10", "attempt": 1}, NOW)
        chainlog.append(session, game_id, "entropy", {"step": "t1", "attempt": 1}, NOW)  # sets nothing
        assert deadline_sequence(session, game_id, "t1") == 0
        chainlog.append(session, game_id, "gm-extend", {"step": "t1"}, NOW)
        chainlog.append(session, game_id, "gm-resume", {"step": "t1"}, NOW)
        chainlog.append(session, game_id, "gm-extend", {"step": "t10"}, NOW)
        assert deadline_sequence(session, game_id, "t1") == 2
        assert deadline_sequence(session, game_id, "t10") == 1


def test_a_deadlines_sequence_adds_this_transactions_unwritten_settings_to_the_stored_ones(
    engine: Engine,
) -> None:
    """A step reopened (attempt 2) is counted from the store and from this transaction's links,
    written or not, each once; a step first opened in this transaction asks the store nothing."""
    game_id = _game(engine)
    with Session(engine) as session, session.begin():
        chainlog.append(session, game_id, "step-opened", {"step": "t1", "attempt": 1}, NOW)
        chainlog.append(session, game_id, "gm-extend", {"step": "t1"}, NOW)
    asked: list[str] = []

    def note(*args: object) -> None:
        asked.append(str(args[2]))

    event.listen(engine, "before_cursor_execute", note)
    try:
        with Session(engine) as session, session.begin():
            begin_writing(session)
            chainlog.append(session, game_id, "step-opened", {"step": "t1", "attempt": 2}, NOW)
            session.flush()
            chainlog.append(session, game_id, "gm-extend", {"step": "t1"}, NOW)
            waiting = len(session.new)
            assert deadline_sequence(session, game_id, "t1") == 3
            assert len(session.new) == waiting, "nothing flushed to answer"
            chainlog.append(session, game_id, "step-opened", {"step": "t2", "attempt": 1}, NOW)
            chainlog.append(session, game_id, "gm-extend", {"step": "t2"}, NOW)
            before = len(asked)
            assert deadline_sequence(session, game_id, "t2") == 1
            assert len(asked) == before, "first opened here: nothing to ask the store"
    finally:
        event.remove(engine, "before_cursor_execute", note)
