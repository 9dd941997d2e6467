# SPDX-License-Identifier: GPL-3.0-or-later
"""What ``mailbot inject`` reads and prints (``mailbot.cli_inbound``): a letter file that cannot
be read is one line and exit 2, and only the replies handling this letter made are shown."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.cli_inbound import outbox_mark, read_letter, replies_after
from mailbot.store import db
from tests.services.helpers import letter

runner = CliRunner()


def test_a_letter_file_that_is_not_there_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit) as ended:
        read_letter(tmp_path / "nofile.eml")
    assert ended.value.exit_code == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == f"mailbot: cannot read {tmp_path / 'nofile.eml'}: No such file or directory\n"


def test_a_folder_is_no_letter_either(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit):
        read_letter(tmp_path)
    assert capsys.readouterr().err.startswith(f"mailbot: cannot read {tmp_path}: ")


def test_a_readable_letter_is_read_whole(tmp_path: Path) -> None:
    eml = tmp_path / "ping.eml"
    eml.write_bytes(b"From: a@b.test\r\n\r\nPING\r\n")
    assert read_letter(eml) == b"From: a@b.test\r\n\r\nPING\r\n"


def test_only_the_replies_written_after_the_mark_are_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path}/inject.db"
    monkeypatch.setenv("MAILBOT_STORE__URL", url)
    monkeypatch.setenv("MAILBOT_BOT__ADDRESS", "bot@example.test")
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    engine = db.make_engine(url)
    try:
        assert outbox_mark(engine) == 0  # an empty outbox
        first = tmp_path / "alice.eml"
        first.write_bytes(letter(sender="alice@players.test", body="PING\n", message_id="ia@players.test"))
        assert runner.invoke(app, ["inject", str(first)]).exit_code == 0
        mark = outbox_mark(engine)
        assert mark > 0 and "to alice@players.test" in "\n".join(replies_after(engine, 0))
        second = tmp_path / "bob.eml"
        second.write_bytes(letter(sender="bob@players.test", body="PING\n", message_id="ib@players.test"))
        assert runner.invoke(app, ["inject", str(second)]).exit_code == 0
        shown = replies_after(engine, mark)
        heads = [line for line in shown if line.startswith("--- outbox #")]
        assert heads and all("to bob@players.test" in head for head in heads)
        assert "PING: how your letter was read" in "\n".join(shown)
        assert replies_after(engine, outbox_mark(engine)) == []
    finally:
        engine.dispose()


def test_inject_of_a_file_that_is_not_there_says_so_in_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILBOT_STORE__URL", f"sqlite:///{tmp_path}/i.db")
    monkeypatch.setenv("MAILBOT_BOT__ADDRESS", "bot@example.test")
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    result = runner.invoke(app, ["inject", str(tmp_path / "nofile.eml")])
    assert result.exit_code == 2, result.output
    assert "cannot read" in result.output and "nofile.eml" in result.output
    assert "Traceback" not in result.output
