# SPDX-License-Identifier: GPL-3.0-or-later
"""The sender as mail clients show it (issue 30): the address in angle brackets wins.

``From: north@players.test <mallory@elsewhere.test>`` shows mallory in every
mail client; before issue 30 the bot read north and accepted the orders.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from mailbot.core.letter import RawMessage
from mailbot.services.inbox.intake import describe
from tests.services.game_helpers import Harness, tag_of, text, to
from tests.services.helpers import letter
from tests.services.test_reply_threads import NORTH, _orders, _started

MALLORY = "mallory@elsewhere.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


@pytest.mark.parametrize("name", [NORTH, f'"{NORTH}"', f"=?utf-8?q?{NORTH.replace('@', '=40')}?="])
def test_a_seat_address_as_display_name_is_not_the_seat(
    h: Harness, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, report = _started(h)
    with caplog.at_level(logging.WARNING, logger="mailbot.mail.mime"):
        sent = h.mail(f"{name} <{MALLORY}>", f"{tag_of(report)} orders", "ORDERS\nATTACK 3\nDEFEND 0\nEND\n")
    assert _orders(h, game_id, "north") is None
    # The seat's own address is told that someone else wrote for it (the Gatekeeper's refusal).
    assert all("Orders accepted" not in text(m) and MALLORY in text(m) for m in to(sent, NORTH))
    (answer,) = to(sent, MALLORY)
    assert "Orders accepted" not in text(answer) and "ATTACK" not in text(answer)
    assert any("suspicious From" in record.getMessage() for record in caplog.records)


def test_intake_keys_the_letter_by_the_same_address() -> None:
    raw = letter(sender=f"{NORTH} <{MALLORY}>", subject="PING")
    item = describe(RawMessage(uid=1, raw=raw, received_at=datetime(2026, 11, 21, tzinfo=UTC)))
    assert item.sender == MALLORY
