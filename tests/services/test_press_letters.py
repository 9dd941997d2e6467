# SPDX-License-Identifier: GPL-3.0-or-later
"""Press as players write it: relayed whole, and a reply to a press letter goes back to its writer."""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from sqlmodel import Session

from mailbot.services.base.tags import tag
from mailbot.services.play.games import GameSetup
from tests.services.game_helpers import Harness, started_duel, text, to
from tests.services.helpers import GM

NORTH, SOUTH = "north@players.test", "south@players.test"
PRESS = (
    "PRESS south\n"
    "Dear South,\n"
    "Let us split the board.\n"
    "\n"
    "Yours is the east.\n"
    "Best regards,\n"
    "North\n"
    "END\n"
    "-- \n"
    "Jane Doe, +44 20 7946 0000\n"
)
WRITTEN = "Dear South,\nLet us split the board.\n\nYours is the east.\nBest regards,\nNorth\n"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _press(letter_text: str) -> str:
    """The press as its reader gets it: the letter's first section."""
    return letter_text.replace("\r\n", "\n").partition("==\n")[2].partition("\n-- \n")[0]


def test_press_is_relayed_as_written_and_the_writer_sees_it_all(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    letters = h.mail(NORTH, f"{north_tag} press", PRESS)
    (relayed,) = to(letters, SOUTH)
    assert _press(text(relayed)) == WRITTEN
    assert "Jane Doe" not in text(relayed)  # his signature, below "-- ", is his, not the press
    (copy,) = [m for m in to(letters, GM) if "Press from north" in m["Subject"]]
    assert "Dear South," in text(copy) and "Best regards," in text(copy)
    (confirmed,) = to(letters, NORTH)
    shown = text(confirmed).replace("\r\n", "\n")
    assert "to south\n6 line(s), as relayed:\n  Dear South,\n  Let us split the board.\n\n" in shown
    assert "  Yours is the east.\n  Best regards,\n  North\n" in shown and "Jane Doe" not in shown


def test_press_in_the_subject_keeps_the_greeting(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    letters = h.mail(NORTH, f"{north_tag} press south", "Hi South,\nPeace?\nCheers\n")
    (relayed,) = to(letters, SOUTH)
    assert _press(text(relayed)) == "Hi South,\nPeace?\nCheers\n"


def _reply(h: Harness, sender: str, letter: EmailMessage, body: str, subject: str = "") -> list[EmailMessage]:
    """``sender``'s reply to ``letter``, the original quoted below his text as mail programs do."""
    quoted = "\n".join(f"> {line}" for line in text(letter).replace("\r\n", "\n").splitlines())
    threaded = {"In-Reply-To": letter["Message-ID"], "References": letter["Message-ID"]}
    full = f"{body}\nOn Sat, 21 Nov 2026 at 12:00, mailbot <bot@example.test> wrote:\n{quoted}\n"
    return h.mail(sender, subject or f"Re: {letter['Subject']}", full, **threaded)


def test_a_reply_to_press_goes_back_to_its_writer_as_press(h: Harness) -> None:
    game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    (press,) = to(h.mail(NORTH, f"{north_tag} press", PRESS), SOUTH)
    letters = _reply(h, SOUTH, press, "Agreed, the east is mine.\n\nSee you at dawn.\nThanks,\nSouth\n")
    (back,) = to(letters, NORTH)
    assert back["Subject"] == f"{north_tag} Press from south"
    assert _press(text(back)) == "Agreed, the east is mine.\n\nSee you at dawn.\nThanks,\nSouth\n"
    assert "Let us split" not in text(back)  # the quoted original stays out
    (copy,) = to(letters, GM)
    assert copy["Subject"] == f"[DU-{game_id} GM] Press from south to north"
    (confirmed,) = to(letters, SOUTH)
    assert "== Press relayed ==\r\nto north\r\n" in text(confirmed) and "not a command" not in text(confirmed)
    assert len(letters) == 3
    # A plain "Thanks!" is an answer too; and north's reply goes back to south in turn.
    (again,) = to(_reply(h, NORTH, back, "Thanks!\n"), SOUTH)
    assert _press(text(again)) == "Thanks!\n"


def test_a_reply_to_press_that_lost_its_thread_is_press_by_its_subject_not_orders(h: Harness) -> None:
    _game_id, north_tag, south_tag = started_duel(h, NORTH, SOUTH)
    (press,) = to(h.mail(NORTH, f"{north_tag} press", PRESS), SOUTH)
    # No In-Reply-To: the subject alone, with south's tag, names the press he answers.
    letters = h.mail(SOUTH, f"Re: {press['Subject']}", "ATTACK 2 is what I will do.\n")
    (back,) = to(letters, NORTH)
    assert _press(text(back)) == "ATTACK 2 is what I will do.\n"
    assert "Orders accepted" not in text(to(letters, SOUTH)[0])
    (status,) = to(h.mail(SOUTH, f"{south_tag} status", "STATUS\n"), SOUTH)
    assert "Still to send: north, south" in text(status)  # no orders were read from it
    # A subject he changed: the thread still names the press he answers.
    (back,) = to(_reply(h, SOUTH, press, "Or DEFEND.\n", subject=f"{south_tag} my plan"), NORTH)
    assert _press(text(back)) == "Or DEFEND.\n"


def test_a_reply_to_press_reaches_its_writer_only(h: Harness) -> None:
    game_id = _storm(h)
    p1_tag = f"[{tag(h.game(game_id))} {h.seat(game_id, 'P1').secret}]"
    (press,) = to(h.mail(NORTH, f"{p1_tag} press", "PRESS P2\nAlliance?\nEND\n"), SOUTH)
    letters = _reply(h, SOUTH, press, "Yes.\n")
    assert sorted(m["To"] for m in letters) == sorted([NORTH, SOUTH, GM])
    assert _press(text(to(letters, NORTH)[0])) == "Yes.\n"


def test_a_reply_to_anonymous_press_is_not_relayed_and_says_how_to_send_press(h: Harness) -> None:
    game_id = _storm(h, anonymous=True)
    p1_tag = f"[{tag(h.game(game_id))} {h.seat(game_id, 'P1').secret}]"
    (press,) = to(h.mail(NORTH, f"{p1_tag} press", "PRESS P2 ANON\nAlliance?\nEND\n"), SOUTH)
    letters = _reply(h, SOUTH, press, "Who are you?\n")
    (answer,) = letters  # to the writer only: nobody else learns of it
    assert answer["To"] == SOUTH
    assert "Your reply was not relayed" in text(answer) and "PRESS <seat>" in text(answer)


def test_no_reply_is_relayed_to_a_seat_that_left_the_game(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    (press,) = to(h.mail(NORTH, f"{north_tag} press", PRESS), SOUTH)
    h.mail(NORTH, f"{north_tag} resign", "RESIGN\n")
    letters = _reply(h, SOUTH, press, "Agreed.\n")
    (answer,) = letters
    assert answer["To"] == SOUTH and "Press relayed" not in text(answer)
    assert "PRESS north (your reply to north's press)" in text(answer)
    assert "nothing was relayed" in text(answer)


def test_a_reply_to_press_from_another_address_is_refused_and_relays_nothing(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    (press,) = to(h.mail(NORTH, f"{north_tag} press", PRESS), SOUTH)
    letters = _reply(h, "mallory@players.test", press, "Surrender now.\n")
    assert NORTH not in [m["To"] for m in letters]
    assert all("Surrender" not in text(m) for m in letters if m["To"] != "mallory@players.test")


def test_a_reply_to_press_with_press_of_its_own_is_read_as_it_stands(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    (press,) = to(h.mail(NORTH, f"{north_tag} press", PRESS), SOUTH)
    letters = _reply(h, SOUTH, press, "PRESS all\nTo everyone: peace.\nEND\n")
    (back,) = to(letters, NORTH)
    assert _press(text(back)) == "To everyone: peace.\n"


def _storm(h: Harness, *, anonymous: bool = False) -> int:
    """A three-seat Atlantic Storm game: P1 north, P2 south, P3 carol."""
    setup = GameSetup(
        plugin="atlantic-storm", scenario="3p", title="Storm", deadline="48h", timezone="UTC", gm_address=GM
    )
    with Session(h.bot.engine) as session, session.begin():
        game = h.bot.games.create(session, setup)
        game.anonymous_press = anonymous
        game_id = int(game.id or 0)
    for seat, address in (("P1", NORTH), ("P2", SOUTH), ("P3", "carol@players.test")):
        h.invite(game_id, seat, address)
    h.flush()
    return game_id
