# SPDX-License-Identifier: GPL-3.0-or-later
"""A real SMTP submission server whose faults a test switches while a ``mailbot run`` sends to it.

``mode``: ``ok`` (STARTTLS with the rig's certificate, which the bot trusts, any login
accepted), ``badcert`` (STARTTLS with a certificate nobody trusts: the bot's TLS handshake
fails), ``refuse`` (535 to every login). Every message it accepts is kept with the moment
it came. It runs aiosmtpd in a thread of its own, so the test's own loop stays free.
"""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, Session

from mailbot.testing.mailrig import free_ports, make_self_signed_cert

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Accepted:
    at: float  # time.monotonic() when the server took it
    recipients: tuple[str, ...]
    raw: bytes


def _context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


class _Handler:
    def __init__(self, server: FaultSmtp) -> None:
        self.server = server

    async def handle_DATA(self, _server: SMTP, _session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        with self.server.lock:
            self.server.accepted.append(Accepted(time.monotonic(), tuple(envelope.rcpt_tos), raw))
        return "250 OK"


class _Controller(Controller):
    def __init__(self, owner: FaultSmtp, **kwargs: Any) -> None:
        self.owner = owner  # not ``server``: the controller keeps its asyncio server there
        super().__init__(_Handler(owner), **kwargs)

    def factory(self) -> SMTP:
        """A server for each connection, with the certificate of the mode in force."""
        server = self.owner
        context = server.bad_tls if server.mode == "badcert" else server.good_tls
        return SMTP(
            self.handler,
            hostname="smtp.fault.test",
            tls_context=context,
            require_starttls=True,
            auth_required=True,
            auth_require_tls=True,
            authenticator=server.authenticate,
        )


class FaultSmtp:
    def __init__(self, cert: Path, key: Path, workdir: Path) -> None:
        self.mode = "ok"
        self.lock = threading.Lock()
        self.accepted: list[Accepted] = []
        self.logins_refused = 0
        self.good_tls = _context(cert, key)
        make_self_signed_cert(workdir / "untrusted.pem", workdir / "untrusted.key")
        self.bad_tls = _context(workdir / "untrusted.pem", workdir / "untrusted.key")
        self.port = free_ports(1)[0]
        self._controller = _Controller(self, hostname=HOST, port=self.port, ready_timeout=10)

    def authenticate(self, _server: SMTP, _session: Session, _envelope: Envelope, *_args: Any) -> AuthResult:
        if self.mode == "refuse":
            self.logins_refused += 1
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True)

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def messages(self) -> list[Accepted]:
        with self.lock:
            return list(self.accepted)
