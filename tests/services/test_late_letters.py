# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter meant for a step that closed before it came is answered as late and not used for the
next step (it once quietly became the next step's orders)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from sqlmodel import Session, select

from mailbot.store.game_tables import OrderSet
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import letter
from tests.services.test_games_by_mail import NORTH, SOUTH, _started

DEADLINE = timedelta(hours=48)


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _send(h: Harness, sender: str, subject: str, body: str, *, date: datetime, **headers: str) -> str:
    h.bot.inject(letter(sender=sender, subject=subject, body=body, date=date, headers=headers))
    h.bot.processor.process_pending()
    (answer,) = to(h.flush(), sender)
    return text(answer)


def _orders_of(h: Harness, seat: str) -> list[list[str]]:
    with Session(h.bot.engine) as session:
        return [row.lines for row in session.exec(select(OrderSet).where(OrderSet.seat == seat))]


def _past_the_deadline(h: Harness) -> tuple[str, str, datetime]:
    """T1's orders resolved at the deadline without south's; returns the tags and the deadline."""
    _game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    deadline = h.steps(1)[1].deadline_at
    h.clock.now = deadline
    h.tick()
    assert [step.key for step in h.steps(1) if step.closed_at is None] == ["T1.bid"]
    return north_tag, south_tag, deadline


def test_a_reply_to_a_closed_steps_letter_is_answered_late_and_not_used(h: Harness) -> None:
    _north_tag, south_tag, deadline = _past_the_deadline(h)
    asked = next(r for r in h.outbox() if r.recipient == SOUTH and r.step_key == "T1.orders")
    h.clock.advance(10)
    answer = _send(
        h,
        SOUTH,
        f"Re: {south_tag} orders",
        "ORDERS\nATTACK 3\nEND\n",
        date=h.clock.now,
        **{"In-Reply-To": f"<{asked.message_id}>"},
    )
    assert "Late for Turn 1" in answer and "Nothing in it was used" in answer
    assert "ORDERS T1.bid" in answer
    assert ["ATTACK 3", "DEFEND 0"] not in _orders_of(h, "south")
    assert h.clock.now > deadline


def test_a_letter_written_before_the_next_steps_letter_went_out_is_late(h: Harness) -> None:
    north_tag, _south_tag, deadline = _past_the_deadline(h)
    h.clock.advance(10)  # it reached the server 10 s after the deadline, written 5 s before it
    answer = _send(
        h, NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n", date=deadline - timedelta(seconds=5)
    )
    assert "Late for Turn 1" in answer and "not used" in answer
    written_after = _send(h, NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n", date=h.clock.now)
    assert "Late for" not in written_after  # read for the open step, whatever that step makes of it


def test_letters_of_one_batch_are_each_judged_by_their_own_seats_letter(h: Harness) -> None:
    """A batch reads the first letters asking every seat for the open step at once (one query):
    north's letter, written before his went out, is late; south's, written after, is not."""
    north_tag, south_tag, deadline = _past_the_deadline(h)
    h.flush()  # the letters asking both seats for T1.bid go out at the deadline
    h.clock.advance(10)
    h.bot.inject(
        letter(
            sender=NORTH,
            subject=f"{north_tag} orders",
            body="ORDERS\nATTACK 3\nEND\n",
            date=deadline - timedelta(seconds=5),
        )
    )
    h.bot.inject(
        letter(sender=SOUTH, subject=f"{south_tag} orders", body="ORDERS\nATTACK 3\nEND\n", date=h.clock.now)
    )
    assert h.bot.processor.process_pending() == 2
    sent = h.flush()
    (north_answer,), (south_answer,) = to(sent, NORTH), to(sent, SOUTH)
    assert "Late for Turn 1" in text(north_answer)
    assert "Late for" not in text(south_answer)
