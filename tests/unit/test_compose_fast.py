# SPDX-License-Identifier: GPL-3.0-or-later
"""Composing writes the bytes the e-mail library writes for the same message (boundaries aside).

The reference below is the library's own way (``EmailMessage`` with the SMTP policy), as
``compose`` was written before it learnt to write the common headers directly.
"""

from __future__ import annotations

import email
import email.policy
import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.mail.compose import (
    Attachment,
    Outgoing,
    _header,
    _inline_frame,
    _inline_head,
    _library_header,
    _library_inline_head,
    base64_lines,
    compose,
    encode_text,
    header_text,
    thread_ids,
)
from mailbot.render.templates import Rendered

BOUNDARY = re.compile(rb"={15}\d{19}==(?:\.\d+)?")


def reference(out: Outgoing) -> bytes:
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = Address(display_name=out.sender_name, addr_spec=out.sender)
    msg["To"] = out.recipient
    msg["Subject"] = header_text(out.subject)
    msg["Date"] = format_datetime(out.date)
    msg["Message-ID"] = f"<{out.message_id}>"
    msg["Auto-Submitted"] = "auto-replied" if out.is_reply or out.in_reply_to else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    # Which msg-ids are kept is tests/unit/test_thread_ids.py's; how they are written is the library's.
    parent, references = thread_ids(out.in_reply_to, out.references)
    if parent is not None:
        msg["In-Reply-To"] = f"<{parent}>"
    if references:
        msg["References"] = " ".join(f"<{ref}>" for ref in references)
    msg.set_content(out.body.text)
    msg.add_alternative(out.body.html, subtype="html")
    html = msg.get_body(preferencelist=("html",))
    assert html is not None
    for item in out.attachments:
        if item.content_id:  # shown in the HTML part: beside it, in a multipart/related
            html.add_related(
                item.content,
                maintype=item.maintype,
                subtype=item.subtype,
                cid=f"<{item.content_id}>",
                filename=item.filename,
                disposition="inline",
            )
    for item in out.attachments:
        if not item.content_id:
            msg.add_attachment(
                item.content, maintype=item.maintype, subtype=item.subtype, filename=item.filename
            )
    return msg.as_bytes()


def normalised(raw: bytes) -> bytes:
    """Boundaries numbered in order of appearance, so two random choices compare equal."""
    names: dict[bytes, bytes] = {}
    return BOUNDARY.sub(lambda m: names.setdefault(m.group(0), b"BOUNDARY-%d" % len(names)), raw)


SUBJECTS = [
    "Re: orders",
    "Re: [DU-3 abc123] orders for T1",
    "Re: orders für T1",
    "Re: " + "a very long subject " * 6,
    "Re: " + "überlang " * 12,
    "Re: =?utf-8?q?encoded?= word",
    "Re: two  spaces",
    " leading and trailing ",
    "",
    'Re: (comment) "quoted" \\ back; semi: colon, comma <angle> [square]',
    "Re: 日本語の件名",
    "Re: emoji 🎲 dice",
    "Re: tab\there",
    "x" * 75,
    "x" * 73,
    "[DU-12 Zn2a9J] Bench duel: Turn 1 of 3: orders (ATTACK and DEFEND) resolved",
    "[FT-7 Zn2a9J] Flat Top: " + "word " * 30,
    "Re: " + "y" * 72 + " tail",
    "Re: " + "z" * 73 + " tail",
    "Re: " + "w" * 80 + " and the rest",
    "Re: orders\u2028for T1",
]
NAMES = ["mailbot", "mailbot moderator", "Mäilbot", 'bot, the "moderator"', "the (bot)", ""]
RECIPIENTS = [
    "north@example.test",
    "North.Player@Example.Test",
    "o'neil@example.test",
    "a+b@x.test",
    '"quoted local"@example.test',
    "user@[127.0.0.1]",
    "dot..dot@example.test",
    "p@exämple.test",
]
# Well-formed msg-ids the library would encode (too long, or holding "=?") are test_thread_ids.py's.
REFERENCES = ["a@b", "ünï@code", "very-long-" * 6 + "@x", "(x)@y", "a b@c", "x\x00y@z", "<>@x"]
TEXTS = [
    "",
    "plain text\n",
    "no newline at the end",
    "line é\nzwei ü\n",
    "long " * 40 + "\n",
    ("long line with ünïcode " * 6 + "\n") * 12,
    "a\r\nb\rc\n",
    "trailing spaces   \n-- \nsig\n",
    "\u2028 and \x0c form feed\n",
    ("x" * 100 + "\n") * 3,
    "From the start\n.\n..dots\n",
    "\x00\x01 controls\n",
    "日本語 " * 40,
]


