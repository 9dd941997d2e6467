# SPDX-License-Identifier: GPL-3.0-or-later
"""A small OAuth2 authorization server on loopback, for the tests of OAuth2 logins.

It serves the two ends a real provider has: ``POST /token`` with the refresh-token grant
(RFC 6749 §6, answers as in §5.1 and §5.2), where mailbot gets its access tokens, and
``POST /introspect`` (RFC 7662), where the rig's Dovecot (its ``oauth2`` passdb) asks whether
a token presented with XOAUTH2 or OAUTHBEARER is active and whose it is. Tests revoke refresh
tokens and expire access tokens to see mailbot refresh them and ride out the outage.

Plain HTTP, one thread per request (Dovecot's auth process and mailbot ask at once).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self
from urllib.parse import parse_qs, urlencode, urlsplit

CLIENT_ID = "mailbot-test-client"
CLIENT_SECRET = "test-client-secret"


@dataclass
class _State:
    lifetime: float
    clock: Callable[[], float]
    rotate: bool = False  # each refresh gives a new refresh token and retires the old one (Microsoft may)
    grants: dict[str, str] = field(default_factory=dict)  # refresh token -> user
    codes: dict[str, tuple[str, str, str]] = field(
        default_factory=dict
    )  # code -> (user, challenge, redirect)
    tokens: dict[str, tuple[str, float]] = field(default_factory=dict)  # access token -> (user, until)
    token_requests: int = 0
    introspections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class TokenServer:
    """``with TokenServer() as auth:``; ``auth.grant(user)`` gives a refresh token for ``user``."""

    def __init__(
        self,
        *,
        lifetime: float = 3600.0,
        host: str = "127.0.0.1",
        clock: Callable[[], float] = time.time,
        rotate: bool = False,
    ) -> None:
        self.state = _State(lifetime=lifetime, clock=clock, rotate=rotate)
        self._server = ThreadingHTTPServer((host, 0), _handler(self.state))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="token-server", daemon=True)
        self.host = host
        self.port = int(self._server.server_address[1])
        self.client_id = CLIENT_ID
        self.client_secret = CLIENT_SECRET

    @property
    def token_url(self) -> str:
        return f"http://{self.host}:{self.port}/token"

    @property
    def introspection_url(self) -> str:
        return f"http://{self.host}:{self.port}/introspect"

    @property
    def token_requests(self) -> int:
        return self.state.token_requests

    @property
    def introspections(self) -> int:
        return self.state.introspections

    def grant(self, user: str) -> str:
        """A new refresh token for ``user`` (what a consent in the browser would give)."""
        with self.state.lock:
            return _new_grant(self.state, user)

    def consent(self, address: str) -> str:
        """What a browser does with a consent ``address`` once the user agreed (as its
        ``login_hint``): the address it is sent to, with the code and the state."""
        query = {k: v[0] for k, v in parse_qs(urlsplit(address).query).items()}
        code = "code-" + secrets.token_urlsafe(12)
        with self.state.lock:
            self.state.codes[code] = (query["login_hint"], query["code_challenge"], query["redirect_uri"])
        return f"{query['redirect_uri']}/?{urlencode({'state': query['state'], 'code': code})}"

    def revoke(self, refresh_token: str) -> None:
        """The user withdrew consent: the refresh token and every access token are dead."""
        with self.state.lock:
            user = self.state.grants.pop(refresh_token, None)
            self.state.tokens = {k: v for k, v in self.state.tokens.items() if v[0] != user}

    def expire_all(self) -> None:
        """Every access token given so far has expired (the clients do not know yet)."""
        with self.state.lock:
            self.state.tokens = {k: (user, 0.0) for k, (user, _) in self.state.tokens.items()}

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if self.path == "/token":
                self._answer(*_token(state, form))
            elif self.path == "/introspect":
                bearer = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
                self._answer(200, _introspect(state, form.get("token") or bearer))
            else:
                self._answer(404, {"error": "not_found"})

        def _answer(self, status: int, body: dict[str, object]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            return  # quiet: the tests read the counters

    return Handler


def _token(state: _State, form: dict[str, str]) -> tuple[int, dict[str, object]]:
    with state.lock:
        state.token_requests += 1
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client", "error_description": "unknown client or wrong secret"}
        grant = form.get("grant_type")
        if grant == "authorization_code":
            return _code_grant(state, form)
        if grant != "refresh_token":
            return 400, {"error": "unsupported_grant_type"}
        user = state.grants.get(form.get("refresh_token", ""))
        if user is None:
            return 400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}
        if not state.rotate:
            return 200, _access(state, user)
        del state.grants[form["refresh_token"]]
        return 200, {**_access(state, user), "refresh_token": _new_grant(state, user)}


def _new_grant(state: _State, user: str) -> str:
    refresh = "rt-" + secrets.token_urlsafe(16)
    state.grants[refresh] = user
    return refresh


def _access(state: _State, user: str) -> dict[str, object]:
    access = "at-" + secrets.token_urlsafe(24)
    state.tokens[access] = (user, state.clock() + state.lifetime)
    return {"access_token": access, "token_type": "Bearer", "expires_in": state.lifetime}


def _code_grant(state: _State, form: dict[str, str]) -> tuple[int, dict[str, object]]:
    """RFC 6749 §4.1.3 with the PKCE check of RFC 7636 §4.6; a code is good once."""
    user, challenge, redirect = state.codes.pop(form.get("code", ""), ("", "", ""))
    verifier = form.get("code_verifier", "").encode()
    computed = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
    if not user or computed != challenge or form.get("redirect_uri") != redirect:
        return 400, {"error": "invalid_grant", "error_description": "bad code, verifier or redirect_uri"}
    return 200, {**_access(state, user), "refresh_token": _new_grant(state, user)}


def _introspect(state: _State, token: str) -> dict[str, object]:
    with state.lock:
        state.introspections += 1
        user, until = state.tokens.get(token, ("", 0.0))
        if not user or state.clock() >= until:
            return {"active": False}
        return {"active": True, "username": user, "exp": int(until)}
