#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline fan-out: N duel games reach their deadline at once (printed, not asserted).

1. Creates N duel games in a fresh SQLite store, both seats taken, both seats' orders in
   (ORDERS letters through the bot's own handling); the letters this causes are marked sent.
2. Moves the injected clock past the deadline, then times: the tick over every game as
   ``mailbot run`` runs it (each game in a worker thread, the work loop sending the reports
   of the games done while later ones resolve) until every report is accepted by an
   in-process aiosmtpd server (``smtp.connections`` connections).
3. Raw reference in the same run: plain aiosmtplib sends the same messages (same envelope,
   same raw bytes) over the same number of connections to the same server.

Target (issue 12): 1,000 games within 20 s at a ratio to raw SMTP of at most 1.5.
Run: ``.venv/bin/python bench/fanout.py [--games N]``; last line
``fan-out: <seconds> s, ratio to raw SMTP <r>``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import aiosmtplib
from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import update
from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mailbot.app import Bot
from mailbot.services.games import GameSetup
from mailbot.settings import BotSettings, Settings, SmtpSettings, StoreSettings
from mailbot.store.game_tables import Seat
from mailbot.store.models import Outbound, OutboundState

BOT, GM = "bot@bench.test", "gm@bench.test"
HOST = "127.0.0.1"


class Clock:
    """Injected time: the bench moves it past the deadline instead of waiting."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class Counter:
    """aiosmtpd handler that accepts and counts every message."""

    def __init__(self) -> None:
        self.messages = 0
        self.connections = 0

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        self.messages += 1
        return "250 OK"


async def start_smtp(counter: Counter) -> tuple[asyncio.Server, int]:
    loop = asyncio.get_running_loop()

    def session() -> SMTP:
        counter.connections += 1
        return SMTP(counter, hostname="smtp.bench.test", ident="bench ESMTP", loop=loop)

    server = await loop.create_server(session, HOST, 0)
    port = int(server.sockets[0].getsockname()[1])
    return server, port


_ids = itertools.count(1)


def orders_letter(sender: str, subject: str, body: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, BOT, subject
    msg["Date"] = format_datetime(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    msg["Message-ID"] = f"<{next(_ids)}@players.bench.test>"
    msg.set_content(body)
    return msg.as_bytes()


def make_bot(db: Path, smtp_port: int, clock: Clock) -> Bot:
    settings = Settings(
        smtp=SmtpSettings(host=HOST, port=smtp_port, security="none"),
        store=StoreSettings(url=f"sqlite:///{db}"),
        bot=BotSettings(address=BOT, name="mailbot bench", gm_address=GM),
    )
    bot = Bot(settings, clock=clock)
    bot.upgrade()
    return bot


def create_games(bot: Bot, clock: Clock, games: int) -> None:
    setup = GameSetup(
        plugin="duel",
        scenario="standard",
        title="Bench duel",
        deadline="48h",
        timezone="Europe/Berlin",
        gm_address=GM,
    )
    for n in range(games):
        with Session(bot.engine) as session, session.begin():
            game = bot.games.create(session, setup)
            for seat in bot.games.seats(session, int(game.id or 0)):
                bot.games.take_seat(session, game, seat, f"{seat.name}{n}@players.bench.test")
    clock.advance(60)
    with Session(bot.engine) as session:
        seats = list(session.exec(select(Seat).order_by(col(Seat.id))))
    for seat in seats:
        subject = f"[DU-{seat.game_id} {seat.secret}] orders"
        body = "ORDERS\nATTACK 2\nDEFEND 1\nEND\n"
        bot.inject(orders_letter(seat.address, subject, body))
    bot.processor.process_pending()


def settle_outbox(bot: Bot) -> int:
    """Mark what set-up wrote (welcome letters, confirmations) as sent; returns the last row id."""
    with Session(bot.engine) as session, session.begin():
        session.execute(
            update(Outbound)
            .where(col(Outbound.state) == OutboundState.PENDING)
            .values(state=OutboundState.SENT)
        )
        last = session.exec(select(Outbound.id).order_by(col(Outbound.id).desc())).first()
    return int(last or 0)


async def fan_out(bot: Bot, clock: Clock) -> tuple[float, float, int]:
    """The deadline tick as ``mailbot run`` does it (each game in a worker thread) with the
    bot's work loop sending beside it; until every report is accepted by SMTP."""
    clock.advance(49 * 3600)
    stop = asyncio.Event()
    started = time.perf_counter()
    sending = asyncio.create_task(bot.work_loop(stop))
    done = await bot.tick_all()
    ticked = time.perf_counter() - started
    while await asyncio.to_thread(unsent, bot):
        bot.wake.set()
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - started
    stop.set()
    bot.wake.set()
    await sending
    await bot.outbox.sink.close()
    processed = sum(1 for line in done if "idle" not in line)
    if bot.outbox.transport_down_since is not None:
        print(f"warning: SMTP transport down: {bot.outbox.transport_error}")
    return elapsed, ticked, processed


def unsent(bot: Bot) -> int:
    with Session(bot.engine) as session:
        query = select(Outbound.id).where(
            col(Outbound.state).in_([OutboundState.PENDING, OutboundState.SENDING])
        )
        return len(session.exec(query).all())


def sent_since(bot: Bot, last_id: int) -> list[tuple[str, str, bytes]]:
    with Session(bot.engine) as session:
        rows = session.exec(select(Outbound).where(col(Outbound.id) > last_id).order_by(col(Outbound.id)))
        return [(r.sender, r.recipient, r.raw) for r in rows if r.state is OutboundState.SENT]


async def raw_smtp(port: int, messages: list[tuple[str, str, bytes]], links: int) -> float:
    """Plain aiosmtplib: the same messages over ``links`` connections, each sending its share."""

    async def link(share: list[tuple[str, str, bytes]]) -> None:
        client = aiosmtplib.SMTP(hostname=HOST, port=port, start_tls=False, local_hostname="bench.test")
        await client.connect()
        for sender, recipient, raw in share:
            await client.sendmail(sender, [recipient], raw)
        await client.quit()

    started = time.perf_counter()
    await asyncio.gather(*(link(messages[i::links]) for i in range(links)))
    return time.perf_counter() - started


async def main(games: int) -> None:
    logging.basicConfig(level=logging.WARNING)
    counter = Counter()
    server, port = await start_smtp(counter)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            clock = Clock()
            bot = make_bot(Path(tmp) / "fanout.db", port, clock)
            t0 = time.perf_counter()
            create_games(bot, clock, games)
            last_id = settle_outbox(bot)
            print(f"set up {games} duel games, both seats' orders in, in {time.perf_counter() - t0:.1f} s")
            elapsed, ticked, processed = await fan_out(bot, clock)
            messages = sent_since(bot, last_id)
            bot_count, bot_connections = counter.messages, counter.connections
            print(
                f"bot: {processed} games processed, {len(messages)} letters accepted by SMTP "
                f"({bot_count} counted by the server, {bot_connections} connection(s)) "
                f"in {elapsed:.2f} s (the tick took {ticked:.2f} s; the last report was accepted "
                f"{elapsed - ticked:.2f} s after it)"
            )
            bot.engine.dispose()
            links = bot.settings.smtp.connections
            raw = await raw_smtp(port, messages, links)
            raw_count = counter.messages - bot_count
            print(f"plain aiosmtplib, {links} connection(s): {raw_count} letters in {raw:.2f} s")
            print(f"fan-out: {elapsed:.2f} s, ratio to raw SMTP {elapsed / raw:.2f}")
    finally:
        server.close()
        await server.wait_closed()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    asyncio.run(main(parser.parse_args().games))
