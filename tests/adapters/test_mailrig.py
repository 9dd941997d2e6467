# SPDX-License-Identifier: GPL-3.0-or-later
"""The real-server mail rig: Dovecot + the aiosmtpd front end delivering over LMTP."""

from __future__ import annotations

import asyncio
import email
import email.policy
import socket
import ssl
import time
from email.message import EmailMessage

import aioimaplib
import aiosmtplib
import pytest

from mailbot.testing.mailrig import AsyncLMTP, MailRig, RigError

STEP = 10.0  # ceiling for each single client call: aioimaplib can hang instead of failing (mail.md §4.2)


def letter(to: str, subject: str, body: str = "hello", sender: str = "gm@example.test") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content(body)
    return msg


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


async def test_smtp_send_is_in_inbox_when_send_returns(mail_rig: MailRig, player_address: str) -> None:
    await mail_rig.send(letter(player_address, "move 1", ".dot-stuffed line\nI play card ♠\n"))

    # No polling: the front end answers 250 only after the LMTP delivery.
    messages = await mail_rig.fetch_all(player_address, mail_rig.player_password)

    assert len(messages) == 1
    msg = parse(messages[0])
    assert msg["Subject"] == "move 1"
    assert msg["Delivered-To"] == player_address
    assert msg.get_content().splitlines() == [".dot-stuffed line", "I play card ♠"]


async def test_unknown_recipient_is_refused_at_rcpt(mail_rig: MailRig) -> None:
    smtp = aiosmtplib.SMTP(
        hostname=mail_rig.host, port=mail_rig.smtp_port, local_hostname="client.example.test", start_tls=False
    )
    async with smtp:
        await smtp.mail("gm@example.test")
        with pytest.raises(aiosmtplib.SMTPRecipientRefused) as refused:
            await smtp.rcpt("nobody@example.test")
        assert refused.value.code == 550
        assert "5.1.1" in refused.value.message
        # The same transaction still accepts an existing recipient.
        code, _ = await smtp.rcpt(mail_rig.bot_address)
        assert code == 250


async def test_imaps_login_with_the_rig_cafile(mail_rig: MailRig, player_address: str) -> None:
    imap = await mail_rig.imap_login(player_address, mail_rig.player_password, tls=True)
    try:
        assert imap.get_state() == "AUTH"
        response = await asyncio.wait_for(imap.select("INBOX"), STEP)
        assert response.result == "OK"
    finally:
        await mail_rig.imap_logout(imap)


def test_imaps_certificate_is_verified_with_the_rig_cafile(mail_rig: MailRig) -> None:
    # Synchronous sockets on purpose: after a failed handshake, asyncio (3.11) can leave the raw
    # transport unclosed, and its ResourceWarning would fail a later test under -W error.
    address = (mail_rig.host, mail_rig.imaps_port)
    with (
        socket.create_connection(address, timeout=STEP) as raw,
        pytest.raises(ssl.SSLCertVerificationError),
    ):
        ssl.create_default_context().wrap_socket(raw, server_hostname="localhost")
    for name in ("localhost", "127.0.0.1"):  # both are in the certificate's subjectAltName
        with (
            socket.create_connection(address, timeout=STEP) as raw,
            mail_rig.ssl_context().wrap_socket(raw, server_hostname=name) as tls,
        ):
            assert tls.recv(200).startswith(b"* OK")


async def test_idle_push_arrives_after_delivery(mail_rig: MailRig, player_address: str) -> None:
    imap = await mail_rig.imap_login(player_address, mail_rig.player_password)
    try:
        assert (await asyncio.wait_for(imap.select("INBOX"), STEP)).result == "OK"
        idle = await asyncio.wait_for(imap.idle_start(timeout=STEP), STEP)
        sent = time.monotonic()
        await mail_rig.send(letter(player_address, "wake up"))
        pushes: list[bytes] = []
        while not any(line.endswith(b" EXISTS") for line in pushes):
            push = await asyncio.wait_for(imap.wait_server_push(), STEP)
            assert push != aioimaplib.STOP_WAIT_SERVER_PUSH, f"no EXISTS push; saw {pushes}"
            pushes += push  # keep-alives like b"OK Still here" are ignored
        latency = time.monotonic() - sent
        imap.idle_done()
        assert (await asyncio.wait_for(idle, STEP)).result == "OK"
    finally:
        await mail_rig.imap_logout(imap)
    assert b"1 EXISTS" in pushes
    assert latency < 5.0  # Dovecot batches notifications for ~0.5 s


