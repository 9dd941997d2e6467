# SPDX-License-Identifier: GPL-3.0-or-later
"""The aiosmtpd handler: each RCPT checked against Dovecot, DATA delivered over LMTP before
the 250, and SMTP AUTH through Dovecot's auth socket."""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from mailbot.testing.mailrig.lmtp import LMTPPool

log = logging.getLogger("mailbot.testing.mailrig")

# --------------------------------------------------------------------------------------------------
# aiosmtpd handler and SMTP AUTH against Dovecot


class DovecotSASL:
    """Checks credentials with Dovecot's auth-client socket (what Postfix's ``smtpd_sasl_type = dovecot``
    does), so SMTP and IMAP share passwords.

    ``check_async`` is what the SMTP front end uses: Dovecot answers a wrong password only after
    ~0.5 s, which must not block the server's event loop. An instance is also a (synchronous) aiosmtpd
    ``authenticator`` for use elsewhere.
    """

    def __init__(self, socket_path: str | Path, *, service: str = "smtp", timeout: float = 5.0) -> None:
        self.socket_path = str(socket_path)
        self.service = service
        self.timeout = timeout
        self._next_id = 1

    def _request(self, username: str, password: str) -> tuple[bytes, bytes, str]:
        resp = base64.b64encode(b"\0" + username.encode() + b"\0" + password.encode()).decode("ascii")
        req_id = str(self._next_id)
        self._next_id += 1
        handshake = f"VERSION\t1\t2\nCPID\t{os.getpid()}\n".encode()
        # "secured": without it Dovecot refuses PLAIN on a "plaintext" connection.
        auth = f"AUTH\t{req_id}\tPLAIN\tservice={self.service}\tsecured\tresp={resp}\n".encode()
        return handshake, auth, req_id

    @staticmethod
    def _accepted(answer: bytes, req_id: str) -> bool:
        fields = answer.decode(errors="replace").rstrip("\n").split("\t")
        return len(fields) >= 2 and fields[0] == "OK" and fields[1] == req_id

    def check(self, username: str, password: str) -> bool:
        handshake, auth, req_id = self._request(username, password)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout)
            sock.connect(self.socket_path)
            with sock.makefile("rwb") as stream:
                stream.write(handshake)
                stream.flush()
                while (line := stream.readline()) != b"DONE\n":
                    if not line:
                        return False
                stream.write(auth)
                stream.flush()
                return self._accepted(stream.readline(), req_id)

    async def check_async(self, username: str, password: str) -> bool:
        handshake, auth, req_id = self._request(username, password)

        async def exchange() -> bool:
            reader, writer = await asyncio.open_unix_connection(self.socket_path)
            try:
                writer.write(handshake)
                while (line := await reader.readline()) != b"DONE\n":
                    if not line:
                        return False
                writer.write(auth)
                return self._accepted(await reader.readline(), req_id)
            finally:
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

        return await asyncio.wait_for(exchange(), self.timeout)

    async def converse(
        self, mechanism: str, initial: bytes, answer: Callable[[bytes], Awaitable[bytes | None]]
    ) -> str | None:
        """Run one SASL exchange of any mechanism Dovecot offers (XOAUTH2, OAUTHBEARER) through its
        auth-client protocol: ``initial`` is the client's first response, ``answer`` relays a
        challenge to the client and returns its reply (None: it gave up). The user name Dovecot
        authenticated, or None when it refused."""

        async def exchange() -> str | None:
            reader, writer = await asyncio.open_unix_connection(self.socket_path)
            req_id = str(self._next_id)
            self._next_id += 1
            try:
                writer.write(f"VERSION\t1\t2\nCPID\t{os.getpid()}\n".encode())
                while (line := await reader.readline()) != b"DONE\n":
                    if not line:
                        return None
                resp = base64.b64encode(initial).decode("ascii")
                writer.write(
                    f"AUTH\t{req_id}\t{mechanism}\tservice={self.service}\tsecured\tresp={resp}\n".encode()
                )
                while True:
                    fields = (await reader.readline()).decode(errors="replace").rstrip("\n").split("\t")
                    if len(fields) < 2 or fields[1] != req_id or fields[0] not in {"OK", "CONT"}:
                        return None
                    if fields[0] == "OK":
                        user = next((f[5:] for f in fields[2:] if f.startswith("user=")), "")
                        return user
                    reply = await answer(base64.b64decode(fields[2]) if len(fields) > 2 else b"")
                    if reply is None:
                        return None
                    writer.write(f"CONT\t{req_id}\t{base64.b64encode(reply).decode('ascii')}\n".encode())
            finally:
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

        return await asyncio.wait_for(exchange(), self.timeout)

    def __call__(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        if isinstance(auth_data, LoginPassword):
            try:
                ok = self.check(auth_data.login.decode(), auth_data.password.decode())
            except (OSError, UnicodeDecodeError):
                ok = False
            if ok:
                return AuthResult(success=True, auth_data=auth_data)
        # handled=False makes aiosmtpd send "535 5.7.8"; the default handled=True sends nothing and the
        # client hangs until its timeout (mail.md §4.3).
        return AuthResult(success=False, handled=False)


class DovecotLMTPHandler:
    """aiosmtpd handler that checks recipients against Dovecot and delivers over LMTP synchronously.

    RCPT runs MAIL/RCPT/RSET on LMTP and passes Dovecot's reply through (e.g. ``550 5.1.1 <x> User
    doesn't exist``). DATA is delivered before the SMTP reply, so once the client's send returns the
    mail is in the mailbox and tests need no polling.

    AUTH PLAIN/LOGIN are implemented here (aiosmtpd prefers a handler's ``auth_*`` methods over its
    own) so the Dovecot check can be awaited; without ``sasl`` every AUTH gets 535.
    """

    def __init__(
        self,
        lmtp_host: str,
        lmtp_port: int,
        *,
        pool_size: int = 8,
        check_recipients: bool = True,
        timeout: float = 30.0,
        sasl: DovecotSASL | None = None,
    ) -> None:
        self.pool = LMTPPool(lmtp_host, lmtp_port, size=pool_size, timeout=timeout)
        self.check_recipients = check_recipients
        self.sasl = sasl

    @classmethod
    def from_cli(cls, parser: argparse.ArgumentParser, *args: str) -> DovecotLMTPHandler:
        """For ``python -m aiosmtpd -n -c mailbot.testing.mailrig.DovecotLMTPHandler HOST PORT``."""
        if len(args) != 2:
            parser.error("DovecotLMTPHandler needs LMTP_HOST LMTP_PORT")
        return cls(args[0], int(args[1]))

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if self.check_recipients:
            sender = envelope.mail_from or ""
            try:
                reply = await self.pool.run(lambda conn: conn.probe(sender, address))
            except (OSError, TimeoutError) as exc:
                return f"451 4.4.1 LMTP unavailable: {exc!r}"
            if not reply.ok:
                return str(reply)
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content
        if content is None:
            raw = envelope.content
            content = raw.encode("utf-8") if isinstance(raw, str) else (raw or b"")
        sender = envelope.mail_from or ""
        recipients = list(envelope.rcpt_tos)
        options = list(envelope.mail_options)
        try:
            results = await self.pool.run(
                lambda conn: conn.send_message(sender, recipients, content, options)
            )
        except (OSError, TimeoutError) as exc:
            return f"451 4.4.1 LMTP delivery failed: {exc!r}"
        failed = [(rcpt, reply) for rcpt, reply in results.items() if not reply.ok]
        if not failed:
            return "250 2.0.0 Delivered"
        # SMTP has one DATA reply for all recipients; surface the first failure so tests notice it
        # rather than accepting and silently losing part of the delivery.
        rcpt, reply = failed[0]
        return f"{reply.code} {reply.text} (recipient {rcpt}; {len(results) - len(failed)} delivered)"

    async def _login(self, login: bytes, password: bytes) -> AuthResult:
        if self.sasl is not None:
            try:
                ok = await self.sasl.check_async(login.decode(), password.decode())
            except (OSError, UnicodeDecodeError, TimeoutError):
                ok = False
            if ok:
                return AuthResult(success=True, auth_data=LoginPassword(login, password))
        # handled=False makes aiosmtpd send "535 5.7.8"; the default handled=True sends nothing and the
        # client hangs until its timeout (mail.md §4.3).
        return AuthResult(success=False, handled=False)

    @staticmethod
    async def _b64_arg(server: SMTP, args: list[str], challenge: str) -> bytes | None:
        """The initial response if given, else the answer to a 334 challenge; None after a reply."""
        if len(args) > 1:
            try:
                return base64.b64decode(args[1], validate=True)
            except binascii.Error:
                await server.push("501 5.5.2 Can't decode base64")
                return None
        answer = await server.challenge_auth(challenge)
        return answer if isinstance(answer, bytes) else None

    async def auth_PLAIN(self, server: SMTP, args: list[str]) -> AuthResult:
        blob = await self._b64_arg(server, args, "")
        if blob is None:
            return AuthResult(success=False, handled=True)
        parts = blob.split(b"\0")
        if len(parts) != 3:
            await server.push("501 5.5.2 Can't split auth value")
            return AuthResult(success=False, handled=True)
        return await self._login(parts[1], parts[2])

    async def auth_LOGIN(self, server: SMTP, args: list[str]) -> AuthResult:
        login = await self._b64_arg(server, args, server.AuthLoginUsernameChallenge)
        if login is None:
            return AuthResult(success=False, handled=True)
        password = await self._b64_arg(server, [], server.AuthLoginPasswordChallenge)
        if password is None:
            return AuthResult(success=False, handled=True)
        return await self._login(login, password)

    async def _bearer(self, server: SMTP, mechanism: str, args: list[str]) -> AuthResult:
        """XOAUTH2 and OAUTHBEARER, passed through to Dovecot (which asks the token's introspection
        URL, as Postfix with ``smtpd_sasl_type = dovecot`` would have it do); Dovecot's error
        challenge for a refused token goes to the client as a 334, as Gmail's and Outlook's."""
        initial = await self._b64_arg(server, args, "")
        if initial is None:
            return AuthResult(success=False, handled=True)
        user: str | None = None
        if self.sasl is not None:

            async def relay(challenge: bytes) -> bytes | None:
                reply = await server.challenge_auth(challenge)
                return reply if isinstance(reply, bytes) else None

            try:
                user = await self.sasl.converse(mechanism, initial, relay)
            except (OSError, TimeoutError, binascii.Error):
                user = None
        if user is None:
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=LoginPassword(user.encode(), b""))

    async def auth_XOAUTH2(self, server: SMTP, args: list[str]) -> AuthResult:
        return await self._bearer(server, "XOAUTH2", args)

    async def auth_OAUTHBEARER(self, server: SMTP, args: list[str]) -> AuthResult:
        return await self._bearer(server, "OAUTHBEARER", args)

    async def close(self) -> None:
        await self.pool.close()
