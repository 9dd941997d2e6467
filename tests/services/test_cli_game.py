# SPDX-License-Identifier: GPL-3.0-or-later
"""The GM's command line: create, invite, show, GM actions; letters land in the outbox."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.registry import default_registry
from mailbot.store import db
from mailbot.store.game_tables import Game, GameStatus
from mailbot.store.models import Outbound

runner = CliRunner()


@pytest.fixture
def env(cli_store: str) -> str:
    return cli_store


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_the_gm_runs_a_game_from_the_command_line(env: str) -> None:
    out = _run(
        "game",
        "create",
        "--game",
        "duel",
        "--title",
        "CLI duel",
        "--deadline",
        "Mon,Thu 20:00",
        "--timezone",
        "Europe/Berlin",
        "--reveal",
        "each-step",
        "--anonymous-press",
    )
    assert re.search(r"game 1 created: DU-1 CLI duel", out)
    assert "JOIN 1 north" in out and "JOIN 1 south" in out
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    _run("game", "invite", "1", "b@players.test", "--seat", "SOUTH")
    shown = _run("game", "show", "1")
    assert (
        "status running" in shown
        and "Open step: T1.orders" in shown
        and "Still to send: north, south" in shown
    )
    assert "Preview of" in _run("game", "preview", "1")
    _run("game", "pause", "1", "--reason", "holiday")
    assert runner.invoke(app, ["game", "pause", "1"]).exit_code == 1  # already paused: refused
    _run("game", "resume", "1", "--reason", "back")
    assert "DU-1" in _run("game", "list")
    engine = db.make_engine(env)
    with Session(engine) as session:
        game = session.get_one(Game, 1)
        assert game.status is GameStatus.RUNNING and not game.reveal_at_end and game.anonymous_press
        kinds = [row.kind for row in session.exec(select(Outbound))]
    engine.dispose()
    assert kinds.count("welcome") == 2 and kinds.count("report") == 2 and "announcement" in kinds


def _create(*options: str) -> list[str]:
    return ["game", "create", "--game", "duel", "--title", "Quick duel", "--deadline", "4m", *options]


def test_early_grace_and_reminders_are_taken_as_given(env: str) -> None:
    _run(*_create("--early", "10s", "--grace", "30s", "--reminder", "1m30s", "--reminder", "2h"))
    _run(*_create("--early", "0", "--grace", "0"))
    engine = db.make_engine(env)
    with Session(engine) as session:
        quick, at_once = session.exec(select(Game).order_by(col(Game.id))).all()
    engine.dispose()
    assert (quick.early_seconds, quick.grace_seconds, quick.reminders) == (10, 30, [90, 7200])
    assert (at_once.early_seconds, at_once.grace_seconds) == (0, 0)
    for number in ("1", "2"):
        _run("game", "invite", number, "a@players.test", "--seat", "north")
        _run("game", "invite", number, "b@players.test", "--seat", "south")
    shown = _run("game", "show", "1")
    assert "Early processing: 10 seconds after every order is in" in shown
    assert "deadlines: 4 minutes after the step opens; grace 30 seconds; " in shown
    assert "reminders 1 minute 30 seconds, 2 hours before" in shown
    assert "Early processing: as soon as every order is in" in _run("game", "show", "2")


@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [
        ("--early", "10x", "unknown unit 'x'"),
        ("--early", "5", "give a unit"),
        ("--grace", "soon", "not a duration"),
        ("--reminder", "0", "must be more than zero"),
    ],
)
def test_a_wait_that_cannot_be_read_is_refused_and_creates_nothing(
    env: str, option: str, value: str, reason: str
) -> None:
    result = runner.invoke(app, _create(option, value))
    assert result.exit_code == 2
    assert option in result.output and reason in result.output
    engine = db.make_engine(env)
    with engine.connect() as connection:
        assert (
            not sa.inspect(connection).has_table("game")
            or connection.execute(sa.text("SELECT count(*) FROM game")).scalar_one() == 0
        )
    engine.dispose()


FLATTOP = [
    "game",
    "create",
    "--game",
    "ft",
    "--scenario",
    "test-small",
    "--title",
    "Coral",
    "--deadline",
    "4h",
]


def test_game_options_are_set_checked_and_shown(env: str) -> None:
    listing = _run("game", "options", "flattop")
    assert "submarines" in listing and "curve-fitted|standard" in listing and "quiet_hours" in listing
    _run(*FLATTOP, "--option", "submarines=on", "-o", "crt=standard", "-o", "quiet_max=2")
    shown = _run("game", "show", "1")
    assert "options: crt=standard, quiet_max=2, submarines=on" in shown
    engine = db.make_engine(env)
    with Session(engine) as session:
        # what the GM set, and the declared default of each option he left alone
        assert session.get_one(Game, 1).options == {
            "submarines": True,
            "crt": "standard",
            "quiet_max": 2,
            "quiet_hours": True,
            "strike_hours": 12,
            "launch_wind": "standard",
        }
    engine.dispose()
    _run(*_create())
    assert "options: as the scenario sets them" in _run("game", "show", "2")


def test_a_game_created_without_a_scenario_plays_its_packages_default(env: str) -> None:
    assert "default scenario: coral-sea" in _run("game", "options", "flattop")
    flattop = [part for part in FLATTOP if part not in ("--scenario", "test-small")]
    out = _run(*flattop)
    assert "(flattop/coral-sea)" in out and "scenario: coral-sea (the game's default" in out
    assert "(flattop/coral-sea)" in _run("game", "show", "1")
    assert "scenario: standard (the game's default" in _run(*_create())  # duel keeps "standard"
    chosen = _run(*FLATTOP)
    assert "(flattop/test-small)" in chosen and "the game's default" not in chosen
    engine = db.make_engine(env)
    with Session(engine) as session:
        assert [game.scenario for game in session.exec(select(Game).order_by(col(Game.id)))] == [
            "coral-sea",
            "standard",
            "test-small",
        ]
    engine.dispose()


@pytest.mark.parametrize("game", [package.name for package in default_registry().packages()])
def test_every_built_in_game_is_created_without_naming_a_scenario(env: str, game: str) -> None:
    out = _run("game", "create", "--game", game, "--title", "Default", "--deadline", "4m")
    assert "(the game's default" in out, out
    assert f"({game}/" in _run("game", "show", "1")


def test_the_6_10_variant_is_a_game_option_a_gm_sets(env: str) -> None:
    """Reference A.4, [RW] 6.10 as the GM's choice: `game create --option launch_wind=variant`."""
    assert "launch_wind        standard|variant (default standard)" in _run("game", "options", "flattop")
    _run(*FLATTOP, "-o", "launch_wind=variant")
    assert "options: launch_wind=variant" in _run("game", "show", "1")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            ["-o", "subs=on"],
            "no option 'subs'; this game takes crt, launch_wind, quiet_hours, quiet_max, strike_hours, "
            "submarines",
        ),
        (["-o", "submarines=maybe"], "submarines is on or off, not 'maybe'"),
        (["-o", "strike_hours=0"], "strike_hours is a whole number 1..168"),
        (["-o", "launch_wind=sideways"], "launch_wind takes one of standard, variant, not 'sideways'"),
    ],
)
def test_a_bad_game_option_is_refused_and_creates_nothing(env: str, options: list[str], said: str) -> None:
    result = runner.invoke(app, [*FLATTOP, *options])
    assert result.exit_code == 1 and said in result.output
    assert "no game" in runner.invoke(app, ["game", "show", "1"]).output


