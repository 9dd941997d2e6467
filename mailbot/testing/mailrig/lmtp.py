# SPDX-License-Identifier: GPL-3.0-or-later
"""An asyncio LMTP client and a small pool of its connections, for delivering into Dovecot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from mailbot.testing.mailrig.base import CLIENT_HOSTNAME, T

log = logging.getLogger("mailbot.testing.mailrig")

# --------------------------------------------------------------------------------------------------
# LMTP client


@dataclass(frozen=True)
class LMTPReply:
    code: int
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 400

    def __str__(self) -> str:
        return f"{self.code} {self.text}"


class LMTPConnectionLost(ConnectionError):
    """The LMTP connection closed, timed out or answered 421; it must not be reused."""


class AsyncLMTP:
    """Minimal asyncio LMTP client (RFC 2033).

    Unlike stdlib ``smtplib.LMTP`` it reads one DATA reply per accepted recipient; smtplib reads only one,
    and the leftover replies desynchronise the next transaction on the same connection (mail.md §3.2).
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> None:
        self._reader = reader
        self._writer = writer
        self.timeout = timeout
        self.extensions: dict[str, str] = {}
        self.closed = False
        # Set once the final "." of a DATA payload was written: from then on the message may have been
        # delivered, so a caller must not blindly retry on another connection.
        self.committed = False

    @classmethod
    async def connect(
        cls, host: str, port: int, *, local_hostname: str = CLIENT_HOSTNAME, timeout: float = 30.0
    ) -> AsyncLMTP:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        client = cls(reader, writer, timeout)
        try:
            greeting = await client._read_reply()
            if greeting.code != 220:
                raise LMTPConnectionLost(f"LMTP greeting: {greeting}")
            reply, lines = await client._command_lines(f"LHLO {local_hostname}")
            if reply.code != 250:
                raise LMTPConnectionLost(f"LHLO: {reply}")
            for line in lines[1:]:
                keyword, _, params = line.partition(" ")
                client.extensions[keyword.upper()] = params
        except BaseException:
            await client.close()
            raise
        return client

    async def _read_reply_lines(self) -> tuple[int, list[str]]:
        lines: list[str] = []
        while True:
            try:
                raw = await asyncio.wait_for(self._reader.readline(), self.timeout)
            except (TimeoutError, OSError) as exc:
                self.closed = True
                raise LMTPConnectionLost(f"LMTP read failed: {exc!r}") from exc
            if not raw.endswith(b"\n"):
                self.closed = True
                raise LMTPConnectionLost("LMTP connection closed by server")
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if len(line) < 3 or not line[:3].isdigit():
                self.closed = True
                raise LMTPConnectionLost(f"malformed LMTP reply: {line!r}")
            lines.append(line[4:])
            if line[3:4] != "-":
                code = int(line[:3])
                if code == 421:
                    # Dovecot says 421 when its lmtp process goes away; the connection is dead.
                    self.closed = True
                    raise LMTPConnectionLost(f"LMTP: {code} {' '.join(lines)}")
                return code, lines

    async def _read_reply(self) -> LMTPReply:
        code, lines = await self._read_reply_lines()
        return LMTPReply(code, " ".join(lines))

    async def _write(self, data: bytes) -> None:
        if self.closed:
            raise LMTPConnectionLost("LMTP connection already closed")
        try:
            self._writer.write(data)
            await asyncio.wait_for(self._writer.drain(), self.timeout)
        except (TimeoutError, OSError) as exc:
            self.closed = True
            raise LMTPConnectionLost(f"LMTP write failed: {exc!r}") from exc

    async def _command_lines(self, line: str) -> tuple[LMTPReply, list[str]]:
        await self._write(line.encode("utf-8") + b"\r\n")
        code, lines = await self._read_reply_lines()
        return LMTPReply(code, " ".join(lines)), lines

    async def command(self, line: str) -> LMTPReply:
        reply, _ = await self._command_lines(line)
        return reply

    def _mail_params(self, mail_options: Sequence[str]) -> str:
        # Forward only parameters the server announced (e.g. BODY=8BITMIME, SMTPUTF8).
        params = []
        for opt in mail_options:
            keyword = opt.partition("=")[0].upper()
            needs = "8BITMIME" if keyword == "BODY" else keyword
            if needs in self.extensions:
                params.append(opt)
        return "".join(" " + p for p in params)

    async def mail(self, sender: str, mail_options: Sequence[str] = ()) -> LMTPReply:
        return await self.command(f"MAIL FROM:<{sender}>{self._mail_params(mail_options)}")

    async def rcpt(self, recipient: str) -> LMTPReply:
        return await self.command(f"RCPT TO:<{recipient}>")

    async def rset(self) -> LMTPReply:
        return await self.command("RSET")

    async def probe(self, sender: str, recipient: str) -> LMTPReply:
        """Ask whether ``recipient`` exists (MAIL, RCPT, RSET); returns the RCPT (or MAIL) reply."""
        self.committed = False
        reply = await self.mail(sender)
        if reply.ok:
            reply = await self.rcpt(recipient)
        await self.rset()
        return reply

    async def send_message(
        self, sender: str, recipients: Sequence[str], content: bytes, mail_options: Sequence[str] = ()
    ) -> dict[str, LMTPReply]:
        """One LMTP transaction; returns a reply per recipient (RCPT refusal or its DATA reply)."""
        self.committed = False
        results: dict[str, LMTPReply] = {}
        reply = await self.mail(sender, mail_options)
        if not reply.ok:
            await self.rset()
            return dict.fromkeys(recipients, reply)
        accepted: list[str] = []
        for rcpt in recipients:
            reply = await self.rcpt(rcpt)
            results[rcpt] = reply
            if reply.ok:
                accepted.append(rcpt)
        if not accepted:
            await self.rset()
            return results
        reply = await self.command("DATA")
        if reply.code != 354:
            await self.rset()
            return dict.fromkeys(recipients, reply) | {r: results[r] for r in recipients if r not in accepted}
        await self._write(dot_stuff(content))
        self.committed = True
        for rcpt in accepted:
            results[rcpt] = await self._read_reply()
        return results

    async def quit(self) -> None:
        with contextlib.suppress(LMTPConnectionLost):
            await self.command("QUIT")
        await self.close()

    async def close(self) -> None:
        self.closed = True
        self._writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            await asyncio.wait_for(self._writer.wait_closed(), 2.0)


