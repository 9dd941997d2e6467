# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot demo``: the bot and scripted players on an embedded loopback mail server.

Everything a real deployment does happens here too: players send over SMTP,
the bot reads its mailbox over IMAP (IDLE), answers through its outbox over
SMTP, and the players read their replies over IMAP. Only the servers are
embedded (aiosmtpd + pymap), so it runs with no accounts and no root.

At the end every mailbox of the server (the bot's, the GM's, each player's) is
kept as an mbox file ``<workdir>/mail/<address>.mbox``, so that a newcomer can
read the letters with any mail client (``mutt -f``), and each letter as a text
file ``<workdir>/letters/<address>/<NNN>-<subject>.txt``; the game's archive
(a site to browse, ``mail.mbox``, ``game.json``, ``verify.py``) is exported to
``<workdir>/archive`` (or the folder given).
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import aiosmtplib
from pydantic import SecretStr
from sqlalchemy import ColumnElement
from sqlmodel import Session, col, func, select

from mailbot.app import Bot
from mailbot.core.game import Tallied
from mailbot.demo import chains
from mailbot.demo.keep import parse as _parse
from mailbot.demo.keep import write_letters, write_mbox
from mailbot.demo.mailserver import EmbeddedMailServer
from mailbot.demo.replay import DEFAULT_SEED, demo_seed, message_ids, step_seeds
from mailbot.demo.scripts import DemoGame, demos, find_demo
from mailbot.errors import MailbotError
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.services.archive.archive import export
from mailbot.services.base import queries
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, ImapSettings, Settings, SmtpSettings, StoreSettings
from mailbot.store import repo
from mailbot.store.game_tables import Game, GameStatus, OrderSet, Report, StepRow, StepState
from mailbot.store.models import Inbound, Outbound

BOT = "mailbot@demo.localhost"
GM = "gm@demo.localhost"
PASSWORD = "demo"  # throw-away accounts on a loopback server that lives for one run


@dataclass
class Player:
    address: str
    server: EmbeddedMailServer
    # Fixed Message-IDs make a replay's letters, and so its players' entropy, the same (demo/replay.py).
    new_message_id: Callable[[], str] = field(default=lambda: make_msgid(domain="demo.localhost"))
    _connection: ImapSource | None = field(default=None, init=False, repr=False)

    async def send(self, subject: str, body: str) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = self.address, BOT, subject
        msg["Message-ID"] = self.new_message_id()
        msg.set_content(body)
        await aiosmtplib.send(
            msg,
            hostname=self.server.host,
            port=self.server.smtp_port,
            start_tls=False,
            local_hostname="player.localhost",
        )

    async def inbox(self, after: int = 0) -> list[bytes]:
        """The mailbox's letters, oldest first: all of them, or those after the first ``after``.

        The player stays logged in between looks, as a mail client does: a new connection for
        every look (four players, five looks a second) cost the demo's server a tenth of the
        demo's CPU. A kept connection that fails (the server dropped it) is replaced at once."""
        if self._connection is not None:
            try:
                await self._connection.wait_for_news(idle=False, idle_timeout=0, poll_interval=0)  # NOOP
                return await self._look(self._connection, after)
            except Exception:  # the server dropped it: logged in again below; a second failure is raised
                await self.close()
        self._connection = ImapSource(self._imap())
        try:
            await self._connection.connect()
            return await self._look(self._connection, after)
        except BaseException:
            await self.close()
            raise

    @staticmethod
    async def _look(source: ImapSource, after: int) -> list[bytes]:
        uids = await source.search_after(0)
        # Only the new letters are fetched: a whole Flat Top game's mailbox fetched anew at every
        # poll cost the demo more CPU than the games it played.
        return [m.raw for part in _chunks(uids[after:]) for m in await source.fetch(part)]

    async def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()

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
        # A demo plays a game's hours in minutes: its players write far more than a person an hour,
        # which the loop breaker's limits (answers an hour to one address) are not for.
        bot=BotSettings(address=BOT, name="mailbot demo", gm_address=GM, answers_per_hour=10_000),
    )


