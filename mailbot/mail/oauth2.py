# SPDX-License-Identifier: GPL-3.0-or-later
"""OAuth2 logins for IMAP and SMTP: access tokens from a refresh token, and the SASL strings.

Gmail and Microsoft 365 refuse plain passwords; they take an access token that the provider's
token endpoint gives for a long-lived refresh token (the refresh-token grant, RFC 6749 §6).
:class:`TokenSource` asks for one when it has none or when the one it has is about to expire
(or a server refused it), and shares it between connections. A failure of the token endpoint is
an outage like a server that is down (:class:`OAuth2Error`, a transport error): the loops pause
and try again; the refresh token is read again each time, so a new one written to its file heals
a running service. No token is ever put in a log line or an error message.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import ipaddress
import json
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from mailbot.errors import OAuth2Error

log = logging.getLogger(__name__)

Mechanism = Literal["XOAUTH2", "OAUTHBEARER"]

#: a token is used until this share of its lifetime is left (at most a minute before it ends)
EARLY_SHARE = 0.2
EARLY_MAX = 60.0
#: ``expires_in`` is only RECOMMENDED (RFC 6749 §5.1): without it, a token is taken for an hour
DEFAULT_LIFETIME = 3600.0
#: after a failed refresh the endpoint is asked again after this back-off, doubling up to the max,
#: unless the refresh token changed (a new one in its file is tried at once)
RETRY_MIN = 1.0
RETRY_MAX = 300.0


def xoauth2(user: str, token: str) -> str:
    """The XOAUTH2 initial response (Google's and Microsoft's), base64."""
    return _b64(f"user={user}\x01auth=Bearer {token}\x01\x01")


def oauthbearer(user: str, token: str, host: str, port: int) -> str:
    """The OAUTHBEARER initial client response of RFC 7628 §3.1, base64."""
    return _b64(f"n,a={_saslname(user)},\x01host={host}\x01port={port}\x01auth=Bearer {token}\x01\x01")


def sasl_response(mechanism: Mechanism, user: str, token: str, host: str, port: int) -> str:
    return xoauth2(user, token) if mechanism == "XOAUTH2" else oauthbearer(user, token, host, port)


#: what the client answers to the server's error challenge: XOAUTH2 an empty line, OAUTHBEARER
#: a single %x01 (RFC 7628 §3.2.3); the server then sends its failure reply
FAILURE_ACK: dict[Mechanism, str] = {"XOAUTH2": "", "OAUTHBEARER": "AQ=="}


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _saslname(user: str) -> str:
    # RFC 5801 gs2 header: "=" and "," are written =3D and =2C.
    return user.replace("=", "=3D").replace(",", "=2C")


def loopback_or_https(url: str) -> str | None:
    """None when ``url`` may carry secrets: https anywhere, http only to this machine (tests)."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return None
    if parts.scheme == "http" and parts.hostname:
        if parts.hostname == "localhost":
            return None
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(parts.hostname).is_loopback:
                return None
        return "http is allowed only to a loopback address (127.0.0.1, ::1, localhost); use https"
    return "not an https URL"


@dataclass(frozen=True)
class OAuth2Client:
    """What the token endpoint is told. ``refresh_token`` is called at each refresh (a file is
    read again); ``refresh_token_file``, when set, receives a refresh token the endpoint rotates."""

    token_url: str
    client_id: str
    client_secret: str
    refresh_token: Callable[[], str]
    scope: str = ""
    timeout: float = 30.0
    cafile: str | None = None
    refresh_token_file: Path | None = None
    #: names the settings in messages, e.g. "imap.oauth2"
    where: str = "oauth2"
    #: how to get a new refresh token, said when the endpoint refuses this one
    renew_hint: str = "get a new refresh token with `mailbot oauth2 authorize`"


@dataclass
class _Token:
    value: str
    good_until: float  # monotonic


