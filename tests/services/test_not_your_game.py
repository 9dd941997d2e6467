# SPDX-License-Identifier: GPL-3.0-or-later
"""A player writing with the tag of a game (or seat) that is not his is told the truth: this
address holds no seat there, and the games it does play; the same words whether that game
exists or not, so nothing about a game is learnt by someone not in it. A stranger learns what
every stranger does.

Player trials: a player of one game who wrote with another game's tag was told his address
"is not registered for any game".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services.game_helpers import Harness, started_duel, text, to

NORTH, SOUTH = "north@players.test", "south@players.test"
CAROL, DAVE, STRANGER = "carol@players.test", "dave@players.test", "stranger@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _other_game(h: Harness) -> tuple[int, str]:
    """A second duel, carol and dave seated: its number and carol's secret."""
    game_id = h.create()
    h.invite(game_id, "north", CAROL)
    h.invite(game_id, "south", DAVE)
    h.flush()
    return game_id, h.seat(game_id, "north").secret


def _answer(h: Harness, sender: str, subject: str, body: str = "STATUS\n") -> str:
    (reply,) = to(h.mail(sender, subject, body), sender)
    return text(reply)


def test_a_player_writing_for_a_game_he_is_not_in_is_told_so_and_his_own_games(h: Harness) -> None:
    game_id, _, _ = started_duel(h, NORTH, SOUTH)
    other, _ = _other_game(h)
    answer = _answer(h, NORTH, f"[DU-{other} abcdef] status")
    assert "not registered" not in answer
    assert f"This address holds no seat in game {other}, the game this letter names." in answer
    assert f"DU-{game_id} Test duel (running): seat north (active)" in answer
    assert CAROL not in answer and h.seat(other, "north").secret not in answer


def test_the_answer_is_the_same_for_a_game_that_exists_and_one_that_does_not(h: Harness) -> None:
    started_duel(h, NORTH, SOUTH)
    other, carols = _other_game(h)
    missing = other + 50
    existing = _answer(h, NORTH, f"[DU-{other} abcdef] status")
    assert _answer(h, NORTH, f"[DU-{missing} abcdef] status").replace(str(missing), str(other)) == existing
    # Another seat's secret, right: the same words to the writer (the seat's own address is told).
    letters = h.mail(NORTH, f"[DU-{other} {carols}] status", "STATUS\n")
    assert text(to(letters, NORTH)[0]).replace(carols, "abcdef") == existing
    assert "refused" in text(to(letters, CAROL)[0])
    by_line = _answer(h, NORTH, "status", f"GAME {missing}\nSECRET abcdef\nSTATUS\n")
    assert f"holds no seat in game {missing}" in by_line and "not registered" not in by_line


def test_a_player_of_two_games_cannot_tell_a_missing_game_from_one_he_is_not_in(h: Harness) -> None:
    started_duel(h, NORTH, SOUTH)
    other, _ = _other_game(h)
    third = h.create()
    h.invite(third, "south", NORTH)  # north now plays two games
    h.flush()
    existing = _answer(h, NORTH, f"[DU-{other} abcdef] status")
    missing = _answer(h, NORTH, "[DU-777 abcdef] status")
    assert missing.replace("777", str(other)) == existing
    assert f"DU-{third} Test duel (setup): seat south (active)" in existing


def test_another_seats_secret_of_his_own_game_reads_as_a_wrong_secret(h: Harness) -> None:
    game_id, _, south_tag = started_duel(h, NORTH, SOUTH)
    wrong = _answer(h, NORTH, f"[DU-{game_id} abcdef] status")
    assert "the secret was wrong" in wrong
    letters = h.mail(NORTH, f"{south_tag} status", "STATUS\n")
    assert text(to(letters, NORTH)[0]).replace(south_tag, f"[DU-{game_id} abcdef]") == wrong
    assert "refused" in text(to(letters, SOUTH)[0])


def test_a_stranger_learns_nothing_of_any_game(h: Harness) -> None:
    game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    answers = {
        _answer(h, STRANGER, subject).replace(str(game_id), "N").replace("777", "N")
        for subject in (f"[DU-{game_id} abcdef] status", "[DU-777 abcdef] status", f"{north_tag} status")
    }
    (answer,) = answers
    assert "You are not playing in a game here" in answer and "Test duel" not in answer
    assert "holds no seat" not in answer
