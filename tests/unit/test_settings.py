# SPDX-License-Identifier: GPL-3.0-or-later
"""Settings: file, environment overrides, passwords never shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mailbot.errors import ConfigError
from mailbot.settings import PROJECT_ROOT, Settings, incomplete, load_settings, secret


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


def _load(tmp_path: Path, text: str) -> Settings:
    path = tmp_path / "m.toml"
    path.write_text(text)
    return load_settings(path)


GMAIL = (
    '[imap]\nuser = "gm@gmail.com"\nauth = "oauth2"\n[imap.oauth2]\n'
    'token_url = "https://oauth2.googleapis.com/token"\nclient_id = "123.apps.googleusercontent.com"\n'
)


def test_oauth2_settings_and_what_is_still_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MAILBOT_IMAP__PASSWORD", "MAILBOT_IMAP__OAUTH2__REFRESH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    settings = _load(tmp_path, GMAIL)
    assert settings.imap.oauth2.mechanism == "XOAUTH2"
    assert any(
        "no imap refresh token: set MAILBOT_IMAP__OAUTH2__REFRESH_TOKEN" in p for p in incomplete(settings)
    )
    assert not any("password" in p for p in incomplete(settings) if p.startswith("no imap"))
    monkeypatch.setenv("MAILBOT_IMAP__OAUTH2__REFRESH_TOKEN", "1//refresh")
    settings = _load(tmp_path, GMAIL)
    assert not any(p.startswith("no imap") for p in incomplete(settings))
    assert "1//refresh" not in settings.model_dump_json()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (GMAIL.replace("https://oauth2", "http://oauth2"), "http is allowed only to a loopback address"),
        (GMAIL.replace('client_id = "123.apps.googleusercontent.com"\n', ""), "needs imap.oauth2.client_id"),
        (GMAIL.replace('auth = "oauth2"\n', ""), 'imap.oauth2] is set but imap.auth is "password"'),
        (GMAIL.replace('auth = "oauth2"\n', 'auth = "oauth2"\npassword_file = "/x"\n'), "not a password"),
        (GMAIL.replace('auth = "oauth2"', 'auth = "oauth"'), "imap.auth"),
        (GMAIL + 'mechanism = "PLAIN"\n', "imap.oauth2.mechanism"),
        (
            '[smtp]\nauth = "oauth2"\n[smtp.oauth2]\ntoken_url = "https://login.microsoftonline.com/t/oauth2/v2.0/token"\n'
            'client_id = "c"\n',
            "needs smtp.user",
        ),
    ],
)
def test_oauth2_combinations_that_cannot_be_meant_are_refused(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(said)):
        _load(tmp_path, text)


def test_loopback_http_token_url_is_allowed_for_tests(tmp_path: Path) -> None:
    settings = _load(tmp_path, GMAIL.replace("https://oauth2.googleapis.com", "http://127.0.0.1:8080"))
    assert settings.imap.oauth2.token_url == "http://127.0.0.1:8080/token"
