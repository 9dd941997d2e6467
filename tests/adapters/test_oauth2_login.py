# SPDX-License-Identifier: GPL-3.0-or-later
"""OAuth2 logins against a real Dovecot whose ``oauth2`` passdb asks a loopback authorization
server (``testing.oauth2server``) whether a token is good; the same server gives mailbot its
access tokens for a refresh token. SMTP AUTH goes through Dovecot's auth too (the rig's front
end hands XOAUTH2 and OAUTHBEARER to Dovecot's auth-client socket, as Postfix with
``smtpd_sasl_type = dovecot`` does)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Coroutine, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any, TypeVar

import pytest
import typer
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.errors import ImapError, OAuth2Error, SmtpTransportError
from mailbot.mail import oauth2
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.mail.oauth2 import Mechanism, OAuth2Client, OAuth2Login, TokenSource
from mailbot.mail.smtp import SmtpConfig, SmtpSink
from mailbot.testing.mailrig import AsyncLMTP, MailRig
from mailbot.testing.oauth2server import TokenServer

T = TypeVar("T")


@pytest.fixture(scope="module")
def auth() -> Iterator[TokenServer]:
    with TokenServer() as server:
        yield server


@pytest.fixture(scope="module")
def rig(auth: TokenServer) -> Iterator[MailRig]:
    with MailRig(oauth2_introspection_url=auth.introspection_url) as mail_rig:
        yield mail_rig
        assert not mail_rig.log_errors()


def _tokens(auth: TokenServer, refresh_file: Path) -> TokenSource:
    def refresh_token() -> str:
        return refresh_file.read_text().strip()

    client = OAuth2Client(
        token_url=auth.token_url,
        client_id=auth.client_id,
        client_secret=auth.client_secret,
        refresh_token=refresh_token,
        where="imap.oauth2",
        renew_hint="run `mailbot oauth2 authorize`",
    )
    return TokenSource(client)


def _no_mailbot_environment(monkeypatch: pytest.MonkeyPatch, rig: MailRig) -> str:
    """Only the settings file of the test counts; a fresh mailbox for it."""
    for name in list(os.environ):
        if name.startswith("MAILBOT_"):
            monkeypatch.delenv(name)
    return rig.new_address()


def _account(rig: MailRig, auth: TokenServer, tmp_path: Path) -> tuple[str, TokenSource]:
    """A fresh mailbox, its refresh token in a file, and the token source reading that file."""
    user = rig.new_address()
    refresh = tmp_path / "refresh-token"
    refresh.write_text(auth.grant(user) + "\n")
    return user, _tokens(auth, refresh)


def _imap(rig: MailRig, user: str, login: OAuth2Login) -> ImapConfig:
    return ImapConfig(
        host=rig.host,
        port=rig.imaps_port,
        user=user,
        password="",
        cafile=str(rig.cafile),
        oauth2=login,
        timeout=10,
    )


def _smtp(rig: MailRig, user: str, login: OAuth2Login) -> SmtpConfig:
    return SmtpConfig(
        host=rig.host, port=rig.smtp_port, user=user, cafile=str(rig.cafile), oauth2=login, timeout=10
    )


async def _deliver(rig: MailRig, address: str, subject: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "p@players.test", address, subject
    msg.set_content("ORDERS\nEND\n")
    client = await AsyncLMTP.connect(rig.host, rig.lmtp_port)
    try:
        await client.send_message("p@players.test", [address], msg.as_bytes())
    finally:
        await client.close()


def await_(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


async def _read_subjects(config: ImapConfig) -> list[str]:
    source = ImapSource(config)
    try:
        await source.connect()
        messages = await source.fetch(await source.search_after(0))
    finally:
        await source.close()
    return [
        line.split(b": ", 1)[1].decode()
        for m in messages
        for line in m.raw.splitlines()
        if line.startswith(b"Subject:")
    ]


@pytest.mark.parametrize("mechanism", ["XOAUTH2", "OAUTHBEARER"])
async def test_reads_mail_with_a_token_and_refreshes_it_when_it_expired(
    rig: MailRig, auth: TokenServer, tmp_path: Path, mechanism: Mechanism
) -> None:
    user, tokens = _account(rig, auth, tmp_path)
    login = OAuth2Login(tokens, mechanism)
    await _deliver(rig, user, "first")
    assert await _read_subjects(_imap(rig, user, login)) == ["first"]
    assert await _read_subjects(_imap(rig, user, login)) == ["first"]
    assert tokens.refreshes == 1  # the second login used the cached token
    auth.expire_all()  # the server knows, mailbot does not: Dovecot refuses, mailbot refreshes once
    await _deliver(rig, user, "second")
    assert await _read_subjects(_imap(rig, user, login)) == ["first", "second"]
    assert tokens.refreshes == 2


async def test_a_token_for_someone_else_is_refused(rig: MailRig, auth: TokenServer, tmp_path: Path) -> None:
    refresh = tmp_path / "refresh-token"
    refresh.write_text(auth.grant(rig.new_address()))
    tokens = _tokens(auth, refresh)
    with pytest.raises(ImapError, match="refused a fresh access token"):
        await _read_subjects(_imap(rig, rig.new_address(), OAuth2Login(tokens, "XOAUTH2")))
    assert tokens.refreshes == 2  # refused, renewed, refused again: then it is said


async def test_a_revoked_refresh_token_is_an_outage_that_heals_with_a_new_one(
    rig: MailRig, auth: TokenServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    user = rig.new_address()
    refresh = tmp_path / "refresh-token"
    old = auth.grant(user)
    refresh.write_text(old)
    tokens = _tokens(auth, refresh)
    login = OAuth2Login(tokens, "XOAUTH2")
    await _deliver(rig, user, "kept")
    auth.revoke(old)
    with pytest.raises(ImapError) as failure:  # what the reader backs off on, as on a server down
        await _read_subjects(_imap(rig, user, login))
    said = str(failure.value)
    assert "invalid_grant" in said and "revoked" in said and "mailbot oauth2 authorize" in said
    assert isinstance(failure.value.__cause__, OAuth2Error)
    asked = auth.token_requests
    with pytest.raises(ImapError, match="invalid_grant"):
        await _read_subjects(_imap(rig, user, login))
    assert auth.token_requests == asked  # the same dead token is not sent again at once
    sink = SmtpSink(_smtp(rig, user, login))
    with pytest.raises(SmtpTransportError, match="invalid_grant"):  # the outbox pauses; no letter fails
        await sink.send(user, user, b"Subject: x\r\n\r\nx\r\n")
    refresh.write_text(auth.grant(user))  # the game master put a new refresh token in the file
    assert await _read_subjects(_imap(rig, user, login)) == ["kept"]
    everything = caplog.text + said
    assert old not in everything
    assert not any(token in everything for token in auth.state.tokens)


@pytest.mark.parametrize("mechanism", ["XOAUTH2", "OAUTHBEARER"])
async def test_sends_mail_with_a_token_refreshed_when_refused(
    rig: MailRig, auth: TokenServer, tmp_path: Path, mechanism: Mechanism
) -> None:
    user, tokens = _account(rig, auth, tmp_path)
    sink = SmtpSink(_smtp(rig, user, OAuth2Login(tokens, mechanism)))
    await sink.send(user, user, b"Subject: one\r\n\r\none\r\n")
    await sink.close()
    auth.expire_all()
    await sink.send(user, user, b"Subject: two\r\n\r\ntwo\r\n")
    await sink.close()
    assert tokens.refreshes == 2
    imap = _imap(rig, user, OAuth2Login(tokens, mechanism))
    assert await _read_subjects(imap) == ["one", "two"]


async def test_a_wrong_client_secret_is_said(
    rig: MailRig, auth: TokenServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    client = OAuth2Client(
        auth.token_url, auth.client_id, "not-the-secret", lambda: auth.grant("x@players.test")
    )
    with pytest.raises(OAuth2Error, match=r"invalid_client.*check client_id and client_secret"):
        await TokenSource(client).token()
    assert "not-the-secret" not in caplog.text


def test_check_config_connect_gets_a_token_and_logs_in_to_both(
    rig: MailRig, auth: TokenServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = _no_mailbot_environment(monkeypatch, rig)
    refresh = tmp_path / "refresh-token"
    refresh.write_text(auth.grant(user))
    monkeypatch.setenv("MAILBOT_IMAP__OAUTH2__CLIENT_SECRET", auth.client_secret)
    monkeypatch.setenv("MAILBOT_SMTP__OAUTH2__CLIENT_SECRET", auth.client_secret)
    oauth2 = f'auth = "oauth2"\noauth2 = {{ token_url = "{auth.token_url}", client_id = "{auth.client_id}", '
    oauth2 += f'refresh_token_file = "{refresh}" }}\n'
    path = tmp_path / "mailbot.toml"
    common = f'host = "{rig.host}"\nuser = "{user}"\ncafile = "{rig.cafile}"\n{oauth2}'
    path.write_text(
        f"[imap]\nport = {rig.imaps_port}\n{common}[smtp]\nport = {rig.smtp_port}\n{common}"
        f'[store]\nurl = "sqlite:///{tmp_path}/mailbot.db"\n[bot]\naddress = "{user}"\n'
    )
    result = CliRunner().invoke(app, ["check-config", str(path), "--connect"])
    assert result.exit_code == 0, (result.output, repr(result.exception))
    assert f"imap ok: logged in to {rig.host} as {user}" in result.stdout
    assert f"smtp ok: logged in as {user}" in result.stdout
    auth.revoke(refresh.read_text())
    result = CliRunner().invoke(app, ["check-config", str(path), "--connect"])
    assert result.exit_code == 1
    imap_line, smtp_line = result.stderr.splitlines()
    assert imap_line.startswith(
        f"connect failed: imap {rig.host}:{rig.imaps_port} as {user}: IMAP login: imap.oauth2"
    )
    assert "invalid_grant" in imap_line and "imap.oauth2.refresh_token_file" in imap_line
    # one token source serves both logins when their settings are the same
    assert smtp_line.startswith(
        f"connect failed: smtp {rig.host}:{rig.smtp_port} as {user}: OAuth2Error: imap.oauth2"
    )


def test_authorize_gets_the_first_refresh_token(
    rig: MailRig, auth: TokenServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = _no_mailbot_environment(monkeypatch, rig)
    refresh, secret = tmp_path / "refresh-token", tmp_path / "client-secret"
    secret.write_text(auth.client_secret)
    path = tmp_path / "mailbot.toml"
    path.write_text(
        f'[imap]\nuser = "{user}"\nauth = "oauth2"\n[imap.oauth2]\ntoken_url = "{auth.token_url}"\n'
        f'client_id = "{auth.client_id}"\nclient_secret_file = "{secret}"\nrefresh_token_file = "{refresh}"\n'
        'scope = "mail"\n'
    )
    consent_address = f"http://127.0.0.1:{auth.port}/authorize"
    asked: list[oauth2.Consent] = []

    def consent(*args: str) -> oauth2.Consent:
        asked.append(real_consent(*args))
        return asked[-1]

    def browser(text: str) -> str:
        """The game master opens the address, consents, and pastes where the browser went."""
        assert "Paste" in text
        return auth.consent(asked[-1].url)

    real_consent = oauth2.consent
    monkeypatch.setattr(oauth2, "consent", consent)
    monkeypatch.setattr(typer, "prompt", browser)
    result = CliRunner().invoke(
        app, ["oauth2", "authorize", "--config", str(path), "--auth-url", consent_address]
    )
    assert result.exit_code == 0, (result.output, repr(result.exception))
    assert asked[0].url in result.stdout and "code_challenge_method=S256" in asked[0].url
    assert f"refresh token written to {refresh}" in result.stdout
    assert refresh.stat().st_mode & 0o777 == 0o600
    assert auth.state.grants[refresh.read_text().strip()] == user
    assert refresh.read_text().strip() not in result.output
    login = OAuth2Login(_tokens(auth, refresh), "XOAUTH2")
    await_(_deliver(rig, user, "welcome"))
    assert await_(_read_subjects(_imap(rig, user, login))) == ["welcome"]

    monkeypatch.setattr(
        typer, "prompt", lambda text: auth.consent(asked[-1].url).replace("state=", "state=x")
    )
    result = CliRunner().invoke(
        app, ["oauth2", "authorize", "--config", str(path), "--auth-url", consent_address]
    )
    assert result.exit_code == 1 and "not the answer to this consent request" in result.stderr