@dataclass
class Script:
    """One scripted player: answers every step its letters say it owes, as its game's script says."""

    player: Player
    seat: str
    demo: DemoGame
    mistake: str = ""
    tag: str = ""
    answered: set[str] = field(default_factory=set)
    seen: int = 0
    phrase: str = ""  # the player's dice chain passphrase (``demo/chains.py``)
    setup_revealed: bool = False
    letters: list[str] = field(default_factory=list)  # the text of every letter read, oldest first

    async def play(self) -> None:
        mails = await self.player.inbox(after=self.seen)
        for raw in mails:
            msg = _parse(raw)
            found = re.search(r"\[[A-Z]{2}-\d+ [A-Za-z0-9]+\]", str(msg["Subject"]))
            if found and not self.tag:
                self.tag = found.group(0)
            self.letters.append(_text(msg))
            await self._answer(self.letters[-1])
        self.seen += len(mails)

    async def _answer(self, text: str) -> None:
        found = re.search(r"Send: (ORDERS|SEAL <label> <value> for) (\S+)", text)
        if "The set-up dice" in text and not self.setup_revealed:
            await self._reveal_setup(text)
        if not found or "You owe orders for this step." not in text or found.group(2) in self.answered:
            return
        key, kind = found.group(2), "orders" if found.group(1) == "ORDERS" else "sealed"
        if self.mistake and kind == "orders":
            await self.player.send(f"Re: {self.tag} orders", f"ORDERS {key}\n{self.mistake}\nEND\n")
            self.mistake = ""
        concedes = self.demo.script.concedes
        if concedes is not None and concedes(self.seat, key, self.letters):
            body = "CONCEDE\n"
        else:
            body = self.demo.script.answer(self.seat, key, kind, len(self.answered), text)
        self.answered.add(key)
        # The round the report names; a letter that gives the game up reveals nothing (no step is left).
        reveal = "" if body.strip() == "CONCEDE" else await chains.asked_reveal(self.phrase, text)
        await self.player.send(f"Re: {self.tag} {kind}", body + (f"{reveal}\n" if reveal else ""))

    async def _reveal_setup(self, text: str) -> None:
        """Every seat has joined and the set-up waits for this seat's round-1 reveal."""
        reveal = await chains.asked_reveal(self.phrase, text)
        if reveal:
            self.setup_revealed = True
            await self.player.send(f"Re: {self.tag} set-up dice", f"{reveal}\n")


def _text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return str(part.get_content()) if part is not None else ""


def _create_game(bot: Bot, demo: DemoGame, players: list[str]) -> tuple[int, list[tuple[str, str]]]:
    """The GM creates the game and invites the first player; returns the other seats' invite codes."""
    setup = GameSetup(
        plugin=demo.plugin,
        scenario=demo.script.scenario,
        title=demo.script.title,
        deadline="24h",
        timezone="Europe/Berlin",
        gm_address=GM,
        options=dict(demo.script.options),
        early=timedelta(seconds=0.5),  # the demo need not wait for late corrections
        reminders=(),
    )
    with Session(bot.engine) as session, session.begin():
        game = bot.games.create(session, setup)
        game_id = int(game.id or 0)
        seats = queries.seats(session, game_id)
        bot.games.take_seat(session, game, seats[0], players[0])
        return game_id, [(seat.name, seat.invite_code) for seat in seats[1:]]


def _finished(bot: Bot, game_id: int, stop_after: int | None) -> bool:
    with Session(bot.engine) as session:
        status = session.exec(select(Game.status).where(Game.id == game_id)).one()
        if status is GameStatus.FINISHED:
            return True
    return stop_after is not None and _resolved(bot, game_id) >= stop_after


def _resolved(bot: Bot, game_id: int) -> int:
    """How many steps of the game (the set-up not counted) are resolved. Counted by the store: the
    rows hold each step's snapshot of the game, and loading them all at every poll cost more CPU
    than the game."""
    with Session(bot.engine) as session:
        query = (
            select(func.count())
            .select_from(StepRow)
            .where(StepRow.game_id == game_id, StepRow.state == StepState.RESOLVED, StepRow.key != "setup")
        )
        return int(session.exec(query).one())


async def _script(
    bot: Bot, server: EmbeddedMailServer, demo: DemoGame, seed: str, stall: float = 90.0
) -> int:
    """The GM creates the game; the first player is invited, the others join by mail; all play.

    The demo gives up when no step has been resolved for ``stall`` seconds: a long game on a busy
    machine is slow but alive, a stuck one stops making steps."""
    addresses = [f"player{n}@demo.localhost" for n in range(1, 5)]
    game_id, joining = _create_game(bot, demo, addresses)
    bot.wake.set()
    seat_names = _seat_names(bot, game_id)
    scripts = [
        Script(
            Player(address, server, message_ids(seed, address)),
            seat,
            demo,
            mistake=demo.script.mistake if n == 1 else "",
            phrase=chains.passphrase(seed, address),
        )
        for n, (address, seat) in enumerate(zip(addresses, seat_names, strict=False))
    ]
    try:
        await _first_chain(scripts[0], game_id)
        for script, (seat, code) in zip(scripts[1:], joining, strict=True):
            anchor = await chains.chain_line(script.phrase, game_id, seat)
            await script.player.send("joining", f"HELP\nJOIN {game_id} {seat} {code}\n{anchor}\n")
        await _play(bot, game_id, demo, scripts, stall)
    finally:
        for script in scripts:
            await script.player.close()
    return game_id