def test_an_option_the_scenario_refuses_is_refused_when_the_game_is_created(env: str) -> None:
    result = runner.invoke(
        app, ["game", "create", "--game", "wif", "--title", "W", "--deadline", "4h", "-o", "first=Mars"]
    )
    assert (
        result.exit_code == 1 and "option first must name a side (Axis, Allies), not 'Mars'" in result.output
    )
    assert "no game" in runner.invoke(app, ["game", "show", "1"]).output
    # GM trial: the refusals name what is allowed, and a side is read in any case, as --seat is.
    refusals = (
        (
            ["--game", "wif", "-o", "neutral=Narnia"],
            "'Narnia' is not a major power of the last impulse test (CW,",
        ),
        (["--game", "salt-n-tar", "-o", "wind_direction=xyz"], "is not a point of the square grid: 1 North,"),
    )
    for words, said in refusals:
        result = runner.invoke(app, ["game", "create", "--title", "W", "--deadline", "4h", *words])
        assert result.exit_code == 1 and said in " ".join(result.output.replace("│", " ").split()), (
            result.output
        )
    lower = runner.invoke(
        app, ["game", "create", "--game", "wif", "--title", "W", "--deadline", "4h", "-o", "first=axis"]
    )
    assert lower.exit_code == 0, lower.output


