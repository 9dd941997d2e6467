# SPDX-License-Identifier: GPL-3.0-or-later
"""The SMTP sink's several connections against a real aiosmtpd server on loopback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session

from mailbot.errors import SmtpPermanentError
from mailbot.mail.smtp import SmtpConfig, SmtpSink

HOST = "127.0.0.1"


@dataclass
class Server:
    """Counts connections; answers 421 to connections beyond ``most`` open at once."""

    most: int = 10
    delay: float = 0.02  # each DATA takes a while, so letters overlap
    open: int = 0
    peak: int = 0
    refused: int = 0
    received: list[str] = field(default_factory=list)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if address.endswith("@nowhere.test"):
            return "550 5.1.1 User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        await asyncio.sleep(self.delay)
        self.received.extend(envelope.rcpt_tos)
        return "250 2.0.0 OK"


class Refusing(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(b"421 4.7.0 too many connections\r\n")
        transport.close()


@asynccontextmanager
async def smtp_server(state: Server) -> AsyncIterator[int]:
    loop = asyncio.get_running_loop()
    sessions: list[SMTP] = []

    class Counted(SMTP):
        def connection_lost(self, exc: Exception | None) -> None:
            state.open -= 1
            super().connection_lost(exc)

    def factory() -> asyncio.Protocol:
        if state.open >= state.most:
            state.refused += 1
            return Refusing()
        state.open += 1
        state.peak = max(state.peak, state.open)
        smtp = Counted(state, hostname="mx.example.test", loop=loop)
        sessions.append(smtp)
        return smtp

    server = await loop.create_server(factory, HOST, 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for smtp in sessions:
            if smtp.transport is not None:
                smtp.transport.close()
        tasks = [t for s in sessions if isinstance(t := getattr(s, "_handler_coroutine", None), asyncio.Task)]
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()


def _sink(port: int, connections: int) -> SmtpSink:
    return SmtpSink(SmtpConfig(host=HOST, port=port, security="none", timeout=5, connections=connections))


async def _send_all(sink: SmtpSink, count: int) -> None:
    raw = b"Subject: hi\r\n\r\nhi\r\n"
    await asyncio.gather(*(sink.send("bot@example.test", f"p{n}@players.test", raw) for n in range(count)))


async def test_letters_go_out_over_up_to_the_configured_connections() -> None:
    state = Server()
    async with smtp_server(state) as port:
        sink = _sink(port, connections=3)
        try:
            await _send_all(sink, 12)
            await _send_all(sink, 6)  # the connections are kept and used again
        finally:
            await sink.close()
    assert sorted(state.received) == sorted(
        [f"p{n}@players.test" for n in range(12)] + [f"p{n}@players.test" for n in range(6)]
    )
    assert state.peak == 3 and state.refused == 0


async def test_a_server_allowing_fewer_connections_gets_what_it_allows(
    caplog: pytest.LogCaptureFixture,
) -> None:
    state = Server(most=1)
    async with smtp_server(state) as port:
        sink = _sink(port, connections=3)
        try:
            with caplog.at_level(logging.WARNING, logger="mailbot.mail.smtp"):
                await _send_all(sink, 8)
        finally:
            await sink.close()
    assert sorted(state.received) == sorted(f"p{n}@players.test" for n in range(8))  # none lost
    assert state.peak == 1 and sink.limit == 1
    assert [r.getMessage() for r in caplog.records if "refused connection" in r.getMessage()]


async def test_a_refused_recipient_keeps_its_connection_for_the_others() -> None:
    state = Server()
    async with smtp_server(state) as port:
        sink = _sink(port, connections=1)
        try:
            with pytest.raises(SmtpPermanentError):
                await sink.send("bot@example.test", "x@nowhere.test", b"Subject: hi\r\n\r\nhi\r\n")
            await sink.send("bot@example.test", "p@players.test", b"Subject: hi\r\n\r\nhi\r\n")
        finally:
            await sink.close()
    assert state.received == ["p@players.test"]
    assert state.peak == 1  # one connection all along
