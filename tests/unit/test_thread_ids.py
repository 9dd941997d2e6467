# SPDX-License-Identifier: GPL-3.0-or-later
"""A reply's In-Reply-To and References hold only well-formed msg-ids, written as they are."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime

import pytest

from mailbot.mail.compose import MAX_REFERENCES, Outgoing, compose, thread_ids, well_formed_msg_id
from mailbot.render.templates import Rendered

GOOD = [
    "a@b",
    "CAF=3Dx+y_z@mail.gmail.com",
    "20261123.1@[127.0.0.1]",
    "=?utf-8?q?x?=@evil",  # atext allows "=" and "?": an id, not an encoded word
    "a" * 200 + "@example.test",
]
BAD = [
    "x" * 5000 + "@players.test",  # hostile length
    "nul\x00here@players.test",
    "ünï@code",
    "a b@c",
    "(comment)@x",
    "no-at-sign",
    "two@@at",
    "dot.@end",
    "@x",
    "a@",
    "a@b\r\nBcc: victim@x",
    "",
]


@pytest.mark.parametrize("value", GOOD)
def test_well_formed_ids_are_kept(value: str) -> None:
    assert well_formed_msg_id(value)


@pytest.mark.parametrize("value", BAD)
def test_malformed_ids_are_dropped(value: str) -> None:
    assert not well_formed_msg_id(value)
    assert thread_ids(value, (value, "old@x")) == (None, ["old@x"])


def test_references_keep_the_first_and_the_latest() -> None:
    refs = [f"r{n}@x" for n in range(100)]
    parent, kept = thread_ids("parent@x", refs)
    assert parent == "parent@x"
    assert kept == ["r0@x", *refs[-(MAX_REFERENCES - 2) :], "parent@x"]


def _reply(in_reply_to: str, references: tuple[str, ...] = ()) -> bytes:
    return compose(
        Outgoing(
            sender="bot@example.test",
            sender_name="mailbot",
            recipient="north@example.test",
            subject="Re: x",
            body=Rendered("text", "<p>text</p>"),
            message_id="m1@example.test",
            date=datetime(2026, 11, 23, tzinfo=UTC),
            in_reply_to=in_reply_to,
            references=references,
            is_reply=True,
        )
    )


def _head(raw: bytes) -> bytes:
    return raw.partition(b"\r\n\r\n")[0]


@pytest.mark.parametrize("hostile", BAD)
def test_a_hostile_message_id_leaves_no_threading_header(hostile: str) -> None:
    head = _head(_reply(hostile))
    assert b"In-Reply-To" not in head and b"References" not in head
    assert b"Auto-Submitted: auto-replied" in head  # still marked as an answer


@pytest.mark.parametrize("value", GOOD)
def test_a_good_id_is_written_as_it_is_and_reads_back(value: str) -> None:
    raw = _reply(value, ("first@players.test", "y" * 150 + "@players.test"))
    head = _head(raw)
    assert b"=?utf-8?" not in head.replace(b"<=?utf-8?q?x?=@evil>", b"")
    assert all(len(line) <= 998 for line in head.split(b"\r\n"))
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    assert "".join(str(msg["In-Reply-To"]).split()) == f"<{value}>"
    assert str(msg["References"]).split() == [
        "<first@players.test>",
        f"<{'y' * 150}@players.test>",
        f"<{value}>",
    ]


def test_short_ids_are_folded_at_78() -> None:
    refs = tuple(f"reference-number-{n}@players.example.test" for n in range(6))
    head = _head(_reply("parent@players.test", refs))
    assert all(len(line) <= 78 for line in head.split(b"\r\n"))