def test_inject_feeds_one_letter_through_the_pipeline(env: str, tmp_path: Path) -> None:
    from tests.services.helpers import letter

    eml = tmp_path / "ping.eml"
    eml.write_bytes(letter(subject="PING", body="PING\nwhat?\n", message_id="inject-1@players.test"))
    out = _run("inject", str(eml))
    assert "to alice@players.test" in out and "PING: how your letter was read" in out
    assert 'Line 2: "what?"' in out
    assert "duplicate" in _run("inject", str(eml))


def _stdout(*args: str) -> str:
    """What a command printed on stdout alone (a log line on stderr is not its answer)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_game_list_open_shows_the_free_seats_as_list_by_mail_does(env: str) -> None:
    assert _stdout("game", "list", "--open").strip() == "no game is open to join"
    _run(*_create())
    _run(*_create())
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    _run("game", "invite", "2", "a@players.test", "--seat", "north")
    _run("game", "invite", "2", "b@players.test", "--seat", "south")  # full: running
    lines = _stdout("game", "list", "--open").splitlines()
    assert lines == [
        "1 (DU-1) Quick duel: duel, scenario standard;"
        " deadlines 4 minutes after the step opens; free seats: south"
    ]


def _seat_tags(env: str) -> dict[str, str]:
    from mailbot.store.game_tables import Seat

    engine = db.make_engine(env)
    with Session(engine) as session:
        tags = {seat.name: f"[DU-{seat.game_id} {seat.secret}]" for seat in session.exec(select(Seat))}
    engine.dispose()
    return tags


def test_inject_closes_the_step_when_every_seat_is_in_or_says_why_not(env: str, tmp_path: Path) -> None:
    """Issue 37: by hand, orders were written for every seat and the steps then closed by the GM;
    inject now closes a step as the service would once its early delay has passed (here an hour)."""
    from tests.services.helpers import letter

    _run(*_create("--early", "1h"))
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    _run("game", "invite", "1", "b@players.test", "--seat", "south")
    tags = _seat_tags(env)
    north = tmp_path / "north.eml"
    north.write_bytes(
        letter(sender="a@players.test", subject=f"{tags['north']} orders", body="ORDERS\nATTACK 2\nEND\n")
    )
    out = _run("inject", str(north))
    assert "game 1: T1.orders stays open: waiting for south" in out
    assert "Open step: T1.orders" in _run("game", "show", "1")
    south = tmp_path / "south.eml"
    south.write_bytes(
        letter(
            sender="b@players.test",
            subject=f"{tags['south']} orders",
            body="ORDERS\nATTACK 1\nDEFEND 2\nEND\n",
        )
    )
    out = _run("inject", "--no-close", str(south))
    assert "processed" not in out and "Open step: T1.orders" in _run("game", "show", "1")
    again = tmp_path / "south-again.eml"
    again.write_bytes(
        letter(
            sender="b@players.test",
            subject=f"{tags['south']} orders",
            body="ORDERS\nATTACK 1\nDEFEND 2\nEND\n",
        )
    )
    out = _run("inject", str(again))
    assert "game 1: every seat is in: T1.orders processed, as the service does after its early delay" in out
    assert "Open step: T1.bid" in _run("game", "show", "1")
    stranger = tmp_path / "stranger.eml"
    stranger.write_bytes(letter(sender="c@players.test", subject="PING", body="PING\n"))
    assert "no running game has a seat for c@players.test: no step to close" in _run("inject", str(stranger))


def test_the_gm_adds_and_removes_observers_and_show_lists_them(env: str) -> None:
    _run("game", "create", "--game", "duel", "--title", "Watched", "--deadline", "48h")
    assert "w@watch.test added" in _run("game", "observe", "1", "W@watch.test")
    assert "w@watch.test already observes" in _run("game", "observe", "1", "w@watch.test")
    assert "observers: w@watch.test" in _run("game", "show", "1")
    engine = db.make_engine(env)
    with Session(engine) as session:
        welcome = session.exec(select(Outbound).where(Outbound.recipient == "w@watch.test")).one()
        assert "(observer)" in welcome.subject
    engine.dispose()
    assert "w@watch.test removed" in _run("game", "observe", "1", "w@watch.test", "--remove")
    assert "observers: none" in _run("game", "show", "1")
    _run("game", "create", "--game", "duel", "--title", "Private", "--deadline", "48h", "--no-observers")
    refused = runner.invoke(app, ["game", "observe", "2", "w@watch.test"])
    assert refused.exit_code == 1 and "this game takes no observers" in refused.output
    assert "(this game takes no observers)" in _run("game", "show", "2")


def test_an_invite_or_observer_that_is_no_address_or_a_second_seat_is_refused(env: str) -> None:
    _run(*_create())
    for args, said in [
        (
            ["game", "invite", "1", "not an address", "--seat", "south"],
            "'not an address' is not an e-mail address",
        ),
        (["game", "observe", "1", "bad address"], "'bad address' is not an e-mail address"),
    ]:
        result = runner.invoke(app, args)
        assert result.exit_code == 1 and said in result.output, result.output
    _run("game", "invite", "1", "North@Players.test", "--seat", "north")
    result = runner.invoke(app, ["game", "invite", "1", "north@players.test", "--seat", "south"])
    assert result.exit_code == 1 and "plays north in this game: one player, one seat" in result.output
    assert "south" in _run("game", "list", "--open")


def test_what_the_gm_did_stands_when_its_answer_cannot_be_written(
    env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A closed pipe (``game create ... | head -1``) fails the first write: the game was made
    and committed before anything was said, so it stays made."""
    import typer

    def closed(*_args: object, **_kwargs: object) -> None:
        raise BrokenPipeError

    with monkeypatch.context() as patched:
        patched.setattr(typer, "echo", closed)
        assert runner.invoke(app, _create()).exit_code != 0
    assert "Quick duel" in _run("game", "list")


