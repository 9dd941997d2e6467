# SPDX-License-Identifier: GPL-3.0-or-later
"""Press as players write it: relayed whole, and a reply to a press letter goes back to its writer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services.game_helpers import Harness, started_duel, text, to

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
    (copy,) = [m for m in to(letters, "gm@example.test") if "Press from north" in m["Subject"]]
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
