# SPDX-License-Identifier: GPL-3.0-or-later
"""A moved deadline (EXTEND, RESUME, ROLLBACK) reaches every owing seat with an updated .ics.

The calendar event of a step keeps its UID and raises its SEQUENCE, so the entry in
the player's calendar moves instead of doubling. Runs on SQLite and PostgreSQL; time
is injected (the harness clock), never waited for.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage

import pytest
from icalendar import Calendar
from sqlmodel import Session

from mailbot.core import deadlines
from mailbot.core.chain import verify_chain
from mailbot.services.base import chainlog
from mailbot.store.game_tables import GameStatus, StepRow, StepState
from tests.services.game_helpers import Harness, tag_of, text, to
from tests.services.helpers import GM

NORTH, SOUTH = "north@players.test", "south@players.test"


@dataclass(frozen=True)
class Due:
    """The deadline event of one calendar attachment."""

    uid: str
    sequence: int
    start: datetime
    end: datetime


@dataclass(frozen=True)
class Game:
    id: int
    north: str  # subject tags
    south: str
    opening: dict[str, EmailMessage]  # each seat's first report, by address

    def gm(self, h: Harness) -> str:
        return f"[DU-{self.id} {h.game(self.id).gm_secret}] gm"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _started(h: Harness) -> Game:
    """A running duel: north invited by the GM, south joined by mail, north reads in New York."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    code = h.seat(game_id, "south").invite_code
    letters = h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n")
    opening = {m["To"]: m for m in letters if "the game begins" in m["Subject"]}
    assert set(opening) == {NORTH, SOUTH}
    south_tag = tag_of(next(m for m in letters if m["To"] == SOUTH))
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    h.mail(NORTH, f"{north_tag} tz", "TIMEZONE America/New_York\n")
    return Game(game_id, north_tag, south_tag, opening)


def _due(msg: EmailMessage) -> Due | None:
    parts = [p for p in msg.iter_attachments() if p.get_content_type() == "text/calendar"]
    if not parts:
        return None
    (part,) = parts
    assert part.get_filename() == "deadline.ics"
    (event,) = Calendar.from_ical(part.get_content()).walk("VEVENT")
    return Due(str(event["UID"]), event.decoded("SEQUENCE"), event.decoded("DTSTART"), event.decoded("DTEND"))


def _due_of(msg: EmailMessage) -> Due:
    found = _due(msg)
    assert found is not None, msg["Subject"]
    return found


def _open(h: Harness, game: Game) -> StepRow:
    (step,) = [s for s in h.steps(game.id) if s.state is StepState.OPEN]
    return step


def _moved(letters: list[EmailMessage], address: str) -> EmailMessage:
    """The one letter a seat got about the move: not also a bare announcement."""
    (only,) = to(letters, address)
    subject = only["Subject"].strip()
    assert subject.startswith("[DU-") and ("New deadline for " in subject or "rolled back" in subject)
    return only


def _assert_moved(h: Harness, game: Game, letters: list[EmailMessage], before: dict[str, Due]) -> None:
    """Every owing seat's calendar event moves to the open step's deadline: same UID, higher SEQUENCE."""
    step = _open(h, game)
    for address, zone in ((NORTH, "America/New_York"), (SOUTH, "Europe/Berlin")):
        letter = _moved(letters, address)
        due = _due_of(letter)
        assert due.uid == before[address].uid
        assert due.sequence > before[address].sequence
        assert due.start == due.end == step.deadline_at
        assert f"Deadline: {deadlines.local_time(step.deadline_at, zone)}" in text(letter)


def _opening_dues(game: Game) -> dict[str, Due]:
    return {address: _due_of(msg) for address, msg in game.opening.items()}


def test_extend_moves_every_owing_seats_calendar_event(h: Harness) -> None:
    game = _started(h)
    before, old = _opening_dues(game), _open(h, game).deadline_at
    letters = h.mail(GM, game.gm(h), "EXTEND T1.orders 24h the mail server was down\n")
    _assert_moved(h, game, letters, before)
    assert _open(h, game).deadline_at == old + timedelta(hours=24)
    assert all(_due_of(to(letters, a)[0]).sequence == 1 for a in (NORTH, SOUTH))
    assert "the mail server was down" in text(to(letters, NORTH)[0])
    (answer,) = to(letters, GM)
    assert "deadline now" in text(answer)