def test_an_archive_of_a_game_that_does_not_exist_is_refused_in_a_line(env: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["archive", "export", "999", "--out", str(tmp_path / "arch")])
    assert result.exit_code == 1 and "no game 999" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not (tmp_path / "arch").exists()


def test_seeds_revealed_each_step_of_a_game_that_hides_information_are_warned_of(env: str) -> None:
    said = _run(*_create("--reveal", "each-step"))
    assert "note: duel hides information; with each step's seed revealed" in said
    assert "note:" not in _run(*_create("--reveal", "end"))


def test_an_empty_title_is_refused_and_a_reminder_given_twice_counts_once(env: str) -> None:
    result = runner.invoke(app, ["game", "create", "--game", "duel", "--title", " ", "--deadline", "4m"])
    assert result.exit_code == 2 and "a game needs a title" in result.output
    _run(*_create("--reminder", "2m", "--reminder", "2m", "--reminder", "1m"))
    engine = db.make_engine(env)
    with Session(engine) as session:
        assert session.get_one(Game, 1).reminders == [120, 60]
    engine.dispose()


def _next_spring_gap() -> str:
    """02:30 on the last Sunday of March after this one: Berlin's clocks skip it (03:00 CEST)."""
    from datetime import UTC, date, datetime, timedelta

    year = datetime.now(UTC).year + 1
    day = date(year, 3, 31)
    return (day - timedelta(days=(day.weekday() + 1) % 7)).isoformat()


def test_a_deadline_the_clocks_skip_is_said_with_the_instant_used(env: str) -> None:
    """The outside trial, item 3: a --deadline inside the spring gap was taken in silence."""
    day = _next_spring_gap()
    said = _run(
        *["game", "create", "--game", "duel", "--title", "Gap", "--timezone", "Europe/Berlin"],
        *["--deadline", f"{day} 02:30 Europe/Berlin"],
    )
    assert f"note: 02:30 does not exist on Sun {int(day[8:])} Mar {day[:4]} in Europe/Berlin" in said, said
    assert "the clocks jump from 02:00 to 03:00 that night): the deadline is" in said
    assert "03:00 CEST, the moment of the jump" in said
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    shown = _run("game", "show", "1")
    assert "(02:30 is skipped that night: the deadline is 03:00 CEST)" in shown, shown
    assert "note:" not in _run(*_create())


