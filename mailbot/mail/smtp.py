# SPDX-License-Identifier: GPL-3.0-or-later
"""SMTP sink over aiosmtplib: a few reused connections, errors sorted by what they are about.

The link (connect, TLS, AUTH, 421/454/530/535, timeouts, drops) -> SmtpTransportError: the
outbox pauses all sending. One letter (RCPT/DATA/MAIL replies) -> SmtpTemporaryError for
4xx, SmtpPermanentError for 5xx. Non-ASCII addresses go out with SMTPUTF8 when the server
offers it; otherwise that one letter fails with SmtpAddressError.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from dataclasses import dataclass
from typing import Any, Literal

import aiosmtplib

from mailbot.errors import (
    SmtpAddressError,
    SmtpError,
    SmtpPermanentError,
    SmtpTemporaryError,
    SmtpTransportError,
)
from mailbot.mail.oauth2 import FAILURE_ACK, OAuth2Login, sasl_response

log = logging.getLogger(__name__)

#: after this long on fewer connections than configured, the sink tries the full number again
#: (the refusal may have come from an outage, not from the server's limit)
REGROW_SECONDS = 300.0


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    security: Literal["starttls", "tls", "none"] = "starttls"
    user: str = ""
    password: str = ""
    cafile: str | None = None
    timeout: float = 30.0
    local_hostname: str = "mailbot.localhost"
    connections: int = 1  # at most this many at once; fewer when the server refuses more
    oauth2: OAuth2Login | None = None  # set: AUTH with an access token for ``user`` instead of a password


# Replies that speak about the link or the login, never about one letter (RFC 5321, RFC 4954):
# 421 closing, 454 TLS/auth unavailable, 530 auth required, 534/538 mechanism, 535 bad credentials.
LINK_CODES = frozenset({421, 454, 530, 534, 535, 538})


def _classify(exc: Exception) -> SmtpError:
    """A reply about one letter fails (5xx) or postpones (4xx) that letter; the rest is the link."""
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        codes = [err.code for err in exc.recipients]
        text = "; ".join(f"{e.code} {e.message}" for e in exc.recipients) or str(exc)
        if any(code in LINK_CODES for code in codes):
            return SmtpTransportError(text)
        if codes and all(code >= 500 for code in codes):
            return SmtpPermanentError(text)
        return SmtpTemporaryError(text)
    link_level = (aiosmtplib.SMTPAuthenticationError, aiosmtplib.SMTPHeloError, aiosmtplib.SMTPConnectError)
    if isinstance(exc, aiosmtplib.SMTPResponseException) and not isinstance(exc, link_level):
        text = f"{exc.code} {exc.message}"
        if exc.code in LINK_CODES:
            return SmtpTransportError(text)
        return SmtpPermanentError(text) if exc.code >= 500 else SmtpTemporaryError(text)
    # Timeouts, drops, refused or reset connections, TLS errors, AUTH or EHLO trouble.
    return SmtpTransportError(_describe(exc))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return f"{type(exc).__name__}: {exc.code} {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def _non_ascii(*addresses: str) -> str | None:
    return next((address for address in addresses if not address.isascii()), None)


class SmtpSink:
    """Sends raw messages over up to ``config.connections`` reused connections at once.

    Connections open on demand and stay open between messages. When the server refuses an
    extra connection while others work (many allow only a few per login), the sink goes on
    with the ones it has, and says so once in the log.
    """

    def __init__(self, config: SmtpConfig) -> None:
        self.config = config
        self.limit = max(1, config.connections)
        self._idle: list[aiosmtplib.SMTP] = []
        self._open = 0  # connections open or being opened
        self._waiters: list[asyncio.Future[None]] = []
        self._shrunk_at = 0.0  # monotonic: when the limit was last lowered

    def _new_client(self) -> aiosmtplib.SMTP:
        cfg = self.config
        context = ssl.create_default_context(cafile=cfg.cafile) if cfg.security != "none" else None
        return aiosmtplib.SMTP(
            hostname=cfg.host,
            port=cfg.port,
            use_tls=cfg.security == "tls",
            start_tls=cfg.security == "starttls",
            tls_context=context,
            timeout=cfg.timeout,
            local_hostname=cfg.local_hostname,
        )

    async def _connect(self) -> aiosmtplib.SMTP:
        client = self._new_client()
        try:
            await self._hello_and_login(client)
        except BaseException:
            client.close()  # a refused login leaves the socket open
            raise
        return client

    async def _hello_and_login(self, client: aiosmtplib.SMTP) -> None:
        await client.connect()
        if client.is_ehlo_or_helo_needed:
            await client.ehlo()  # the extensions (SMTPUTF8) must be known before MAIL
        if self.config.oauth2 is not None:
            await self._oauth2_login(client, self.config.oauth2)
        elif self.config.user:
            await client.login(self.config.user, self.config.password)

    async def _oauth2_login(self, client: aiosmtplib.SMTP, login: OAuth2Login) -> None:
        """AUTH with an access token; one the server refuses is renewed and tried once more.
        A token endpoint that fails raises :class:`OAuth2Error`, a link trouble for the outbox."""
        cfg = self.config
        refused: aiosmtplib.SMTPAuthenticationError | None = None
        for _ in range(2):
            token = await login.tokens.token()
            response = sasl_response(login.mechanism, cfg.user, token, cfg.host, cfg.port)
            try:
                await _auth(client, login, response)
                return
            except aiosmtplib.SMTPAuthenticationError as exc:
                refused = exc
                login.tokens.invalidate(token)
        assert refused is not None
        raise refused

    async def _acquire(self) -> aiosmtplib.SMTP:
        """A connected client for this caller alone; opens one while under the limit, else waits."""
        if self.limit < self.config.connections and time.monotonic() - self._shrunk_at > REGROW_SECONDS:
            self.limit = max(1, self.config.connections)
        while True:
            while self._idle:
                client = self._idle.pop()
                if client.is_connected:
                    return client
                self._open -= 1  # dropped by the server while idle
            if self._open < self.limit:
                self._open += 1
                try:
                    return await self._connect()
                except BaseException as exc:
                    self._open -= 1
                    if not isinstance(exc, Exception) or self._open == 0:  # no link at all: down
                        raise
                    self._shrink(exc)
                    continue
            await self._wait()

    def _shrink(self, exc: Exception) -> None:
        self.limit = max(1, self._open)
        self._shrunk_at = time.monotonic()
        log.warning(
            "%s:%s refused connection %d (%s); sending over %d from now on",
            self.config.host,
            self.config.port,
            self._open + 1,
            _describe(exc),
            self.limit,
        )

    async def _wait(self) -> None:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _release(self, client: aiosmtplib.SMTP, *, keep: bool) -> None:
        if keep and client.is_connected:
            self._idle.append(client)
        else:
            self._open -= 1
            client.close()
        while self._waiters:
            waiter = self._waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                break

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        """Deliver one message.

        Raises SmtpTransportError when the link (connect, TLS, AUTH, drop) is broken,
        SmtpTemporaryError for a 4xx about this letter and SmtpPermanentError (or its
        SmtpAddressError) for a 5xx about it or an address that cannot be sent.
        """
        try:
            client = await self._acquire()
        except Exception as exc:  # whatever stops the link from coming up says nothing about the letter
            raise SmtpTransportError(_describe(exc)) from exc
        keep = False  # a link that saw anything but success or a 5xx may be half-dead: start afresh
        try:
            options = self._mail_options(client, sender, recipient)
            await client.sendmail(sender, [recipient], raw, mail_options=options)
            keep = True
        except SmtpAddressError:
            keep = True  # refused before anything was said to the server
            raise
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            error = _classify(exc)
            keep = isinstance(error, SmtpPermanentError)
            raise error from exc
        except ValueError as exc:  # an address aiosmtplib will not put on a command line
            raise SmtpAddressError(f"the address cannot be sent: {_describe(exc)}") from exc
        finally:
            self._release(client, keep=keep)

    def _mail_options(self, client: aiosmtplib.SMTP, sender: str, recipient: str) -> list[str]:
        """SMTPUTF8 when an address needs it and the server offers it (RFC 6531)."""
        address = _non_ascii(sender, recipient)
        if address is None:
            return []
        if client.supports_extension("smtputf8"):
            return ["SMTPUTF8"]
        raise SmtpAddressError(
            f"the address {address} cannot be sent without SMTPUTF8, "
            f"which {self.config.host}:{self.config.port} does not offer"
        )

    async def check(self) -> None:
        """Connect, log in (when a user is set) and say QUIT, after a refused login too (so the
        TLS link is closed before a one-off command's event loop ends): raises what went wrong."""
        client = self._new_client()
        try:
            await self._hello_and_login(client)
        finally:
            protocol = client.protocol
            await _quit(client)
            await _gone(protocol)

    async def close(self) -> None:
        """Say QUIT on every idle connection (those in use are closed by their sender)."""
        idle, self._idle = self._idle, []
        for client in idle:
            self._open -= 1
            await _quit(client)


async def _auth(client: aiosmtplib.SMTP, login: OAuth2Login, response: str) -> None:
    """``AUTH mechanism response``; a refused token comes back as a 334 error challenge, which
    the client answers to get the final 535 (RFC 7628 §3.2.3). aiosmtplib has XOAUTH2 only."""
    if login.mechanism.lower() not in client.server_auth_methods:
        raise aiosmtplib.SMTPAuthenticationError(504, f"the server does not offer AUTH {login.mechanism}")
    answer = await client.execute_command(b"AUTH", login.mechanism.encode(), response.encode("ascii"))
    if answer.code == aiosmtplib.SMTPStatus.auth_continue:
        answer = await client.execute_command(FAILURE_ACK[login.mechanism].encode("ascii"))
    if answer.code != aiosmtplib.SMTPStatus.auth_successful:
        raise aiosmtplib.SMTPAuthenticationError(answer.code, answer.message)


async def _quit(client: aiosmtplib.SMTP) -> None:
    if not client.is_connected:
        return
    try:
        await client.quit()
    except (aiosmtplib.SMTPException, OSError, TimeoutError):
        client.close()
    except BaseException:
        client.close()
        raise


async def _gone(protocol: Any, seconds: float = 2.0) -> None:
    """Wait until a closed connection is really gone (a TLS link closes in an exchange of its own)."""
    deadline = time.monotonic() + seconds
    while protocol is not None and protocol.transport is not None and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
