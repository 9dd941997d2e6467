# SPDX-License-Identifier: GPL-3.0-or-later
"""A seat without a player never holds a step open (an outside trial, item 1): a seat whose
player was ejected or resigned plays its default orders as soon as every seat with a player that
owes the step has sent, in every game and in sealed steps too; a new player given such a seat
(REPLACE) owes from the next step on. And a letter from a seat that owed nothing in the step
just closed is that seat's orders for the open step, never "late" (item 2)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.services.base import queries
from mailbot.services.play.games import GameSetup
from mailbot.store.game_tables import GameStatus, StepRow, StepState
from tests.services.game_helpers import Harness, started_duel, text, to
from tests.services.helpers import GM, letter

NORTH, SOUTH, CAROL = "north@players.test", "south@players.test", "carol@players.test"
AXIS, ALLIES = "axis@players.test", "allies@players.test"
EARLY = 5 * 60  # the harness's early delay, in seconds


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    """On SQLite only: what is checked is when steps close, not the store."""
    harness = Harness(f"sqlite:///{tmp_path}/unplayed.db")
    yield harness
    harness.bot.engine.dispose()


def _open(h: Harness, game_id: int) -> StepRow:
    return next(s for s in h.steps(game_id) if s.state is StepState.OPEN)


def _gm(h: Harness, game_id: int, line: str, prefix: str = "DU") -> list[str]:
    letters = h.mail(GM, f"[{prefix}-{game_id} {h.game(game_id).gm_secret}] gm", f"{line}\n")
    return [text(m) for m in to(letters, GM)]


def _send(h: Harness, sender: str, subject: str, body: str) -> str:
    """A letter written now (the harness's letters are dated at its start, before any report),
    handled; the answer's text."""
    h.clock.advance(1)
    h.bot.inject(letter(sender=sender, subject=subject, body=body, date=h.clock.now))
    h.bot.processor.process_pending()
    (answer,) = to(h.flush(), sender)
    return text(answer)


def _status(h: Harness, game_id: int) -> str:
    with Session(h.bot.engine) as session:
        game = session.get_one(type(h.game(game_id)), game_id)
        return "\n".join(h.bot.mailgame.status_lines(session, game, None))


def _wif(h: Harness) -> tuple[int, dict[str, str]]:
    """A World in Flames turn-end game with both seats invited; the seats' subject tags."""
    setup = GameSetup(
        plugin="wif-turn-end",
        scenario="standard",
        title="WiF turn end",
        deadline="48h",
        timezone="Europe/Berlin",
        gm_address=GM,
        early=timedelta(seconds=EARLY),
    )
    with Session(h.bot.engine) as session, session.begin():
        game_id = int(h.bot.games.create(session, setup).id or 0)
    h.invite(game_id, "Axis", AXIS)
    h.invite(game_id, "Allies", ALLIES)
    h.flush()
    return game_id, {name: f"[WI-{game_id} {h.seat(game_id, name).secret}]" for name in ("Axis", "Allies")}


def test_wif_an_ejected_side_does_not_hold_its_impulses_open(h: Harness) -> None:
    """The trial: Allies ejected; every Allies impulse waited its 48 hours for nobody."""
    game_id, tags = _wif(h)
    _gm(h, game_id, "EJECT Allies no-show", "WI")
    for _ in range(4):  # two impulses of each side
        step = _open(h, game_id)
        if "Axis" in step.owing:
            answer = _send(h, AXIS, f"{tags['Axis']} o", f"ORDERS {step.key}\nWEATHER 2\nEND\n")
            assert "accepted" in answer.lower(), answer
        else:
            assert step.owing == ["Allies"]
            status = _status(h, game_id)
            assert "Still to send: nobody" in status, status
            assert "Not waited for: Allies (no player: it plays its default orders)" in status, status
        h.tick(EARLY)
        assert _open(h, game_id).key != step.key, f"{step.key} waits for a seat nobody plays"
        assert h.clock.now < step.opened_at + timedelta(hours=1)


def test_an_ejected_seats_step_closes_early_once_the_others_are_in(h: Harness) -> None:
    """EJECT, then the other seat's orders: the step closes after the early delay (duel: both
    seats owe every step), and ``mailbot inject`` closes it at once rather than answering
    "stays open: waiting for north"."""
    game_id, _, south_tag = started_duel(h, NORTH, SOUTH)
    _gm(h, game_id, "EJECT north no-show")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    step = _open(h, game_id)
    assert step.key == "T1.orders" and step.early_at == h.clock.now + timedelta(minutes=5)
    assert h.bot.ticker.close_if_all_in(SOUTH) == [
        f"game {game_id}: every seat is in: T1.orders processed, as the service does after its early delay"
    ]
    assert _open(h, game_id).key == "T1.bid"


def test_ejecting_the_last_silent_seat_starts_the_early_delay_at_once(h: Harness) -> None:
    game_id, _, south_tag = started_duel(h, NORTH, SOUTH)
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    assert _open(h, game_id).early_at is None
    _gm(h, game_id, "EJECT north no-show")
    assert _open(h, game_id).early_at == h.clock.now + timedelta(minutes=5)
    h.tick(EARLY)
    assert _open(h, game_id).key == "T1.bid"


def test_a_sealed_step_does_not_wait_for_an_ejected_seat(h: Harness) -> None:
    game_id, _, south_tag = started_duel(h, NORTH, SOUTH)
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    _gm(h, game_id, "EJECT north no-show")
    h.tick(EARLY)
    assert _open(h, game_id).kind == "sealed"
    assert "Receipt" in _send(h, SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
    letters = h.tick(EARLY)
    assert _open(h, game_id).key == "T2.orders"
    (report,) = [m for m in to(letters, SOUTH) if "resolved" in m["Subject"]]
    assert "north" in text(report) and "default" in text(report).lower()


def test_a_resigned_seat_does_not_hold_the_step_open(h: Harness) -> None:
    game_id, north_tag, south_tag = started_duel(h, NORTH, SOUTH)
    h.mail(NORTH, f"{north_tag} resign", "RESIGN\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(EARLY)
    assert _open(h, game_id).key == "T1.bid"


def test_a_deadline_with_only_an_ejected_seat_silent_is_played_not_paused(h: Harness) -> None:
    """The interlock pauses when most seats sent nothing; a seat nobody plays is not missing."""
    game_id, _, _ = started_duel(h, NORTH, SOUTH)
    h.bot.turns.max_missed_share = 0.4  # one silent seat of two would pause the game
    _gm(h, game_id, "EJECT north no-show")
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(StepRow, _open(h, game_id).id).early_at = None  # as if south sent nothing yet
    h.clock.now = _open(h, game_id).deadline_at + timedelta(seconds=1)
    h.tick()
    assert h.game(game_id).status is GameStatus.RUNNING
    assert _open(h, game_id).key == "T1.bid"


def test_a_game_nobody_plays_waits_for_its_deadlines(h: Harness) -> None:
    game_id, _, _ = started_duel(h, NORTH, SOUTH)
    _gm(h, game_id, "EJECT north")
    _gm(h, game_id, "EJECT south")
    step = _open(h, game_id)
    h.tick(EARLY)
    h.tick(EARLY)
    assert _open(h, game_id).id == step.id and _open(h, game_id).early_at is None


def test_a_new_player_of_an_ejected_seat_owes_from_the_next_step_on(h: Harness) -> None:
    game_id, _, south_tag = started_duel(h, NORTH, SOUTH)
    _gm(h, game_id, "EJECT north no-show")
    letters = h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] gm", f"REPLACE north {CAROL}\n")
    (standing,) = [m for m in to(letters, CAROL) if "where the game stands" in m["Subject"]]
    assert "does not wait for you" in text(standing)
    assert "Not waited for: north (its new player owes from the next step on" in _status(h, game_id)
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(EARLY)
    assert _open(h, game_id).key == "T1.bid"  # played without carol
    assert "Receipt" in _send(h, SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
    h.tick(EARLY)
    assert _open(h, game_id).key == "T1.bid", "the next step waits for the new player"
    assert "Still to send: north" in _status(h, game_id)
    lines = h.bot.ticker.close_if_all_in(SOUTH)
    assert lines == [f"game {game_id}: T1.bid stays open: waiting for north"], lines


def test_wif_a_letter_from_the_side_that_owed_nothing_is_its_orders_for_the_open_step(h: Harness) -> None:
    """Right after Axis's letter closed T1.I1, the Allies' plain ORDERS (no step key), written
    before their report went out, was answered "Late for Turn 1, impulse 1 ... Nothing in it
    was used": the Allies owed nothing in T1.I1, so it is their T1.I2 orders."""
    game_id, tags = _wif(h)
    first = _open(h, game_id)
    assert first.owing == ["Axis"]
    h.mail(AXIS, f"{tags['Axis']} o", f"ORDERS {first.key}\nWEATHER 2\nEND\n")
    written = h.clock.now
    h.tick(EARLY)
    second = _open(h, game_id)
    assert second.owing == ["Allies"]
    body = "ORDERS\nPASS USA\nEND\n"
    orders = letter(sender=ALLIES, subject=f"{tags['Allies']} o", body=body, date=written)
    h.bot.inject(orders)
    h.bot.processor.process_pending()
    answer = text(to(h.flush(), ALLIES)[0])
    assert "Late for" not in answer and "Nothing in it was used" not in answer, answer
    with Session(h.bot.engine) as session:
        assert queries.current_orders(session, int(second.id or 0))["Allies"].lines == ["PASS USA"]


def test_a_step_stuck_on_a_seat_nobody_plays_is_freed_by_the_next_tick(h: Harness) -> None:
    """A game stuck before this fix (the step open, every seat with a player in, no early time)
    starts its early delay at the next tick."""
    game_id, _, south_tag = started_duel(h, NORTH, SOUTH)
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    _gm(h, game_id, "EJECT north no-show")
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(StepRow, _open(h, game_id).id).early_at = None
    h.tick(1)
    assert _open(h, game_id).early_at == h.clock.now + timedelta(minutes=5)
    h.tick(EARLY)
    assert _open(h, game_id).key == "T1.bid"


def test_a_rolled_back_step_with_its_orders_carried_still_waits_for_a_letter(h: Harness) -> None:
    """The tick starts no early delay for a step every seat's carried orders fill: its players
    were told they may replace them (only a step held by seats nobody plays is started so)."""
    game_id, north_tag, south_tag = started_duel(h, NORTH, SOUTH)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(EARLY)
    assert _open(h, game_id).key == "T1.bid"
    _gm(h, game_id, "ROLLBACK T1.orders wrong table")
    reopened = _open(h, game_id)
    assert (reopened.key, reopened.attempt, reopened.early_at) == ("T1.orders", 2, None)
    h.tick(EARLY)
    h.tick(EARLY)
    assert _open(h, game_id).id == reopened.id
