# SPDX-License-Identifier: GPL-3.0-or-later
"""A throw-away mail server for ``mailbot demo``: SMTP in, IMAP out, all in memory.

Both servers run inside the caller's asyncio loop:

* SMTP is aiosmtpd's ``SMTP`` protocol served by ``loop.create_server`` (not its
  ``Controller``, which would start a second loop in a thread: pymap's mailbox
  events are asyncio objects and must be set from the loop that waits on them).
* IMAP is pymap's ``IMAPConnection`` over pymap's in-memory ``dict`` backend,
  served by ``asyncio.start_server``. pymap's own ``IMAPService`` is not used: it
  reads its settings from an argparse namespace and keeps no handle on open
  connections or their IDLE helper tasks, so it could not be stopped cleanly.
  The mail store lives in this object, so use one event loop for its lifetime.

Delivery appends the message to the recipient's INBOX through a pymap session
before the SMTP ``250`` goes out, so a sender whose ``sendmail`` returned can
read the message over IMAP at once, and IDLE clients get ``EXISTS`` pushed.

There is no TLS anywhere: both servers listen on loopback only and hold
throw-away demo data, so certificates would add set-up cost and nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import uuid
import weakref
from argparse import Namespace
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AsyncExitStack, closing
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from types import TracebackType
from typing import Any, Self

from aiosmtpd.smtp import SMTP, Envelope, Session
from proxyprotocol.sock import SocketInfoLocal
from proxyprotocol.version import ProxyProtocolVersion
from pymap.backend.dict import Config as DictConfig
from pymap.backend.dict import Identity, Login
from pymap.concurrent import Event, Subsystem
from pymap.context import connection_exit
from pymap.imap import IMAPConnection
from pymap.imap.state import ConnectionState
from pymap.parsing.command.select import IdleCommand
from pymap.parsing.message import AppendMessage
from pymap.user import UserMetadata
from pysasl.hashing import Cleartext

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_HOSTNAME = "mail.localhost"
_HELPER_GRACE = 1.0  # seconds stop() waits for pymap's IDLE helpers
_IDLE_RECHECK = 0.2  # seconds between an IDLE connection's looks for mail it was not told of


@dataclass(frozen=True)
class _Delivery:
    """What the trace headers need to know about one SMTP transaction."""

    mail_from: str
    helo: str
    peer_ip: str
    esmtp: bool
    queue_id: str


class _DemoImapConfig(DictConfig):
    """pymap's dict-backend config with a fixed greeting name.

    The stock greeting calls ``socket.getfqdn()`` for every connection, which can
    stall on machines with a slow resolver; a demo has no use for the real name.
    """

    def __init__(self, hostname: str, **kwargs: Any) -> None:
        super().__init__(Namespace(), **kwargs)
        self._hostname = hostname

    @property
    def greeting(self) -> bytes:
        return b"Server ready " + self._hostname.encode("ascii", "replace")


def _imap_config(host: str, port: int, hostname: str) -> _DemoImapConfig:
    return _DemoImapConfig(
        hostname,
        host=host,
        port=port,
        demo_data=False,
        demo_user="",
        demo_password="",
        # Cleartext: pymap's built-in hash is PBKDF2 with 500,000 rounds (~0.3 s
        # per LOGIN), pointless for in-memory demo passwords.
        hash_context=Cleartext(),
        # Run the (now trivial) password checks inline instead of in a thread
        # pool that pymap would create and never shut down.
        cpu_subsystem=Subsystem.for_asyncio(),
        # Given explicitly so that pymap never looks at the (empty) argparse
        # namespace or at the CERT_FILE/KEY_FILE environment variables.
        proxy_protocol=ProxyProtocolVersion.get(None),
        ssl_context=ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER),
        tls_enabled=False,  # also makes LOGIN available without STARTTLS
        reject_dnsbl=False,
    )


def _received_headers(delivery: _Delivery, recipient: str, hostname: str) -> bytes:
    """The headers a delivering MTA prepends: newest trace information first."""
    protocol = "ESMTP" if delivery.esmtp else "SMTP"
    stamp = format_datetime(datetime.now(UTC))
    lines = [
        f"Return-Path: <{delivery.mail_from}>",
        f"Delivered-To: {recipient}",
        f"Received: from {delivery.helo} ([{delivery.peer_ip}])",
        f"\tby {hostname} (mailbot demo) with {protocol} id {delivery.queue_id}",
        f"\tfor <{recipient}>; {stamp}",
    ]
    return "".join(line + "\r\n" for line in lines).encode("utf-8")


def _peer_ip(session: Session) -> str:
    peer = session.peer
    if isinstance(peer, tuple) and peer:
        return str(peer[0])
    return "unknown"


_Deliver = Callable[[_Delivery, list[str], bytes], Awaitable[None]]


class _SmtpHandler:
    """aiosmtpd hooks: recipients are checked against the accounts, DATA is delivered."""

    def __init__(self, accepts: Callable[[str], bool], deliver: _Deliver) -> None:
        self._accepts = accepts
        self._deliver = deliver

    # aiosmtpd finds hooks by these exact names.
    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if not self._accepts(address):
            log.info("rejected RCPT <%s>: no such account", address)
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        delivery = _Delivery(
            mail_from=envelope.mail_from or "",
            helo=session.host_name or "unknown",
            peer_ip=_peer_ip(session),
            esmtp=bool(session.extended_smtp),
            queue_id=uuid.uuid4().hex[:12].upper(),
        )
        raw: bytes = envelope.original_content or b""
        try:
            await self._deliver(delivery, envelope.rcpt_tos, raw)
        except Exception:
            # A 4xx makes the sender keep the message and retry, as it would with a
            # real MTA whose mail store hiccuped.
            log.exception("delivery of %s failed", delivery.queue_id)
            return "451 4.3.0 Local delivery failed; try again later"
        return f"250 2.0.0 Ok: delivered as {delivery.queue_id}"


class _TrackedImapConnection(IMAPConnection):
    """pymap's IMAP connection, registering the helper task it starts for IDLE.

    When a connection is cancelled in IDLE, pymap leaves that helper to finish on
    its own; stop() needs to know about it to wait for it.

    pymap's IDLE also only waits for the next change: mail delivered between the
    client's last command and IDLE, or between two of its looks during IDLE, would
    not be announced until another letter came. A real server (Dovecot) reports such
    mail as IDLE starts and never misses one; this one reports it as IDLE starts and
    looks again every ``_IDLE_RECHECK`` seconds.
    """

    def __init__(self, helpers: set[asyncio.Task[Any]], *args: Any) -> None:
        super().__init__(*args)
        self._helpers = helpers

    async def handle_updates(self, state: ConnectionState, done: Event, cmd: IdleCommand) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._helpers.add(task)
        try:
            await self._announce_pending(state, cmd)
            while not done.is_set():
                # pymap's wait hears only of changes made after it began: mail delivered between
                # its last look and its wait would go unannounced. So it also ends every
                # _IDLE_RECHECK seconds and looks again (Dovecot never misses such mail).
                beat = done.or_event()
                timer = asyncio.get_running_loop().call_later(_IDLE_RECHECK, beat.set)
                try:
                    untagged = await self._exec(state.receive_updates(cmd, beat))
                finally:
                    timer.cancel()
                await asyncio.shield(self.write_updates(untagged))
        finally:
            self._helpers.discard(task)

    async def _announce_pending(self, state: ConnectionState, cmd: IdleCommand) -> None:
        # No event to wait on: pymap then reports the changes at once (a set event would not do,
        # since pymap's combined events only hear of being set later).
        untagged = await self._exec(state.receive_updates(cmd, None))  # type: ignore[arg-type]
        await asyncio.shield(self.write_updates(untagged))


class EmbeddedMailServer:
    """SMTP + IMAP on loopback, sharing one in-memory mail store.

    Accounts are e-mail addresses; the address is both the IMAP login name (exact
    spelling) and the SMTP recipient (matched case-insensitively).
    """

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        smtp_port: int = 0,
        imap_port: int = 0,
        hostname: str = DEFAULT_HOSTNAME,
    ) -> None:
        self._host = host
        self._requested_smtp_port = smtp_port
        self._requested_imap_port = imap_port
        self._hostname = hostname
        self._config = _imap_config(host, imap_port, hostname)
        self._login = Login(self._config)
        self._accounts: dict[str, str] = {}  # lower-cased address -> login name
        self._smtp_server: asyncio.Server | None = None
        self._imap_server: asyncio.Server | None = None
        # Weak: a live connection's protocol is held by its transport, so finished
        # sessions drop out by themselves.
        self._smtp_sessions: weakref.WeakSet[SMTP] = weakref.WeakSet()
        self._imap_tasks: set[asyncio.Task[Any]] = set()
        self._imap_helpers: set[asyncio.Task[Any]] = set()

    # -- public API ---------------------------------------------------------

    @property
    def host(self) -> str:
        return self._host

    @property
    def hostname(self) -> str:
        """The name the servers announce in greetings and Received headers."""
        return self._hostname

    @property
    def smtp_port(self) -> int:
        """The bound port once started; the requested one (0 = any) before."""
        return _bound_port(self._smtp_server, self._requested_smtp_port)

    @property
    def imap_port(self) -> int:
        return _bound_port(self._imap_server, self._requested_imap_port)

    @property
    def running(self) -> bool:
        return self._smtp_server is not None

    def add_account(self, address: str, password: str) -> None:
        """Create (or re-password) a mailbox; works before and after ``start()``."""
        if not address or any(ch in address for ch in ' \t\r\n"\\'):
            # aioimaplib sends the login name unquoted, so keep it a plain atom.
            raise ValueError(f"unusable account address: {address!r}")
        # Written straight into the dict backend (what its async Identity.set
        # does) so that this can stay synchronous and usable before the loop runs.
        self._login.users_dict[address] = UserMetadata(self._config, address, password=password)
        self._accounts[address.lower()] = address

    def has_account(self, address: str) -> bool:
        return address.lower() in self._accounts

    async def start(self) -> None:
        if self.running:
            raise RuntimeError("EmbeddedMailServer is already running")
        loop = asyncio.get_running_loop()
        self._imap_server = await asyncio.start_server(
            self._serve_imap, self._host, self._requested_imap_port
        )
        try:
            self._smtp_server = await loop.create_server(
                self._new_smtp_session, self._host, self._requested_smtp_port
            )
        except BaseException:
            await self._close_imap()
            raise
        log.info("demo mail server on %s: SMTP %d, IMAP %d", self._host, self.smtp_port, self.imap_port)

    async def stop(self) -> None:
        """Stop listening and drop every open connection; mailboxes are kept."""
        await self._close_smtp()
        await self._close_imap()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- delivery -----------------------------------------------------------

    async def _deliver(self, delivery: _Delivery, recipients: Iterable[str], raw: bytes) -> None:
        """Append one copy per distinct account, each with its own trace headers."""
        done: set[str] = set()
        for recipient in recipients:
            name = self._accounts[recipient.lower()]
            if name in done:
                continue
            done.add(name)
            message = _received_headers(delivery, recipient, self._hostname) + raw
            await self._append_to_inbox(name, message)
            log.info("delivered %s from <%s> to %s", delivery.queue_id, delivery.mail_from, name)

    async def _append_to_inbox(self, name: str, message: bytes) -> None:
        # The same path pymap's admin "Append" RPC takes: a backend session of the
        # owner, whose append wakes any IMAP connection IDLE-ing on that mailbox.
        identity = Identity(name, self._login, None, frozenset())
        async with identity.new_session() as session:
            await session.append_messages("INBOX", [AppendMessage(message, datetime.now(UTC))])

    # -- SMTP side ------------------------------------------------------------

    def _new_smtp_session(self) -> SMTP:
        session = SMTP(
            _SmtpHandler(self.has_account, self._deliver),
            hostname=self._hostname,  # not socket.getfqdn(): no resolver round trip per connection
            ident="mailbot demo ESMTP",
            enable_SMTPUTF8=True,  # player names may be non-ASCII
            loop=asyncio.get_running_loop(),
        )
        self._smtp_sessions.add(session)
        return session

    async def _close_smtp(self) -> None:
        server, self._smtp_server = self._smtp_server, None
        if server is None:
            return
        server.close()
        handlers = []
        for session in list(self._smtp_sessions):
            if session.transport is not None:
                session.transport.close()
            # aiosmtpd cancels this task in connection_lost(); awaiting it means no
            # SMTP task outlives stop(). It is private, hence the getattr.
            task = getattr(session, "_handler_coroutine", None)
            if isinstance(task, asyncio.Task):
                handlers.append(task)
        self._smtp_sessions.clear()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()

    # -- IMAP side ------------------------------------------------------------

    async def _serve_imap(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._imap_tasks.add(task)
        try:
            await self._run_imap_connection(reader, writer)
        except Exception:
            log.exception("IMAP connection failed")
        finally:
            self._imap_tasks.discard(task)
            writer.close()

    async def _run_imap_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # What pymap's IMAPServer.__call__ does, but with our connection class and
        # without its PROXY-protocol reader, which would spawn an untracked task.
        sock_info = SocketInfoLocal(writer, unique_id=uuid.uuid4().bytes)
        conn = _TrackedImapConnection(
            self._imap_helpers, self._config.commands, self._config, reader, writer, sock_info
        )
        state = ConnectionState(self._login, self._config)
        async with AsyncExitStack() as stack:
            connection_exit.set(stack)  # pymap closes the user's session through it
            stack.enter_context(closing(conn))
            await conn.run(state)

    async def _close_imap(self) -> None:
        server, self._imap_server = self._imap_server, None
        if server is None:
            return
        server.close()
        tasks = list(self._imap_tasks)
        for task in tasks:
            task.cancel()  # pymap answers "* BYE ... [UNAVAILABLE]" and closes the socket
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._wait_imap_helpers()
        await server.wait_closed()

    async def _wait_imap_helpers(self) -> None:
        helpers = list(self._imap_helpers)
        if not helpers:
            return
        # Their IDLE has been marked done, so they end within a few loop turns;
        # cancelling them instead would strand pymap's shielded writer task.
        _, pending = await asyncio.wait(helpers, timeout=_HELPER_GRACE)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def _bound_port(server: asyncio.Server | None, requested: int) -> int:
    if server is None or not server.sockets:
        return requested
    return int(server.sockets[0].getsockname()[1])