async def _play(bot: Bot, game_id: int, demo: DemoGame, scripts: list[Script], stall: float) -> None:
    loop = asyncio.get_running_loop()
    deadline, done = loop.time() + stall, 0
    while not _finished(bot, game_id, demo.script.stop_after):
        if (now := _resolved(bot, game_id)) > done:
            deadline, done = loop.time() + stall, now
        if loop.time() > deadline:
            raise MailbotError(f"the demo game stopped: no step resolved in {stall:.0f} s")
        for script in scripts:
            await script.play()
        await asyncio.sleep(0.2)


async def _first_chain(script: Script, game_id: int) -> None:
    """The invited player sends his CHAIN line once his welcome letter (and tag) is in, before
    the others join: an anchor logged before the last seat joins counts for the set-up."""
    await script.player.wait_for(1)
    await script.play()
    anchor = await chains.chain_line(script.phrase, game_id, script.seat)
    await script.player.send(f"Re: {script.tag} dice chain", f"{anchor}\n")


def _seat_names(bot: Bot, game_id: int) -> list[str]:
    with Session(bot.engine) as session:
        return [seat.name for seat in queries.seats(session, game_id)]


def _quiet(bot: Bot, game_id: int) -> str:
    """ ", N hours without a letter (M reports to each seat)" when steps were played quietly, else ""."""
    quiet, per_seat = _quiet_counts(bot, game_id)
    if not quiet:
        return ""
    return f", {quiet} hours without a letter ({per_seat} reports to each seat)"


def _quiet_counts(bot: Bot, game_id: int) -> tuple[int, int]:
    """Steps played without a letter, and the most reports any seat got."""
    with Session(bot.engine) as session:
        played = set(session.exec(select(StepRow.key).where(*_played(game_id))))
        reports = session.exec(select(Report).where(Report.game_id == game_id))
        reported, per_seat = set(), Counter[str]()
        for report in reports:
            reported.add(report.step_key)
            per_seat[report.seat] += 1
    return len(played - reported), max(per_seat.values(), default=0)


def _battles(bot: Bot, game_id: int) -> str:
    """``battles: air <a>, surface <s>, sealed values <v>, hours without mail <h>`` for a game
    that counts its battles (``core.game.Tallied``), else "". The line keeps this exact form for
    scripts that read it; other tallies (submarine fights) show in the letters."""
    with Session(bot.engine) as session:
        game = session.get_one(Game, game_id)
        plugin = queries.plugin(game)
        if not isinstance(plugin, Tallied):
            return ""
        tallies = plugin.tallies(plugin.load(game.state))
        steps = list(session.exec(select(StepRow.id).where(StepRow.game_id == game_id)))
        sets = session.exec(select(OrderSet).where(col(OrderSet.step_id).in_(steps), col(OrderSet.current)))
        sealed = sum(len(s.sealed) for s in sets)
    quiet, _ = _quiet_counts(bot, game_id)
    air, surface = tallies.get("air", 0), tallies.get("surface", 0)
    return f"battles: air {air}, surface {surface}, sealed values {sealed}, hours without mail {quiet}"


@dataclass(frozen=True)
class MailboxFile:
    """One mailbox of the demo's server, kept as an mbox file."""

    address: str
    path: Path
    letters: int

    def line(self) -> str:
        return f"{self.path}: {self.letters} letters (read with: mutt -f {self.path})"


@dataclass(frozen=True)
class DemoResult:
    summary: str  # the one line ``demo: ...``
    mailboxes: tuple[MailboxFile, ...]
    battles: str = ""  # ``battles: ...`` for a game that counts them (core.game.Tallied)
    seed: str = ""  # the demo seed the game's dice and letters came from (demo/replay.py)
    letters: Path | None = None  # one text file per letter: <letters>/<address>/<NNN>-<subject>.txt
    archive: Path | None = None  # the game's exported archive (index.html, mail.mbox, game.json...)

    def where(self) -> list[str]:
        """Where the letters and the archive are, and how to open the archive (after the summary)."""
        again = "--seed <text> plays another game, --seed random fresh dice"
        lines = [f"dice: demo seed {self.seed!r} ({again})"] if self.seed else []
        lines += [f"letters: {self.letters} (one file per letter)"] if self.letters else []
        if self.archive:
            index = self.archive / "index.html"
            lines.append(f"archive: {index} (open it in a browser, or: mailbot archive serve {self.archive})")
        return lines


