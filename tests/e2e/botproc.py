# SPDX-License-Identifier: GPL-3.0-or-later
"""Running ``mailbot run`` as a real process against the mail rig, and looking at its store."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.services.base import queries
from mailbot.store import db
from mailbot.store.models import Inbound, Outbound
from mailbot.testing.mailrig import AsyncLMTP, MailRig


class BotProcess:
    """One bot with its own mailbox (a fresh open-domain address) and its own SQLite file."""

    def __init__(self, rig: MailRig, workdir: Path, **overrides: object) -> None:
        self.rig = rig
        self.address = rig.new_address()
        self.workdir = workdir
        self.config = workdir / "mailbot.toml"
        self.db_url = f"sqlite:///{workdir}/bot.db"
        self.log = workdir / "bot.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._overrides = overrides
        self._write_config(overrides)

    def _write_config(self, overrides: dict[str, object]) -> None:
        r = self.rig
        imap = {"poll_interval": 30.0, "idle_timeout": 60.0, "reconnect_min": 0.1, "reconnect_max": 1.0}
        smtp = {"retry_base": 0.3, "retry_max": 1.0, "max_attempts": 50}
        imap.update(overrides.get("imap", {}))  # type: ignore[call-overload]
        smtp.update(overrides.get("smtp", {}))  # type: ignore[call-overload]
        lines = [
            "[imap]",
            f'host = "{r.host}"',
            f"port = {r.imaps_port}",
            'security = "tls"',
            f'cafile = "{r.cafile}"',
            f'user = "{self.address}"',
            *(f"{k} = {json.dumps(v)}" for k, v in imap.items()),
            "[smtp]",
            f'host = "{r.host}"',
            f"port = {smtp.pop('port', r.smtp_port)}",  # another server's (a fault test's) if given
            'security = "starttls"',
            f'cafile = "{r.cafile}"',
            f'user = "{self.address}"',
            *(f"{k} = {json.dumps(v)}" for k, v in smtp.items()),
            "[store]",
            f'url = "{self.db_url}"',
            "[bot]",
            f'address = "{self.address}"',
            'name = "mailbot test"',
            *(f"{k} = {json.dumps(v)}" for k, v in overrides.get("bot", {}).items()),  # type: ignore[attr-defined]
        ]
        self.config.write_text("\n".join(lines) + "\n")

    def start(self, crash_at: str | None = None) -> None:
        env = dict(os.environ)
        env["MAILBOT_IMAP__PASSWORD"] = self.rig.player_password
        env["MAILBOT_SMTP__PASSWORD"] = self.rig.player_password
        env.pop("MAILBOT_DEBUG__CRASH_AT", None)
        env.pop("PYTHONTRACEMALLOC", None)
        if crash_at:
            env["MAILBOT_DEBUG__CRASH_AT"] = json.dumps([crash_at])
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "mailbot", "run", "--config", str(self.config)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_exit(self, timeout: float = 20.0) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.proc = None

    def engine(self) -> Engine:
        return db.make_engine(self.db_url)

    def rows(self) -> tuple[list[Inbound], list[Outbound]]:
        eng = self.engine()
        try:
            if not sa.inspect(eng).has_table("outbound"):
                return [], []  # the bot has not created its schema yet
            with Session(eng) as session:
                inbound = list(session.exec(select(Inbound).order_by(col(Inbound.id))))
                outbound = list(session.exec(select(Outbound).order_by(col(Outbound.id))))
            return inbound, outbound
        except sa.exc.OperationalError:
            return [], []  # the bot is still migrating its schema to the newest revision
        finally:
            eng.dispose()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def use_store(self, url: str, **overrides: object) -> None:
        """Point the bot at another store, e.g. a PostgreSQL URL from the ``db_url`` fixture."""
        self.db_url = url
        self._write_config({**self._overrides, **overrides})  # the overrides given at creation stay

    def seat_duel(
        self, gm: str, north: str, south: str, *, deadline: str = "48h", grace: timedelta = timedelta(0)
    ) -> tuple[int, dict[str, str]]:
        """A running duel in the bot's store with both seats taken (the welcome letters wait in the
        outbox); returns the game number and each player's subject tag ``[DU-n secret]``."""
        from mailbot.app import Bot
        from mailbot.services.base.tags import tag
        from mailbot.services.play.games import GameSetup
        from mailbot.settings import BotSettings, Settings, StoreSettings
        from mailbot.testing.fakes import FakeSink

        settings = Settings(
            store=StoreSettings(url=self.db_url), bot=BotSettings(address=self.address, name="mailbot test")
        )
        bot = Bot(settings, sink=FakeSink())  # the running bot sends the welcome letters
        try:
            bot.upgrade()
            setup = GameSetup("duel", "standard", "E2E duel", deadline, "UTC", gm, grace=grace, reminders=())
            with Session(bot.engine) as session, session.begin():
                game = bot.games.create(session, setup)
                game_id = int(game.id or 0)
                tags = {}
                for name, address in (("north", north), ("south", south)):
                    seat = queries.seat(session, game_id, name)
                    assert seat is not None
                    bot.games.take_seat(session, game, seat, address)
                    tags[address] = f"[{tag(game)} {seat.secret}]"
        finally:
            bot.engine.dispose()
        return game_id, tags


def ping(sender: str, to: str, subject: str = "PING", body: str = "PING\n") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Message-ID"] = email.utils.make_msgid(domain="players.test")
    msg.set_content(body)
    return msg


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(raw: bytes) -> str:
    part = parse(raw).get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


async def deliver(rig: MailRig, to: str, letters: Sequence[tuple[str, bytes]], per_second: float) -> None:
    """Hand letters to the rig's Dovecot over LMTP, ``per_second`` of them a second."""
    client = await AsyncLMTP.connect(rig.host, rig.lmtp_port)
    try:
        for sender, raw in letters:
            await client.send_message(sender, [to], raw)
            await asyncio.sleep(1 / per_second)
    finally:
        await client.close()


async def wait_until(predicate: object, timeout: float = 15.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
