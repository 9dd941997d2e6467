# SPDX-License-Identifier: GPL-3.0-or-later
"""From the settings to the mail servers: the IMAP and SMTP configs and their OAuth2 logins.

The service builds its logins once (:func:`oauth2_logins`), so that their access tokens are
cached for its life; one-off commands (``check-config --connect``, ``oauth2 authorize``) get
logins of their own through the same functions.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from mailbot.errors import ConfigError, OAuth2Error
from mailbot.mail.imap import ImapConfig
from mailbot.mail.oauth2 import OAuth2Client, OAuth2Login, TokenSource
from mailbot.mail.smtp import SmtpConfig
from mailbot.settings import OAuth2Settings, Settings, secret


def oauth2_logins(settings: Settings) -> tuple[OAuth2Login | None, OAuth2Login | None]:
    """The IMAP and SMTP OAuth2 logins (None: a password), built once for the life of the service
    so that their access tokens are cached; one token source serves both when their settings
    are the same (one Gmail or Microsoft 365 account, one client)."""
    imap, smtp = settings.imap, settings.smtp
    imap_tokens = _token_source("imap", imap.oauth2) if imap.auth == "oauth2" else None
    smtp_tokens: TokenSource | None = None
    if smtp.auth == "oauth2":
        same = imap_tokens is not None and smtp.oauth2 == imap.oauth2 and smtp.user == imap.user
        smtp_tokens = imap_tokens if same else _token_source("smtp", smtp.oauth2)
    return (
        OAuth2Login(imap_tokens, imap.oauth2.mechanism) if imap_tokens else None,
        OAuth2Login(smtp_tokens, smtp.oauth2.mechanism) if smtp_tokens else None,
    )


def _token_source(section: str, s: OAuth2Settings) -> TokenSource:
    return TokenSource(oauth2_client(section, s))


def oauth2_client(section: str, s: OAuth2Settings) -> OAuth2Client:
    """The token endpoint's client for ``[section.oauth2]``; its secrets are read when used."""
    where = f"{section}.oauth2"
    put = (
        f"{where}.refresh_token_file"
        if s.refresh_token_file
        else f"MAILBOT_{section.upper()}__OAUTH2__REFRESH_TOKEN"
    )
    return OAuth2Client(
        token_url=s.token_url,
        client_id=s.client_id,
        client_secret=_read_secret(s.client_secret, s.client_secret_file, f"{where}.client_secret_file"),
        refresh_token=lambda: _read_secret(
            s.refresh_token, s.refresh_token_file, f"{where}.refresh_token_file"
        ),
        scope=s.scope,
        timeout=s.timeout,
        cafile=str(s.cafile) if s.cafile else None,
        refresh_token_file=s.refresh_token_file,
        where=where,
        renew_hint=f"run `mailbot oauth2 authorize --for {section}` and put the new refresh token in {put}",
    )


def _read_secret(value: SecretStr | None, file: Path | None, what: str) -> str:
    """A secret from the environment or its file, read anew at each call; a file that cannot be
    read is an outage of the login (its owner may be rewriting it), not a crash."""
    try:
        return secret(value, file, what)
    except ConfigError as exc:
        raise OAuth2Error(str(exc)) from exc


def imap_config(settings: Settings, oauth2: OAuth2Login | None = None) -> ImapConfig:
    """``oauth2``: the service's long-lived login (its cached token); one-off commands leave it
    out and get a login of their own."""
    s = settings.imap
    if s.auth == "oauth2" and oauth2 is None:
        oauth2 = oauth2_logins(settings)[0]
    return ImapConfig(
        host=s.host,
        port=s.port,
        user=s.user,
        oauth2=oauth2,
        password=secret(s.password, s.password_file, "IMAP") if s.auth == "password" else "",
        mailbox=s.mailbox,
        tls=s.security == "tls",
        cafile=str(s.cafile) if s.cafile else None,
        processed_folder=s.processed_folder,
        timeout=s.timeout,
        batch_size=s.batch_size,
    )


def smtp_config(settings: Settings, oauth2: OAuth2Login | None = None) -> SmtpConfig:
    s = settings.smtp
    if s.auth == "oauth2" and oauth2 is None:
        oauth2 = oauth2_logins(settings)[1]
    return SmtpConfig(
        host=s.host,
        port=s.port,
        security=s.security,
        user=s.user,
        oauth2=oauth2,
        password=secret(s.password, s.password_file, "SMTP") if s.auth == "password" else "",
        cafile=str(s.cafile) if s.cafile else None,
        timeout=s.timeout,
        local_hostname=settings.bot.address.rpartition("@")[2] or "localhost",
        connections=s.connections,
    )
