# SPDX-License-Identifier: GPL-3.0-or-later
"""A game by mail end to end on the real servers (Dovecot IMAPS + SMTP), with injected time.

The GM creates a game, one player is invited, the other joins by mail, one
sends orders with an error and then a correction, the other sends nothing;
the deadline passes (the clock is moved, not waited for); reports arrive and
the late player's defaults are applied and named.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import SecretStr
from sqlmodel import Session

from mailbot.app import Bot
from mailbot.services.base import queries
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, ImapSettings, Settings, SmtpSettings, StoreSettings
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import parse, ping, text_of
from tests.services.helpers import Clock


def _settings(rig: MailRig, bot: str, gm: str, workdir: Path) -> Settings:
    pw = SecretStr(rig.player_password)
    return Settings(
        imap=ImapSettings(host=rig.host, port=rig.imaps_port, cafile=rig.cafile, user=bot, password=pw),
        smtp=SmtpSettings(host=rig.host, port=rig.smtp_port, cafile=rig.cafile, user=bot, password=pw),
        store=StoreSettings(url=f"sqlite:///{workdir}/game.db"),
        bot=BotSettings(address=bot, name="mailbot e2e", gm_address=gm),
    )


def _bot(rig: MailRig, address: str, gm: str, workdir: Path) -> tuple[Bot, Clock]:
    """A bot on the rig with an injected clock. The real mail server stamps each letter with real
    time (INTERNALDATE), and a letter that reached it after the deadline is late: the injected
    clock starts at the server's now."""
    clock = Clock()
    clock.now = datetime.now(UTC)
    bot = Bot(_settings(rig, address, gm, workdir), clock=clock)
    bot.upgrade()
    bot.started_at = clock.now
    return bot, clock


async def _cycle(bot: Bot) -> None:
    """One pass of what the running service does: read the mailbox, handle, tick, send."""
    from mailbot.connect import imap_config
    from mailbot.mail.imap import ImapSource

    source = ImapSource(imap_config(bot.settings))
    uidvalidity = await source.connect()
    try:
        await bot.intake.poll(source, uidvalidity)
    finally:
        await source.close()
    bot.processor.process_pending()
    bot.tick_once()
    await bot.outbox.send_due()


async def _letter(rig: MailRig, bot: Bot, address: str, subject: str, body: str) -> None:
    await rig.send(ping(address, bot.settings.bot.address, subject=subject, body=body))


