#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Intake throughput and reply latency on a real Dovecot (printed, not asserted).

1. Delivers 2,000 order-sized letters into a fresh mailbox over LMTP.
2. Fetches them with the standard library's imaplib (batches of 100): the raw rate.
3. Runs the bot's intake on the same mailbox: fetch, store in SQLite, flag \\Seen,
   timed from the first fetch to the last stored-and-acknowledged batch.
4. Runs the whole bot (IDLE) and measures 50 letters from SMTP submission to the
   reply in the sender's mailbox; prints the median.

Targets (issue 2): at least 1,000 mails/s intake, median reply latency under 1 s.
Run: ``make bench`` or ``.venv/bin/python bench/intake.py [--mails N] [--letters N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import imaplib
import statistics
import sys
import tempfile
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mailbot.app import Bot, imap_config
from mailbot.mail.imap import ImapSource
from mailbot.settings import BotSettings, ImapSettings, Settings, SmtpSettings, StoreSettings
from mailbot.testing.mailrig import AsyncLMTP, MailRig

ORDERS = "\n".join(
    ["ORDERS T7", "TF1 V-F22 V-F23 V-F24", "AF3 ready 12 SBD armed bombs", "AF4 search V-F20 V-G21 high"] * 4
)


def letter(sender: str, to: str, n: int) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, f"ORDERS turn 7 ({n})"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg.set_content(ORDERS + f"\nEND\n-- \nplayer {n}\n")
    return msg.as_bytes()


async def fill(rig: MailRig, mailbox: str, count: int) -> None:
    async def worker(first: int) -> None:
        client = await AsyncLMTP.connect(rig.host, rig.lmtp_port)
        try:
            for n in range(first, count, 4):
                raw = letter("p@players.test", mailbox, n)
                await client.send_message("p@players.test", [mailbox], raw)
        finally:
            await client.close()

    await asyncio.gather(*(worker(i) for i in range(4)))


def stdlib_fetch(rig: MailRig, mailbox: str) -> tuple[int, float]:
    imap = imaplib.IMAP4(rig.host, rig.imap_port)
    imap.login(mailbox, rig.player_password)
    imap.select("INBOX", readonly=True)
    started = time.perf_counter()
    uids = imap.uid("SEARCH", "ALL")[1][0].split()
    got = 0
    for i in range(0, len(uids), 100):
        data = imap.uid("FETCH", b",".join(uids[i : i + 100]).decode(), "(UID INTERNALDATE BODY.PEEK[])")[1]
        got += sum(1 for item in data if isinstance(item, tuple))
    elapsed = time.perf_counter() - started
    imap.logout()
    return got, elapsed


def settings(rig: MailRig, address: str, workdir: Path) -> Settings:
    pw = SecretStr(rig.player_password)
    return Settings(
        imap=ImapSettings(
            host=rig.host, port=rig.imaps_port, cafile=rig.cafile, user=address, password=pw, poll_interval=30
        ),
        smtp=SmtpSettings(host=rig.host, port=rig.smtp_port, cafile=rig.cafile, user=address, password=pw),
        store=StoreSettings(url=f"sqlite:///{workdir}/bench.db"),
        bot=BotSettings(address=address, name="mailbot bench"),
    )


async def bot_intake(bot: Bot) -> tuple[int, float]:
    bot.upgrade()
    source = ImapSource(imap_config(bot.settings))
    uidvalidity = await source.connect()
    try:
        started = time.perf_counter()
        result = await bot.intake.poll(source, uidvalidity)
        return result.stored, time.perf_counter() - started
    finally:
        await source.close()


async def latency(rig: MailRig, bot: Bot, letters: int) -> list[float]:
    player = rig.new_address()
    stop = asyncio.Event()
    running = asyncio.create_task(bot.run(stop))
    await asyncio.sleep(1.0)  # connected and idling
    imap = await rig.imap_login(player, rig.player_password)
    await asyncio.wait_for(imap.select("INBOX"), 10)
    times = []
    try:
        for n in range(letters):
            started = time.perf_counter()
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = player, bot.settings.bot.address, "PING"
            msg["Message-ID"] = make_msgid(domain="players.test")
            msg.set_content("PING\n")
            await rig.send(msg)
            while True:
                found = await asyncio.wait_for(imap.uid_search("ALL", charset=None), 10)
                if len(found.lines[0].split()) > n:
                    break
                await asyncio.sleep(0.01)
            times.append(time.perf_counter() - started)
    finally:
        await rig.imap_logout(imap)
        stop.set()
        await running
    return times


async def main(mails: int, letters: int) -> None:
    with MailRig() as rig, tempfile.TemporaryDirectory() as tmp:
        mailbox = rig.new_address()
        t0 = time.perf_counter()
        await fill(rig, mailbox, mails)
        print(f"delivered {mails} letters over LMTP in {time.perf_counter() - t0:.2f} s")
        raw_n, raw_s = stdlib_fetch(rig, mailbox)
        bot = Bot(settings(rig, mailbox, Path(tmp)))
        bot_n, bot_s = await bot_intake(bot)
        raw_rate, bot_rate = raw_n / raw_s, bot_n / bot_s
        print(f"stdlib imaplib fetch:      {raw_n} mails in {raw_s:.3f} s = {raw_rate:,.0f} mails/s")
        print(f"bot intake (fetch+store+ack): {bot_n} mails in {bot_s:.3f} s = {bot_rate:,.0f} mails/s")
        print(f"ratio bot/stdlib: {bot_rate / raw_rate:.2f}  (target: bot >= 1,000 mails/s)")
        bot.engine.dispose()
        reply_bot = Bot(settings(rig, rig.new_address(), Path(tmp) / "latency"))
        times = await latency(rig, reply_bot, letters)
        reply_bot.engine.dispose()
        median, p90 = statistics.median(times), sorted(times)[int(len(times) * 0.9) - 1]
        print(
            f"reply latency over {len(times)} letters with IDLE: median {median * 1000:.0f} ms, "
            f"p90 {p90 * 1000:.0f} ms, max {max(times) * 1000:.0f} ms (target: median < 1 s)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mails", type=int, default=2000)
    parser.add_argument("--letters", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(main(args.mails, args.letters))
