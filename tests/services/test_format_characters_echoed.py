# SPDX-License-Identifier: GPL-3.0-or-later
"""What a letter held is quoted back with its bidi controls and zero-width characters shown by name
(``<U+202E>``), and orders are read without them: a line never shows other than it was read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services.game_helpers import Harness, started_duel, text, to

NORTH, SOUTH = "north@players.test", "south@players.test"
RLO, PDF, RLI, PDI = "\u202e", "\u202c", "\u2067", "\u2069"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def test_orders_are_read_without_bidi_controls_and_echoed_without_them(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    # "\u202e1 DNEFED" shows as "DEFEND 1" in a mail program; the moderator reads "1 DNEFED".
    body = f"ORDERS\nATTACK {RLI}2{PDI}\n{RLO}1 DNEFED{PDF}\nEND\n"
    (reply,) = to(h.mail(NORTH, f"{north_tag} orders", body), NORTH)
    answer = text(reply)
    assert "Orders accepted" in answer and "  ATTACK 2" in answer
    assert 'Line 3: "1 DNEFED"' in answer
    assert not any(ch in answer for ch in (RLO, PDF, RLI, PDI))


def test_the_subject_and_name_quoted_back_show_their_controls_by_name(h: Harness) -> None:
    (reply,) = h.mail(f'"Mallory {RLO}nomis" <mallory@players.test>', f"{RLO}gnip", "PING\n")
    answer = text(reply)
    assert "Subject: <U+202E>gnip" in answer and "Hello Mallory <U+202E>nomis," in answer
    assert reply["Subject"] == "Re: <U+202E>gnip" and RLO not in answer


def test_a_refusal_told_to_the_seat_shows_the_forgers_subject_by_name(h: Harness) -> None:
    _game_id, north_tag, _ = started_duel(h, NORTH, SOUTH)
    letters = h.mail("mallory@players.test", f"{north_tag} {RLO}NRETSAM EHT MORF", "STATUS\n")
    (told,) = to(letters, NORTH)
    assert "refused" in text(told) and f"subject: {north_tag} <U+202E>NRETSAM EHT MORF" in text(told)
    assert RLO not in text(told)