def test_extend_without_the_step_moves_the_open_steps_deadline(h: Harness) -> None:
    """The outside trial, item 4: the step may be left out (the open one is meant); a letter that
    names a step but no duration is told the usage."""
    game = _started(h)
    old = _open(h, game).deadline_at
    letters = h.mail(GM, game.gm(h), "EXTEND 24h the mail server was down\n")
    assert _open(h, game).deadline_at == old + timedelta(hours=24)
    assert "Reason: the mail server was down" in text(_moved(letters, NORTH))
    (answer,) = to(h.mail(GM, game.gm(h), "EXTEND T1.orders\n"), GM)
    assert "usage: EXTEND [step] <duration> [reason]" in text(answer)
    # GM trial: "EXTEND 0h" and "EXTEND banana" got the usage line alone, not what was wrong.
    for line, said in (
        ("EXTEND 0h", "'0h': a deadline duration must be more than zero"),
        ("EXTEND banana", "'banana' is no duration (24h, 2d, 1d12h)"),
    ):
        (answer,) = to(h.mail(GM, game.gm(h), f"{line}\n"), GM)
        assert said in " ".join(text(answer).split()), text(answer)
    assert _open(h, game).deadline_at == old + timedelta(hours=24)


def test_each_extend_raises_the_sequence_again(h: Harness) -> None:
    game = _started(h)
    assert {d.sequence for d in _opening_dues(game).values()} == {0}
    first = h.mail(GM, game.gm(h), "EXTEND T1.orders 24h\n")
    second = h.mail(GM, game.gm(h), "EXTEND T1.orders 2d\n")
    for address in (NORTH, SOUTH):
        assert _due_of(_moved(first, address)).sequence == 1
        assert _due_of(_moved(second, address)).sequence == 2
    assert _due_of(_moved(second, NORTH)).start == _open(h, game).deadline_at


def test_a_seat_that_already_sent_orders_is_told_they_stand(h: Harness) -> None:
    game = _started(h)
    h.mail(NORTH, f"{game.north} orders", "ORDERS\nATTACK 2\nEND\n")
    letters = h.mail(GM, game.gm(h), "EXTEND T1.orders 12h\n")
    assert "you may replace them until then" in text(_moved(letters, NORTH))
    assert "You owe orders for this step." in text(_moved(letters, SOUTH))


def test_resume_after_the_deadline_passed_gives_a_fresh_deadline_to_the_calendar(h: Harness) -> None:
    game = _started(h)
    before = _opening_dues(game)
    h.mail(GM, game.gm(h), "PAUSE holiday\n")
    h.clock.advance(60 * 3600)  # the 48 h deadline passes during the pause
    assert h.tick() == []  # a paused game does nothing
    letters = h.mail(GM, game.gm(h), "RESUME back again\n")
    assert h.game(game.id).status is GameStatus.RUNNING
    _assert_moved(h, game, letters, before)
    assert _open(h, game).deadline_at > h.clock.now


def test_resume_before_the_deadline_only_announces(h: Harness) -> None:
    game = _started(h)
    old = _open(h, game).deadline_at
    h.mail(GM, game.gm(h), "PAUSE lunch\n")
    letters = h.mail(GM, game.gm(h), "RESUME\n")
    for address in (NORTH, SOUTH):
        (only,) = to(letters, address)
        assert "Game master: resume" in only["Subject"] and _due(only) is None
    assert _open(h, game).deadline_at == old
    # A later move still counts from the opening: the unmoved resume is no step.
    letters = h.mail(GM, game.gm(h), "EXTEND T1.orders 1h\n")
    assert _due_of(_moved(letters, NORTH)).sequence == 1