def outgoing(rng: random.Random, n: int) -> Outgoing:
    attachments = [
        Attachment("deadline.ics", b"BEGIN:VCALENDAR\r\n" * rng.randrange(0, 9), "text", "calendar"),
        Attachment(
            "map-north-turn3.png",
            bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))),
            "image",
            "png",
        ),
        Attachment(
            "a rather long file name for an attachment, with spaces and ü.zip", b"PK", "application", "zip"
        ),
        Attachment(
            "map-south-turn4.png",
            bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))),
            "image",
            "png",
            content_id=f"map-south-turn4.game{n}@mailbot",
        ),
    ]
    in_reply_to = rng.choice([None, None, "orig@players.test", *REFERENCES])
    return Outgoing(
        sender=rng.choice(["bot@example.test", "mailbot@games.example.org"]),
        sender_name=rng.choice(NAMES),
        recipient=rng.choice(RECIPIENTS),
        subject=rng.choice(SUBJECTS),
        body=Rendered(rng.choice(TEXTS), rng.choice(TEXTS)),
        message_id=f"{n:032x}@example.test",
        date=datetime(2026, 11, 23, 12, 30, tzinfo=UTC) + timedelta(days=rng.randrange(40), seconds=n),
        in_reply_to=in_reply_to,
        references=tuple(rng.sample(REFERENCES, rng.randrange(0, 4))),
        is_reply=rng.random() < 0.5,
        attachments=tuple(rng.sample(attachments, rng.choice([0, 0, 1, 2, 3]))),
    )


def corpus() -> Iterator[Outgoing]:
    rng = random.Random(12)
    for n in range(600):
        yield outgoing(rng, n)


@pytest.mark.parametrize("out", list(corpus()), ids=lambda o: o.message_id[-16:])
def test_the_bytes_are_the_librarys(out: Outgoing) -> None:
    assert normalised(compose(out)) == normalised(reference(out))


