# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's mailboxes (``demo/keep.py``): each letter's own bytes behind its "From " line, the
same file the standard library writes from the letter parsed as an ``mboxMessage``."""

from __future__ import annotations

import email.utils
import mailbox
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from mailbot.demo import keep


def _letter(body: str, *, sender: str = "Mailbot <bot@demo.localhost>", dated: bool = True) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "player1@demo.localhost", "[DU-1 Ab3xYz] Turn 1"
    if dated:
        msg["Date"] = email.utils.format_datetime(datetime(2026, 11, 30, 21, 37, 53, tzinfo=UTC))
    msg.set_content(body)
    msg.add_alternative(f"<p>{body}</p>", subtype="html")
    msg.add_attachment(bytes(range(256)) * 40, maintype="image", subtype="png", filename="map.png")
    return msg.as_bytes().replace(b"\n", b"\r\n")  # as the server hands a letter out


def _as_parsed(path: Path, mails: list[bytes]) -> None:
    """What the demo wrote before: each letter parsed into an ``mboxMessage``, its From line set."""
    box = mailbox.mbox(path, create=True)
    for raw in mails:
        message = mailbox.mboxMessage(raw.replace(b"\r\n", b"\n"))
        heads = keep.parse(raw, headers_only=True)
        sender = email.utils.parseaddr(str(heads.get("From", "")))[1] or "MAILER-DAEMON"
        message.set_from(sender, email.utils.parsedate_to_datetime(str(heads["Date"])).utctimetuple())
        box.add(message)
    box.close()


def test_a_mailbox_holds_each_letter_as_sent_and_as_the_library_writes_it(tmp_path: Path) -> None:
    mails = [
        _letter("Your orders for T1 are in.\nFrom now on the fleet sails north.\n"),
        _letter("From the south: nothing seen.\n>From a quoted line.\n", sender="player2@demo.localhost"),
    ]
    ours, library = tmp_path / "ours.mbox", tmp_path / "library.mbox"
    keep.write_mbox(ours, mails)
    _as_parsed(library, mails)
    assert ours.read_bytes() == library.read_bytes()
    written = ours.read_bytes()
    assert written.startswith(b"From bot@demo.localhost Mon Nov 30 21:37:53 2026\n")
    assert b"\n>From now on the fleet" in written and b"\r\n" not in written  # quoted, Unix line ends
    kept = mailbox.mbox(ours)
    try:
        stored = [raw.replace(b"\r\n", b"\n").replace(b"\nFrom ", b"\n>From ") for raw in mails]
        assert [kept.get_bytes(key) for key in kept.iterkeys()] == stored
        assert kept[1].get_from() == "player2@demo.localhost Mon Nov 30 21:37:53 2026"
    finally:
        kept.close()


def test_a_letter_without_a_sender_or_date_is_kept_as_the_mailer_daemons(tmp_path: Path) -> None:
    path = tmp_path / "odd.mbox"
    keep.write_mbox(path, [_letter("No date here.", sender="", dated=False)])
    assert path.read_bytes().startswith(b"From MAILER-DAEMON ")
    kept = mailbox.mbox(path)
    try:
        assert kept[0]["Subject"] == "[DU-1 Ab3xYz] Turn 1"
    finally:
        kept.close()