def test_the_resume_letter_gives_the_open_step_and_its_deadline_in_each_players_zone(h: Harness) -> None:
    """The outside trial, item 5: after RESUME the players read only "The game goes on."."""
    game = _started(h)
    step = _open(h, game)
    h.mail(SOUTH, f"{game.south} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.mail(GM, game.gm(h), "PAUSE lunch\n")
    letters = h.mail(GM, game.gm(h), "RESUME\n")
    for address, zone in ((NORTH, "America/New_York"), (SOUTH, "Europe/Berlin")):
        (only,) = to(letters, address)
        said = text(only)
        assert "The game goes on." in said and f"== Now open: {step.title}" in said, said
        assert f"Deadline: {deadlines.local_time(step.deadline_at, zone)}" in said, said
    assert "You owe orders for this step." in text(to(letters, NORTH)[0])
    assert "Send: ORDERS T1.orders" in text(to(letters, NORTH)[0])
    assert "Your orders for this step are in" in text(to(letters, SOUTH)[0])
    (answer,) = to(letters, GM)
    assert "resumed; T1.orders is open until" in text(answer)


def test_rollback_moves_the_reopened_steps_event(h: Harness) -> None:
    game = _started(h)
    h.mail(NORTH, f"{game.north} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"{game.south} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    resolved = h.tick(49 * 3600)
    bid = {a: _due_of(next(m for m in to(resolved, a) if "resolved" in m["Subject"])) for a in (NORTH, SOUTH)}
    letters = h.mail(GM, game.gm(h), "ROLLBACK T1.orders wrong dice table\n")
    reopened = _open(h, game)
    assert (reopened.key, reopened.attempt) == ("T1.orders", 2)
    # The players' calendars hold T1.orders from the opening report: that event moves.
    _assert_moved(h, game, letters, _opening_dues(game))
    assert all(_due_of(to(letters, a)[0]).uid != bid[a].uid for a in (NORTH, SOUTH))
    assert "orders sent for it stand" in text(to(letters, NORTH)[0])
    # The subject says what happened: the report they hold is void, not merely a new deadline.
    for address in (NORTH, SOUTH):
        (letter,) = to(letters, address)
        assert letter["Subject"].endswith("rolled back: its report is void"), letter["Subject"]
        assert "The report of " in text(letter) and "is void" in text(letter)
    # Processed again, the next step opens again too: its event moves as well.
    letters = h.mail(GM, game.gm(h), "FORCE same again\n")
    for address in (NORTH, SOUTH):
        report = next(m for m in to(letters, address) if "resolved" in m["Subject"])
        again = _due_of(report)
        assert again.uid == bid[address].uid and again.sequence > bid[address].sequence
        assert again.start == _open(h, game).deadline_at


def test_seats_that_owe_nothing_get_the_announcement_only(h: Harness) -> None:
    game = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        step = session.get_one(StepRow, _open(h, game).id)
        step.owing = ["north"]  # as in a step only one side plays
    letters = h.mail(GM, game.gm(h), "EXTEND T1.orders 24h\n")
    assert _due_of(_moved(letters, NORTH)).sequence == 1
    (south,) = to(letters, SOUTH)
    assert "Game master: extend" in south["Subject"] and _due(south) is None
    assert "The deadline of" in text(south)


def test_a_reminder_after_a_move_carries_the_moved_event(h: Harness) -> None:
    game = _started(h)
    h.mail(GM, game.gm(h), "EXTEND T1.orders 24h\n")
    h.mail(NORTH, f"{game.north} orders", "ORDERS\nATTACK 2\nEND\n")
    letters = h.tick(60 * 3600)  # 12 h before the moved 72 h deadline
    (reminder,) = to(letters, SOUTH)
    assert "Reminder" in reminder["Subject"]
    due = _due_of(reminder)
    assert due.sequence == 1 and due.uid == _opening_dues(game)[SOUTH].uid
    assert due.start == _open(h, game).deadline_at


def test_moves_are_chained_with_the_step_and_the_chain_verifies(h: Harness) -> None:
    game = _started(h)
    h.mail(GM, game.gm(h), "EXTEND T1.orders 24h\n")
    with Session(h.bot.engine) as session:
        entries = chainlog.entries(session, game.id)
    (extend,) = [e for e in entries if e.kind == "gm-extend"]
    assert extend.payload["step"] == "T1.orders" and extend.payload["attempt"] == 1
    assert datetime.fromisoformat(extend.payload["deadline"]) == _open(h, game).deadline_at
    assert verify_chain(entries) is None
