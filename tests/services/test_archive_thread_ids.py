# SPDX-License-Identifier: GPL-3.0-or-later
"""A published archive cannot be used to speak for a seat (issue 31, item 4).

A reply naming a letter the bot sent to a seat's address counts like the seat's secret. An
archive (``mail.mbox``, its pages, a seat's own .zip) therefore shows a stand-in for each of the
bot's Message-IDs, never the id: an outsider who spoofs the seat's address and answers a letter
he read in a mid-game archive is a stranger; the seat's real reply still counts.
"""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.services.archive.archive import export
from tests.services.game_helpers import Harness, parse
from tests.services.test_games_by_mail import NORTH, _started
from tests.services.test_reply_threads import _orders, _reply


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/t.db")
    yield harness
    harness.bot.engine.dispose()


def test_a_reply_to_a_letter_read_in_a_mid_game_archive_does_not_count(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    with Session(h.bot.engine) as session:
        export(session, game_id, tmp_path / "mid")
    sent_ids = {parse(s.raw)["Message-ID"] for s in h.sink.sent}
    published = b"".join(f.read_bytes() for f in (tmp_path / "mid").rglob("*") if f.is_file())
    assert not [i for i in sent_ids if i.strip("<>").encode() in published]
    box = mailbox.mbox(tmp_path / "mid" / "mail.mbox", create=False)
    seen = [parse(box.get_bytes(key)) for key in box.iterkeys()]
    box.close()
    to_north = [m for m in seen if m["To"] == NORTH and "the game begins" in str(m["Subject"])]
    assert to_north and to_north[0]["Message-ID"].endswith("@archived.invalid>")
    # The outsider: north's address as a spoofed From, in the thread the archive shows.
    _reply(h, NORTH, to_north[0], "ORDERS\nATTACK 3\nEND\n")
    assert _orders(h, game_id, "north") == ["ATTACK 2", "DEFEND 1"]
    # The seat itself, answering the letter it was sent: its thread still counts.
    real = next(parse(s.raw) for s in h.sink.sent if s.recipient == NORTH and b"the game begins" in s.raw)
    _reply(h, NORTH, real, "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    assert _orders(h, game_id, "north") == ["ATTACK 1", "DEFEND 2"]
