# SPDX-License-Identifier: GPL-3.0-or-later
"""Hostile header values cost bounded work (``mime.MAX_PARSED_HEADER``) and never raise.

The e-mail library's structured parsers cost about 10 us a character: a From of 20,000 addresses
took 3.7 s of CPU, a Subject of 15,000 encoded words 1.4 s, and comments nested 20,000 deep raised
RecursionError out of ``parse_letter``. What each is read as is checked here, not how long it takes.
"""

from __future__ import annotations

import pytest

from mailbot.mail.mime import MAX_PARSED_HEADER, parse_letter, read_sender

ADDRESSES = ", ".join(f"a{n}@players.test" for n in range(20_000))


def _letter(*headers: str) -> bytes:
    return ("\r\n".join(headers) + "\r\n\r\nPING\r\n").encode()


@pytest.mark.parametrize("name", ["From", "Sender"])
def test_a_sender_header_of_thousands_of_addresses_names_no_sender(name: str) -> None:
    head = f"{name}: {ADDRESSES}" if name == "From" else f"From: (nobody)\r\nSender: {ADDRESSES}"
    assert parse_letter(_letter(head)).sender == ""  # nobody to answer
    assert read_sender("a0@players.test, a1@players.test, a2@players.test") == ("", "a0@players.test")


def test_a_long_sender_in_a_plain_form_is_still_read() -> None:
    words = " ".join(["Admiral"] * 600)  # 4,800 characters of name
    assert len(words) > MAX_PARSED_HEADER
    letter = parse_letter(_letter(f"From: {words} <nagumo@kido-butai.test>"))
    assert (letter.sender, letter.sender_name) == ("nagumo@kido-butai.test", words)
    named = parse_letter(_letter(f"From: {words} alice@players.test <mallory@elsewhere.test>"))
    assert named.sender == "mallory@elsewhere.test"  # a name holding an address is still no address


@pytest.mark.parametrize("depth", [600, 20_000])
def test_comments_nested_past_the_stack_name_no_sender_and_raise_nothing(depth: int) -> None:
    letter = parse_letter(_letter("From: alice@players.test " + "(x" * depth + ")" * depth))
    assert letter.sender == ""
    assert letter.body_text.strip() == "PING"


def test_a_long_subject_is_cut_at_a_space_before_it_is_decoded() -> None:
    encoded = " ".join(["=?utf-8?q?a?="] * 15_000)
    subject = parse_letter(_letter("From: alice@players.test", f"Subject: {encoded}")).subject
    words = encoded[: encoded.rfind(" ", 0, MAX_PARSED_HEADER)].count("=?utf-8?q?a?=")
    assert subject == "a" * words  # adjacent encoded words join without their spaces (RFC 2047)
    plain = " ".join(["orders"] * 1_000)
    cut = parse_letter(_letter("From: alice@players.test", f"Subject: [DU-1 Ab3xYz] {plain}")).subject
    assert cut.startswith("[DU-1 Ab3xYz] orders orders") and len(cut) <= MAX_PARSED_HEADER
    assert not cut.endswith(" ") and cut.split()[-1] == "orders"


def test_a_name_of_thousands_of_at_signs_is_read_in_one_pass() -> None:
    """The name-then-bracket form's pattern backtracked over every "@" (16,000 took 6.9 s)."""
    ats = "a@" * 100_000
    assert parse_letter(_letter(f"From: {ats}")).sender == ""
    assert read_sender(f"{ats} <mallory@elsewhere.test>") == (ats, "mallory@elsewhere.test")
    assert read_sender("alice@players.test <mallory@elsewhere.test>") == ("", "mallory@elsewhere.test")
