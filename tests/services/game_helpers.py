# SPDX-License-Identifier: GPL-3.0-or-later
"""A bot with injected time and a fake SMTP sink, for game-by-mail service tests."""

from __future__ import annotations

import atexit
import email
import email.policy
import functools
import re
import shutil
import tempfile
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

from mailbot.app import Bot
from mailbot.mail.headers import parsed_once
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, Settings, StoreSettings
from mailbot.store import db
from mailbot.store.game_tables import Game, Seat, StepRow
from mailbot.store.models import Outbound
from mailbot.testing.fakes import FakeSink
from tests.services.helpers import BOT, GM, Clock, letter


def _from_template(db_url: str) -> str:
    """``db_url``; a SQLite file that does not exist yet is first made a copy of a migrated store
    (made once a test process): migrating each test's store from nothing took 60 ms."""
    url = sa.make_url(db_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return db_url
    path = Path(url.database)
    if not path.exists():
        shutil.copyfile(_migrated(), path)
    return db_url


@functools.cache
def _migrated() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="mailbot-template-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "mailbot.db"
    engine = db.make_engine(f"sqlite:///{path}")
    try:
        db.upgrade(engine)
    finally:
        engine.dispose()  # its last connection closed: the WAL is folded into the file
    return path


class Harness:
    def __init__(self, db_url: str, draw_seed: Callable[[], bytes] | None = None, **bot: Any) -> None:
        """``bot``: settings of the [bot] section beside the test's own; ``draw_seed``: the step
        seeds of a game that must play the same on every run (``demo.replay.step_seeds``)."""
        self.clock = Clock()
        self.sink = FakeSink()
        ours: dict[str, Any] = {
            "address": BOT,
            "name": "mailbot test",
            "gm_address": GM,
            "trusted_authserv_id": "mx.example.test",
            # Every map painted here: tests replace drawers and painters in this process. The picture
            # process has its tests (tests/render/test_map_painting.py); the demo and the
            # end-to-end runs use it, as the service does by default.
            "map_process": False,
        }
        settings = Settings(store=StoreSettings(url=_from_template(db_url)), bot=BotSettings(**(ours | bot)))
        self.bot = Bot(settings, clock=self.clock, sink=self.sink, draw_seed=draw_seed)
        self.bot.upgrade()
        self.bot.started_at = self.clock.now
        self.seen = 0

    def create(
        self, deadline: str = "48h", early: timedelta = timedelta(minutes=5), **options: object
    ) -> int:
        setup = GameSetup(
            plugin="duel",
            scenario="standard",
            title="Test duel",
            deadline=deadline,
            timezone="Europe/Berlin",
            gm_address=GM,
            options=dict(options),
            early=early,
            reminders=(timedelta(hours=12),),
        )
        with Session(self.bot.engine) as session, session.begin():
            game = self.bot.games.create(session, setup)
            return int(game.id or 0)

    def create_flattop(self) -> int:
        """A Flat Top game of the small test scenario, its seats open."""
        setup = GameSetup(
            plugin="flattop",
            scenario="test-small",
            title="Coral Sea",
            deadline="48h",
            timezone="Europe/Berlin",
            gm_address=GM,
            reminders=(),
        )
        with Session(self.bot.engine) as session, session.begin():
            return int(self.bot.games.create(session, setup).id or 0)

    def seat(self, game_id: int, name: str) -> Seat:
        with Session(self.bot.engine) as session:
            found = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.name == name)).one()
            session.expunge(found)
            return found

    def game(self, game_id: int) -> Game:
        with Session(self.bot.engine) as session:
            found = session.get_one(Game, game_id)
            session.expunge(found)
            return found

    def steps(self, game_id: int) -> list[StepRow]:
        """The game's steps without their snapshots: a test that plays hour by hour asks for them
        every hour, and a Flat Top snapshot is tens of kilobytes of JSON."""
        query = select(StepRow).where(StepRow.game_id == game_id).order_by(col(StepRow.id))
        with Session(self.bot.engine) as session:
            rows = list(session.exec(query.options(defer(cast("QueryableAttribute[Any]", StepRow.snapshot)))))
            for row in rows:
                session.expunge(row)
            return rows

    def invite(self, game_id: int, seat: str, address: str) -> None:
        with Session(self.bot.engine) as session, session.begin():
            game = session.get_one(Game, game_id)
            row = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.name == seat)).one()
            self.bot.games.take_seat(session, game, row, address)

    def mail(self, sender: str, subject: str, body: str = "", **headers: str) -> list[EmailMessage]:
        """Deliver one letter, handle it, send the outbox; returns the letters it caused."""
        self.clock.advance(1)
        self.bot.inject(letter(sender=sender, subject=subject, body=body, headers=headers))
        self.bot.processor.process_pending()
        return self.flush()

    def tick(self, seconds: float = 0) -> list[EmailMessage]:
        self.clock.advance(seconds)
        self.bot.tick_once()
        return self.flush()

    def flush(self) -> list[EmailMessage]:
        """Send the outbox; returns the letters sent, each read when a test first looks at it
        (:class:`Sent`): half the calls only move the game on and read none of them."""
        import asyncio

        asyncio.run(self.bot.outbox.send_due())
        new = self.sink.sent[self.seen :]
        self.seen = len(self.sink.sent)
        return [cast(EmailMessage, Sent(s.raw)) for s in new]

    def outbox(self) -> list[Outbound]:
        with Session(self.bot.engine) as session:
            return list(session.exec(select(Outbound).order_by(col(Outbound.id))))


#: ``email.policy.default`` parsing each header value once (``mail.headers``, held to the default
#: policy header by header in tests/unit/test_mail_headers.py): the tests read the same few
#: hundred values (From, To, the parts' types) from thousands of letters
_READ = parsed_once()


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=_READ)
    assert isinstance(msg, EmailMessage)
    return msg


class Sent:
    """A letter the bot sent, parsed the first time a test reads it: it answers as the
    ``EmailMessage`` ``parse`` makes of its bytes (headers by name, every method)."""

    __slots__ = ("_message", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._message: EmailMessage | None = None

    @property
    def message(self) -> EmailMessage:
        if self._message is None:
            self._message = parse(self.raw)
        return self._message

    def __getattr__(self, name: str) -> Any:
        return getattr(self.message, name)

    def __getitem__(self, name: str) -> Any:
        return self.message[name]

    def __contains__(self, name: str) -> bool:
        return name in self.message

    def __str__(self) -> str:
        return str(self.message)

    def __bytes__(self) -> bytes:
        return bytes(self.message)


def text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def to(msgs: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in msgs if m["To"] == address]


def tag_of(msg: EmailMessage) -> str:
    found = re.search(r"\[[A-Z]{2}-\d+ [A-Za-z0-9]+\]", msg["Subject"])
    assert found, msg["Subject"]
    return found.group(0)


def started_duel(h: Harness, north: str, south: str) -> tuple[int, str, str]:
    """A running duel: north invited by the GM, south joined by mail; returns the game and the
    two players' subject tags."""
    game_id = h.create()
    h.invite(game_id, "north", north)
    code = h.seat(game_id, "south").invite_code
    replies = h.mail(south, "joining", f"JOIN {game_id} south {code}\n")
    h.flush()
    south_welcome = next(m for m in replies if m["To"] == south and "Welcome" in m["Subject"])
    return game_id, f"[DU-{game_id} {h.seat(game_id, 'north').secret}]", tag_of(south_welcome)