def test_extend_takes_the_open_step_when_it_is_left_out(env: str) -> None:
    """The outside trial, item 4: `game extend 4 24h` answered "Missing argument 'duration'"."""
    _run(*_create())
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    _run("game", "invite", "1", "b@players.test", "--seat", "south")
    assert "deadline now" in _run("game", "extend", "1", "24h")
    assert "deadline now" in _run("game", "extend", "1", "T1.orders", "1h")
    for words in (["T1.orders"], ["T1.orders", "1h", "2h"]):
        result = runner.invoke(app, ["game", "extend", "1", *words])
        said = " ".join(result.output.replace("│", " ").split())  # as the error box wraps it
        assert result.exit_code == 2, result.output
        assert "game extend 4 24h" in said and "game extend 4 T1.I2 24h" in said, said
    # GM trial: "0h" and "abc" were both "how much later is missing"; "24h 12h" named the open step.
    for words, told in (
        (["0h"], "must be more than zero"),
        (["abc"], "'abc' is no duration"),
        (["24h", "12h"], "'24h' is a duration, not a step"),
    ):
        result = runner.invoke(app, ["game", "extend", "1", *words])
        assert told in " ".join(result.output.replace("│", " ").split()), result.output
    wrong = runner.invoke(app, ["game", "extend", "1", "T2.orders", "1h"])
    assert wrong.exit_code == 1 and "the open step is T1.orders" in wrong.output
    assert "[STEP] DURATION" in runner.invoke(app, ["game", "extend", "--help"]).output


def test_the_archive_of_a_game_not_over_is_written_only_as_the_gms_private_copy(
    env: str, tmp_path: Path
) -> None:
    """The outside trial, item 6: `archive export` of a running game wrote every seat's hand,
    discards and orders, and said only "archive written"; a GM who published it leaked the game."""
    _run(*_create())
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    _run("game", "invite", "1", "b@players.test", "--seat", "south")
    refused = runner.invoke(app, ["archive", "export", "1", "--out", str(tmp_path / "pub")])
    said = " ".join(refused.output.split())
    assert refused.exit_code == 1, refused.output
    assert "game 1 is running: its archive would hold what the seats have not seen" in said, said
    assert "mailbot archive export 1 --out" in said and "--private" in said
    assert not (tmp_path / "pub").exists()
    private = " ".join(_run("archive", "export", "1", "--out", str(tmp_path / "own"), "--private").split())
    assert "archive written" in private and "warning: game 1 is running: this is a PRIVATE copy" in private
    assert "do not publish it" in private
    assert (tmp_path / "own" / "README.txt").read_text().startswith("PRIVATE COPY: DO NOT PUBLISH")
    assert "--private" in runner.invoke(app, ["archive", "export", "--help"]).output
    engine = db.make_engine(env)
    with Session(engine) as session, session.begin():
        session.get_one(Game, 1).status = GameStatus.FINISHED
    engine.dispose()
    published = _run("archive", "export", "1", "--out", str(tmp_path / "pub"))
    assert "archive written" in published and "warning" not in published
    assert not (tmp_path / "pub" / "README.txt").read_text().startswith("PRIVATE")


def test_the_gm_abandons_a_game_from_the_command_line(env: str, tmp_path: Path) -> None:
    """GM trial: games that never filled their seats stayed in `game list --open` for good."""
    _run(*_create())
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    assert "Quick duel" in _run("game", "list", "--open")
    assert "ended" in _run("game", "abandon", "1", "--reason", "nobody came")
    assert "Quick duel" not in _run("game", "list", "--open")
    again = runner.invoke(app, ["game", "abandon", "1"])
    assert again.exit_code == 1 and "the game is over" in again.output
    # Its archive is a finished game's, and the players' checker passes it.
    _run("archive", "export", "1", "--out", str(tmp_path / "archive"))
    checked = subprocess.run(
        [sys.executable, "verify.py", "."],
        cwd=tmp_path / "archive",
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0 and "0 failed" in checked.stdout, checked.stdout + checked.stderr
