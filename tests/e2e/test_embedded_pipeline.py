# SPDX-License-Identifier: GPL-3.0-or-later
"""The same mail pipeline on the embedded demo server (aiosmtpd + pymap), and `mailbot demo` itself."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mailbot.app import Bot
from mailbot.demo.mailserver import EmbeddedMailServer
from mailbot.demo.run import BOT, PASSWORD, Player, demo_settings
from mailbot.store.models import InboundState, OutboundState
from tests.demo_plays import DemoPlays
from tests.e2e.botproc import parse, text_of


async def test_ping_round_trip_on_the_embedded_server(tmp_path: Path) -> None:
    async with EmbeddedMailServer() as server:
        for address in (BOT, "carol@demo.localhost"):
            server.add_account(address, PASSWORD)
        bot = Bot(demo_settings(server, tmp_path))
        stop = asyncio.Event()
        running = asyncio.create_task(bot.run(stop))
        try:
            carol = Player("carol@demo.localhost", server)
            await carol.send("PING", "PING\nwhat is this\n")
            (reply,) = await carol.wait_for(1, timeout=10)
        finally:
            await carol.close()
            stop.set()
            await running
    assert parse(reply)["Auto-Submitted"] == "auto-replied"
    assert 'Line 2: "what is this"' in text_of(reply)
    inbound, outbound = _states(bot)
    bot.engine.dispose()
    assert inbound == [InboundState.PROCESSED]
    assert outbound == [OutboundState.SENT]


def _states(bot: Bot) -> tuple[list[InboundState], list[OutboundState]]:
    from sqlmodel import Session, select

    from mailbot.store.models import Inbound, Outbound

    with Session(bot.engine) as session:
        inbound = [r.state for r in session.exec(select(Inbound))]
        return inbound, [r.state for r in session.exec(select(Outbound))]


def test_mailbot_demo_command_ends_with_the_summary_line(demo_plays: DemoPlays) -> None:
    last = demo_plays("duel").stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"demo: \d+ mails in, \d+ replies out, \d+ turns, game \S+ \S+", last), last


def test_mailbot_demo_archive_verifies(demo_plays: DemoPlays) -> None:
    done = demo_plays("duel")
    assert re.search(r"\d+ turns, game \d+ finished$", done.stdout.strip())
    check = subprocess.run(
        [sys.executable, str(done.archive / "verify.py"), str(done.archive)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout
    assert re.fullmatch(r"verify: (\d+) rolls, \1 ok, 0 failed", check.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("game", "status"), [("wif", "finished"), ("atlantic-storm", "finished"), ("salt-n-tar", "finished")]
)
def test_each_small_game_is_played_by_mail(demo_plays: DemoPlays, game: str, status: str) -> None:
    summary = demo_plays(game).result.summary
    found = re.fullmatch(r"demo: (\d+) mails in, (\d+) replies out, (\d+) turns, game \d+ (\w+)", summary)
    assert found, summary
    assert int(found.group(1)) >= 3 and int(found.group(2)) > int(found.group(1))
    assert int(found.group(3)) >= 1  # at least one full turn resolved
    assert found.group(4) == status