async def test_smtp_outage_then_restart_on_the_same_port(mail_rig: MailRig, player_address: str) -> None:
    port = mail_rig.smtp_port
    mail_rig.stop_smtp()
    try:
        with pytest.raises(aiosmtplib.SMTPConnectError) as failed:
            await mail_rig.send(letter(player_address, "lost"))
        assert isinstance(failed.value, ConnectionError)
    finally:
        mail_rig.start_smtp()

    assert mail_rig.smtp_port == port
    await mail_rig.send(letter(player_address, "after restart"))
    messages = await mail_rig.fetch_all(player_address, mail_rig.player_password)
    assert [parse(m)["Subject"] for m in messages] == ["after restart"]


async def test_bot_account_logs_in_with_its_own_password(mail_rig: MailRig) -> None:
    imap = await mail_rig.imap_login(mail_rig.bot_address, mail_rig.bot_password)
    await mail_rig.imap_logout(imap)
    # Fixed accounts keep their passwd-file password; the open-domain password does not apply.
    with pytest.raises(RigError, match="LOGIN failed"):
        await mail_rig.imap_login(mail_rig.bot_address, mail_rig.player_password)


async def test_smtp_auth_is_checked_by_dovecot(mail_rig: MailRig, player_address: str) -> None:
    await mail_rig.send(
        letter(player_address, "authenticated", sender=mail_rig.bot_address),
        starttls=True,
        username=mail_rig.bot_address,
        password=mail_rig.bot_password,
    )
    messages = await mail_rig.wait_for_mail(player_address, mail_rig.player_password, count=1)
    assert [parse(m)["Subject"] for m in messages] == ["authenticated"]

    smtp = aiosmtplib.SMTP(
        hostname=mail_rig.host, port=mail_rig.smtp_port, local_hostname="client.example.test", start_tls=False
    )
    async with smtp:
        await smtp.ehlo()
        # One mechanism explicitly: aiosmtplib's login() would try PLAIN and LOGIN, ~0.5 s per failure.
        with pytest.raises(aiosmtplib.SMTPAuthenticationError) as refused:
            await smtp.auth_plain(mail_rig.bot_address, "wrong")
        assert refused.value.code == 535
        code, _ = await smtp.auth_login(mail_rig.bot_address, mail_rig.bot_password)
        assert code == 235


async def test_lmtp_client_reads_one_reply_per_recipient(mail_rig: MailRig) -> None:
    first, second = mail_rig.new_address(), mail_rig.new_address()
    lmtp = await AsyncLMTP.connect(mail_rig.host, mail_rig.lmtp_port)
    try:
        raw = letter(first, "both").as_bytes()
        replies = await lmtp.send_message("gm@example.test", [first, "ghost@example.test", second], raw)
        assert replies[first].code == 250
        assert replies[second].code == 250
        assert replies["ghost@example.test"].code == 550
        # The connection is still in step for a second transaction (smtplib.LMTP would not be).
        replies = await lmtp.send_message("gm@example.test", [second], letter(second, "again").as_bytes())
        assert replies[second].code == 250
    finally:
        await lmtp.quit()
    assert len(await mail_rig.fetch_all(first, "pw")) == 1
    assert len(await mail_rig.fetch_all(second, "pw")) == 2


async def test_fetch_all_batches_large_mailboxes(mail_rig: MailRig, player_address: str) -> None:
    count = 130  # more than one FETCH batch
    lmtp = await AsyncLMTP.connect(mail_rig.host, mail_rig.lmtp_port)
    try:
        for i in range(count):
            replies = await lmtp.send_message(
                "gm@example.test", [player_address], letter(player_address, f"n{i}").as_bytes()
            )
            assert replies[player_address].ok
    finally:
        await lmtp.quit()
    messages = await mail_rig.wait_for_mail(player_address, "pw", count=count)
    assert [parse(m)["Subject"] for m in messages] == [f"n{i}" for i in range(count)]


async def test_wait_for_mail_times_out(mail_rig: MailRig, player_address: str) -> None:
    with pytest.raises(TimeoutError):
        await mail_rig.wait_for_mail(player_address, "pw", count=1, timeout=0.2)
