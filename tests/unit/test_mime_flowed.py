# SPDX-License-Identifier: GPL-3.0-or-later
"""RFC 3676 format=flowed text, as a player's mail client may send it: a line ending in a space
goes on in the next one; ``DelSp=yes`` drops that space; quoted lines flow only within their
quote depth; the signature separator ``-- `` never flows; a space-stuffed line loses its stuffing."""

from __future__ import annotations

import pytest

from mailbot.mail.mime import parse_letter


def letter(body: str, params: str = "; format=flowed") -> bytes:
    head = (
        "From: player@example.org\r\nTo: bot@example.org\r\nSubject: orders\r\n"
        "Message-ID: <1@example.org>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset=utf-8{params}\r\n\r\n"
    )
    return (head + body.replace("\n", "\r\n")).encode()


@pytest.mark.parametrize(
    ("body", "params", "text"),
    [
        ("ORDERS \nSEARCH AF1 \nI-G17\nEND\n", "; format=flowed", "ORDERS SEARCH AF1 I-G17\nEND"),
        ("ORDERS \nSEARCH\n", "; format=flowed; delsp=yes", "ORDERSSEARCH"),
        ("ORDERS \nSEARCH\n", "", "ORDERS \nSEARCH"),  # fixed text: the space stays, no join
        ("> we sail \n> at dawn\nno \n> quoted\n", "; format=flowed", "> we sail at dawn\nno \n> quoted"),
        ("thanks \n-- \nAdmiral\n", "; format=flowed", "thanks -- \nAdmiral"),
        ("-- \nAdmiral\n", "; format=flowed", "-- \nAdmiral"),  # the separator stays whole
        (" From the bridge\n  two spaces\n", "; format=flowed", "From the bridge\n two spaces"),
        ("last line flows \n", "; format=flowed", "last line flows"),
    ],
)
def test_flowed_lines_are_joined_as_rfc_3676_says(body: str, params: str, text: str) -> None:
    assert parse_letter(letter(body, params)).body_text == text
