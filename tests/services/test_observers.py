# SPDX-License-Identifier: GPL-3.0-or-later
"""Observers (issue 33, the judges' OBSERVE): a read-only seat from any address. It gets the
public letter of each step, the GM's announcements, press to ALL and the result; never a
seat's report, its orders or its dice; it cannot send orders or press; a game may refuse it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.services.archive.archive import export
from mailbot.services.play import observers
from mailbot.store.game_tables import Game
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import GM
from tests.services.test_games_by_mail import NORTH, SOUTH, _started

WATCHER = "watcher@elsewhere.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _all_text(letters: list) -> str:  # type: ignore[type-arg]
    return "\n".join(f"{m['Subject']}\n{text(m)}" for m in letters)


def test_an_observer_reads_the_public_letters_and_never_a_seats_report(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    letters = h.mail(WATCHER, "watching", f"OBSERVE DU-{game_id}\n")
    reply, welcome = sorted(to(letters, WATCHER), key=lambda m: "observer" in m["Subject"])
    assert "You now observe Test duel" in text(reply)
    assert f"[DU-{game_id}]" in welcome["Subject"] and "UNOBSERVE" in text(welcome)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    letters = h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    letters += h.tick(6 * 60)  # early processing: the orders step resolves
    letters += h.mail(NORTH, f"{north_tag} bid", "SEAL bid 0\n")
    letters += h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
    letters += h.tick(49 * 3600)  # the bid step at its deadline
    watched = to(letters, WATCHER)
    assert len(watched) == 2, [m["Subject"] for m in watched]
    said = _all_text(watched)
    assert "report for observers" in said and "Hit points:" in said
    # No split, no die, no seat's own lines: the observer is no seat.
    for private in ("ATTACK 3", "ATTACK 1", "DEFEND 2", "Your orders", "your attack", "your defence"):
        assert private not in said
    for secret in (h.seat(game_id, "north").secret, h.seat(game_id, "south").secret):
        assert secret not in said
    assert all(m["Subject"].strip().startswith(f"[DU-{game_id}] ") for m in watched)


def test_a_player_of_the_game_is_not_made_its_observer(h: Harness) -> None:
    """GM trial: a seated player added as an observer got every public letter twice, and one
    saying his orders and press would be refused (they were not)."""
    game_id, _, _ = _started(h)
    (reply,) = to(h.mail(NORTH, "watching", f"OBSERVE DU-{game_id}\n"), NORTH)
    assert "plays a seat of this game" in " ".join(text(reply).split()) and "You now observe" not in text(
        reply
    )
    with Session(h.bot.engine) as session:
        game = session.get_one(Game, game_id)
        assert observers.add(session, game, NORTH, by="gm", now=h.clock()) is observers.Change.PLAYS
        assert observers.observers(session, game_id) == []


def test_press_to_all_reaches_observers_and_press_to_a_seat_does_not(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(WATCHER, "watching", f"OBSERVE {game_id}\n")
    letters = h.mail(NORTH, f"{north_tag} press", "PRESS ALL\nGood luck, all.\nEND\n")
    (copy,) = to(letters, WATCHER)
    assert "Press from north to all" in copy["Subject"] and "Good luck, all." in text(copy)
    letters = h.mail(NORTH, f"{north_tag} press", "PRESS south\nJust for you.\nEND\n")
    assert to(letters, WATCHER) == []


def test_an_observer_cannot_send_orders_or_press(h: Harness) -> None:
    game_id, _, _ = _started(h)
    h.mail(WATCHER, "watching", f"OBSERVE {game_id}\n")
    (reply,) = to(
        h.mail(WATCHER, f"[DU-{game_id}] orders", "ORDERS\nATTACK 3\nEND\nPRESS ALL\nhi\nEND\n"), WATCHER
    )
    said = text(reply)
    assert "ORDERS" in said and "PRESS ALL" in said
    assert "observers only read: orders from an observer are refused" in said
    assert "observers only read: press from an observer are refused" in said
    with Session(h.bot.engine) as session:
        assert observers.observes(session, WATCHER)


def test_unobserve_stops_the_letters_and_a_game_may_refuse_observers(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(WATCHER, "watching", f"OBSERVE {game_id}\n")
    (reply,) = to(h.mail(WATCHER, "stop", f"UNOBSERVE {game_id}\n"), WATCHER)
    assert "no longer observe" in text(reply)
    assert to(h.mail(NORTH, f"{north_tag} press", "PRESS ALL\nhello\nEND\n"), WATCHER) == []
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).observers_allowed = False
    (refused,) = to(h.mail(WATCHER, "again", f"OBSERVE {game_id}\n"), WATCHER)
    assert f"OBSERVE {game_id}" in text(refused) and "this game takes no observers" in text(refused)
    (unknown,) = to(h.mail(WATCHER, "other", "OBSERVE 999\nOBSERVE\n"), WATCHER)
    assert "no game has that number" in text(unknown) and "write OBSERVE <game number>" in text(unknown)


def test_list_and_help_name_observe(h: Harness) -> None:
    game_id, _, _ = _started(h)
    (listed,) = to(h.mail(WATCHER, "LIST"), WATCHER)
    assert "Games open to observers" in text(listed) and f"{game_id} (DU-{game_id}) Test duel" in text(listed)
    assert "OBSERVE <game>" in text(listed)
    (helped,) = to(h.mail(WATCHER, "HELP"), WATCHER)
    assert "OBSERVE <game>" in text(helped) and "UNOBSERVE <game>" in text(helped)


def test_the_archive_counts_observers_without_their_addresses(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(WATCHER, "watching", f"OBSERVE {game_id}\n")
    h.mail(NORTH, f"{north_tag} press", "PRESS ALL\nhello\nEND\n")
    with Session(h.bot.engine) as session:
        export(session, game_id, tmp_path / "arch")
    everything = "\n".join(
        p.read_text(errors="replace") for p in (tmp_path / "arch").rglob("*") if p.is_file()
    )
    assert WATCHER not in everything
    assert "observer-added" in everything
    assert GM  # the GM's own letters are his business
