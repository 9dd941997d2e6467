# SPDX-License-Identifier: GPL-3.0-or-later
"""``MailRig``: Dovecot and the SMTP front end together, with small async helpers for tests."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import email.message
import json
import logging
import os
import re
import shutil
import ssl
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aioimaplib
import aiosmtplib

from mailbot.testing.mailrig.base import (
    BOT_ADDRESS,
    BOT_PASSWORD,
    CLIENT_HOSTNAME,
    FETCH_BATCH,
    GM_ADDRESS,
    GM_PASSWORD,
    LOCALHOST,
    OPEN_DOMAIN,
    PLAYER_PASSWORD,
    RigError,
    _make_rigdir,
    reap_stray_rigs,
)
from mailbot.testing.mailrig.dovecot import Dovecot
from mailbot.testing.mailrig.lmtp import AsyncLMTP
from mailbot.testing.mailrig.smtpd import SmtpFrontEnd

log = logging.getLogger("mailbot.testing.mailrig")

# --------------------------------------------------------------------------------------------------
# The whole rig


_LITERAL_UID = re.compile(rb"\bUID (\d+)")
_EXISTS = re.compile(rb"^(\d+) EXISTS$")


async def _examine(imap: Any, mailbox: str, timeout: float) -> Any:
    """EXAMINE (read-only SELECT) so that the helpers never take \\Recent or change flags under the bot.

    aioimaplib 2.0.3 sends EXAMINE as a simple command and leaves its state machine in AUTH, where it
    then refuses SEARCH/FETCH; only its SELECT updates the state, so do that here (the version is
    pinned in pyproject).
    """
    resp = _check(await asyncio.wait_for(imap.examine(mailbox), timeout), "EXAMINE")
    if imap.protocol.state == "AUTH":
        imap.protocol.state = "SELECTED"
    return resp


def _check(response: Any, what: str) -> Any:
    """aioimaplib does not raise on NO/BAD (mail.md §4.2): turn them into errors."""
    if response.result != "OK":
        raise RigError(f"IMAP {what} failed: {response.result} {response.lines!r}")
    return response


class MailRig:
    """Dovecot + SMTP front end in one temp dir, with helpers for tests.

    ``with MailRig() as rig:`` or ``start()``/``stop()``; ``stop()`` is also registered with atexit.
    """

    def __init__(
        self,
        *,
        smtp_auth: bool = True,
        imap_timeout: float = 10.0,
        keep_dir: bool = False,
        oauth2_introspection_url: str | None = None,
    ) -> None:
        """``oauth2_introspection_url``: Dovecot (IMAP, and SMTP AUTH through it) also takes XOAUTH2
        and OAUTHBEARER logins, asking that URL whether a token is good (``testing.oauth2server``)."""
        self.host = LOCALHOST
        self.oauth2_introspection_url = oauth2_introspection_url
        self.dir: Path | None = None
        self.dovecot: Dovecot | None = None
        self.smtp: SmtpFrontEnd | None = None
        self.smtp_auth = smtp_auth
        self.imap_timeout = imap_timeout
        self.keep_dir = keep_dir
        self.bot_address = BOT_ADDRESS
        self.bot_password = BOT_PASSWORD
        self.gm_address = GM_ADDRESS
        self.gm_password = GM_PASSWORD
        self.player_password = PLAYER_PASSWORD
        self.imap_port = 0
        self.imaps_port = 0
        self.lmtp_port = 0
        self.smtp_port = 0
        self.cafile = Path()
        self._final_errors: list[str] | None = None
        self.start_seconds = 0.0
        self.stop_seconds = 0.0

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self.dovecot is not None:
            return
        t0 = time.monotonic()
        reap_stray_rigs()
        self.dir = _make_rigdir()
        self._final_errors = None
        atexit.register(self.stop)
        try:
            self.dovecot = Dovecot(
                self.dir, host=self.host, oauth2_introspection_url=self.oauth2_introspection_url
            )
            self.dovecot.start()
            self.imap_port = self.dovecot.imap_port
            self.imaps_port = self.dovecot.imaps_port
            self.lmtp_port = self.dovecot.lmtp_port
            self.cafile = self.dovecot.cert_path
            self.smtp = SmtpFrontEnd(
                self.lmtp_port,
                lmtp_host=self.host,
                host=self.host,
                tls=(self.dovecot.cert_path, self.dovecot.key_path),
                dovecot_auth=self.dovecot.auth_socket_path if self.smtp_auth else None,
                log_path=self.dir / "smtpd.log",
                on_pid_change=self._write_pids,
            )
            self.smtp_port = self.smtp.port
            self._write_pids()
            self.smtp.start()
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - t0

    def _write_pids(self) -> None:
        if self.dir is None:
            return
        servers = {
            "dovecot": self.dovecot.pid if self.dovecot else None,
            "smtpd": self.smtp.pid if self.smtp else None,
        }
        info = {"owner": os.getpid(), "rigdir": str(self.dir), "servers": servers}
        tmp = self.dir / "pids.json.tmp"
        tmp.write_text(json.dumps(info), encoding="utf-8")
        tmp.replace(self.dir / "pids.json")

    def stop(self) -> None:
        """Stop both servers (SMTP first, so no delivery is in flight), then remove the temp dir unless
        Dovecot logged errors (kept for inspection) or ``keep_dir``."""
        t0 = time.monotonic()
        atexit.unregister(self.stop)
        smtp, self.smtp = self.smtp, None
        dovecot, self.dovecot = self.dovecot, None
        try:
            if smtp is not None:
                smtp.stop()
        finally:
            if dovecot is not None:
                dovecot.stop()
        if dovecot is not None:
            self._final_errors = dovecot.log_errors() + (smtp.log_errors() if smtp else [])
        if self.dir is not None:
            if self.keep_dir or self._final_errors:
                with contextlib.suppress(OSError):
                    (self.dir / "pids.json").unlink()
            else:
                shutil.rmtree(self.dir, ignore_errors=True)
                self.dir = None
        self.stop_seconds = time.monotonic() - t0

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop_smtp(self) -> None:
        """Simulate an SMTP outage: connections to ``smtp_port`` are refused until ``start_smtp()``."""
        if self.smtp is not None:
            self.smtp.stop()

    def start_smtp(self) -> None:
        """Start the SMTP front end again on the same port."""
        if self.smtp is None:
            raise RigError("rig not started")
        self.smtp.start()

    # -- introspection -----------------------------------------------------------------------------

    def new_address(self) -> str:
        """A fresh player in the open domain (password ``pw``); no provisioning needed."""
        return f"player-{uuid.uuid4().hex[:8]}@{OPEN_DOMAIN}"

    async def open_mailboxes(self, addresses: Sequence[str], links: int = 4) -> None:
        """One small letter to each address straight into Dovecot (LMTP), so that its mailbox
        exists, as a player's does on a real server: benchmarks call this before timing, or
        Dovecot creating the mailboxes on their first delivery is timed for whoever sends first."""
        raw = b"Subject: welcome\r\n\r\nA mailbox for the bench.\r\n"

        async def link(share: Sequence[str]) -> None:
            client = await AsyncLMTP.connect(self.host, self.lmtp_port)
            try:
                for address in share:
                    await client.send_message("setup@bench.test", [address], raw)
            finally:
                await client.close()

        await asyncio.gather(*(link(addresses[i::links]) for i in range(links)))

    def log_errors(self) -> list[str]:
        """Error:/Fatal:/Panic: lines that Dovecot logged (also after ``stop()``)."""
        if self.dovecot is not None:
            return self.dovecot.log_errors()
        return [line for line in (self._final_errors or []) if re.search(r"\b(Error|Fatal|Panic):", line)]

    def smtp_log_errors(self) -> list[str]:
        if self.smtp is not None:
            return self.smtp.log_errors()
        return [
            line for line in (self._final_errors or []) if re.search(r"\b(ERROR|CRITICAL|Traceback)\b", line)
        ]

    def ssl_context(self) -> ssl.SSLContext:
        """Client context trusting the rig's self-signed certificate."""
        return ssl.create_default_context(cafile=str(self.cafile))

    # -- async helpers for tests -------------------------------------------------------------------

    async def send(
        self,
        msg: email.message.EmailMessage,
        *,
        sender: str | None = None,
        recipients: Sequence[str] | None = None,
        starttls: bool = False,
        username: str | None = None,
        password: str | None = None,
    ) -> None:
        """Send over SMTP to the front end; returns once the mail is in the recipients' mailboxes.

        Raises aiosmtplib errors (``SMTPConnectError`` while the front end is stopped,
        ``SMTPRecipientsRefused`` if any recipient is refused).
        """
        errors, _ = await aiosmtplib.send(
            msg,
            sender=sender,
            recipients=recipients,
            hostname=self.host,
            port=self.smtp_port,
            local_hostname=CLIENT_HOSTNAME,
            username=username,
            password=password,
            # aiosmtplib 5 upgrades automatically whenever STARTTLS is offered; with our self-signed
            # cert that needs the cafile, so be explicit either way.
            start_tls=starttls,
            cert_bundle=str(self.cafile) if starttls else None,
            timeout=30.0,
        )
        if errors:
            raise aiosmtplib.SMTPRecipientsRefused(
                [aiosmtplib.SMTPRecipientRefused(r.code, r.message, rcpt) for rcpt, r in errors.items()]
            )

    async def imap_login(self, address: str, password: str, *, tls: bool = False) -> Any:
        """A logged-in ``aioimaplib.IMAP4`` (or ``IMAP4_SSL`` on the IMAPS port with the rig's cafile).

        Must be called inside the running loop (aioimaplib connects from its constructor). The caller
        logs out; wrap every further call in ``asyncio.wait_for``.
        """
        imap: Any
        if tls:
            imap = aioimaplib.IMAP4_SSL(
                host=self.host,
                port=self.imaps_port,
                ssl_context=self.ssl_context(),
                timeout=self.imap_timeout,
            )
        else:
            imap = aioimaplib.IMAP4(host=self.host, port=self.imap_port, timeout=self.imap_timeout)
        # Lets imap_logout() wait until the socket is really closed (see there).
        lost = asyncio.Event()
        imap.protocol.conn_lost_cb = lambda exc: lost.set()
        imap.mailrig_connection_lost = lost
        try:
            await asyncio.wait_for(imap.wait_hello_from_server(), self.imap_timeout)
            _check(await asyncio.wait_for(imap.login(address, password), self.imap_timeout), "LOGIN")
        except BaseException:
            await self.imap_logout(imap)
            raise
        return imap

    async def imap_logout(self, imap: Any) -> None:
        """Log out (bounded by imap_timeout) and close the transport even if that fails.

        For a client from ``imap_login`` it also waits (≤2 s) until the connection is lost: a TLS
        transport closes its socket only after the close_notify exchange, and if the test's event loop
        ends first the socket leaks, and its ResourceWarning fails some later test under -W error.
        """
        transport = getattr(imap.protocol, "transport", None)
        try:
            if transport is not None and imap.get_state() != "LOGOUT":
                await asyncio.wait_for(imap.logout(), self.imap_timeout)
        except Exception:
            pass
        finally:
            if transport is not None:
                transport.close()
                lost = getattr(imap, "mailrig_connection_lost", None)
                if isinstance(lost, asyncio.Event):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), 2.0)

    async def _fetch_selected(self, imap: Any) -> list[bytes]:
        t = self.imap_timeout
        search = _check(await asyncio.wait_for(imap.uid_search("ALL", charset=None), t), "UID SEARCH")
        uids = [int(u) for u in search.lines[0].split()] if search.lines else []
        messages: dict[int, bytes] = {}
        for i in range(0, len(uids), FETCH_BATCH):
            batch = ",".join(str(u) for u in uids[i : i + FETCH_BATCH])
            resp = _check(
                await asyncio.wait_for(imap.uid("fetch", batch, "(UID BODY.PEEK[])"), t), "UID FETCH"
            )
            head: bytes = b""
            for line in resp.lines:
                if isinstance(line, bytearray):
                    # The UID is in the "N FETCH (UID u BODY[] {size}" line before the literal; never
                    # search the literal itself (mail.md §4.2).
                    m = _LITERAL_UID.search(head)
                    if m is None:
                        raise RigError(f"FETCH literal without UID: {head!r}")
                    messages[int(m.group(1))] = bytes(line)
                elif isinstance(line, bytes):
                    head = line
        return [messages[u] for u in sorted(messages)]

    async def fetch_all(self, address: str, password: str, mailbox: str = "INBOX") -> list[bytes]:
        """Raw messages of ``mailbox`` in UID order, without changing flags (EXAMINE + BODY.PEEK)."""
        imap = await self.imap_login(address, password)
        try:
            await _examine(imap, mailbox, self.imap_timeout)
            return await self._fetch_selected(imap)
        finally:
            await self.imap_logout(imap)

    async def wait_for_mail(
        self, address: str, password: str, count: int = 1, timeout: float = 10.0, mailbox: str = "INBOX"
    ) -> list[bytes]:
        """Poll until ``mailbox`` holds at least ``count`` messages; return them all (raw, UID order)."""
        deadline = time.monotonic() + timeout
        imap = await self.imap_login(address, password)
        try:
            while True:
                # Re-EXAMINE to refresh the view; its EXISTS line is the message count.
                resp = await _examine(imap, mailbox, self.imap_timeout)
                exists = 0
                for line in resp.lines:
                    m = _EXISTS.match(line) if isinstance(line, bytes) else None
                    if m:
                        exists = int(m.group(1))
                if exists >= count:
                    return await self._fetch_selected(imap)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{address}/{mailbox}: {exists} of {count} messages after {timeout} s")
                await asyncio.sleep(0.05)
        finally:
            await self.imap_logout(imap)
