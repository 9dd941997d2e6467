# SPDX-License-Identifier: GPL-3.0-or-later
"""A set-up waiting for its round-1 reveals keeps a deadline like any step (issue 31).

Once every seat has joined, the set-up of a game with dice chains waits for the chained
seats' ``REVEAL 1``: the seats whose reveal is missing are reminded as missing orders are,
the GM's EXTEND, PAUSE, RESUME and FORCE (by mail and on the command line) act on it, STATUS
and ``game show`` say from whom and until when, the interlock holds its deadline, and a
reveal that reached the mail server after it is refused. Each on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.core import deadlines
from mailbot.store import db
from mailbot.store.game_tables import GameStatus, Seat
from tests.services.game_helpers import Harness, tag_of, text, to
from tests.services.helpers import GM, letter
from tests.services.test_dice_chains import _chain_line, _check, _failed, _play, _resolved, _value
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.services.test_setup_chains import _flat, _joined, _setup

HOUR = 3600.0


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _subjects(msgs: list[EmailMessage], address: str) -> list[str]:
    return [str(m["Subject"]) for m in to(msgs, address)]


def _reveal(game_id: int) -> str:
    return f"REVEAL 1 {_value(game_id, 'north', 1)}\n"


def _by(h: Harness, game_id: int) -> str:
    """The set-up's deadline as the duel's letters show it (the game's zone)."""
    return deadlines.local_time(_setup(h, game_id).deadline_at, "Europe/Berlin")


def _gm(h: Harness, game_id: int, body: str) -> list[EmailMessage]:
    return h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] gm", body)


def test_a_missing_set_up_reveal_is_reminded_as_missing_orders_are(h: Harness) -> None:
    """North (chained) owes his round-1 reveal; south sent hers with her JOIN. The game reminds
    12 hours before a deadline: north alone is reminded, once, and his reply rolls the set-up."""
    game_id, _, _ = _joined(h)
    assert not [m for m in h.tick(HOUR) if "Reminder" in m["Subject"]]  # not yet due
    due = h.tick(35 * HOUR)  # 36 hours after every seat joined: 12 before the 48-hour deadline
    reminders = [m for m in due if "Reminder" in m["Subject"]]
    assert [m["To"] for m in reminders] == [NORTH], _subjects(due, NORTH)
    said = _flat(reminders[0])
    assert f"python3 verify.py reveal {game_id} north 1 prints, by {_by(h, game_id)}." in said
    assert "your reveal counted as withheld" in said
    assert not [m for m in h.tick(HOUR) if "Reminder" in m["Subject"]]  # each reminder once
    assert h.game(game_id).status is GameStatus.SETUP
    answer = h.mail(NORTH, f"Re: {reminders[0]['Subject']}", _reveal(game_id))
    assert any("counts for the dice of this step" in text(m) for m in to(answer, NORTH))
    assert h.game(game_id).status is GameStatus.RUNNING
    assert _resolved(h, _setup(h, game_id))["withheld"] == []


def test_status_says_whom_the_set_up_waits_for_and_until_when(h: Harness) -> None:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    early = _flat(to(h.mail(NORTH, f"{north_tag} status", "STATUS\n"), NORTH)[-1])
    assert "Set-up: waiting for every seat to join (still open: south)" in early
    assert "Deadline" not in early  # nothing is due before every seat has joined
    game_id, north_tag, _ = _joined(h)
    status = _flat(to(h.mail(NORTH, f"{north_tag} status", "STATUS\n"), NORTH)[-1])
    assert "Game status: setup" in status
    assert f"Deadline: {_by(h, game_id)}" in status and "Reveals still to come: north" in status
    assert "Still to send" not in status  # the seats owe no orders
    gm = _flat(_gm(h, game_id, "STATUS\n")[-1])
    assert "Reveals still to come: north" in gm and NORTH not in gm.split("Reveals", 1)[1]