def test_every_header_and_body_reads_back() -> None:
    out = Outgoing(
        sender="bot@example.test",
        sender_name="Mäilbot moderator",
        recipient="north@example.test",
        subject="Re: Befehle für Zug 3 " + "und noch mehr " * 6,
        body=Rendered("Grüße\n" + "lang " * 30 + "\n", "<p>Grüße</p>\n"),
        message_id="m1@example.test",
        date=datetime(2026, 11, 23, 9, 5, tzinfo=timezone(timedelta(hours=1))),
        in_reply_to="orig@players.test",
        references=("older@players.test",),
        is_reply=True,
        attachments=(
            Attachment("deadline.ics", b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", "text", "calendar"),
        ),
    )
    raw = compose(out)
    assert all(len(line) <= 78 for line in raw.split(b"\r\n"))  # folded
    assert b"\n" not in raw.replace(b"\r\n", b"")  # CRLF only
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert str(msg["Subject"]) == out.subject
    assert b"=?utf-8?" in raw.partition(b"\r\n\r\n")[0]  # RFC 2047 for the non-ASCII words
    assert msg["From"].addresses[0].display_name == "Mäilbot moderator"
    assert msg["Date"].datetime == out.date
    assert msg["References"] == "<older@players.test> <orig@players.test>"
    text, html = (
        part.get_content().replace("\r\n", "\n")
        for part in msg.walk()
        if part.get_content_type() in ("text/plain", "text/html")
    )
    assert (text, html) == (out.body.text, out.body.html)
    (ics,) = (part for part in msg.walk() if part.get_filename() == "deadline.ics")
    assert ics.get_payload(decode=True) == b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"


@pytest.mark.parametrize(
    ("text", "cte"),
    [("ascii\n", "7bit"), ("é\n", "8bit"), ("x" * 79 + "\n", "quoted-printable"), ("日本" * 40, "base64")],
)
def test_the_transfer_encoding_is_the_librarys_choice(text: str, cte: str) -> None:
    assert encode_text(text)[0] == cte
    part = EmailMessage(policy=email.policy.SMTP)
    part.set_content(text)
    assert part["Content-Transfer-Encoding"] == cte


def _library_encoding(text: str) -> tuple[str, bytes]:
    """What ``set_content`` writes for ``text``: its transfer encoding and its body bytes."""
    part = EmailMessage(policy=email.policy.SMTP)
    part.set_content(text)
    _head, _, body = part.as_bytes().partition(b"\r\n\r\n")
    return str(part["Content-Transfer-Encoding"]), body


_CHARS = [*"ab =\t.<>\"'-;:", "é", "ü", "日", "\x0b", "\x85", "\u2028"]
_LINE = st.text(alphabet=st.sampled_from(_CHARS), max_size=200)


@given(st.lists(_LINE, min_size=1, max_size=25))
@settings(max_examples=300, deadline=None)
def test_every_body_is_encoded_as_the_library_encodes_it(lines: list[str]) -> None:
    """Lines quoted one by one (and kept) join into the library's body, soft breaks, trailing
    blanks, the quoted-printable or base64 choice and all."""
    text = "\n".join(lines) + "\n"
    assert encode_text(text) == _library_encoding(text)


@pytest.mark.parametrize("repeat", [1, 2])
def test_a_long_html_letter_is_quoted_as_the_library_quotes_it(repeat: int) -> None:
    rule = "body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica; margin: 0 } \n"
    html = "<style>\n" + rule * 12
    html += "<p>" + "word= " * 40 + "</p>\n" + "=" * 77 + "\n" + "x" * 76 + " \n"
    for _ in range(repeat):  # the second time from the kept lines
        assert encode_text(html) == _library_encoding(html)


def test_the_choice_counts_a_soft_break_as_the_library_does() -> None:
    """Near the line between quoted-printable and base64 (the library's sniff, with its soft
    breaks one character long, is 1 shorter than the base64: quoted-printable)."""
    text = "aaaa=aéaa=aaaaaaaaaaaaaaaaaaaaaéaéaaaaaaaaaaaaaaaaaaaaaé=aaaaa=aa=a=a=aaaaaaaaaaaaaa\n"
    assert encode_text(text) == _library_encoding(text)
    assert encode_text(text)[0] == "quoted-printable"


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_header_text_blanks_every_line_break_and_control_character(value: str) -> None:
    flat = " ".join(value.splitlines())
    expected = "".join(" " if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else ch for ch in flat)
    assert header_text(value) == expected


_WORD = st.text(alphabet=st.sampled_from([*"abcXYZ019", *"()<>@[]:;,.\"'!?-_=/"]), min_size=1, max_size=80)


@given(st.sampled_from(["Subject", "In-Reply-To", "References"]), st.lists(_WORD, min_size=1, max_size=30))
@settings(max_examples=500, deadline=None)
def test_a_long_header_of_plain_words_is_folded_as_the_library_folds_it(name: str, words: list[str]) -> None:
    """Written directly or by the library, whatever the lengths: a value that fits on a line of
    its own, a first word too long for the first line, a word too long for any line."""
    value = " ".join(words)
    assert _header(name, value) == _library_header(name, value)


_CID_TEXT = st.text(alphabet="abcXYZ019._@-", min_size=1, max_size=160)
_NAME_TEXT = st.text(alphabet="abcXYZ019._-", min_size=1, max_size=160)


@given(
    st.sampled_from([("image", "png"), ("image", "svg+xml"), ("application", "pdf")]), _CID_TEXT, _NAME_TEXT
)
@settings(max_examples=400, deadline=None)
def test_an_inline_parts_headers_are_the_librarys_for_any_id_and_name(
    kind: tuple[str, str], content_id: str, filename: str
) -> None:
    """A picture's part headers filled into a frame are the library's own, byte for byte: short
    values, values long enough to be folded or encoded, ids and names of dots and hyphens alone."""
    item = Attachment(filename, b"", kind[0], kind[1], content_id)
    assert _inline_head(item) == _library_inline_head(kind[0], kind[1], content_id, filename)


def test_a_maps_part_headers_come_from_a_frame_built_once() -> None:
    """Every hour's map of every game fills the same frame (it is built once for their shape)."""
    _inline_frame.cache_clear()
    for turn in range(10, 60):
        item = Attachment(
            f"map-allied-turn{turn}.png", b"", "image", "png", f"map-allied-turn{turn}.game7@mailbot"
        )
        assert _inline_head(item) == _library_inline_head("image", "png", item.content_id, item.filename)
    assert _inline_frame.cache_info().misses == 1


@given(st.binary(max_size=600))
@settings(max_examples=300, deadline=None)
def test_an_attachment_is_in_base64_as_the_library_writes_it(data: bytes) -> None:
    """Lines of 76 characters, the last one short, each ending in CRLF; nothing for no bytes:
    the body of the part ``add_attachment`` writes for the same bytes."""
    part = EmailMessage(policy=email.policy.SMTP)
    part.set_content(data, maintype="application", subtype="octet-stream")
    assert base64_lines(data) == part.as_bytes().partition(b"\r\n\r\n")[2]
