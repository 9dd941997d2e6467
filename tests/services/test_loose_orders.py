# SPDX-License-Identifier: GPL-3.0-or-later
"""Order lines without ORDERS ... END (issue 33): a seat's letter with its tag in the subject,
while the open step asks it for orders, is read as orders, as the e-mail judges read a letter;
anyone else gets the answer a stranger gets. Both stores."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session, select

from mailbot.store.game_tables import OrderSet
from tests.services.game_helpers import Harness, text, to
from tests.services.test_games_by_mail import NORTH, SOUTH, _started


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _orders(h: Harness, seat: str) -> list[list[str]]:
    with Session(h.bot.engine) as session:
        query = select(OrderSet).where(OrderSet.seat == seat, OrderSet.current)
        return [row.lines for row in session.exec(query)]


def test_a_seats_tagged_letter_of_order_lines_is_its_orders(h: Harness) -> None:
    _game_id, north_tag, _south_tag = _started(h)
    (reply,) = to(h.mail(NORTH, f"{north_tag} my orders", "ATTACK 2\nDEFEND 1\n"), NORTH)
    assert "Orders accepted for Turn 1" in text(reply) and "not a command I know" not in text(reply)
    assert _orders(h, "north") == [["ATTACK 2", "DEFEND 1"]]


def test_commands_and_order_lines_in_one_letter(h: Harness) -> None:
    _game_id, _north_tag, south_tag = _started(h)
    (reply,) = to(h.mail(SOUTH, f"{south_tag} orders", "STATUS\nATTACK 3\n"), SOUTH)
    assert "Orders accepted" in text(reply) and "Game status: running" in text(reply)
    assert _orders(h, "south") == [["ATTACK 3", "DEFEND 0"]]


def test_someone_elses_loose_lines_are_no_orders(h: Harness) -> None:
    _game_id, north_tag, _south_tag = _started(h)
    stranger = "mallory@elsewhere.test"
    (reply,) = to(h.mail(stranger, f"{north_tag} orders", "ATTACK 3\n"), stranger)
    assert "You are not playing in a game here" in text(reply) and "Orders accepted" not in text(reply)
    assert _orders(h, "north") == []
