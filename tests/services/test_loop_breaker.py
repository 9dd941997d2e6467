# SPDX-License-Identifier: GPL-3.0-or-later
"""The loop breaker (issue 30): an auto-responder that ignores the bot's Auto-Submitted, or
another robot, gets a bounded number of answers an hour, one notice, then silence."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlmodel import Session, select

from mailbot.services.health.status import gather_status, status_lines
from mailbot.store.models import Inbound, InboundState
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import BOT, letter

ROBOT = "robot@elsewhere.test"
PLAYER = "alice@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url, answers_per_hour=6, idle_answers_per_hour=3)
    yield harness
    harness.bot.engine.dispose()


def _robot_round(h: Harness, answering: EmailMessage | None) -> list[EmailMessage]:
    """The robot answers the bot's last letter to it, as an auto-responder that reads no header."""
    headers = {} if answering is None else {"In-Reply-To": answering["Message-ID"]}
    subject = "Thank you" if answering is None else f"Re: {answering['Subject']}"
    h.clock.advance(60)
    h.bot.inject(letter(sender=ROBOT, subject=subject, body="Your message was received.\n", headers=headers))
    h.bot.processor.process_pending()
    return to(h.flush(), ROBOT)


def _loop(h: Harness, rounds: int) -> list[EmailMessage]:
    answers: list[EmailMessage] = []
    last: EmailMessage | None = None
    for _ in range(rounds):
        sent = _robot_round(h, last)
        answers += sent
        last = sent[-1] if sent else last
    return answers


def test_a_reply_loop_with_a_robot_ends_after_the_idle_limit_and_one_notice(h: Harness) -> None:
    answers = _loop(h, 12)
    assert len(answers) == 3 + 1
    assert "Too many letters: answers paused" in text(answers[-1])
    assert all("Too many letters" not in text(m) for m in answers[:-1])
    with Session(h.bot.engine) as session:  # the robot's letters were still read, not left waiting
        rows = session.exec(select(Inbound)).all()
    assert len(rows) == 12 and {row.state for row in rows} == {InboundState.PROCESSED}


def test_answers_resume_when_the_hour_is_over(h: Harness) -> None:
    assert len(_loop(h, 6)) == 4
    h.clock.advance(3600)
    assert len(_robot_round(h, None)) == 1


def test_the_gm_sees_the_throttled_address_in_status(h: Harness) -> None:
    _loop(h, 5)
    status = gather_status(h.bot.engine, h.clock())
    assert list(status.throttled) == [f"unproven:{ROBOT}"]  # its letters proved no secret
    assert any(ROBOT in line and "answers paused" in line for line in status_lines(status))
    h.clock.advance(3600)
    assert gather_status(h.bot.engine, h.clock()).throttled == {}


def test_a_player_with_useful_letters_gets_the_wider_limit(h: Harness) -> None:
    answered = [h.mail(PLAYER, "PING") for _ in range(8)]
    counts = [len(to(sent, PLAYER)) for sent in answered]
    assert counts == [1] * 7 + [0]  # six answers, the notice, then silence
    assert "Too many letters" in text(to(answered[6], PLAYER)[0])
    assert len(to(h.mail(ROBOT, "PING"), ROBOT)) == 1  # counted per address


def test_the_counters_survive_a_restart(h: Harness, db_url: str) -> None:
    _loop(h, 4)  # three answers and the notice: silenced
    again = Harness(db_url, answers_per_hour=6, idle_answers_per_hour=3)
    try:
        again.clock.now = h.clock.now + timedelta(minutes=5)
        again.bot.inject(letter(sender=ROBOT, subject="Thank you", body="Received.\n"))
        again.bot.processor.process_pending()
        assert to(again.flush(), ROBOT) == []
    finally:
        again.bot.engine.dispose()


def test_letters_of_one_batch_are_counted_together(h: Harness) -> None:
    for _ in range(5):
        h.clock.advance(1)
        h.bot.inject(letter(sender=ROBOT, subject="Thank you", body="Received.\n"))
    h.bot.processor.process_pending()
    assert len(to(h.flush(), ROBOT)) == 3 + 1


def test_the_bots_own_address_is_never_counted(h: Harness) -> None:
    h.bot.inject(letter(sender=BOT, subject="PING"))
    h.bot.processor.process_pending()
    assert gather_status(h.bot.engine, h.clock()).throttled == {}


def test_refusals_to_a_seats_address_are_limited_apart_from_its_own_answers(h: Harness) -> None:
    """A robot resending a letter with a seat's secret: the seat's owner gets the idle limit of
    refusals and one that says the rest are withheld, and his own letters are still answered."""
    game_id = h.create()
    h.invite(game_id, "north", PLAYER)
    h.flush()
    secret = h.seat(game_id, "north").secret
    told: list[EmailMessage] = []
    for _ in range(8):
        h.clock.advance(60)
        told += to(h.mail(ROBOT, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 3\nEND\n"), PLAYER)
    assert len(told) == 3 + 1
    assert all("A letter in your name was refused" in m["Subject"] for m in told)
    # Said in the player's words, not the moderator's (a trial read "Draft refused" there).
    assert all("Draft" not in text(m) and "A letter signed in your name was refused" in text(m) for m in told)
    assert "Too many refusals: the rest withheld" in text(told[-1])
    assert all("Too many refusals" not in text(m) for m in told[:-1])
    (own,) = to(h.mail(PLAYER, f"[DU-{game_id} {secret}] status", "STATUS\n"), PLAYER)
    assert "Too many" not in text(own) and "refused" not in text(own)
    h.clock.advance(3600)  # the hour is over: the next forgery is reported again
    assert len(to(h.mail(ROBOT, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 3\nEND\n"), PLAYER)) == 1


def test_letters_forged_in_a_players_name_do_not_silence_the_answers_to_his_own(h: Harness) -> None:
    """Letters from his address that prove no secret (a forger's HELP, over and over) count apart
    from his own, which carry his seat's secret."""
    game_id = h.create()
    h.invite(game_id, "north", PLAYER)
    h.invite(game_id, "south", ROBOT)
    h.flush()
    for _ in range(12):
        h.mail(PLAYER, "help", "HELP\n")
    secret = h.seat(game_id, "north").secret
    (answer,) = to(h.mail(PLAYER, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nEND\n"), PLAYER)
    assert "Orders accepted" in text(answer)
