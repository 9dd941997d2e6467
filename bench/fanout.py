#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline fan-out: N duel games reach their deadline at once (printed, not asserted).

1. Creates N duel games in a fresh SQLite store, both seats taken, both seats' orders in
   (ORDERS letters through the bot's own handling); the letters this causes are marked sent.
2. Moves every open step's deadline to a second ago, then times: the tick over every game as
   ``mailbot run`` runs it (in its letter process, ``bot.handling_process``, the default;
   ``--in-process``: each game in a worker thread of the moderator), the work loop sending the
   reports of the games done while later ones resolve, until every report is accepted by the
   test rig's SMTP server (its own process, STARTTLS and login, each message delivered into
   Dovecot before the 250, ``smtp.connections`` connections): real SMTP, as issue 12 measured.
3. Raw reference in the same run: plain aiosmtplib sends the same messages (same envelope,
   same raw bytes) over the same number of connections to the same server, logged in the
   same way.

Target (issue 12): 1,000 games within 20 s at a ratio to raw SMTP of at most 1.5.
Run: ``.venv/bin/python bench/fanout.py [--games N] [--in-process]``; last line
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

from pydantic import SecretStr
from sqlalchemy import update
from sqlmodel import Session, col, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpu import CpuWindow  # a sibling bench script
from raw_smtp import raw_sending  # a sibling bench script

from mailbot.app import Bot
from mailbot.services.base import queries
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, Settings, SmtpSettings, StoreSettings
from mailbot.store.game_tables import Seat, StepRow, StepState
from mailbot.store.models import Outbound, OutboundState
from mailbot.testing.mailrig import MailRig

# Every <anything>@players.test is a mailbox of the rig's Dovecot.
GM = "gm@players.test"
PLAYERS = "players.test"


_ids = itertools.count(1)


def orders_letter(sender: str, to: str, subject: str, body: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Date"] = format_datetime(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    msg["Message-ID"] = f"<{next(_ids)}@{PLAYERS}>"
    msg.set_content(body)
    return msg.as_bytes()


def make_bot(db: Path, rig: MailRig, address: str, *, apart: bool) -> Bot:
    """A bot on a fresh store, sending through ``rig``'s SMTP server as ``address``, on the real
    clock (a letter process keeps the moderator's own time)."""
    password = SecretStr(rig.player_password)
    smtp = SmtpSettings(host=rig.host, port=rig.smtp_port, cafile=rig.cafile, user=address, password=password)
    settings = Settings(
        smtp=smtp,
        store=StoreSettings(url=f"sqlite:///{db}"),
        bot=BotSettings(address=address, name="mailbot bench", gm_address=GM, handling_process=apart),
    )
    bot = Bot(settings)
    bot.upgrade()
    return bot


def create_games(bot: Bot, games: int) -> None:
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
            for seat in queries.seats(session, int(game.id or 0)):
                bot.games.take_seat(session, game, seat, f"{seat.name}{n}@{PLAYERS}")
    with Session(bot.engine) as session:
        seats = list(session.exec(select(Seat).order_by(col(Seat.id))))
    for seat in seats:
        subject = f"[DU-{seat.game_id} {seat.secret}] orders"
        body = "ORDERS\nATTACK 2\nDEFEND 1\nEND\n"
        bot.inject(orders_letter(seat.address, bot.settings.bot.address, subject, body))
    bot.processor.process_pending()


def deadlines_passed(bot: Bot) -> None:
    """Every open step's deadline a second ago (after every order was received)."""
    with Session(bot.engine) as session, session.begin():
        session.execute(
            update(StepRow)
            .where(col(StepRow.state) == StepState.OPEN)
            .values(deadline_at=datetime.now(UTC) - timedelta(seconds=1))
        )


async def open_mailboxes(rig: MailRig, bot: Bot) -> None:
    """Each player's and the GM's mailbox made before anything is timed (``MailRig.open_mailboxes``):
    the raw reference comes second and would find them made."""
    with Session(bot.engine) as session:
        addresses = [GM, *session.exec(select(Seat.address))]
    await rig.open_mailboxes(addresses)


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


async def fan_out(bot: Bot) -> tuple[float, float, int]:
    """The deadline tick as ``mailbot run`` does it with the bot's work loop sending beside it;
    until every report is accepted by SMTP."""
    stop = asyncio.Event()
    started = time.perf_counter()
    sending = asyncio.create_task(bot.work.loop(stop))
    done = await bot.deadlines.tick_all()
    ticked = time.perf_counter() - started
    waiting = await asyncio.to_thread(unsent, bot)
    print(f"reports not yet accepted when the tick ended: {waiting} (sent while later games resolved)")
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


async def main(games: int, apart: bool) -> None:
    logging.basicConfig(level=logging.WARNING)
    with MailRig() as rig, tempfile.TemporaryDirectory() as tmp:
        address = rig.new_address()
        bot = make_bot(Path(tmp) / "fanout.db", rig, address, apart=apart)
        t0 = time.perf_counter()
        create_games(bot, games)
        await open_mailboxes(rig, bot)
        last_id = settle_outbox(bot)
        await bot.letters.start()  # as ``mailbot run`` does before any tick
        where = "its letter process" if bot.letters.process is not None else "worker threads of the moderator"
        print(f"set up {games} duel games, both seats' orders in, in {time.perf_counter() - t0:.1f} s")
        deadlines_passed(bot)
        cpu = CpuWindow().start()
        elapsed, ticked, processed = await fan_out(bot)
        print(cpu.report("the fan-out (the moderator and its letter process)"))
        await bot.letters.stop()
        messages = sent_since(bot, last_id)
        links = bot.settings.smtp.connections
        print(
            f"bot (games ticked in {where}): {processed} games processed, {len(messages)} letters "
            f"accepted by SMTP over {links} connection(s) in {elapsed:.2f} s (the tick took "
            f"{ticked:.2f} s; the last report was accepted {elapsed - ticked:.2f} s after it)"
        )
        bot.engine.dispose()
        cpu = CpuWindow().start()
        raw = await raw_sending(rig, address, messages, links)
        print(cpu.report("plain aiosmtplib sending (this process)"))
        print(f"plain aiosmtplib, {links} connection(s): {len(messages)} letters in {raw:.2f} s")
        print(f"fan-out: {elapsed:.2f} s, ratio to raw SMTP {elapsed / raw:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--in-process", action="store_true", help="tick the games in the moderator's threads")
    args = parser.parse_args()
    asyncio.run(main(args.games, apart=not args.in_process))
