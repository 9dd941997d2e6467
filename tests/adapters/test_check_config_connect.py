# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot check-config --connect`` against the real rig (Dovecot IMAPS, SMTP with STARTTLS
and AUTH checked by Dovecot): it logs in to both as the service would and says what failed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.testing.mailrig import MailRig, free_ports

runner = CliRunner()


@pytest.fixture
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mail_rig: MailRig) -> Path:
    for name in list(os.environ):
        if name.startswith("MAILBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("MAILBOT_IMAP__PASSWORD", mail_rig.bot_password)
    monkeypatch.setenv("MAILBOT_SMTP__PASSWORD", mail_rig.bot_password)
    path = tmp_path / "mailbot.toml"
    path.write_text(
        f'[imap]\nhost = "{mail_rig.host}"\nport = {mail_rig.imaps_port}\nuser = "{mail_rig.bot_address}"\n'
        f'cafile = "{mail_rig.cafile}"\ntimeout = 10\n'
        f'[smtp]\nhost = "{mail_rig.host}"\nport = {mail_rig.smtp_port}\nuser = "{mail_rig.bot_address}"\n'
        f'cafile = "{mail_rig.cafile}"\ntimeout = 10\n'
        f'[store]\nurl = "sqlite:///{tmp_path}/mailbot.db"\n'
        f'[bot]\naddress = "{mail_rig.bot_address}"\ngm_address = "gm@example.test"\n'
    )
    return path


def test_connect_logs_in_to_imap_and_smtp(settings_file: Path, mail_rig: MailRig) -> None:
    result = runner.invoke(app, ["check-config", str(settings_file), "--connect"])
    assert result.exit_code == 0, (result.stderr, repr(result.exception))
    assert f"imap ok: logged in to {mail_rig.host} as {mail_rig.bot_address}, INBOX selected" in result.stdout
    assert f"smtp ok: logged in as {mail_rig.bot_address}" in result.stdout
    assert result.stdout.endswith("config ok\n") and mail_rig.bot_password not in result.output


def _one_failure(settings_file: Path) -> str:
    """check-config --connect that fails: its one line on stderr."""
    result = runner.invoke(app, ["check-config", str(settings_file), "--connect"])
    assert result.exit_code == 1 and "config ok" not in result.stdout
    (line,) = result.stderr.splitlines()
    return line


def test_connect_says_which_login_failed(
    settings_file: Path, mail_rig: MailRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILBOT_IMAP__PASSWORD", "wrong-password")
    line = _one_failure(settings_file)
    assert line.startswith(
        f"connect failed: imap {mail_rig.host}:{mail_rig.imaps_port} as {mail_rig.bot_address}"
    )
    assert "LOGIN" in line and "wrong-password" not in line
    monkeypatch.setenv("MAILBOT_IMAP__PASSWORD", mail_rig.bot_password)
    monkeypatch.setenv("MAILBOT_SMTP__PASSWORD", "wrong-password")
    line = _one_failure(settings_file)
    assert line.startswith(
        f"connect failed: smtp {mail_rig.host}:{mail_rig.smtp_port} as {mail_rig.bot_address}"
    )
    assert "SMTPAuthenticationError: 535" in line and "wrong-password" not in line


def test_connect_says_when_a_server_does_not_answer(settings_file: Path, mail_rig: MailRig) -> None:
    """Nothing listens on the SMTP port: the refused connection is named, the IMAP login passes."""
    (closed,) = free_ports(1, mail_rig.host)
    text = settings_file.read_text().replace(f"port = {mail_rig.smtp_port}", f"port = {closed}")
    settings_file.write_text(text)
    line = _one_failure(settings_file)
    assert line.startswith(f"connect failed: smtp {mail_rig.host}:{closed}") and "imap" not in line
