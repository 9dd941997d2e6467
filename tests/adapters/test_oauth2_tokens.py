# SPDX-License-Identifier: GPL-3.0-or-later
"""The access-token cache and the SASL strings, against the loopback token server (real HTTP)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot.errors import OAuth2Error
from mailbot.mail.oauth2 import OAuth2Client, TokenSource, loopback_or_https, oauthbearer, xoauth2
from mailbot.testing.oauth2server import TokenServer


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def auth(clock: Clock) -> Iterator[TokenServer]:
    with TokenServer(lifetime=600, clock=clock) as server:
        yield server


def _source(auth: TokenServer, refresh: Path, clock: Clock) -> TokenSource:
    client = OAuth2Client(
        auth.token_url,
        auth.client_id,
        auth.client_secret,
        lambda: refresh.read_text().strip(),
        refresh_token_file=refresh,
    )
    return TokenSource(client, clock=clock)


def test_sasl_strings() -> None:
    assert base64.b64decode(xoauth2("a@b.test", "tok")) == b"user=a@b.test\x01auth=Bearer tok\x01\x01"
    assert base64.b64decode(oauthbearer("a,=b@c.test", "tok", "imap.c.test", 993)) == (
        b"n,a=a=2C=3Db@c.test,\x01host=imap.c.test\x01port=993\x01auth=Bearer tok\x01\x01"
    )


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://oauth2.googleapis.com/token", True),
        ("http://127.0.0.1:8080/token", True),
        ("http://[::1]/token", True),
        ("http://localhost/token", True),
        ("http://oauth2.example.org/token", False),
        ("ftp://x/token", False),
    ],
)
def test_only_https_or_loopback(url: str, ok: bool) -> None:
    assert (loopback_or_https(url) is None) == ok


async def test_a_token_is_kept_until_shortly_before_it_expires(
    auth: TokenServer, clock: Clock, tmp_path: Path
) -> None:
    refresh = tmp_path / "rt"
    refresh.write_text(auth.grant("a@players.test"))
    tokens = _source(auth, refresh, clock)
    first = await tokens.token()
    clock.now += 539  # 600 s given, renewed 60 s before the end
    assert await tokens.token() == first and auth.token_requests == 1
    clock.now += 1
    assert await tokens.token() != first and auth.token_requests == 2
    tokens.invalidate(first)  # an old token refused: the current one stays
    assert auth.token_requests == 2 and tokens.refreshes == 2


async def test_a_dead_refresh_token_is_asked_about_with_back_off(
    auth: TokenServer, clock: Clock, tmp_path: Path
) -> None:
    refresh = tmp_path / "rt"
    refresh.write_text("rt-never-granted")
    tokens = _source(auth, refresh, clock)
    for expected in (1, 1, 2, 2, 2, 3):
        with pytest.raises(OAuth2Error, match="invalid_grant"):
            await tokens.token()
        assert auth.token_requests == expected
        clock.now += 0.9  # the waits: 1 s, then 2 s, then 4 s...
    refresh.write_text(auth.grant("a@players.test"))  # a new token is tried at once
    await tokens.token()
    assert auth.token_requests == 4


async def test_a_rotated_refresh_token_is_written_back(clock: Clock, tmp_path: Path) -> None:
    with TokenServer(lifetime=600, clock=clock, rotate=True) as auth:
        refresh = tmp_path / "rt"
        first = auth.grant("a@players.test")
        refresh.write_text(first)
        tokens = _source(auth, refresh, clock)
        await tokens.token()
        second = refresh.read_text().strip()
        assert second != first and second in auth.state.grants
        assert refresh.stat().st_mode & 0o777 == 0o600
        clock.now += 600
        await tokens.token()  # with the rotated one: the first is gone at the server
        assert tokens.refreshes == 2