def test_the_gm_extends_pauses_resumes_and_forces_the_wait_by_mail(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, replies = _joined(h)
    first = _setup(h, game_id).deadline_at
    moved = _gm(h, game_id, "EXTEND setup 24h north is travelling\n")
    assert _setup(h, game_id).deadline_at == first + timedelta(hours=24)
    assert "deadline now" in _flat(to(moved, GM)[-1])
    asked = next(m for m in to(moved, NORTH) if "New deadline for the set-up dice" in m["Subject"])
    assert f"verify.py reveal {game_id} north 1 prints, by {_by(h, game_id)}." in _flat(asked)
    told = next(m for m in to(moved, SOUTH) if "New deadline for the set-up dice" in m["Subject"])
    assert "verify.py reveal" not in text(told) and _by(h, game_id) in _flat(told)
    h.tick(49 * HOUR)  # the first deadline has passed, the new one has not
    assert h.game(game_id).status is GameStatus.SETUP

    assert "paused" in _flat(to(_gm(h, game_id, "PAUSE\n"), GM)[-1])
    assert h.game(game_id).status is GameStatus.PAUSED
    h.tick(3 * 24 * HOUR)  # far past the deadline: a paused set-up is not rolled
    assert h.game(game_id).status is GameStatus.PAUSED
    refused = h.mail(NORTH, f"{north_tag} reveal", _reveal(game_id))
    assert "the game is paused: no reveal is taken" in _flat(to(refused, NORTH)[-1])
    status = _flat(to(h.mail(NORTH, f"{north_tag} status", "STATUS\n"), NORTH)[-1])
    assert "Game status: paused" in status and "Reveals still to come: north" in status

    resumed = _gm(h, game_id, "RESUME\n")
    assert h.game(game_id).status is GameStatus.SETUP  # waiting for the reveal again
    assert _setup(h, game_id).deadline_at > h.clock.now  # the passed deadline was renewed
    again = next(m for m in to(resumed, NORTH) if "New deadline for the set-up dice" in m["Subject"])
    assert f"verify.py reveal {game_id} north 1 prints, by {_by(h, game_id)}." in _flat(again)

    assert "set-up rolled" in _flat(to(_gm(h, game_id, "FORCE north cannot be reached\n"), GM)[-1])
    assert h.game(game_id).status is GameStatus.RUNNING
    assert _resolved(h, _setup(h, game_id))["withheld"] == ["north"]
    south_tag = tag_of(next(m for m in to(replies, SOUTH) if "Welcome" in m["Subject"]))
    _play(h, (game_id, north_tag, south_tag))
    assert _failed(_check(h, game_id, tmp_path)) == []


def test_a_resume_before_the_set_ups_deadline_says_until_when_it_waits(h: Harness) -> None:
    """RESUME names the open wait and its deadline to each seat (the outside trial, item 5)."""
    game_id, _, _ = _joined(h)
    _gm(h, game_id, "PAUSE\n")
    resumed = _gm(h, game_id, "RESUME\n")
    asked = next(m for m in to(resumed, NORTH) if "Game master: resume" in m["Subject"])
    assert "The game goes on." in _flat(asked)
    assert f"verify.py reveal {game_id} north 1 prints, by {_by(h, game_id)}." in _flat(asked)
    told = next(m for m in to(resumed, SOUTH) if "Game master: resume" in m["Subject"])
    assert f"by {_by(h, game_id)} at the latest" in _flat(told)


def test_a_forced_set_up_of_a_paused_game_stays_paused_until_resume(h: Harness) -> None:
    """As FORCE of a step in a paused game: the set-up is rolled, the game goes on at RESUME."""
    game_id, _, _ = _joined(h)
    _gm(h, game_id, "PAUSE\n")
    _gm(h, game_id, "FORCE\n")
    assert h.game(game_id).status is GameStatus.PAUSED
    assert _resolved(h, _setup(h, game_id))["withheld"] == ["north"]
    _gm(h, game_id, "RESUME\n")
    assert h.game(game_id).status is GameStatus.RUNNING


def test_the_gm_cannot_move_a_set_up_deadline_before_every_seat_joined(h: Harness) -> None:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    for command in ("EXTEND setup 24h", "FORCE", "PAUSE"):
        answer = _flat(_gm(h, game_id, f"{command}\n")[-1])
        assert "the set-up waits for every seat to join: it has no deadline yet" in answer, command
    assert h.game(game_id).status is GameStatus.SETUP


def test_a_set_up_whose_reveals_all_stay_missing_pauses_at_its_deadline(h: Harness) -> None:
    """The interlock, as for a step where most seats sent nothing: the GM is asked, nothing rolled."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    h.mail(NORTH, f"{north_tag} chain", _chain_line(game_id, "north") + "\n")
    code = h.seat(game_id, "south").invite_code
    h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n{_chain_line(game_id, 'south')}\n")
    assert h.game(game_id).status is GameStatus.SETUP
    told = h.tick(3 * 24 * HOUR)
    assert h.game(game_id).status is GameStatus.PAUSED
    assert "2 of 2 seats sent nothing" in _flat(next(m for m in to(told, GM) if "paused" in m["Subject"]))
    assert not [s for s in h.steps(game_id) if s.key != "setup"]  # nothing rolled, nothing opened
    _gm(h, game_id, "RESUME\n")
    assert h.game(game_id).status is GameStatus.SETUP
    h.mail(NORTH, f"{north_tag} reveal", _reveal(game_id))
    south = f"[DU-{game_id} {h.seat(game_id, 'south').secret}]"
    h.mail(SOUTH, f"{south} reveal", f"REVEAL 1 {_value(game_id, 'south', 1)}\n")
    assert h.game(game_id).status is GameStatus.RUNNING
    assert _resolved(h, _setup(h, game_id))["withheld"] == []


def test_a_reveal_that_reached_the_server_after_the_deadline_is_refused(h: Harness) -> None:
    """The mail server's receipt time decides, as for orders: the bot was down over the
    deadline, and north's reveal came in after it."""
    game_id, north_tag, _ = _joined(h)
    h.clock.advance(3 * 24 * HOUR)
    answer = _flat(to(h.mail(NORTH, f"{north_tag} reveal", _reveal(game_id)), NORTH)[-1])
    assert "your letter reached the mail server after the deadline" in answer
    h.tick()
    assert h.game(game_id).status is GameStatus.RUNNING
    assert _resolved(h, _setup(h, game_id))["withheld"] == ["north"]


# -- the command line ---------------------------------------------------------------------

runner = CliRunner()


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_game_show_extend_pause_resume_and_force_on_the_command_line(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILBOT_STORE__URL", db_url)
    monkeypatch.setenv("MAILBOT_BOT__ADDRESS", "bot@example.test")
    monkeypatch.setenv("MAILBOT_BOT__GM_ADDRESS", GM)
    _run("db", "upgrade")
    _run("game", "create", "--game", "duel", "--title", "CLI duel", "--deadline", "48h")
    _run("game", "invite", "1", NORTH, "--seat", "north")
    assert "waiting for every seat to join (still open: south)" in _run("game", "show", "1")
    engine = db.make_engine(db_url)
    with Session(engine) as session:
        secret = session.exec(select(Seat.secret).where(Seat.name == "north")).one()
    engine.dispose()
    chain = tmp_path / "chain.eml"
    chain.write_bytes(letter(sender=NORTH, subject=f"[DU-1 {secret}] chain", body=_chain_line(1, "north")))
    assert "Your anchor" in _run("inject", str(chain))
    _run("game", "invite", "1", SOUTH, "--seat", "south")
    shown = _run("game", "show", "1")
    assert "status setup" in shown and "Reveals still to come: north" in shown and "Deadline:" in shown
    assert "deadline now" in _run("game", "extend", "1", "setup", "24h")
    _run("game", "pause", "1", "--reason", "north is away")
    assert "status paused" in _run("game", "show", "1")
    _run("game", "resume", "1")
    assert "status setup" in _run("game", "show", "1")
    assert "set-up rolled" in _run("game", "force", "1")
    shown = _run("game", "show", "1")
    assert "status running" in shown and "Open step: T1.orders" in shown