async def keep_mailboxes(
    server: EmbeddedMailServer, addresses: list[str], folder: Path, letters: Path | None = None
) -> list[MailboxFile]:
    """Write each account's INBOX as ``folder/<address>.mbox`` (and, with ``letters``, each letter as
    ``letters/<address>/<NNN>-<subject>.txt``); players that got nothing are left out."""
    folder.mkdir(parents=True, exist_ok=True)
    kept = []
    for address in addresses:
        player = Player(address, server)
        try:
            mails = await player.inbox()
        finally:
            await player.close()
        if not mails and address.startswith("player"):
            continue  # a seat this game does not have
        path = folder / f"{address}.mbox"
        path.unlink(missing_ok=True)  # a rerun in the same workdir starts afresh
        write_mbox(path, mails)
        if letters is not None:
            write_letters(letters / address, mails)
        kept.append(MailboxFile(address, path, len(mails)))
    return kept


def _counts(bot: Bot, game_id: int) -> tuple[int, int, int, str]:
    with Session(bot.engine) as session:
        inbound = sum(repo.count_by_state(session, Inbound).values())
        outbound = repo.count_by_state(session, Outbound).get("sent", 0)
        turns = len(set(session.exec(select(StepRow.turn).where(*_played(game_id)))))
        game = session.get_one(Game, game_id)
        return inbound, outbound, turns, game.status.value


def _played(game_id: int) -> tuple[ColumnElement[bool] | bool, ...]:
    """The game's resolved steps after the set-up (turn 0). The callers select a column or two: a
    Flat Top demo's whole step rows hold 8 MB of snapshots of the game."""
    return StepRow.game_id == game_id, StepRow.state == StepState.RESOLVED, col(StepRow.turn) > 0


async def run_demo(game: str = "duel", archive: Path | None = None, workdir: Path | None = None) -> str:
    """Play the demo; returns the one-line summary."""
    return (await play_demo(game, archive, workdir)).summary


async def play_demo(
    game: str = "duel",
    archive: Path | None = None,
    workdir: Path | None = None,
    scenario: str | None = None,
    seed: str = DEFAULT_SEED,
) -> DemoResult:
    """Play the demo (on ``scenario`` instead of the script's own, when given); returns the summary
    and the mbox files the letters were kept in. The same ``seed`` replays the same game
    (``demo/replay.py``); ``random`` draws a fresh one."""
    seed = demo_seed(seed)
    demo = find_demo(game)
    if demo is None:
        known = ", ".join(d.plugin for d in demos())
        raise MailbotError(f"no demo for {game!r}; there are: {known}")
    if scenario:
        title = f"Demo {demo.plugin}: {scenario}"
        demo = replace(demo, script=replace(demo.script, scenario=scenario, title=title))
    workdir = workdir or Path(tempfile.mkdtemp(prefix="mailbot-demo-"))
    accounts = [BOT, GM, *(f"player{n}@demo.localhost" for n in range(1, 5))]
    async with EmbeddedMailServer() as server:
        for address in accounts:
            server.add_account(address, PASSWORD)
        # A rerun in the same workdir starts afresh: an old database would hold the first run's
        # letters, and the replayed letters (same Message-IDs) would be taken for duplicates.
        (workdir / "demo.db").unlink(missing_ok=True)
        bot = Bot(demo_settings(server, workdir), draw_seed=step_seeds(seed))
        bot.upgrade()
        stop = asyncio.Event()
        running = asyncio.create_task(bot.run(stop))
        try:
            game_id = await _script(bot, server, demo, seed)
            await asyncio.sleep(0.5)  # the last reports leave the outbox
        finally:
            stop.set()
            await running
        mailboxes = await keep_mailboxes(server, accounts, workdir / "mail", workdir / "letters")
    mails_in, replies_out, turns, status = _counts(bot, game_id)
    quiet = _quiet(bot, game_id)
    battles = _battles(bot, game_id)
    archive = archive or workdir / "archive"
    with Session(bot.engine) as session:
        export(session, game_id, archive, renderer=bot.renderer)
    bot.engine.dispose()
    summary = (
        f"demo: {mails_in} mails in, {replies_out} replies out, {turns} turns{quiet}, game {game_id} {status}"
    )
    return DemoResult(summary, tuple(mailboxes), battles, seed, workdir / "letters", archive)
