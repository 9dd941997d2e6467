# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading aioimaplib's FETCH answer shape (design/mail.md §4.2 item 5)."""

from __future__ import annotations

from datetime import UTC, datetime

from mailbot.mail.imap import parse_fetch, uid_ranges


def test_uid_ranges_are_compact() -> None:
    assert uid_ranges([7, 1, 2, 3, 9, 10]) == "1:3,7,9:10"
    assert uid_ranges([5]) == "5"


def test_literal_with_uid_and_date_before_it() -> None:
    lines = [
        b'1 FETCH (UID 11 INTERNALDATE "21-Nov-2026 17:44:01 +0100" BODY[] {5}',
        bytearray(b"hello"),
        b")",
        b'2 FETCH (UID 12 INTERNALDATE "01-Jan-2026 00:00:00 +0000" BODY[] {3}',
        bytearray(b"abc"),
        b")",
        b"Fetch completed (0.001 + 0.000 secs).",
    ]
    first, second = parse_fetch(lines)
    assert (first.uid, first.raw) == (11, b"hello")
    assert first.received_at == datetime(2026, 11, 21, 16, 44, 1, tzinfo=UTC)
    assert (second.uid, second.raw) == (12, b"abc")


def test_items_after_the_literal_are_read_too() -> None:
    lines = [
        b"1 FETCH (BODY[] {2}",
        bytearray(b"hi"),
        b' UID 40 INTERNALDATE "02-Feb-2026 10:00:00 +0000" FLAGS (\\Seen))',
        b"Fetch completed.",
    ]
    (message,) = parse_fetch(lines)
    assert (message.uid, message.raw) == (40, b"hi")
    assert message.received_at == datetime(2026, 2, 2, 10, tzinfo=UTC)
