# SPDX-License-Identifier: GPL-3.0-or-later
"""A real ``mailbot run`` (Dovecot, the SMTP server, SQLite) answers unreadable letters once.

A letter nested 2,000 MIME levels deep gets one line back, and not another after a restart;
the same letter marked as an auto-reply gets nothing; bytes without a header are shunted; a
PING with a hostile Message-ID is answered without an encoded word in In-Reply-To.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot.services.inbox.answers import UNREADABLE_LINE
from mailbot.store.models import InboundState
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import BotProcess, parse, ping, text_of, wait_until
from tests.e2e.test_fuzzed_letters import multiappend


def nested(sender: str, depth: int, head: str = "") -> bytes:
    top = f"From: {sender}\r\nSubject: deep\r\nMessage-ID: <deep-{sender}>\r\n{head}"
    opening = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n) for n in range(depth)
    )
    closing = b"".join(b"\r\n--b%d--\r\n" % n for n in reversed(range(depth)))
    return top.encode() + opening + b"Content-Type: text/plain\r\n\r\nPING" + closing


def hostile_ping(sender: str, message_id: bytes) -> bytes:
    return b"From: %s\r\nSubject: PING\r\nMessage-ID: %s\r\n\r\nPING\r\n" % (sender.encode(), message_id)


@pytest.fixture
def bot(mail_rig: MailRig, tmp_path: Path) -> Iterator[BotProcess]:
    proc = BotProcess(mail_rig, tmp_path)
    yield proc
    proc.stop()


def _handled(bot: BotProcess, count: int) -> bool:
    inbound, _ = bot.rows()
    return len(inbound) == count and all(row.state is not InboundState.NEW for row in inbound)


@pytest.mark.slow
async def test_unreadable_letters_are_answered_once_over_real_mail(
    mail_rig: MailRig, bot: BotProcess
) -> None:
    deep, machine, long_id, nul_id = (mail_rig.new_address() for _ in range(4))
    letters = [
        nested(deep, 2000),
        nested(machine, 2000, "Auto-Submitted: auto-replied\r\n"),
        b"17 \x00\xff no header at all\r\n",
        hostile_ping(long_id, b"<" + b"x" * 5000 + b"@players.test>"),
        hostile_ping(nul_id, b"<nul\x00here\xff@players.test>"),
    ]
    bot.start()
    await multiappend(mail_rig, bot.address, letters)
    await wait_until(lambda: _handled(bot, len(letters)), timeout=60, what="every letter handled")

    (answer,) = await mail_rig.wait_for_mail(deep, mail_rig.player_password, timeout=30)
    assert UNREADABLE_LINE in text_of(answer)
    assert parse(answer)["In-Reply-To"] == f"<deep-{deep}>"
    for player in (long_id, nul_id):
        (reply,) = await mail_rig.wait_for_mail(player, mail_rig.player_password, timeout=30)
        head = reply.partition(b"\r\n\r\n")[0]
        assert b"In-Reply-To" not in head and b"=?" not in head
        assert "PING: how your letter was read" in text_of(reply)
    inbound, outbound = bot.rows()
    states = [row.state for row in inbound]
    assert states.count(InboundState.SHUNTED) == 1 and states.count(InboundState.IGNORED) == 1
    assert len(outbound) == 3

    # After a restart, the unreadable letter is not answered again: a new PING is the next letter.
    bot.stop()
    bot.start()
    original = ping(deep, bot.address)
    await mail_rig.send(original)
    first, second = await mail_rig.wait_for_mail(deep, mail_rig.player_password, count=2, timeout=60)
    assert first == answer and parse(second)["In-Reply-To"] == original["Message-ID"]
    assert len(await mail_rig.fetch_all(machine, mail_rig.player_password)) == 0
    assert len(bot.rows()[1]) == 4
