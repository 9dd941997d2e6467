# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo mail server, driven by the same client libraries the bot uses."""

from __future__ import annotations

import asyncio
import email
import email.policy
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from email.message import EmailMessage
from typing import Any

import aioimaplib
import aiosmtplib
import pytest

from mailbot.demo import mailserver
from mailbot.demo.mailserver import EmbeddedMailServer

BOT = "bot@example.test"
ALICE = "alice@example.test"
PASSWORD = "secret-bot"
ALICE_PASSWORD = "secret-alice"
STEP = 5.0  # per-call ceiling: aioimaplib can hang instead of failing (design/mail.md §4.2)


@pytest.fixture
async def server() -> AsyncIterator[EmbeddedMailServer]:
    mailserver = EmbeddedMailServer()
    mailserver.add_account(BOT, PASSWORD)
    mailserver.add_account(ALICE, ALICE_PASSWORD)
    async with mailserver:
        yield mailserver


def letter(sender: str, to: str, subject: str, body: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content(body)
    return msg


async def send(server: EmbeddedMailServer, msg: EmailMessage, **kwargs: Any) -> Any:
    return await aiosmtplib.send(
        msg,
        hostname=server.host,
        port=server.smtp_port,
        start_tls=False,
        local_hostname="player.test",
        timeout=STEP,
        **kwargs,
    )


async def call(awaitable: Any) -> Any:
    return await asyncio.wait_for(awaitable, STEP)


@asynccontextmanager
async def mailbox(server: EmbeddedMailServer, user: str, password: str) -> AsyncIterator[Any]:
    """A logged-in IMAP connection with INBOX selected, logged out afterwards."""
    imap = aioimaplib.IMAP4(host=server.host, port=server.imap_port, timeout=STEP)
    await call(imap.wait_hello_from_server())
    try:
        response = await call(imap.login(user, password))
        assert response.result == "OK", response
        response = await call(imap.select("INBOX"))
        assert response.result == "OK", response
        yield imap
    finally:
        await call(imap.logout())


async def search(imap: Any, criteria: str) -> list[int]:
    response = await call(imap.uid_search(criteria, charset=None))
    assert response.result == "OK", response
    return [int(token) for token in response.lines[0].split()]


async def fetch(imap: Any, uid: int) -> email.message.EmailMessage:
    response = await call(imap.uid("fetch", str(uid), "(UID BODY.PEEK[])"))
    assert response.result == "OK", response
    raw = next(bytes(line) for line in response.lines if isinstance(line, bytearray))
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(parsed, email.message.EmailMessage)
    return parsed


async def test_smtp_delivery_is_readable_over_imap(server: EmbeddedMailServer) -> None:
    errors, reply = await send(server, letter(ALICE, BOT, "move 1", "I play card 7 ♠"))
    assert errors == {}
    assert reply.startswith("2.0.0")

    # No waiting: delivery finished before the 250.
    async with mailbox(server, BOT, PASSWORD) as imap:
        [uid] = await search(imap, "UNSEEN")
        msg = await fetch(imap, uid)
        assert msg["Subject"] == "move 1"
        assert msg.get_content().strip() == "I play card 7 ♠"
        assert msg["Return-Path"] == f"<{ALICE}>"
        assert msg["Delivered-To"] == BOT
        received = " ".join(str(msg["Received"]).split())
        assert re.search(
            rf"from player\.test \(\[127\.0\.0\.1\]\) by mail\.localhost .* for <{BOT}>;", received
        )

        response = await call(imap.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen)"))
        assert response.result == "OK", response
        assert await search(imap, "UNSEEN") == []
        assert await search(imap, "ALL") == [uid]


async def test_unknown_recipient_is_refused_at_rcpt(server: EmbeddedMailServer) -> None:
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
        await send(server, letter(ALICE, "nobody@example.test", "hello?", "anyone"))
    [error] = refused.value.recipients
    assert error.code == 550
    assert error.recipient == "nobody@example.test"


async def test_mixed_recipients_deliver_to_the_known_ones(server: EmbeddedMailServer) -> None:
    msg = letter(ALICE, BOT, "cc", "one copy each")
    errors, _ = await send(server, msg, recipients=[BOT, "nobody@example.test", ALICE])
    assert set(errors) == {"nobody@example.test"}
    assert errors["nobody@example.test"].code == 550

    for user, password in ((BOT, PASSWORD), (ALICE, ALICE_PASSWORD)):
        async with mailbox(server, user, password) as imap:
            [uid] = await search(imap, "ALL")
            assert (await fetch(imap, uid))["Delivered-To"] == user


async def test_recipient_match_ignores_case_and_duplicates(server: EmbeddedMailServer) -> None:
    await send(server, letter(ALICE, BOT, "twice", "x"), recipients=[BOT, BOT.upper()])
    async with mailbox(server, BOT, PASSWORD) as imap:
        assert len(await search(imap, "ALL")) == 1


async def test_idle_pushes_new_mail(server: EmbeddedMailServer) -> None:
    async with mailbox(server, BOT, PASSWORD) as imap:
        assert imap.has_capability("IDLE")
        idle = await call(imap.idle_start(timeout=STEP * 2))
        await send(server, letter(ALICE, BOT, "wake up", "your turn"))
        pushed: list[bytes] = []
        while not any(line.endswith(b"EXISTS") for line in pushed):
            lines = await call(imap.wait_server_push(timeout=STEP))
            assert lines != aioimaplib.STOP_WAIT_SERVER_PUSH, "IDLE ended without a push"
            pushed.extend(lines)
        imap.idle_done()
        response = await call(idle)
        assert response.result == "OK", response
        assert b"1 EXISTS" in pushed


async def first_idle_push(imap: aioimaplib.IMAP4) -> Any:
    """What the server pushes first in IDLE (failing when it pushes nothing), IDLE then ended."""
    idle = await call(imap.idle_start(timeout=STEP * 2))
    lines = await call(imap.wait_server_push(timeout=STEP))
    assert lines != aioimaplib.STOP_WAIT_SERVER_PUSH, "IDLE announced nothing"
    imap.idle_done()
    await call(idle)
    return lines


async def test_idle_announces_mail_that_came_before_it(server: EmbeddedMailServer) -> None:
    """Mail delivered after the client's last command and before IDLE is announced as IDLE starts
    (as Dovecot does); pymap alone would wait for the next change, and the bot with it."""
    async with mailbox(server, BOT, PASSWORD) as imap:
        assert await search(imap, "UID 1:*") == []
        await send(server, letter(ALICE, BOT, "in between", "sent before IDLE"))
        assert b"1 EXISTS" in await first_idle_push(imap)


async def test_idle_announces_mail_that_came_between_its_look_and_its_wait(
    server: EmbeddedMailServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mail delivered just after IDLE looked for changes and before it began to wait: pymap's
    wait hears only of later changes, so the demo bot once slept until its IDLE timeout."""
    looked = mailserver._TrackedImapConnection._announce_pending

    async def look_then_deliver(self: Any, state: Any, cmd: Any) -> None:
        await looked(self, state, cmd)
        await send(server, letter(ALICE, BOT, "between look and wait", "x"))

    monkeypatch.setattr(mailserver._TrackedImapConnection, "_announce_pending", look_then_deliver)
    async with mailbox(server, BOT, PASSWORD) as imap:
        assert await search(imap, "UID 1:*") == []
        assert b"1 EXISTS" in await first_idle_push(imap)


async def test_accounts_are_isolated(server: EmbeddedMailServer) -> None:
    await send(server, letter(BOT, ALICE, "for alice only", "secret"))

    async with mailbox(server, BOT, PASSWORD) as imap:
        assert await search(imap, "ALL") == []
    async with mailbox(server, ALICE, ALICE_PASSWORD) as imap:
        [uid] = await search(imap, "ALL")
        assert (await fetch(imap, uid))["Subject"] == "for alice only"

    imap = aioimaplib.IMAP4(host=server.host, port=server.imap_port, timeout=STEP)
    await call(imap.wait_hello_from_server())
    response = await call(imap.login(ALICE, PASSWORD))
    assert response.result == "NO"
    await call(imap.logout())


async def test_account_added_while_running(server: EmbeddedMailServer) -> None:
    newcomer = "carol@example.test"
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
        await send(server, letter(ALICE, newcomer, "too early", "x"))
    server.add_account(newcomer, "pw-carol")
    await send(server, letter(ALICE, newcomer, "welcome", "x"))
    async with mailbox(server, newcomer, "pw-carol") as imap:
        [uid] = await search(imap, "ALL")
        assert (await fetch(imap, uid))["Subject"] == "welcome"


def test_add_account_rejects_names_imap_cannot_send() -> None:
    with pytest.raises(ValueError, match="unusable"):
        EmbeddedMailServer().add_account("two words@example.test", "pw")


async def _connect_refused(host: str, port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection(host, port)
    except ConnectionRefusedError:
        return True
    writer.close()
    await writer.wait_closed()
    return False


async def _idling_imap_connection(
    server: EmbeddedMailServer,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw IMAP connection left in IDLE: the hardest one for stop() to wind down."""
    reader, writer = await asyncio.open_connection(server.host, server.imap_port)
    assert (await call(reader.readline())).startswith(b"* OK ")
    writer.write(f"a LOGIN {BOT} {PASSWORD}\r\nb SELECT INBOX\r\nc IDLE\r\n".encode())
    while not (line := await call(reader.readline())).startswith(b"+ "):
        assert not line.startswith((b"a NO", b"a BAD", b"b NO", b"b BAD", b"c BAD")), line
    return reader, writer


async def test_stop_closes_listeners_and_open_connections() -> None:
    mailserver = EmbeddedMailServer()
    mailserver.add_account(BOT, PASSWORD)
    await mailserver.start()
    host, smtp_port, imap_port = mailserver.host, mailserver.smtp_port, mailserver.imap_port
    assert smtp_port > 0
    assert imap_port > 0
    assert smtp_port != imap_port
    smtp_reader, smtp_writer = await asyncio.open_connection(host, smtp_port)
    assert (await call(smtp_reader.readline())).startswith(b"220 ")
    smtp_writer.write(b"EHLO player.test\r\n")
    while not (await call(smtp_reader.readline())).startswith(b"250 "):
        pass  # multi-line EHLO answer; the session now waits for MAIL FROM
    imap_reader, imap_writer = await _idling_imap_connection(mailserver)

    await mailserver.stop()

    # Checked at once: nothing of the server may finish "later", not even pymap's IDLE helper.
    assert [task for task in asyncio.all_tasks() if task is not asyncio.current_task()] == []
    assert await call(smtp_reader.read()) == b""
    assert b"* BYE " in await call(imap_reader.read())
    for writer in (smtp_writer, imap_writer):
        writer.close()
        await writer.wait_closed()
    assert await _connect_refused(host, smtp_port)
    assert await _connect_refused(host, imap_port)
    await mailserver.stop()  # idempotent


async def test_restart_keeps_mailboxes() -> None:
    mailserver = EmbeddedMailServer()
    mailserver.add_account(BOT, PASSWORD)
    async with mailserver:
        await send(mailserver, letter(ALICE, BOT, "before restart", "x"))
        with pytest.raises(RuntimeError, match="already running"):
            await mailserver.start()
    async with mailserver, mailbox(mailserver, BOT, PASSWORD) as imap:
        assert len(await search(imap, "ALL")) == 1
