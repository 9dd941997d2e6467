# SPDX-License-Identifier: GPL-3.0-or-later
"""The bot's IMAP source against real servers: batches, \\Seen or a processed folder, reconnects."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailbot.app import Bot
from mailbot.demo.mailserver import EmbeddedMailServer
from mailbot.demo.run import BOT, PASSWORD, Player, demo_settings
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.testing.mailrig import AsyncLMTP, MailRig, free_ports


async def _fill(rig: MailRig, address: str, count: int) -> list[bytes]:
    client = await AsyncLMTP.connect(rig.host, rig.lmtp_port)
    sent = []
    try:
        for n in range(count):
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = "p@players.test", address, f"ORDERS {n}"
            msg["Message-ID"] = f"<fill-{n}-{address}>"
            msg.set_content(f"ORDERS\nTF{n} V-F22\nEND\n")
            raw = msg.as_bytes()
            await client.send_message("p@players.test", [address], raw)
            sent.append(raw)
    finally:
        await client.close()
    return sent


def _config(rig: MailRig, address: str, folder: str | None = None) -> ImapConfig:
    return ImapConfig(
        host=rig.host,
        port=rig.imaps_port,
        user=address,
        password=rig.player_password,
        tls=True,
        cafile=str(rig.cafile),
        processed_folder=folder,
        timeout=10,
    )


async def test_batches_of_at_most_100_then_seen(mail_rig: MailRig, player_address: str) -> None:
    await _fill(mail_rig, player_address, 130)
    source = ImapSource(_config(mail_rig, player_address))
    await source.connect()
    try:
        uids = await source.search_after(0)
        assert len(uids) == 130
        fetched = [m for i in range(0, 130, 100) for m in await source.fetch(uids[i : i + 100])]
        assert [m.uid for m in fetched] == uids
        assert all(b"ORDERS" in m.raw for m in fetched)
        await source.acknowledge(uids)
        assert await source.search_after(130) == []
    finally:
        await source.close()
    imap = await mail_rig.imap_login(player_address, mail_rig.player_password, tls=True)
    try:
        await asyncio.wait_for(imap.select("INBOX"), 10)
        unseen = await asyncio.wait_for(imap.uid_search("UNSEEN", charset=None), 10)
    finally:
        await mail_rig.imap_logout(imap)
    assert unseen.lines[0].split() == []


async def test_processed_folder_receives_handled_mail(mail_rig: MailRig, player_address: str) -> None:
    sent = await _fill(mail_rig, player_address, 3)
    source = ImapSource(_config(mail_rig, player_address, folder="Processed"))
    await source.connect()
    try:
        await source.ensure_folder()
        await source.ensure_folder()  # a second CREATE answers NO and is fine
        await source.acknowledge(await source.search_after(0))
    finally:
        await source.close()
    assert await mail_rig.fetch_all(player_address, mail_rig.player_password) == []
    moved = await mail_rig.fetch_all(player_address, mail_rig.player_password, mailbox="Processed")
    assert len(moved) == len(sent)


@pytest.mark.slow
async def test_the_bot_reconnects_after_the_server_drops_it(tmp_path: Path) -> None:
    smtp_port, imap_port = free_ports(2)
    server = EmbeddedMailServer(smtp_port=smtp_port, imap_port=imap_port)
    await server.start()
    for address in (BOT, "dora@demo.localhost"):
        server.add_account(address, PASSWORD)
    bot = Bot(demo_settings(server, tmp_path))
    stop = asyncio.Event()
    running = asyncio.create_task(bot.run(stop))
    dora = Player("dora@demo.localhost", server)
    try:
        await dora.send("PING", "PING\n")
        await dora.wait_for(1, timeout=10)
        await server.stop()  # every connection dropped, the bot's IDLE included
        await asyncio.sleep(0.5)
        await server.start()
        await dora.send("PING", "PING again\n")
        await dora.wait_for(2, timeout=15)
    finally:
        await dora.close()
        stop.set()
        await running
        await server.stop()
        bot.engine.dispose()
    assert bot.reader.imap_failures, "the drop was not noticed"


async def test_mail_announced_during_a_search_ends_the_next_wait(
    mail_rig: MailRig, player_address: str
) -> None:
    """A server announces new mail once; aioimaplib drops an EXISTS that comes with a SEARCH answer.

    The letter below arrives after the bot's search for new mail and is announced in the answer
    to the next command, another search. IDLE would not announce it again, so without noting
    that EXISTS the letter would wait for the IDLE timeout (20 s here, 300 s in production).
    """
    source = ImapSource(_config(mail_rig, player_address))
    await source.connect()
    try:
        assert await source.search_after(0) == []
        await _fill(mail_rig, player_address, 1)
        # Dovecot runs the search on its view of the mailbox before it looks for new mail, so
        # this answer does not hold the letter but does carry "* 1 EXISTS".
        assert await source.search_upto(5) == []
        await asyncio.wait_for(source.wait_for_news(idle=True, idle_timeout=20, poll_interval=1), 5)
        assert await source.search_after(0) == [1]
        # Once searched, nothing is pending: the next wait is a real IDLE that times out.
        waited = asyncio.get_running_loop().time()
        await source.wait_for_news(idle=True, idle_timeout=1, poll_interval=1)
        assert asyncio.get_running_loop().time() - waited >= 0.9
    finally:
        await source.close()
