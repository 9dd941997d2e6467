# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top game under a real ``mailbot run`` (real Dovecot and SMTP): its letter process, itself
started from the fork server, starts the picture process (``render.maps.painting``) at the
first hour with two maps, paints the next hour's second map there, and the reports carry both
maps; ``kill -9`` of the moderator ends the letter process and the picture process with it."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.app import Bot
from mailbot.services.base import queries
from mailbot.services.base.tags import tag
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, Settings, StoreSettings
from mailbot.store.game_tables import Game
from mailbot.testing.fakes import FakeSink
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import BotProcess, parse, ping
from tests.procs import alive

pytestmark = pytest.mark.slow  # spread over the test processes (tests/conftest.py)

SEATS = ("allied", "japanese")
_LETTERS = re.compile(r"letters are handled in process (\d+)")
_PICTURES = re.compile(r"map pictures are painted beside this process in process (\d+)")
_READY = re.compile(r"the picture process (\d+) is ready")


def seat_flattop(bot: BotProcess, players: dict[str, str]) -> tuple[int, dict[str, str]]:
    """A running Flat Top game in the bot's store, both sides taken, early processing a second
    after both sides' orders; returns the game number and each player's subject tag."""
    settings = Settings(
        store=StoreSettings(url=bot.db_url),
        bot=BotSettings(
            address=bot.address, name="mailbot test", map_process=False
        ),  # the opening's maps here
    )
    builder = Bot(settings, sink=FakeSink())  # the running bot sends the opening letters
    try:
        builder.upgrade()
        setup = GameSetup(
            "flattop", "test-small", "E2E Flat Top", "48h", "UTC", "gm@players.test",
            options={"quiet_hours": False}, early=timedelta(seconds=1), reminders=(),
        )  # fmt: skip
        with Session(builder.engine) as session, session.begin():
            game = builder.games.create(session, setup)
            game_id = int(game.id or 0)
            tags = {}
            for name in SEATS:
                seat = queries.seat(session, game_id, name)
                assert seat is not None
                builder.games.take_seat(session, game, seat, players[name])
                tags[name] = f"[{tag(game)} {seat.secret}]"
    finally:
        builder.engine.dispose()
    return game_id, tags


def maps_of(raws: list[bytes], seat: str) -> list[str]:
    """The side's map pictures in these letters, by file name (a map stands inside the HTML part)."""
    return [
        str(part.get_filename())
        for letter in map(parse, raws)
        for part in letter.walk()
        if part.get_content_type() == "image/png" and str(part.get_filename()).startswith(f"map-{seat}-")
    ]


async def maps_arrive(rig: MailRig, address: str, seat: str, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while len(maps_of(await rig.fetch_all(address, rig.player_password), seat)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{address}: fewer than {count} letters with the {seat} map")
        await asyncio.sleep(0.2)


def open_key(bot: BotProcess, game_id: int) -> str | None:
    engine = bot.engine()
    try:
        with Session(engine) as session:
            step = queries.open_step(session, game_id)
            return (
                None if step is None or session.get_one(Game, game_id).status.value != "running" else step.key
            )
    finally:
        engine.dispose()


async def wait_for(check: object, timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check() if callable(check) else None
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


async def test_the_letter_process_paints_the_second_map_in_its_picture_process(
    mail_rig: MailRig, tmp_path: Path
) -> None:
    bot = BotProcess(mail_rig, tmp_path)
    players = {name: mail_rig.new_address() for name in SEATS}
    game_id, tags = seat_flattop(bot, players)
    bot.start()
    try:
        keys = []
        for _hour in range(2):
            key = await wait_for(
                lambda: (k := open_key(bot, game_id)) not in (None, *keys) and k, 60, "a new step"
            )
            assert isinstance(key, str)
            keys.append(key)
            for name in SEATS:
                orders = ping(
                    players[name], bot.address, f"Re: {tags[name]} orders", f"ORDERS {key}\nHOLD\nEND\n"
                )
                await mail_rig.send(orders)
        await wait_for(lambda: open_key(bot, game_id) not in (None, *keys), 60, "the second hour resolved")
        log = bot.log_text()
        (letters,) = {int(pid) for pid in _LETTERS.findall(log)}
        (pictures,) = {int(pid) for pid in _PICTURES.findall(log)}
        assert [int(pid) for pid in _READY.findall(log)] == [pictures]
        stat = Path(f"/proc/{pictures}/stat").read_text().rsplit(") ", 1)[1].split()
        assert int(stat[1]) == letters  # started by the letter process, not by the moderator
        for name in SEATS:  # the opening's report and each hour's carry the side's map
            await maps_arrive(mail_rig, players[name], name, 3)
        # The moderator killed -9: its letter process ends, and the picture process with it.
        assert bot.proc is not None
        os.kill(bot.proc.pid, signal.SIGKILL)
        bot.proc.wait(10)
        await wait_for(lambda: not alive(letters) and not alive(pictures), 30, "both processes ended")
    finally:
        bot.stop()