class TokenSource:
    """Access tokens for one OAuth2 client and account, cached until shortly before they expire.

    Safe for concurrent use from one event loop: a refresh runs once for all who wait for it.
    """

    def __init__(self, client: OAuth2Client, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.clock = clock
        self._token: _Token | None = None
        self._lock = asyncio.Lock()
        self._rotated: tuple[str, str] | None = None  # (the refresh token we had, the one given for it)
        self._failed: tuple[str, float, float, OAuth2Error] | None = None  # (refresh token, at, wait, why)
        self.refreshes = 0  # how many times the endpoint gave a token (tests and health read it)

    async def token(self) -> str:
        """A valid access token: the cached one, or a new one from the endpoint.

        Raises :class:`OAuth2Error` when the endpoint cannot be reached or refuses.
        """
        async with self._lock:
            current = self._token
            if current is not None and self.clock() < current.good_until:
                return current.value
            return await self._refresh()

    def invalidate(self, token: str) -> None:
        """A server refused ``token``: the next :meth:`token` asks the endpoint (once for all
        connections that were refused the same token)."""
        if self._token is not None and self._token.value == token:
            self._token = None

    def _refresh_token(self) -> str:
        configured = self.client.refresh_token()
        if self._rotated is not None and self._rotated[0] == configured:
            return self._rotated[1]
        return configured

    async def _refresh(self) -> str:
        refresh_token = self._refresh_token()
        if not refresh_token:
            raise OAuth2Error(f"{self.client.where}: no refresh token; {self.client.renew_hint}")
        failed = self._failed
        if failed is not None and failed[0] == refresh_token and self.clock() - failed[1] < failed[2]:
            raise failed[3]  # the same token refused moments ago: do not hammer the endpoint
        try:
            answer = await self._post(refresh_token)
        except OAuth2Error as exc:
            wait = (
                RETRY_MIN if failed is None or failed[0] != refresh_token else min(failed[2] * 2, RETRY_MAX)
            )
            self._failed = (refresh_token, self.clock(), wait, exc)
            raise
        self._failed = None
        self._took(answer, refresh_token)
        assert self._token is not None
        return self._token.value

    def _took(self, answer: dict[str, Any], refresh_token: str) -> None:
        value = answer.get("access_token")
        if not isinstance(value, str) or not value:
            raise OAuth2Error(f"{self._endpoint()} answered without an access_token")
        lifetime = answer.get("expires_in", DEFAULT_LIFETIME)
        try:
            seconds = max(0.0, float(lifetime))
        except (TypeError, ValueError):
            seconds = DEFAULT_LIFETIME
        self._token = _Token(value, self.clock() + seconds - min(EARLY_MAX, seconds * EARLY_SHARE))
        self.refreshes += 1
        rotated = answer.get("refresh_token")
        if isinstance(rotated, str) and rotated and rotated != refresh_token:
            self._keep_rotated(rotated)

    def _keep_rotated(self, new: str) -> None:
        """Microsoft may hand a new refresh token with each access token: use it from now on,
        and write it to the refresh token's file so that a restart uses it too."""
        self._rotated = (self.client.refresh_token(), new)
        path = self.client.refresh_token_file
        if path is None:
            return
        try:
            _write_private(path, new + "\n")
        except OSError as exc:
            log.warning("%s: could not write the new refresh token to %s: %s", self.client.where, path, exc)
        else:
            self._rotated = (new, new)
            log.info(
                "%s: the token endpoint gave a new refresh token; written to %s", self.client.where, path
            )

    def _endpoint(self) -> str:
        return f"{self.client.where}: the token endpoint {self.client.token_url}"

    async def _post(self, refresh_token: str) -> dict[str, Any]:
        c = self.client
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": c.client_id}
        if c.client_secret:
            form["client_secret"] = c.client_secret
        if c.scope:
            form["scope"] = c.scope
        return await post_form(c.token_url, form, timeout=c.timeout, cafile=c.cafile, what=self._endpoint(),
                               renew_hint=c.renew_hint)  # fmt: skip


async def post_form(
    url: str, form: dict[str, str], *, timeout: float, cafile: str | None, what: str, renew_hint: str
) -> dict[str, Any]:
    """POST a token request; the JSON answer, or :class:`OAuth2Error` saying what went wrong
    (never the form, which holds secrets)."""
    problem = loopback_or_https(url)
    if problem is not None:
        raise OAuth2Error(f"{what}: {problem}")
    verify: Any = cafile if cafile else True
    try:
        async with httpx.AsyncClient(timeout=timeout, verify=verify) as http:
            response = await http.post(url, data=form, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise OAuth2Error(f"{what} cannot be reached: {type(exc).__name__}: {exc}") from None
    try:
        answer = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        answer = None
    if response.status_code == 200 and isinstance(answer, dict):
        return answer
    raise OAuth2Error(_refusal(what, response.status_code, answer, renew_hint))


def _refusal(what: str, status: int, answer: object, renew_hint: str) -> str:
    """RFC 6749 §5.2 error answer in one line; ``invalid_grant`` means the refresh token is dead."""
    if not isinstance(answer, dict) or not isinstance(answer.get("error"), str):
        return f"{what} answered HTTP {status}"
    error = answer["error"]
    description = answer.get("error_description")
    said = f"{error}: {description}" if isinstance(description, str) and description else error
    if error == "invalid_grant":
        return f"{what} said {said} (the refresh token was revoked or has expired); {renew_hint}"
    if error in {"invalid_client", "unauthorized_client"}:
        return f"{what} said {said}: check client_id and client_secret"
    return f"{what} said {said}"


def _write_private(path: Path, text: str) -> None:
    """Replace ``path`` atomically with a file only its owner can read."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    tmp.replace(path)


@dataclass(frozen=True)
class OAuth2Login:
    """How an IMAP or SMTP connection logs in with OAuth2."""

    tokens: TokenSource
    mechanism: Mechanism = "XOAUTH2"


# -- the first refresh token: the authorization-code grant with PKCE (RFC 6749 §4.1, RFC 7636) ---

#: where the browser is sent after the consent; nothing listens there: the user copies the address
#: the browser shows (Google's "Desktop app" clients take it as is; Microsoft wants it registered
#: as a "Mobile and desktop applications" redirect URI)
REDIRECT_URI = "http://localhost"
GOOGLE_SCOPE = "https://mail.google.com/"
MICROSOFT_SCOPE = (
    "https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access"
)


@dataclass(frozen=True)
class Consent:
    """One consent request: the address to open, and what the answer is checked against."""

    url: str
    state: str
    verifier: str


def provider_defaults(token_url: str) -> tuple[str, str] | None:
    """(consent URL, scope) for Google's and Microsoft's token endpoints; None for others."""
    parts = urlsplit(token_url)
    if parts.hostname == "oauth2.googleapis.com":
        return "https://accounts.google.com/o/oauth2/v2/auth", GOOGLE_SCOPE
    if parts.hostname == "login.microsoftonline.com" and parts.path.endswith("/token"):
        return token_url.removesuffix("/token") + "/authorize", MICROSOFT_SCOPE
    return None


def consent(auth_url: str, client_id: str, scope: str, user: str) -> Consent:
    """The consent address: PKCE S256, a state against mix-ups; offline access and a fresh consent
    asked of Google, or it gives no refresh token to a client it has seen before."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = secrets.token_urlsafe(16)
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "scope": scope,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "access_type": "offline",
        "prompt": "consent",
    }
    if user:
        query["login_hint"] = user
    return Consent(f"{auth_url}?{urlencode(query)}", state, verifier)


def code_from_redirect(pasted: str, state: str) -> str:
    """The authorization code in the address the browser was sent to; OAuth2Error saying why not."""
    query = parse_qs(urlsplit(pasted.strip()).query)
    if "error" in query:
        said = query.get("error_description", query["error"])[0]
        raise OAuth2Error(f"the provider refused the consent: {query['error'][0]}: {said}")
    if query.get("state", [""])[0] != state:
        raise OAuth2Error("that address is not the answer to this consent request (its state differs)")
    code = query.get("code", [""])[0]
    if not code:
        raise OAuth2Error("no code= in that address: paste the whole address the browser shows")
    return code


async def exchange_code(client: OAuth2Client, request: Consent, code: str) -> str:
    """The refresh token given for the authorization code (RFC 6749 §4.1.3)."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "client_id": client.client_id,
        "code_verifier": request.verifier,
    }
    if client.client_secret:
        form["client_secret"] = client.client_secret
    what = f"{client.where}: the token endpoint {client.token_url}"
    answer = await post_form(
        client.token_url, form, timeout=client.timeout, cafile=client.cafile, what=what, renew_hint=""
    )
    refresh = answer.get("refresh_token")
    if not isinstance(refresh, str) or not refresh:
        raise OAuth2Error(f"{what} gave no refresh token (Microsoft: is offline_access in the scope?)")
    return refresh


def save_refresh_token(path: Path, token: str) -> None:
    _write_private(path, token + "\n")