async def test_a_game_by_mail_from_invitation_to_a_deadline_with_a_late_player(
    mail_rig: MailRig, tmp_path: Path
) -> None:
    bot_address, gm, alice, bob = (mail_rig.new_address() for _ in range(4))
    bot, clock = _bot(mail_rig, bot_address, gm, tmp_path)
    with Session(bot.engine) as session, session.begin():
        game = bot.games.create(
            session,
            GameSetup("duel", "standard", "E2E duel", "48h", "Europe/Berlin", gm, options={"turns": 2}),
        )
        game_id = int(game.id or 0)
        north = queries.seat(session, game_id, "north")
        south = queries.seat(session, game_id, "south")
        assert north is not None and south is not None
        bot.games.take_seat(session, game, north, alice)
        code = south.invite_code
    await bot.outbox.send_due()

    await _letter(mail_rig, bot, bob, "joining", f"JOIN {game_id} south {code}\n")
    await _cycle(bot)
    (alice_welcome,) = [m for m in await _mails(mail_rig, alice) if "Welcome" in m["Subject"]]
    alice_tag = re.search(r"\[DU-\d+ \w+\]", alice_welcome["Subject"]).group(0)  # type: ignore[union-attr]
    bob_mails = await _mails(mail_rig, bob)
    assert any("the game begins" in m["Subject"] for m in bob_mails)

    await _letter(mail_rig, bot, alice, f"Re: {alice_tag} orders", "ORDERS\nATTACK 5\nEND\n")
    await _cycle(bot)
    await _letter(mail_rig, bot, alice, f"Re: {alice_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    await _cycle(bot)
    replies = [m for m in await _mails(mail_rig, alice) if m["Subject"].startswith("Re:")]
    assert "ATTACK is 1 to 3 dice" in text_of(replies[0].as_bytes())
    assert "Orders accepted" in text_of(replies[1].as_bytes())

    clock.advance(49 * 3600)  # the deadline passes: bob sent nothing
    await _cycle(bot)
    resolved = [m for m in await _mails(mail_rig, bob) if "resolved" in m["Subject"]]
    assert resolved, "bob got no report"
    assert "ATTACK 1, DEFEND 2" in text_of(resolved[0].as_bytes())  # bob's defaults, applied and named
    gm_mail = await _mails(mail_rig, gm)
    assert any("late list" in m["Subject"] and "south" in text_of(m.as_bytes()) for m in gm_mail)
    await bot.outbox.sink.close()
    bot.engine.dispose()


def _secret(bot: Bot, game_id: int, name: str) -> str:
    with Session(bot.engine) as session:
        seat = queries.seat(session, game_id, name)
        assert seat is not None
        return seat.secret


async def _mails(rig: MailRig, address: str) -> list:  # type: ignore[type-arg]
    await asyncio.sleep(0)
    return [parse(raw) for raw in await rig.fetch_all(address, rig.player_password)]


async def test_an_observer_by_mail_on_the_real_servers(mail_rig: MailRig, tmp_path: Path) -> None:
    """OBSERVE and UNOBSERVE through Dovecot and SMTP (issue 33): LIST names the game, the observer
    gets the public letter of a step and press to ALL, never a report; his orders are refused."""
    bot_address, gm, alice, bob, watcher = (mail_rig.new_address() for _ in range(5))
    bot, clock = _bot(mail_rig, bot_address, gm, tmp_path)
    with Session(bot.engine) as session, session.begin():
        game = bot.games.create(session, GameSetup("duel", "standard", "Watched duel", "48h", "UTC", gm))
        game_id = int(game.id or 0)
        for name, address in (("north", alice), ("south", bob)):
            seat = queries.seat(session, game_id, name)
            assert seat is not None
            bot.games.take_seat(session, game, seat, address)
        alice_secret = queries.seat(session, game_id, "north").secret  # type: ignore[union-attr]
    await bot.outbox.send_due()

    await _letter(mail_rig, bot, watcher, "what is on", "LIST\n")
    await _cycle(bot)
    await _letter(mail_rig, bot, watcher, "watch", f"OBSERVE DU-{game_id}\n")
    await _cycle(bot)
    await _letter(
        mail_rig, bot, alice, f"[DU-{game_id} {alice_secret}] hello", "PRESS ALL\nMeet at dawn.\nEND\n"
    )
    await _cycle(bot)
    await _letter(mail_rig, bot, watcher, f"Re: [DU-{game_id}] x", "ORDERS\nATTACK 3\nEND\n")
    await _cycle(bot)
    bob_secret = _secret(bot, game_id, "south")
    for address, secret in ((alice, alice_secret), (bob, bob_secret)):
        await _letter(mail_rig, bot, address, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nEND\n")
    await _cycle(bot)
    clock.advance(6 * 60)  # every order is in: the step is processed early
    await _cycle(bot)
    await _letter(mail_rig, bot, watcher, "stop", f"UNOBSERVE {game_id}\n")
    await _cycle(bot)
    got = await _mails(mail_rig, watcher)
    texts = {m["Subject"].strip(): text_of(m.as_bytes()) for m in got}
    listed = next(t for s, t in texts.items() if "what is on" in s)
    assert f"{game_id} (DU-{game_id}) Watched duel" in listed and "OBSERVE <game>" in listed
    assert any("You now observe Watched duel" in t for t in texts.values())
    assert any("Press from north to all" in s and "Meet at dawn." in t for s, t in texts.items())
    refused = texts[f"Re: [DU-{game_id}] x"]
    assert "observers only read: orders from an observer are refused" in refused
    public = [t for s, t in texts.items() if "resolved (observer)" in s]
    assert public and "report for observers" in public[0] and alice_secret not in public[0]
    assert any("no longer observe" in t for t in texts.values())
    assert not any("report for north" in t or "report for south" in t for t in texts.values())
    await bot.outbox.sink.close()
    bot.engine.dispose()
