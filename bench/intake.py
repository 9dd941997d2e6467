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

``--end-to-end`` (issue 12) measures the whole letter path instead:

1. Sets up duel games in a fresh SQLite store, both seats taken by players of the rig's
   open domain (``--games``, ``--players``), and delivers ``--mails`` ORDERS letters from
   the seated players into the bot's mailbox over LMTP (set-up is not timed).
2. From the first fetch to every confirmation queued in the outbox: the bot's intake
   (IMAPS fetch, store, flag) and its letter handling (parse, identify, store the orders,
   log them in the game's chain, render and queue the confirmation) running side by side
   as in ``mailbot run``: the letters in its letter process (``bot.handling_process``,
   started before the clock starts, as the service starts it before any letter comes).
   Before it, in the same run, the raw reference of that path: a letter loop of the standard
   library alone on the same letters (:func:`stdlib_letters`: imaplib fetch, email parse, the
   order lines echoed in an EmailMessage reply, letters and replies stored by sqlite3 in
   transactions of 50, one process). It has no game, no players and no chain: it is no bound
   the moderator could reach, but a yardstick of the machine's speed in this run, so that a
   figure taken on a slower day can be told from slower code.
3. Then the outbox sends every confirmation to the rig's SMTP front end (STARTTLS and
   login, ``smtp.connections`` links); next to it, in the same run, plain aiosmtplib sends
   the same messages (same envelopes, same bytes) over the same number of connections, once
   before the bot and once after it (the ratio is to their mean: the mail servers slow down
   as the mailboxes fill). The players' mailboxes are made before anything is timed.

Targets (issue 12): at least 1,000 letters/s end to end, sending at most 1.25x raw SMTP.
Last lines: ``end-to-end: <n> letters/s``, ``end-to-end: ratio to the standard library's
letter loop <r>`` and ``sending: ratio to raw SMTP <r>``.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import email.policy
import imaplib
import itertools
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from pydantic import SecretStr
from sqlalchemy import update
from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpu import CpuWindow  # a sibling bench script
from raw_smtp import raw_sending  # a sibling bench script

from mailbot.app import Bot, utcnow
from mailbot.connect import imap_config
from mailbot.mail.imap import ImapSource
from mailbot.services.base import queries
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, ImapSettings, Settings, SmtpSettings, StoreSettings
from mailbot.store.game_tables import Seat
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from mailbot.testing.mailrig import AsyncLMTP, MailRig

GM = "gm@bench.test"

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
    imap = _stdlib_imap(rig, mailbox)
    started = time.perf_counter()
    got = sum(len(batch) for batch in _stdlib_batches(imap, 100))
    elapsed = time.perf_counter() - started
    imap.logout()
    return got, elapsed


def _stdlib_imap(rig: MailRig, mailbox: str) -> imaplib.IMAP4:
    imap = imaplib.IMAP4(rig.host, rig.imap_port)
    imap.login(mailbox, rig.player_password)
    imap.select("INBOX", readonly=True)
    return imap


def _stdlib_batches(imap: imaplib.IMAP4, size: int) -> Iterator[list[bytes]]:
    """Every letter of the selected mailbox, ``size`` a FETCH, each as its bytes (not marked seen)."""
    uids = imap.uid("SEARCH", "ALL")[1][0].split()
    for i in range(0, len(uids), size):
        data = imap.uid("FETCH", b",".join(uids[i : i + size]).decode(), "(UID INTERNALDATE BODY.PEEK[])")[1]
        yield [item[1] for item in data if isinstance(item, tuple)]


def stdlib_letters(rig: MailRig, mailbox: str, workdir: Path) -> tuple[int, float]:
    """The raw reference of the end-to-end path: the mailbox's letters fetched (read-only, as
    :func:`stdlib_fetch`), each parsed, its order lines echoed in a reply, the letter and the
    reply stored with sqlite3 (WAL, synchronous NORMAL: as the moderator's store), 50 letters
    a transaction."""
    store = sqlite3.connect(workdir / "stdlib-letters.db", isolation_level=None)
    store.execute("PRAGMA journal_mode = WAL")
    store.execute("PRAGMA synchronous = NORMAL")  # as the moderator's store (``store.db``)
    store.execute("CREATE TABLE letter (id INTEGER PRIMARY KEY, sender TEXT, subject TEXT, raw BLOB)")
    store.execute("CREATE TABLE reply (id INTEGER PRIMARY KEY, letter_id INTEGER, raw BLOB)")
    imap = _stdlib_imap(rig, mailbox)
    started = time.perf_counter()
    done = 0
    for batch in _stdlib_batches(imap, 50):
        store.execute("BEGIN IMMEDIATE")
        for raw in batch:
            _stdlib_letter(store, raw)
        store.execute("COMMIT")
        done += len(batch)
    elapsed = time.perf_counter() - started
    imap.logout()
    store.close()
    return done, elapsed


