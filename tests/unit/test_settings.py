# SPDX-License-Identifier: GPL-3.0-or-later
"""Settings: file, environment overrides, passwords never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from mailbot.errors import ConfigError
from mailbot.settings import PROJECT_ROOT, Settings, load_settings, secret


def test_example_file_is_valid_and_documents_every_key() -> None:
    example = PROJECT_ROOT / "config" / "mailbot.example.toml"
    settings = load_settings(example)
    text = example.read_text()
    for section in Settings.model_fields:
        assert f"[{section}]" in text
        sub = getattr(settings, section)
        for key in type(sub).model_fields:
            if key == "password":
                continue  # passwords come from the environment, never the file
            assert key in text, f"{section}.{key} is not documented in the example"


def test_environment_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[imap]\nhost = "imap.example.org"\nport = 993\n')
    monkeypatch.setenv("MAILBOT_IMAP__PORT", "1993")
    monkeypatch.setenv("MAILBOT_IMAP__PASSWORD", "s3cret-pw")
    settings = load_settings(path)
    assert (settings.imap.host, settings.imap.port) == ("imap.example.org", 1993)
    assert secret(settings.imap.password, None, "IMAP") == "s3cret-pw"
    assert "s3cret-pw" not in repr(settings) and "s3cret-pw" not in settings.model_dump_json()


def test_password_file(tmp_path: Path) -> None:
    pw = tmp_path / "pw"
    pw.write_text("from-file\n")
    assert secret(None, pw, "SMTP") == "from-file"
    with pytest.raises(ConfigError):
        secret(None, tmp_path / "missing", "SMTP")


def test_unknown_key_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text("[imap]\nhots = 1\n")
    with pytest.raises(ConfigError, match="hots"):
        load_settings(path)
