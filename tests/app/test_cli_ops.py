# SPDX-License-Identifier: GPL-3.0-or-later
"""Running unattended from the command line: outbox, status, check-config, settings errors,
and secrets compared in constant time."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, col, select
from typer.testing import CliRunner, Result

from mailbot.cli import app
from mailbot.services.inbox import auth
from mailbot.settings import PROJECT_ROOT, load_settings, sqlite_path_is_relative
from mailbot.store import db
from mailbot.store.game_tables import Seat
from mailbot.store.models import Outbound, OutboundState

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    import os

    for name in list(os.environ):
        if name.startswith("MAILBOT_"):
            monkeypatch.delenv(name)
    url = f"sqlite:///{tmp_path}/ops.db"
    monkeypatch.setenv("MAILBOT_STORE__URL", url)
    monkeypatch.setenv("MAILBOT_BOT__ADDRESS", "bot@example.test")
    monkeypatch.setenv("MAILBOT_BOT__GM_ADDRESS", "gm@example.test")
    return url


def _run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def game(env: str) -> str:
    """A running duel: its welcome letters and first reports wait in the outbox."""
    _run("db", "upgrade")
    _run("game", "create", "--game", "duel", "--title", "Ops duel", "--deadline", "48h")
    _run("game", "invite", "1", "a@players.test", "--seat", "north")
    _run("game", "invite", "1", "b@players.test", "--seat", "south")
    return env


def _change(url: str, act: Callable[[Session], None]) -> None:
    engine = db.make_engine(url)
    with Session(engine) as session, session.begin():
        act(session)
    engine.dispose()


def _rows(url: str) -> list[Outbound]:
    engine = db.make_engine(url)
    with Session(engine) as session:
        rows = list(session.exec(select(Outbound).order_by(col(Outbound.id))))
        for row in rows:
            session.expunge(row)
    engine.dispose()
    return rows


def _fail(url: str, *ids: int, error: str = "550 5.1.1 no such user") -> None:
    def act(session: Session) -> None:
        for row_id in ids:
            row = session.get_one(Outbound, row_id)
            row.state, row.attempts, row.last_error = OutboundState.FAILED, 3, error
            row.next_attempt_at = datetime(2030, 1, 1, tzinfo=UTC)

    _change(url, act)


# -- outbox ------------------------------------------------------------------------------


def test_outbox_list_filters_by_state_and_limits(game: str) -> None:
    _fail(game, 2)
    total = len(_rows(game))
    failed = _run("outbox", "list", "--state", "failed").stdout.splitlines()
    assert [line.split()[:2] for line in failed[:-1]] == [["2", "failed"]]
    assert failed[-1] == "1 row(s) in state failed"
    queued = _run("outbox", "list", "--state", "queued").stdout.splitlines()
    assert queued[-1] == f"{total - 1} row(s) in state pending"
    assert all(line.split()[1] == "pending" for line in queued[:-1])
    newest = _run("outbox", "list", "--limit", "2").stdout.splitlines()
    assert [int(line.split()[0]) for line in newest[:-1]] == [total, total - 1]
    bad = runner.invoke(app, ["outbox", "list", "--state", "lost"])
    assert bad.exit_code == 2 and "failed, queued, sending, sent" in bad.output


def test_outbox_show_has_headers_state_and_error_but_the_text_only_with_body(game: str) -> None:
    welcome = next(row for row in _rows(game) if row.kind == "welcome")
    assert welcome.id is not None
    _fail(game, welcome.id)
    shown = _run("outbox", "show", str(welcome.id)).stdout
    assert f"To: {welcome.recipient}" in shown and "Subject: [DU-1 " in shown
    assert "state:        failed" in shown and "attempts:     3" in shown
    assert "last error:   550 5.1.1 no such user" in shown
    assert "Your secret:" not in shown
    assert "Your secret:" in _run("outbox", "show", str(welcome.id), "--body").stdout
    missing = runner.invoke(app, ["outbox", "show", "999"])
    assert missing.exit_code == 1 and "no outbox row 999" in missing.stderr


def test_outbox_retry_one_row_queues_it_now_with_attempts_reset(
    game: str, caplog: pytest.LogCaptureFixture
) -> None:
    _fail(game, 1, 2)
    caplog.set_level(logging.INFO)
    before = datetime.now(UTC)
    assert "1 row(s) queued again: 1" in _run("outbox", "retry", "1").stdout
    rows = {row.id: row for row in _rows(game)}
    assert (rows[1].state, rows[1].attempts) == (OutboundState.PENDING, 0)
    assert before - timedelta(seconds=1) <= rows[1].next_attempt_at <= datetime.now(UTC)
    assert rows[2].state is OutboundState.FAILED  # only the one asked for
    assert "outbox row 1 put back to queued by the operator" in caplog.text


def test_outbox_retry_refuses_a_row_that_did_not_fail(game: str) -> None:
    result = runner.invoke(app, ["outbox", "retry", "1"])
    assert result.exit_code == 1 and "is pending, not failed" in result.stderr
    assert _rows(game)[0].state is OutboundState.PENDING
    assert runner.invoke(app, ["outbox", "retry"]).exit_code == 2  # neither ID nor --all-failed
    assert runner.invoke(app, ["outbox", "retry", "1", "--all-failed"]).exit_code == 2


def test_outbox_retry_all_failed_leaves_the_others_alone(game: str) -> None:
    _fail(game, 1, 3)
    _change(game, lambda s: setattr(s.get_one(Outbound, 2), "attempts", 2))
    assert "2 row(s) queued again: 1, 3" in _run("outbox", "retry", "--all-failed").stdout
    rows = {row.id: row for row in _rows(game)}
    assert [rows[i].state for i in (1, 2, 3)] == [OutboundState.PENDING] * 3
    assert (rows[1].attempts, rows[2].attempts, rows[3].attempts) == (0, 2, 0)
    assert "0 row(s) queued again" in _run("outbox", "retry", "--all-failed").stdout


# -- status ------------------------------------------------------------------------------


def test_status_text_highlights_failed_rows_and_json_says_not_ok(game: str) -> None:
    import json

    assert "status at " in _run("status").stdout.splitlines()[0]
    _fail(game, 1)
    result = runner.invoke(app, ["status"])
    assert result.exit_code == 1  # not ok: a container's health check sees it
    text = result.stdout
    assert text.splitlines()[0].endswith("ATTENTION")
    assert "failed 1 <-- !!" in text and "games:   setup 0, running 1" in text
    assert "next deadline: " in text and "game 1 (Ops duel)" in text
    assert "last IMAP contact: unknown" in text
    data = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert data["ok"] is False and data["outbox"]["failed"] == 1 and data["games"]["running"] == 1


def test_status_on_a_missing_database_says_so_without_creating_it(env: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["status"])
    assert result.exit_code == 1 and "no database at" in result.stderr
    assert not (tmp_path / "ops.db").exists()


def test_a_game_command_does_not_create_a_database(env: str, tmp_path: Path) -> None:
    create = ["game", "create", "--game", "duel", "--title", "Lost duel", "--deadline", "48h"]
    result = runner.invoke(app, create)
    assert result.exit_code == 1 and f"no database at {tmp_path}/ops.db" in result.stderr
    assert "mailbot db upgrade" in result.stderr and not (tmp_path / "ops.db").exists()
    assert f"database created: {env}" in _run("db", "upgrade").stdout
    assert f"database already at the newest schema: {env}" in _run("db", "upgrade").stdout
    assert f"database: {env}" in _run(*create).stdout


def test_without_any_settings_a_command_refuses_saying_where_it_looked(
    env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("MAILBOT_STORE__URL", "MAILBOT_BOT__ADDRESS", "MAILBOT_BOT__GM_ADDRESS"):
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    for command in (["game", "list"], ["db", "upgrade"], ["status"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("mailbot: no settings: give --config FILE, set MAILBOT_* variables")
        assert result.stderr.endswith(f"or put mailbot.toml in {tmp_path}\n")
    (tmp_path / "mailbot.toml").write_text(f'[store]\nurl = "sqlite:///{tmp_path}/here.db"\n')
    result = runner.invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0 and f"settings from {tmp_path}/mailbot.toml" in result.stderr
    assert (tmp_path / "here.db").exists()


# -- settings errors: one line, exit 2, for every command with --config -----------------

COMMANDS = [
    ["run"],
    ["check-config"],
    ["game", "list"],
    ["game", "show", "1"],
    ["archive", "export", "1", "--out", "x"],
    ["inject", "x.eml"],
    ["db", "upgrade"],
    ["outbox", "list"],
    ["outbox", "retry", "--all-failed"],
    ["status"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_bad_toml_is_one_clear_line_and_exit_2(env: str, tmp_path: Path, command: list[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[imap]\nhost = "imap.example.org\n')
    result = runner.invoke(app, [*command, "--config", str(bad)])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert str(bad) in result.stderr and "line 2, column" in result.stderr
    assert isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_missing_config_file_is_one_line_and_exit_2(env: str, tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "nowhere.toml"
    result = runner.invoke(app, [*command, "--config", str(missing)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"mailbot: {missing}: no such settings file\n"


def test_a_bad_value_names_its_key(env: str, tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[imap]\nport = "imaps"\n')
    result = runner.invoke(app, ["status", "--config", str(path)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert f"invalid settings in {path}: imap.port:" in result.stderr


def test_an_unreadable_password_file_is_a_settings_error(env: str, tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text(f'[smtp]\nuser = "bot"\npassword_file = "{tmp_path}"\n')  # a folder
    result = runner.invoke(app, ["game", "list", "--config", str(path)])
    assert result.exit_code == 2 and "SMTP password file" in result.stderr
    assert "Traceback" not in result.output


# -- check-config ------------------------------------------------------------------------


def test_check_config_names_every_missing_setting(
    env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAILBOT_STORE__URL")
    path = tmp_path / "m.toml"
    path.write_text(
        '[imap]\nhost = ""\nuser = ""\n[smtp]\nuser = "bot"\n'
        '[store]\nurl = "sqlite:///var/mailbot.db"\n[bot]\naddress = ""\n'
    )
    monkeypatch.setenv("MAILBOT_BOT__ADDRESS", "")
    result = runner.invoke(app, ["check-config", str(path)])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 6, lines
    for expected in (
        "imap.host is empty",
        "imap.user is empty",
        "no imap password: set MAILBOT_IMAP__PASSWORD or imap.password_file",
        "no smtp password: set MAILBOT_SMTP__PASSWORD or smtp.password_file",
        "store.url sqlite:///var/mailbot.db is a relative SQLite path",
        "bot.address is empty",
    ):
        assert any(expected in line for line in lines), expected
    assert "config ok" not in result.output


def test_check_config_passes_complete_settings(
    env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pw = tmp_path / "imap-pw"
    pw.write_text("imap-secret\n")
    path = tmp_path / "m.toml"
    path.write_text(f'[imap]\nhost = "imap.example.org"\nuser = "bot"\npassword_file = "{pw}"\n')
    monkeypatch.setenv("MAILBOT_SMTP__PASSWORD", "smtp-secret")
    for args in (["check-config", str(path)], ["check-config", "--config", str(path)]):
        out = _run(*args).stdout
        assert out.endswith("config ok\n") and "smtp-secret" not in out
    pw.unlink()
    result = runner.invoke(app, ["check-config", str(path)])
    assert result.exit_code == 1 and f"imap.password_file {pw} does not exist" in result.stderr


def test_the_example_and_the_default_store_are_absolute_paths() -> None:
    example = load_settings(PROJECT_ROOT / "config" / "mailbot.example.toml")
    assert example.store.url == "sqlite:////var/lib/mailbot/mailbot.db"
    assert not sqlite_path_is_relative(example.store.url)
    assert sqlite_path_is_relative("sqlite:///var/mailbot.db")
    assert sqlite_path_is_relative("sqlite+pysqlite:///mailbot.db")
    assert not sqlite_path_is_relative("sqlite://")  # in memory
    assert not sqlite_path_is_relative("postgresql://mailbot@db/mailbot")


# -- secrets -----------------------------------------------------------------------------


def test_same_secret_takes_any_text_and_never_matches_empty() -> None:
    assert auth.same_secret("k7Q2", "k7Q2")
    assert not auth.same_secret("k7Q3", "k7Q2")
    assert not auth.same_secret("", "")
    assert not auth.same_secret("", "k7Q2")
    assert not auth.same_secret("kä7Q2", "k7Q2")  # compare_digest refuses non-ASCII str: no crash


def test_letters_secrets_are_compared_with_compare_digest(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.services.helpers import letter

    engine = db.make_engine(game)
    with Session(engine) as session:
        secret = session.exec(select(Seat.secret).where(Seat.name == "north")).one()
    engine.dispose()
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    eml = tmp_path / "status.eml"
    eml.write_bytes(letter(sender="a@players.test", subject=f"[DU-1 {secret}] STATUS", body="STATUS\n"))
    out = _run("inject", str(eml)).stdout
    assert "Open step" in out and "refused" not in out
    assert (secret.encode(), secret.encode()) in compared
