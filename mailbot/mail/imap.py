# SPDX-License-Identifier: GPL-3.0-or-later
"""IMAP source over aioimaplib: select, search, fetch in batches, acknowledge, wait.

aioimaplib hangs forever when a response is too large for its recursive parser
(design/mail.md §4.2), and NO/BAD answers do not raise. So every call here goes
through :meth:`ImapSource._call`, which puts a timeout on it, checks the answer
and turns any trouble into :class:`ImapError`; fetches are at most 100 UIDs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import ssl
from collections.abc import Awaitable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import aioimaplib

from mailbot.core.letter import RawMessage
from mailbot.errors import ImapError, OAuth2Error
from mailbot.mail.oauth2 import FAILURE_ACK, Mechanism, OAuth2Login, sasl_response

log = logging.getLogger(__name__)

_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")
_FETCH_UID = re.compile(rb"\bUID (\d+)")
_INTERNALDATE = re.compile(rb'INTERNALDATE "([^"]+)"')
_EXISTS = re.compile(rb"^(?:\* )?\d+ EXISTS\b")


@dataclass(frozen=True)
class ImapConfig:
    host: str
    port: int
    user: str
    password: str
    mailbox: str = "INBOX"
    tls: bool = True
    cafile: str | None = None
    processed_folder: str | None = None
    timeout: float = 30.0
    batch_size: int = 100
    oauth2: OAuth2Login | None = None  # set: AUTHENTICATE with an access token instead of LOGIN


class _NewsProtocol(aioimaplib.IMAP4ClientProtocol):  # type: ignore[misc]
    """aioimaplib's protocol, noting every ``EXISTS`` the server sends.

    aioimaplib drops untagged answers that arrive during SEARCH, FETCH or STORE
    ("ignored untagged response"), and a server reports new mail only once: mail
    that arrived after a search ran but was announced in that search's answer would
    not be announced again when IDLE starts, and would wait for the IDLE timeout.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.news = False
        self.failure_ack = ""

    def _untagged_response(self, line: bytes) -> Any:
        if _EXISTS.match(line):
            self.news = True
        return super()._untagged_response(line)

    async def authenticate(self, mechanism: Mechanism, response: str) -> Any:
        """``AUTHENTICATE mechanism response`` (SASL-IR, RFC 4959), the response kept out of the
        debug log. aioimaplib has XOAUTH2 only, logs its base64 (the token, merely encoded) and
        hangs when the server answers a refused token with an error challenge."""
        async with self.state_condition:
            self.failure_ack = FAILURE_ACK[mechanism]
            command = aioimaplib.Command("AUTHENTICATE", self.new_tag(), mechanism, response, loop=self.loop)
            answer = await self.execute(command, scrub=response)
            if answer.result == "OK":
                self.state = aioimaplib.AUTH
                for line in answer.lines:
                    if b"CAPABILITY" in line:
                        self.capabilities |= set(line.decode().replace("CAPABILITY", "").strip().split())
            self.state_condition.notify_all()
            return answer

    def _continuation(self, line: bytes) -> None:
        pending = self.pending_sync_command
        if pending is not None and pending.name == "AUTHENTICATE":
            # The server refused the token and explains in a challenge; the client's answer
            # ends the exchange and brings the tagged NO (RFC 7628 §3.2.3).
            self.transport.write(self.failure_ack.encode("ascii") + b"\r\n")
            return
        super()._continuation(line)


class _Client(aioimaplib.IMAP4):  # type: ignore[misc]
    """aioimaplib's client over :class:`_NewsProtocol` (its ``create_client`` names its own class)."""

    def create_client(
        self, host: str, port: int, loop: Any, conn_lost_cb: Any = None, ssl_context: Any = None
    ) -> None:
        local_loop = loop if loop is not None else asyncio.get_running_loop()
        self.protocol = _NewsProtocol(local_loop, conn_lost_cb)
        self._client_task = local_loop.create_task(
            local_loop.create_connection(lambda: self.protocol, host, port, ssl=ssl_context)
        )


def uid_ranges(uids: Sequence[int]) -> str:
    """Compact IMAP sequence set, e.g. [1,2,3,7] -> '1:3,7' (keeps commands short)."""
    ordered = sorted(set(uids))
    parts: list[str] = []
    start = prev = ordered[0]
    for uid in ordered[1:]:
        if uid != prev + 1:
            parts.append(f"{start}:{prev}" if start != prev else str(start))
            start = uid
        prev = uid
    parts.append(f"{start}:{prev}" if start != prev else str(start))
    return ",".join(parts)