def _stdlib_letter(store: sqlite3.Connection, raw: bytes) -> None:
    letter = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(letter, EmailMessage)
    body = letter.get_body(("plain",))
    text = body.get_content() if body is not None else ""
    lines = text.split("\n-- \n")[0].splitlines()
    orders = lines[lines.index("ORDERS") + 1 : lines.index("END")] if "END" in lines else []
    reply = EmailMessage()
    reply["From"], reply["To"] = letter["To"], letter["From"]
    reply["Subject"] = f"Re: {letter['Subject']}"
    reply["Message-ID"], reply["In-Reply-To"] = make_msgid(domain="bench.test"), letter["Message-ID"]
    reply.set_content("Orders accepted:\n" + "".join(f"  {line}\n" for line in orders))
    cursor = store.execute(
        "INSERT INTO letter (sender, subject, raw) VALUES (?, ?, ?)", (letter["From"], letter["Subject"], raw)
    )
    store.execute("INSERT INTO reply (letter_id, raw) VALUES (?, ?)", (cursor.lastrowid, reply.as_bytes()))


def settings(rig: MailRig, address: str, workdir: Path) -> Settings:
    pw = SecretStr(rig.player_password)
    return Settings(
        imap=ImapSettings(
            host=rig.host, port=rig.imaps_port, cafile=rig.cafile, user=address, password=pw, poll_interval=30
        ),
        smtp=SmtpSettings(host=rig.host, port=rig.smtp_port, cafile=rig.cafile, user=address, password=pw),
        store=StoreSettings(url=f"sqlite:///{workdir}/bench.db"),
        # Letters in the letter process (the default; said so that the figure is always its).
        bot=BotSettings(address=address, name="mailbot bench", handling_process=True),
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


# -- end to end (issue 12) -------------------------------------------------------------------


@dataclass(frozen=True)
class BenchSeat:
    game_id: int
    secret: str
    address: str


def seat_players(bot: Bot, games: int, players: list[str]) -> list[BenchSeat]:
    """Duel games with both seats taken; what set-up queued is marked sent (not measured)."""
    setup = GameSetup(
        plugin="duel", scenario="standard", title="Bench duel", deadline="48h", timezone="UTC", gm_address=GM
    )
    addresses = itertools.cycle(players)
    for _ in range(games):
        with Session(bot.engine) as session, session.begin():
            game = bot.games.create(session, setup)
            for seat in queries.seats(session, int(game.id or 0)):
                bot.games.take_seat(session, game, seat, next(addresses))
    # Sent when set up (as the outbox would mark them): the players write after reading them.
    with Session(bot.engine) as session, session.begin():
        session.execute(update(Outbound).values(state=OutboundState.SENT, sent_at=utcnow()))
    with Session(bot.engine) as session:
        return [
            BenchSeat(seat.game_id, seat.secret, seat.address)
            for seat in session.exec(select(Seat).order_by(col(Seat.id)))
        ]


def orders_letter(seat: BenchSeat, to: str, n: int) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"] = seat.address, to
    msg["Subject"] = f"[DU-{seat.game_id} {seat.secret}] orders ({n})"
    msg["Message-ID"] = make_msgid(domain="players.test")
    attack = 1 + n % 3
    msg.set_content(f"ORDERS\nATTACK {attack}\nDEFEND {3 - attack}\nEND\n-- \nplayer {n}\n")
    return msg.as_bytes()


async def deliver(rig: MailRig, mailbox: str, letters: list[tuple[str, bytes]]) -> None:
    async def worker(first: int) -> None:
        client = await AsyncLMTP.connect(rig.host, rig.lmtp_port)
        try:
            for sender, raw in letters[first::4]:
                await client.send_message(sender, [mailbox], raw)
        finally:
            await client.close()

    await asyncio.gather(*(worker(i) for i in range(4)))


async def to_queued(bot: Bot, expected: int) -> tuple[float, int]:
    """Intake and handling side by side, from the first fetch to the last confirmation queued."""
    source = ImapSource(imap_config(bot.settings))
    uidvalidity = await source.connect()
    try:
        started = time.perf_counter()
        reading = asyncio.create_task(bot.intake.poll(source, uidvalidity))
        handled = 0
        while handled < expected:
            done = await bot.letters.round(wait=True)
            handled += done
            if not done:
                if reading.done() and handled < expected and not await asyncio.to_thread(_pending, bot):
                    break  # everything read is handled: some letters were not stored
                await asyncio.sleep(0.005)
        elapsed = time.perf_counter() - started
        await reading
    finally:
        await source.close()
    return elapsed, handled


def _pending(bot: Bot) -> int:
    with Session(bot.engine) as session:
        return len(session.exec(select(Inbound.id).where(Inbound.state == InboundState.NEW)).all())


def queued(bot: Bot) -> list[tuple[str, str, bytes]]:
    with Session(bot.engine) as session:
        rows = session.exec(
            select(Outbound).where(Outbound.state == OutboundState.PENDING).order_by(col(Outbound.id))
        )
        return [(row.sender, row.recipient, row.raw) for row in rows]


async def bot_sending(bot: Bot) -> tuple[float, int]:
    started = time.perf_counter()
    sent = 0
    while True:
        report = await bot.outbox.send_due()
        sent += report.sent
        if report.paused or report.failed:
            print(f"warning: outbox paused={report.paused}, failed={report.failed}")
        if not report.sent:
            break
    elapsed = time.perf_counter() - started
    await bot.outbox.sink.close()
    return elapsed, sent


async def end_to_end(mails: int, games: int, players: int) -> None:
    with MailRig() as rig, tempfile.TemporaryDirectory() as tmp:
        mailbox = rig.new_address()
        bot = Bot(settings(rig, mailbox, Path(tmp)))
        bot.upgrade()
        t0 = time.perf_counter()
        addresses = [rig.new_address() for _ in range(players)]
        seats = seat_players(bot, games, addresses)
        await rig.open_mailboxes(addresses)  # the bot sends first: its letters would make them
        letters = [
            (seats[n % len(seats)].address, orders_letter(seats[n % len(seats)], mailbox, n))
            for n in range(mails)
        ]
        await deliver(rig, mailbox, letters)
        print(
            f"set up {games} duel games ({len(seats)} seats, {players} players) and delivered "
            f"{mails} ORDERS letters in {time.perf_counter() - t0:.1f} s"
        )
        raw_letters, raw_letters_s = stdlib_letters(rig, mailbox, Path(tmp))
        print(
            f"the standard library's letter loop (imaplib, email, sqlite3; one process): {raw_letters} "
            f"letters fetched, parsed, answered and stored in {raw_letters_s:.2f} s"
        )
        await bot.letters.start()  # as ``mailbot run`` starts it, before any letter comes
        cpu = CpuWindow().start()
        elapsed, handled = await to_queued(bot, mails)
        print(cpu.report("fetching and handling (the moderator: this process and its letter process)"))
        await bot.letters.stop()
        messages = queued(bot)
        print(
            f"bot: {handled} letters fetched, stored, handled and {len(messages)} confirmations queued "
            f"in {elapsed:.2f} s"
        )
        links = bot.settings.smtp.connections
        # The raw reference before and after the bot's sending: the mail servers slow down as
        # the players' mailboxes fill, so one raw run on either side would favour one of them.
        raw_before = await raw_sending(rig, mailbox, messages, links)
        cpu = CpuWindow().start()
        bot_s, sent = await bot_sending(bot)
        print(cpu.report("the outbox sending (this process)"))
        print(
            f"bot outbox: {sent} confirmations accepted by SMTP in {bot_s:.2f} s over {links} connection(s)"
        )
        bot.engine.dispose()
        raw_after = await raw_sending(rig, mailbox, messages, links)
        raw_s = (raw_before + raw_after) / 2
        print(
            f"plain aiosmtplib, {links} connection(s): {len(messages)} messages in {raw_before:.2f} s "
            f"before the bot's sending and {raw_after:.2f} s after it, {raw_s:.2f} s on average"
        )
        print(f"end-to-end: {handled / elapsed:,.0f} letters/s")
        raw_rate = raw_letters / raw_letters_s
        print(f"end-to-end: ratio to the standard library's letter loop {handled / elapsed / raw_rate:.2f}")
        print(f"sending: ratio to raw SMTP {bot_s / raw_s:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mails", type=int, default=2000)
    parser.add_argument("--letters", type=int, default=50)
    parser.add_argument("--end-to-end", action="store_true", help="the whole letter path (issue 12)")
    parser.add_argument("--games", type=int, default=0, help="duel games (default: one letter per seat)")
    parser.add_argument("--players", type=int, default=200, help="distinct player addresses")
    args = parser.parse_args()
    if args.end_to_end:
        asyncio.run(end_to_end(args.mails, args.games or max(args.mails // 2, 1), args.players))
    else:
        asyncio.run(main(args.mails, args.letters))
