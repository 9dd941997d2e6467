# SPDX-License-Identifier: GPL-3.0-or-later
"""The mail loop end to end: a real bot process, real Dovecot (IMAPS, IDLE), real SMTP (STARTTLS)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot.store.models import InboundState, OutboundState
from mailbot.testing.mailrig import AsyncLMTP, MailRig
from tests.e2e.botproc import BotProcess, parse, ping, text_of, wait_until


@pytest.fixture
def bot(mail_rig: MailRig, tmp_path: Path) -> Iterator[BotProcess]:
    proc = BotProcess(mail_rig, tmp_path)
    yield proc
    proc.stop()


async def _inbox(rig: MailRig, address: str) -> list[bytes]:
    return await rig.fetch_all(address, rig.player_password)


async def _seen_flags(rig: MailRig, address: str) -> list[bool]:
    imap = await rig.imap_login(address, rig.player_password, tls=True)
    try:
        await asyncio.wait_for(imap.select("INBOX"), 10)
        response = await asyncio.wait_for(imap.fetch("1:*", "(FLAGS)"), 10)
    finally:
        await rig.imap_logout(imap)
    return [b"\\Seen" in line for line in response.lines if b"FETCH" in line]


async def test_ping_round_trip_over_idle(mail_rig: MailRig, bot: BotProcess, player_address: str) -> None:
    # poll_interval is 30 s in these tests: a reply within seconds proves IDLE woke the bot.
    bot.start()
    await asyncio.sleep(1.0)  # let it connect and enter IDLE
    original = ping(player_address, bot.address, body="PING\nsome stray words\n")
    started = time.monotonic()
    await mail_rig.send(original)

    (reply,) = await mail_rig.wait_for_mail(player_address, mail_rig.player_password, count=1, timeout=10)
    elapsed = time.monotonic() - started

    msg = parse(reply)
    # Well under the 30 s poll: IDLE woke it (a loaded CI machine, four test workers on two
    # cores, took 5.7 s once; the poll would take 30).
    assert elapsed < 10
    assert msg["In-Reply-To"] == original["Message-ID"]
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["From"].addresses[0].addr_spec == bot.address
    text = text_of(reply)
    assert f"From: {player_address}" in text
    assert 'Line 2: "some stray words"' in text
    inbound, outbound = bot.rows()
    assert [row.state for row in inbound] == [InboundState.PROCESSED]
    assert [row.state for row in outbound] == [OutboundState.SENT]
    assert inbound[0].uid == 1 and inbound[0].uidvalidity
    assert await _seen_flags(mail_rig, bot.address) == [True]


@pytest.mark.slow
@pytest.mark.parametrize("point", ["after-fetch", "after-commit", "after-smtp"])
async def test_a_kill_at_any_point_loses_nothing_and_repeats_nothing(
    mail_rig: MailRig, bot: BotProcess, player_address: str, point: str
) -> None:
    await mail_rig.send(ping(player_address, bot.address))
    bot.start(crash_at=point)
    assert bot.wait_exit() == -9  # SIGKILL: no cleanup ran

    inbound, outbound = bot.rows()
    if point == "after-fetch":
        assert inbound == []
    if point == "after-smtp":
        assert [row.state for row in outbound] == [OutboundState.SENDING]

    bot.start()
    replies = await mail_rig.wait_for_mail(player_address, mail_rig.player_password, count=1, timeout=15)
    await wait_until(lambda: bot.rows()[1] and bot.rows()[1][0].state is OutboundState.SENT, what="sent mark")
    await asyncio.sleep(1.0)  # time for any wrong second reply to arrive
    replies = await _inbox(mail_rig, player_address)
    inbound, outbound = bot.rows()

    assert len(inbound) == 1 and inbound[0].state is InboundState.PROCESSED
    assert len(outbound) == 1 and outbound[0].state is OutboundState.SENT
    if point == "after-smtp":
        # The documented window: accepted by SMTP but not marked sent -> sent once more, same Message-ID.
        assert len(replies) == 2
        assert parse(replies[0])["Message-ID"] == parse(replies[1])["Message-ID"]
    else:
        assert len(replies) == 1
    assert await _seen_flags(mail_rig, bot.address) == [True]


async def _deliver_by_lmtp(rig: MailRig, sender: str, recipient: str, raw: bytes) -> None:
    client = await AsyncLMTP.connect(rig.host, rig.lmtp_port)
    try:
        replies = await client.send_message(sender, [recipient], raw)
    finally:
        await client.close()
    assert all(reply.ok for reply in replies.values())


async def test_smtp_outage_keeps_replies_in_the_outbox(
    mail_rig: MailRig, bot: BotProcess, player_address: str
) -> None:
    mail_rig.stop_smtp()
    try:
        bot.start()
        # SMTP is down, so the letter reaches the bot's mailbox over LMTP.
        await _deliver_by_lmtp(
            mail_rig, player_address, bot.address, ping(player_address, bot.address).as_bytes()
        )
        # A transport outage pauses sending: the letter waits, spending none of its attempts.
        await wait_until(
            lambda: any((row.last_error or "").startswith("transport:") for row in bot.rows()[1]),
            what="a transport error noted",
        )
        _, outbound = bot.rows()
        assert [row.state for row in outbound] == [OutboundState.PENDING]
        assert [row.attempts for row in outbound] == [0]
        assert await _inbox(mail_rig, player_address) == []
    finally:
        mail_rig.start_smtp()
    (reply,) = await mail_rig.wait_for_mail(player_address, mail_rig.player_password, count=1, timeout=15)
    assert "PING" in text_of(reply)
    await wait_until(lambda: [r.state for r in bot.rows()[1]] == [OutboundState.SENT], what="sent mark")
