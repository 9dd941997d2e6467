# SPDX-License-Identifier: GPL-3.0-or-later
"""Ending a game by agreement, as the e-mail judges allow (issue 33): DRAW needs every active
seat and can be taken back; CONCEDE hands a two-seat game to the other seat. The game ends as
a resolved game does: seeds revealed, the log closed, an archive that verifies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.services.archive.archive import export
from mailbot.services.base import chainlog, queries
from mailbot.store.game_tables import GameStatus, StepState
from mailbot.verifier.checker import verify
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import GM
from tests.services.test_games_by_mail import NORTH, SOUTH, _started


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _verifies(h: Harness, game_id: int, out: Path) -> None:
    with Session(h.bot.engine) as session:
        export(session, game_id, out)
    checker = verify(out)
    assert checker.problems == [] and checker.failed == 0


def test_a_draw_needs_every_seat_and_ends_the_game(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    letters = h.mail(NORTH, f"{north_tag} draw?", "DRAW\n")
    (reply,), (asked,) = to(letters, NORTH), to(letters, SOUTH)
    assert "when south agree" in text(reply)
    assert "north proposes a draw: send DRAW to agree" in text(asked)
    assert h.game(game_id).status is GameStatus.RUNNING
    letters = h.mail(SOUTH, f"{south_tag} agreed", "DRAW\n")
    assert h.game(game_id).status is GameStatus.FINISHED
    assert h.game(game_id).result == "Drawn by agreement of every seat"
    for seat in (NORTH, SOUTH):
        said = " ".join(text(m) for m in to(letters, seat))
        assert "Drawn by agreement" in said and "The game log is closed" in said
    assert any("Drawn by agreement" in text(m) for m in to(letters, GM))
    assert [s.state for s in h.steps(game_id) if s.kind != "setup"] == [StepState.ROLLED_BACK]
    _verifies(h, game_id, tmp_path / "arch")


def test_nodraw_takes_a_vote_back(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} draw?", "DRAW\n")
    letters = h.mail(NORTH, f"{north_tag} no", "NODRAW\n")
    assert "takes back the proposal" in text(to(letters, SOUTH)[0])
    h.mail(SOUTH, f"{south_tag} agreed", "DRAW\n")
    assert h.game(game_id).status is GameStatus.RUNNING
    (again,) = to(h.mail(SOUTH, f"{south_tag} again", "DRAW\n"), SOUTH)
    assert "nothing changed" in text(again)


def test_a_concession_hands_a_two_seat_game_to_the_other_seat(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, south_tag = _started(h)
    letters = h.mail(NORTH, f"{north_tag} I give up", "CONCEDE\n")
    assert h.game(game_id).result == "south wins: north conceded"
    assert "south wins" in text(to(letters, NORTH)[0])
    assert any("The game log is closed" in text(m) for m in to(letters, NORTH))
    assert any("south wins: north conceded" in text(m) for m in to(letters, SOUTH))
    (late,) = to(h.mail(NORTH, f"{north_tag} draw", "DRAW\n"), NORTH)
    assert "nothing to end" in text(late)
    closed = [m for m in to(letters, SOUTH) if "The game log is closed" in text(m)]
    entries = re.search(r"Entries: (\d+)", text(closed[0]))
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nEND\n")  # crossed the concession
    with Session(h.bot.engine) as session:  # the log stays as the closing letter gave it
        assert entries and len(chainlog.entries(session, game_id)) == int(entries[1])
    _verifies(h, game_id, tmp_path / "arch")


def test_a_game_whose_score_fails_still_ends_by_a_concession(
    h: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A game's ``standing`` (``core.game.Scored``) that raises is logged; the seat concedes."""

    def broken(_state: object) -> list[str]:
        raise ValueError("no score")

    game_id, north_tag, _south_tag = _started(h)
    plugin = queries.plugin(h.game(game_id))
    monkeypatch.setattr(type(plugin), "standing", lambda _self, state: broken(state), raising=False)
    letters = h.mail(NORTH, f"{north_tag} I give up", "CONCEDE\n")
    assert h.game(game_id).result == "south wins: north conceded"
    assert any("south wins: north conceded" in text(m) for m in to(letters, SOUTH))
    assert "its score at the end could not be told" in caplog.text
