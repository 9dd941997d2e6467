# SPDX-License-Identifier: GPL-3.0-or-later
"""A subject with characters the e-mail library takes for line breaks still gets a reply."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime

import pytest

from mailbot.mail.compose import Outgoing, compose, reply_subject
from mailbot.render.templates import Rendered


@pytest.mark.parametrize(
    "odd", ["\u2028", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2029", "\x00", "\r\n"]
)
def test_a_subject_with_line_breaking_characters_composes(odd: str) -> None:
    subject = reply_subject(f"orders{odd}for T1")
    raw = compose(
        Outgoing(
            sender="bot@example.test",
            sender_name="mailbot",
            recipient="north@example.test",
            subject=subject,
            body=Rendered("text", "<p>text</p>"),
            message_id="m1@example.test",
            date=datetime(2026, 11, 23, tzinfo=UTC),
        )
    )
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    assert str(parsed["Subject"]).split() == ["Re:", "orders", "for", "T1"]
