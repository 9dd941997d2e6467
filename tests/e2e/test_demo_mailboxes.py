# SPDX-License-Identifier: GPL-3.0-or-later
"""`mailbot demo --workdir DIR` keeps every mailbox of its mail server as DIR/mail/<address>.mbox."""

from __future__ import annotations

import mailbox
import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailbot.demo.run import BOT, GM, play_demo
from tests.demo_plays import DemoPlays
from tests.services.test_signatures import signature_counts

SUMMARY = re.compile(r"demo: (\d+) mails in, (\d+) replies out, \d+ turns, game \d+ \w+")


def letters(path: Path) -> list[mailbox.mboxMessage]:
    box = mailbox.mbox(path, create=False)
    try:
        return list(box)
    finally:
        box.close()


def test_the_demo_command_prints_where_each_mailbox_is_kept(demo_plays: DemoPlays) -> None:
    done = demo_plays("duel")
    assert SUMMARY.fullmatch(done.stdout.splitlines()[0]), done.stdout  # the first line stays the summary
    kept = re.findall(r"^(\S+\.mbox): (\d+) letters \(read with: mutt -f (\S+)\)$", done.stderr, re.M)
    assert {Path(path).name for path, _, _ in kept} >= {f"{BOT}.mbox", f"{GM}.mbox"}
    for path, count, hint in kept:
        assert path == hint and Path(path).parent == done.work / "mail"
        assert len(letters(Path(path))) == int(count)


def test_the_mbox_files_hold_every_letter_in_and_out(demo_plays: DemoPlays) -> None:
    played = demo_plays("duel")
    result, tmp_path = played.result, played.work
    found = SUMMARY.fullmatch(result.summary)
    assert found, result.summary
    mails_in, replies_out = int(found.group(1)), int(found.group(2))
    by_address = {kept.address: kept for kept in result.mailboxes}
    assert by_address[BOT].path == tmp_path / "mail" / f"{BOT}.mbox"
    bot_box = letters(by_address[BOT].path)
    assert len(bot_box) == by_address[BOT].letters == mails_in  # every letter the players sent
    players = [kept for address, kept in by_address.items() if address not in (BOT, GM)]
    assert len(players) >= 2
    received = [message for kept in players for message in letters(kept.path)]
    assert sum(kept.letters for kept in players) == len(received)
    # every reply the bot sent went to a player or the GM
    assert len(received) + len(letters(by_address[GM].path)) == replies_out
    for message in received:
        parsed = message_from_bytes(bytes(message), policy=policy.default)
        assert parsed["From"].addresses[0].addr_spec == BOT
        assert message.get_from().startswith(BOT)
        assert parsed.get_body(preferencelist=("plain",)) is not None
        assert b"\r\n" not in bytes(message)


@pytest.mark.parametrize("game", ["duel", "flattop"])
def test_every_letter_the_demo_bot_sent_is_signed_once(demo_plays: DemoPlays, game: str) -> None:
    """Each letter in every mailbox of a played demo, as its reader got it: one signature (sig
    dashes) in its text, "the game moderator" once in its HTML part."""
    played = demo_plays(game)
    boxes = [kept for kept in played.result.mailboxes if kept.address != BOT]
    twice = []
    for kept in boxes:
        for message in letters(kept.path):
            parsed = message_from_bytes(bytes(message), policy=policy.default)
            assert isinstance(parsed, EmailMessage)
            if signature_counts(parsed) != (1, 1):
                twice.append((kept.address, parsed["Subject"], signature_counts(parsed)))
    assert boxes and not twice, twice


async def test_an_old_mbox_in_the_workdir_is_replaced_not_appended_to(tmp_path: Path) -> None:
    old = tmp_path / "mail" / f"{BOT}.mbox"
    old.parent.mkdir()
    old.write_text("From someone Mon Jan  1 00:00:00 2024\nSubject: stale\n\nold letter\n")
    result = await play_demo(workdir=tmp_path)
    (kept,) = [k for k in result.mailboxes if k.address == BOT]
    subjects = [message["Subject"] for message in letters(old)]
    assert kept.path == old and len(subjects) == kept.letters and "stale" not in subjects
