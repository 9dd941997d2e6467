# SPDX-License-Identifier: GPL-3.0-or-later
"""verify.py reads the archive's mbox with the compat32 policy (its headers kept as text) and
finds a letter's text with ``pages.plain_body``; it must find the same text the standard
library's ``get_body(("plain",))`` and ``get_content()`` find under the default policy, for any
shape of letter, not only the moderator's."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.verifier.pages import decoded_header, letter_text

TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)
CHARSETS = st.sampled_from(["utf-8", "iso-8859-1", "us-ascii"])
SUBJECTS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=60)
ENCODINGS = st.sampled_from(["7bit", "quoted-printable", "base64"])


@st.composite
def leaves(draw: st.DrawFn) -> EmailMessage:
    part = EmailMessage()
    kind = draw(st.sampled_from(["plain", "html", "png", "plain attached", "plain inline"]))
    if kind == "png":
        part.set_content(draw(st.binary(max_size=40)), "image", "png", filename="map.png")
        return part
    charset = draw(CHARSETS)
    text = draw(TEXTS).encode(charset, "replace").decode(charset)
    encoding = draw(ENCODINGS)
    if encoding == "7bit" and not text.isascii():
        encoding = "quoted-printable"
    subtype = "html" if kind == "html" else "plain"
    part.set_content(text, subtype=subtype, charset=charset, cte=encoding)
    if kind == "plain attached":
        part.add_header("Content-Disposition", "attachment", filename="notes.txt")
    elif kind == "plain inline":
        part.add_header("Content-Disposition", "inline")
    return part


def multiparts(children: st.SearchStrategy[EmailMessage]) -> st.SearchStrategy[EmailMessage]:
    @st.composite
    def build(draw: st.DrawFn) -> EmailMessage:
        subtype = draw(st.sampled_from(["mixed", "alternative", "related"]))
        outer = EmailMessage()
        outer.set_type(f"multipart/{subtype}")
        parts = draw(st.lists(children, min_size=1, max_size=3))
        for number, part in enumerate(parts):
            part["Content-ID"] = f"<part{number}@test>"
            outer.attach(part)
        if subtype == "related" and draw(st.booleans()):
            outer.set_param("start", f"<part{len(parts) - 1}@test>")
        return outer

    return build()


LETTERS = st.recursive(leaves(), multiparts, max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(letter=LETTERS, subject=SUBJECTS)
def test_compat32_reading_finds_the_text_the_default_policy_finds(letter: EmailMessage, subject: str) -> None:
    letter["Subject"] = subject
    raw = letter.as_bytes(policy=email.policy.SMTP)
    default = email.message_from_bytes(raw, policy=email.policy.default)
    compat = email.message_from_bytes(raw, policy=email.policy.compat32)
    assert not isinstance(compat, EmailMessage)
    assert letter_text(compat) == letter_text(default)
    assert decoded_header(compat, "Subject") == str(default["Subject"])


def test_a_text_letter_without_a_charset_is_read_as_ascii_as_the_library_reads_it() -> None:
    raw = b"Subject: x\r\nContent-Type: text/plain\r\n\r\ncaf\xc3\xa9 Game log chain head: ab\r\n"
    default = email.message_from_bytes(raw, policy=email.policy.default)
    compat = email.message_from_bytes(raw, policy=email.policy.compat32)
    assert letter_text(compat) == letter_text(default) == "caf\ufffd\ufffd Game log chain head: ab\r\n"


def _related(start: str | None) -> bytes:
    outer = EmailMessage()
    outer.set_type("multipart/related")
    for number, (text, subtype) in enumerate((("<p>map</p>", "html"), ("the report", "plain"))):
        part = EmailMessage()
        part.set_content(text, subtype=subtype)
        part["Content-ID"] = f"<part{number}@test>"
        outer.attach(part)
    if start:
        outer.set_param("start", start)
    return outer.as_bytes(policy=email.policy.SMTP)


def test_a_related_letter_offers_only_its_root_part_as_the_library_does() -> None:
    for start, text in ((None, ""), ("<part1@test>", "the report\r\n"), ("<part0@test>", "")):
        raw = _related(start)
        default = email.message_from_bytes(raw, policy=email.policy.default)
        compat = email.message_from_bytes(raw, policy=email.policy.compat32)
        assert letter_text(compat) == letter_text(default) == text, start


def test_a_subject_that_does_not_decode_is_shown_as_written() -> None:
    for subject in ("=?x-unknown?q?orders?=", "=?utf-8?b?w?= T1"):
        raw = f"Subject: {subject}\r\nContent-Type: text/plain\r\n\r\nbody\r\n".encode()
        compat = email.message_from_bytes(raw, policy=email.policy.compat32)
        assert decoded_header(compat, "Subject") == subject
    raw = b"Subject: =?utf-8?q?J=C3=BCrgen?= sails\r\n\r\nbody\r\n"
    compat = email.message_from_bytes(raw, policy=email.policy.compat32)
    assert decoded_header(compat, "Subject") == "Jürgen sails"