def dot_stuff(content: bytes) -> bytes:
    """CRLF-normalise, dot-stuff and terminate a message for the DATA phase."""
    lines = re.split(rb"\r?\n", content)
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        return b".\r\n"
    body = b"\r\n".join(b"." + line if line.startswith(b".") else line for line in lines)
    return body + b"\r\n.\r\n"


class LMTPPool:
    """Up to ``size`` pooled LMTP connections, reused LIFO.

    Dovecot drops idle LMTP sessions after 5 minutes and answers 421 when its lmtp process stops, so a
    failure on a *reused* connection is retried once on a fresh one, unless the DATA payload may
    already have been delivered.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        size: int = 8,
        local_hostname: str = CLIENT_HOSTNAME,
        timeout: float = 30.0,
    ) -> None:
        self.host = host
        self.port = port
        self.local_hostname = local_hostname
        self.timeout = timeout
        self._idle: list[AsyncLMTP] = []
        self._slots = asyncio.Semaphore(size)

    async def _connect(self) -> AsyncLMTP:
        return await AsyncLMTP.connect(
            self.host, self.port, local_hostname=self.local_hostname, timeout=self.timeout
        )

    async def run(self, operation: Callable[[AsyncLMTP], Awaitable[T]]) -> T:
        async with self._slots:
            reused = bool(self._idle)
            conn = self._idle.pop() if reused else await self._connect()
            try:
                result = await operation(conn)
            except LMTPConnectionLost:
                await conn.close()
                if not reused or conn.committed:
                    raise
                conn = await self._connect()
                try:
                    result = await operation(conn)
                except BaseException:
                    await conn.close()
                    raise
            except BaseException:
                # The protocol state is unknown after any other failure: do not reuse the connection.
                await conn.close()
                raise
            if conn.closed:
                await conn.close()
            else:
                self._idle.append(conn)
            return result

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.quit()
