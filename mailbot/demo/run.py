# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot demo``: the bot and scripted players on an embedded loopback mail server.

Everything a real deployment does happens here too: players send over SMTP,
the bot reads its mailbox over IMAP (IDLE), answers through its outbox over
SMTP, and the players read their replies over IMAP. Only the servers are
embedded (aiosmtpd + pymap), so it runs with no accounts and no root.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import aiosmtplib
from pydantic import SecretStr
from sqlmodel import Session

from mailbot.app import Bot
from mailbot.demo.mailserver import EmbeddedMailServer
from mailbot.errors import MailbotError
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.settings import BotSettings, ImapSettings, Settings, SmtpSettings, StoreSettings
from mailbot.store import repo
from mailbot.store.models import Inbound, Outbound

BOT = "mailbot@demo.localhost"
GM = "gm@demo.localhost"
PASSWORD = "demo"  # throw-away accounts on a loopback server that lives for one run


@dataclass
class Player:
    address: str
    server: EmbeddedMailServer

    async def send(self, subject: str, body: str) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = self.address, BOT, subject
        msg["Message-ID"] = make_msgid(domain="demo.localhost")
        msg.set_content(body)
        await aiosmtplib.send(
            msg,
            hostname=self.server.host,
            port=self.server.smtp_port,
            start_tls=False,
            local_hostname="player.localhost",
        )

    async def inbox(self) -> list[bytes]:
        source = ImapSource(self._imap())
        try:
            await source.connect()
            uids = await source.search_after(0)
            return [m.raw for part in _chunks(uids) for m in await source.fetch(part)]
        finally:
            await source.close()

    async def wait_for(self, count: int, timeout: float = 30.0) -> list[bytes]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            mails = await self.inbox()
            if len(mails) >= count:
                return mails
            if loop.time() > deadline:
                raise MailbotError(f"{self.address} got {len(mails)} of {count} expected replies")
            await asyncio.sleep(0.1)

    def _imap(self) -> ImapConfig:
        return ImapConfig(
            host=self.server.host, port=self.server.imap_port, user=self.address, password=PASSWORD, tls=False
        )


def _chunks(uids: list[int]) -> list[list[int]]:
    return [uids[i : i + 100] for i in range(0, len(uids), 100)]


def demo_settings(server: EmbeddedMailServer, workdir: Path) -> Settings:
    return Settings(
        imap=ImapSettings(
            host=server.host,
            port=server.imap_port,
            security="none",
            user=BOT,
            password=SecretStr(PASSWORD),
            poll_interval=0.2,
            reconnect_min=0.1,
        ),
        smtp=SmtpSettings(host=server.host, port=server.smtp_port, security="none", retry_base=0.5),
        store=StoreSettings(url=f"sqlite:///{workdir}/demo.db"),
        bot=BotSettings(address=BOT, name="mailbot demo", gm_address=GM),
    )


async def _script(players: list[Player]) -> None:
    """Until the game issues land: each player asks for help, then pings with a stray line."""
    alice, bob = players
    await alice.send("HELP", "")
    await bob.send("Re: hello", "PING\nattack at dawn\n")
    await alice.wait_for(1)
    await bob.wait_for(1)
    await alice.send("ping", "Hello moderator,\nPING\n\n-- \nAlice\n")
    await alice.wait_for(2)


def _counts(bot: Bot) -> tuple[int, int]:
    with Session(bot.engine) as session:
        inbound = sum(repo.count_by_state(session, Inbound).values())
        outbound = repo.count_by_state(session, Outbound).get("sent", 0)
    return inbound, outbound


async def run_demo(game: str = "duel", archive: Path | None = None, workdir: Path | None = None) -> str:
    """Play the demo; returns the one-line summary."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="mailbot-demo-"))
    async with EmbeddedMailServer() as server:
        for address in (BOT, GM, "alice@demo.localhost", "bob@demo.localhost"):
            server.add_account(address, PASSWORD)
        bot = Bot(demo_settings(server, workdir))
        stop = asyncio.Event()
        running = asyncio.create_task(bot.run(stop))
        try:
            await _script([Player("alice@demo.localhost", server), Player("bob@demo.localhost", server)])
        finally:
            stop.set()
            await running
    mails_in, replies_out = _counts(bot)
    bot.engine.dispose()
    return f"demo: {mails_in} mails in, {replies_out} replies out, 0 turns, game - none"