def chunks(items: Sequence[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


def parse_fetch(lines: Sequence[Any]) -> list[RawMessage]:
    """Read ``UID FETCH (UID INTERNALDATE BODY.PEEK[])`` answer lines into messages.

    aioimaplib hands each literal as a separate ``bytearray`` after the line that
    announces it; UID and INTERNALDATE may come before or after the literal.
    """
    messages: list[RawMessage] = []
    header = b""
    literal: bytes | None = None
    for line in lines:
        if isinstance(line, bytearray):
            literal = bytes(line)
            continue
        if b" FETCH (" in line and literal is not None:
            messages.extend(_complete(header, literal))
            literal = None
            header = b""
        header += b" " + bytes(line)
    if literal is not None:
        messages.extend(_complete(header, literal))
    return messages


def _complete(header: bytes, literal: bytes) -> list[RawMessage]:
    uid = _FETCH_UID.search(header)
    if uid is None:
        return []
    date = _INTERNALDATE.search(header)
    received = _internaldate(date.group(1).decode()) if date else datetime.now(UTC)
    return [RawMessage(uid=int(uid.group(1)), raw=literal, received_at=received)]


def _internaldate(text: str) -> datetime:
    # IMAP INTERNALDATE: "21-Nov-2026 17:44:01 +0000"; email.utils reads it once reshaped.
    day, clock, zone = text.strip().split(" ")
    return parsedate_to_datetime(f"{day.replace('-', ' ')} {clock} {zone}").astimezone(UTC)


class ImapSource:
    """One IMAP connection to one mailbox. Not safe for concurrent use: one flow per source."""

    def __init__(self, config: ImapConfig) -> None:
        self.config = config
        self._imap: Any = None
        self._lost = asyncio.Event()

    async def _call(self, what: str, awaitable: Awaitable[Any], ok: bool = True) -> Any:
        try:
            response = await asyncio.wait_for(awaitable, self.config.timeout)
        except (TimeoutError, OSError, aioimaplib.Abort, aioimaplib.CommandTimeout) as exc:
            raise ImapError(f"IMAP {what} failed: {exc!r}") from exc
        if ok and response.result != "OK":
            raise ImapError(f"IMAP {what} answered {response.result}: {response.lines[-1:]!r}")
        return response

    async def connect(self) -> int:
        """Log in and select the mailbox; returns its UIDVALIDITY."""
        cfg = self.config
        self._lost.clear()
        context = ssl.create_default_context(cafile=cfg.cafile) if cfg.tls else None
        self._imap = _Client(
            host=cfg.host,
            port=cfg.port,
            timeout=cfg.timeout,
            ssl_context=context,
            conn_lost_cb=lambda _exc: self._lost.set(),
        )
        await self._call("greeting", self._greeting(), ok=False)
        if cfg.oauth2 is None:
            await self._call("LOGIN", self._imap.login(cfg.user, cfg.password))
        else:
            await self._oauth2_login(cfg.oauth2)
        response = await self._call("SELECT", self._imap.select(cfg.mailbox))
        self._imap.protocol.news = False  # SELECT's EXISTS is the count, not news: the first search reads all
        return self._uidvalidity(response.lines)

    async def _oauth2_login(self, login: OAuth2Login) -> None:
        """AUTHENTICATE with an access token; one the server refuses is renewed and tried once more
        (it may have been revoked or have expired early). A token endpoint that fails is an
        outage like a server that is down: an :class:`ImapError` the reader backs off on."""
        cfg, what = self.config, f"AUTHENTICATE {login.mechanism}"
        answer: Any = None
        for _ in range(2):
            try:
                token = await login.tokens.token()
            except OAuth2Error as exc:
                raise ImapError(f"IMAP login: {exc}") from exc
            response = sasl_response(login.mechanism, cfg.user, token, cfg.host, cfg.port)
            answer = await self._call(
                what, self._imap.protocol.authenticate(login.mechanism, response), ok=False
            )
            if answer.result == "OK":
                return
            login.tokens.invalidate(token)
        raise ImapError(f"IMAP {what} refused a fresh access token for {cfg.user}: {answer.lines[-1:]!r}")

    async def _greeting(self) -> Any:
        await self._imap.wait_hello_from_server()
        return None

    @staticmethod
    def _uidvalidity(lines: Sequence[Any]) -> int:
        for line in lines:
            found = _UIDVALIDITY.search(bytes(line))
            if found:
                return int(found.group(1))
        raise ImapError("SELECT gave no UIDVALIDITY")

    @property
    def idling(self) -> bool:
        """An IDLE command is running (the server pushes; other commands wait for DONE)."""
        return self._imap is not None and bool(self._imap.has_pending_idle())

    @property
    def idle_supported(self) -> bool:
        return self._imap is not None and bool(self._imap.has_capability("IDLE"))

    async def search_after(self, last_uid: int) -> list[int]:
        """UIDs above ``last_uid``; the server may echo the highest UID for n:*, so filter."""
        # News announced from here on may not be in this search's answer: wait_for_news sees it.
        self._imap.protocol.news = False
        response = await self._call(
            "UID SEARCH", self._imap.uid_search(f"UID {last_uid + 1}:*", charset=None)
        )
        found = [int(tok) for tok in response.lines[0].split()] if response.lines else []
        return sorted(uid for uid in found if uid > last_uid)

    async def search_upto(self, last_uid: int) -> list[int]:
        """UIDs at or below ``last_uid`` still in the mailbox (left there by a crash)."""
        if last_uid < 1:
            return []
        response = await self._call("UID SEARCH", self._imap.uid_search(f"UID 1:{last_uid}", charset=None))
        found = [int(tok) for tok in response.lines[0].split()] if response.lines else []
        return sorted(uid for uid in found if uid <= last_uid)

    async def fetch(self, uids: Sequence[int]) -> list[RawMessage]:
        if len(uids) > self.config.batch_size:
            raise ValueError("fetch batches are capped (aioimaplib cannot parse large responses)")
        response = await self._call(
            "UID FETCH", self._imap.uid("fetch", uid_ranges(uids), "(UID INTERNALDATE BODY.PEEK[])")
        )
        return parse_fetch(response.lines)

    async def acknowledge(self, uids: Sequence[int]) -> None:
        """Mark handled mail: move it to the processed folder, or flag it \\Seen."""
        if not uids:
            return
        folder = self.config.processed_folder
        for part in chunks(sorted(uids), self.config.batch_size):
            if folder:
                await self._call("UID MOVE", self._imap.uid("move", uid_ranges(part), folder))
            else:
                await self._call(
                    "UID STORE", self._imap.uid("store", uid_ranges(part), "+FLAGS.SILENT", r"(\Seen)")
                )

    async def ensure_folder(self) -> None:
        folder = self.config.processed_folder
        if folder:
            # CREATE answers NO when the folder exists; that is fine.
            await self._call("CREATE", self._imap.create(folder), ok=False)

    async def wait_for_news(self, idle: bool, idle_timeout: float, poll_interval: float) -> None:
        """Return when the mailbox may have new mail: an IDLE push, a timeout, or a poll tick."""
        if self._lost.is_set():
            raise ImapError("IMAP connection lost")
        if self._imap.protocol.news:
            return  # announced during the last commands (IDLE would not announce it again)
        if not (idle and self.idle_supported):
            await asyncio.sleep(poll_interval)
            await self._call("NOOP", self._imap.noop())
            return
        await self._idle(idle_timeout)

    async def _idle(self, idle_timeout: float) -> None:
        try:
            task = await asyncio.wait_for(self._imap.idle_start(timeout=idle_timeout), self.config.timeout)
            await self._wait_exists(idle_timeout)
            if self._lost.is_set():
                # aioimaplib's IDLE task never ends once the link is gone: drop it and reconnect.
                task.cancel()
                raise ImapError("IMAP connection lost during IDLE")
            self._imap.idle_done()
            await asyncio.wait_for(task, self.config.timeout)
        except (TimeoutError, OSError, aioimaplib.Abort, aioimaplib.CommandTimeout) as exc:
            raise ImapError(f"IMAP IDLE failed: {exc!r}") from exc

    async def _wait_exists(self, idle_timeout: float) -> None:
        """Until the server announces new mail, the IDLE period ends, or the connection drops."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + idle_timeout
        lost = asyncio.ensure_future(self._lost.wait())
        try:
            while (left := deadline - loop.time()) > 0 and not self._lost.is_set():
                push_task = asyncio.ensure_future(self._imap.wait_server_push(timeout=left))
                done, _ = await asyncio.wait({push_task, lost}, return_when=asyncio.FIRST_COMPLETED)
                if push_task not in done:
                    push_task.cancel()
                    return
                try:
                    push = push_task.result()
                except TimeoutError:
                    return
                if push == aioimaplib.STOP_WAIT_SERVER_PUSH or any(b"EXISTS" in bytes(x) for x in push):
                    return
        finally:
            lost.cancel()

    async def close(self) -> None:
        imap, self._imap = self._imap, None
        if imap is None:
            return
        try:
            await self._end_idle(imap)
            await asyncio.wait_for(imap.logout(), 5)
        except (TimeoutError, OSError, aioimaplib.Abort, aioimaplib.CommandTimeout):
            log.debug("IMAP logout failed; the connection is dropped anyway")
        finally:
            # aioimaplib leaves the socket open after LOGOUT; close it ourselves, and wait for
            # the TLS close exchange to end so that the socket is really gone when we return.
            transport = getattr(imap.protocol, "transport", None)
            if transport is not None:
                transport.close()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._lost.wait(), 2.0)

    async def _end_idle(self, imap: Any) -> None:
        """Send DONE and wait for IDLE's tagged answer: LOGOUT would queue behind it otherwise.

        A shutdown cancels the reader inside IDLE; aioimaplib's IDLE command lives on
        until the server ends it, and every later command waits for it.
        """
        if self._lost.is_set() or not imap.has_pending_idle():
            return
        pending = imap.protocol.pending_sync_command
        imap.idle_done()
        await asyncio.wait_for(pending.wait(), min(self.config.timeout, 5))
