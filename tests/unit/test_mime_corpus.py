# SPDX-License-Identifier: GPL-3.0-or-later
"""Every real-world shaped message in tests/data/mail parses to its .json expectations."""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailbot.core.letter import Automatic, Letter
from mailbot.errors import MessageFormatError
from mailbot.mail import autoreply
from mailbot.mail.mime import parse_headers, parse_letter

CORPUS = Path(__file__).resolve().parents[1] / "data" / "mail"
MESSAGES = sorted(CORPUS.glob("*.eml"))
MIN_CORPUS_SIZE = 22


def _comparable(value: Any) -> Any:
    """A Letter field as it is written in the JSON expectations."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    return value


def test_corpus_is_complete() -> None:
    assert len(MESSAGES) >= MIN_CORPUS_SIZE
    for path in MESSAGES:
        assert path.with_suffix(".json").is_file(), f"{path.name} has no expectations"


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
def test_corpus_message(path: Path) -> None:
    expected = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    letter = parse_letter(path.read_bytes())
    actual = {name: _comparable(getattr(letter, name)) for name in expected}
    assert actual == expected


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
def test_command_text_never_holds_quoted_lines(path: Path) -> None:
    letter = parse_letter(path.read_bytes())
    assert not any(line.lstrip().startswith(">") for line in letter.command_text.splitlines())
    assert letter.command_text == letter.command_text.rstrip()
    assert "\r" not in letter.body_text


# --- size limits: the huge message is built here, not committed --------------------------------

TEMPLATE = CORPUS / "08_qp_utf8_umlauts.eml"


def _huge_message(target_bytes: int) -> bytes:
    head, _, _ = TEMPLATE.read_bytes().partition(b"\n\n")
    line = b"TF1 V-F22 V-F23 and a long explanation of why the fleet goes north\n"
    body = b"ORDERS\n" + line * (target_bytes // len(line) + 1)
    return head.replace(b"quoted-printable", b"8bit") + b"\n\n" + body


def test_huge_message_keeps_headers_but_no_body() -> None:
    raw = _huge_message(3_000_000)
    letter = parse_letter(raw)
    assert letter.too_large
    assert letter.body_text == ""
    assert letter.command_text == ""
    assert letter.sender == "juergen.mueller@web.example"
    assert letter.sender_name == "Jürgen Müller"
    assert letter.subject == "Befehle für Runde 5"
    assert letter.message_id == "trinity-1a2b3c4d-5e6f@web.example"
    assert letter.automatic is Automatic.NO


def test_max_bytes_is_a_strict_limit() -> None:
    raw = _huge_message(1_000)
    assert not parse_letter(raw, max_bytes=len(raw)).too_large
    assert parse_letter(raw, max_bytes=len(raw) - 1).too_large


def test_long_text_is_truncated_and_flagged() -> None:
    raw = _huge_message(50_000)
    letter = parse_letter(raw, max_text_chars=1_000)
    assert letter.too_large
    assert len(letter.body_text) == 1_000
    assert letter.command_text.startswith("ORDERS\nTF1 V-F22 V-F23")


def test_short_text_is_not_flagged() -> None:
    letter = parse_letter(TEMPLATE.read_bytes(), max_text_chars=1_000)
    assert not letter.too_large


# --- single shapes that are easier to state inline ------------------------------------------


def _letter(headers: str, body: str = "PING\n", *, charset: str = "utf-8") -> Letter:
    raw = f"{headers.strip()}\nContent-Type: text/plain; charset={charset}\n\n{body}"
    return parse_letter(raw.encode("utf-8"))


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ("From: a@example.org\nAuto-Submitted: no", Automatic.NO),
        ("From: a@example.org\nAuto-Submitted: auto-generated", Automatic.AUTO_SUBMITTED),
        ("From: a@example.org\nPrecedence: junk", Automatic.PRECEDENCE),
        ("From: a@example.org\nPrecedence: first-class", Automatic.NO),
        ("From: a@example.org\nList-Unsubscribe: <mailto:x@example.org>", Automatic.LIST),
        ("From: postmaster@example.org", Automatic.BOUNCE),
        ("From: a@example.org\nReturn-Path: <MAILER-DAEMON@example.org>", Automatic.BOUNCE),
        ("From: a@example.org\nReturn-Path: <MAILER-DAEMON>", Automatic.BOUNCE),
        ("From: a@example.org\nX-Autorespond: on", Automatic.VACATION),
        ("From: a@example.org\nX-Auto-Response-Suppress: DR, OOF, AutoReply", Automatic.VACATION),
        ("From: a@example.org\nX-Auto-Response-Suppress: DR, RN", Automatic.NO),
        ("From: a@example.org\nSubject: Automatic reply: Turn 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Auto: Turn 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Autoreply: Turn 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Abwesenheitsnotiz: Runde 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Vacation", Automatic.VACATION),
        # The moderator's own command in the subject is a player's letter.
        ("From: a@example.org\nSubject: VACATION 2026-12-03 2026-12-05 [FL-1 vXedaY]", Automatic.NO),
        ("From: a@example.org\nSubject: Re: vacation 2026-12-03 2026-12-05", Automatic.NO),
        ("From: a@example.org\nSubject: Re: out of office", Automatic.NO),
        ("From: a@example.org\nSubject: Automobile rules", Automatic.NO),
        # Issue 30: auto-replies real mailboxes sent without RFC 3834's header.
        ("From: a@example.org\nPrecedence: auto_reply", Automatic.VACATION),
        ("From: a@example.org\nX-Autogenerated: Reply", Automatic.VACATION),
        (
            "From: a@example.org\nX-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent",
            Automatic.AUTO_SUBMITTED,
        ),
        ("From: a@example.org\nX-FC-MachineGenerated: true", Automatic.AUTO_SUBMITTED),
        ("From: a@example.org\nX-FC-MachineGenerated: false", Automatic.NO),
        ("From: a@example.org\nSubject: Automatisch antwoord: [Game 7] Beurt 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Risposta automatica: [Game 7] Turno 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Respuesta automática: [Game 7] Turno 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: =?UTF-8?B?6Ieq5YuV5b+c562UOiBbR2FtZSA3XQ==?=", Automatic.VACATION),
        ("From: a@example.org\nSubject: 自動返信：[Game 7]", Automatic.VACATION),
        ("From: a@example.org\nSubject: AUTOMATISCHE ANTWORT [Game 7]", Automatic.VACATION),
        ("From: a@example.org\nSubject: Alice Smith is out of the office.", Automatic.VACATION),
        ("From: a@example.org\nSubject: Re: Risposta automatica", Automatic.NO),
        ("From: a@example.org\nSubject: Abwesend nächste Woche, bitte WAIT", Automatic.NO),
        ("From: a@example.org\nSubject: Autopilot orders", Automatic.NO),
        # Player trial: Dutch Outlook, French Domino, a mail gateway's tag in front.
        ("From: a@example.org\nSubject: Afwezigheidsmelding: [Game 7] Beurt 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: Absent(e) : [Game 7] Tour 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: [EXTERNAL] Automatic reply: [Game 7] Turn 5", Automatic.VACATION),
        ("From: a@example.org\nSubject: [External Email] Out of office", Automatic.VACATION),
        ("From: a@example.org\nSubject: [EXTERNAL] my orders for turn 5", Automatic.NO),
        ("From: a@example.org\nSubject: [DU-3 k7Q2] Vacation next week", Automatic.NO),
    ],
)
def test_automatic_detection(headers: str, expected: Automatic) -> None:
    assert _letter(headers).automatic is expected


def test_every_auto_reply_rule_names_its_source() -> None:
    data = tomllib.loads((Path(autoreply.__file__).parent / "data" / "auto-replies.toml").read_text("utf-8"))
    assert all(rule.get("source") for rule in data["rule"])
    assert {rule["kind"] for rule in data["rule"]} <= set(data["order"])


def test_return_path_absent_null_and_address() -> None:
    assert _letter("From: a@example.org").return_path is None
    assert _letter("From: a@example.org\nReturn-Path: <>").return_path == ""
    assert _letter("From: a@example.org\nReturn-Path: <Bob@Example.ORG>").return_path == "Bob@example.org"


def test_sender_keeps_local_part_case_and_lowers_domain() -> None:
    letter = _letter('From: "Doe, John" <John.Doe@Example.COM>')
    assert letter.sender == "John.Doe@example.com"
    assert letter.sender_name == "Doe, John"


@pytest.mark.parametrize(
    ("from_", "sender", "suspicious"),
    [
        ("alice@players.test <mallory@elsewhere.test>", "mallory@elsewhere.test", True),
        ('"alice@players.test" <mallory@elsewhere.test>', "mallory@elsewhere.test", True),
        ("=?utf-8?q?alice=40players.test?= <mallory@elsewhere.test>", "mallory@elsewhere.test", True),
        ("Alice (alice@players.test) <mallory@elsewhere.test>", "mallory@elsewhere.test", True),
        ('"alice@players.test" <alice@Players.test>', "alice@players.test", False),
    ],
)
def test_the_address_in_angle_brackets_wins_and_an_address_as_name_is_no_name(
    from_: str, sender: str, suspicious: bool, caplog: pytest.LogCaptureFixture
) -> None:
    letter = _letter(f"From: {from_}")
    assert (letter.sender, letter.sender_name) == (sender, "")
    assert any("suspicious From" in r.getMessage() for r in caplog.records) is suspicious


def test_broken_from_falls_back_or_is_empty() -> None:
    assert _letter("From: Bob <bob@Example.org").sender == "bob@example.org"
    assert _letter("From: <<<broken@@example.org").sender == ""
    assert _letter("From: Bob <>").sender == ""
    assert (
        _letter("From: undisclosed-recipients:;\nSender: Carol <carol@example.org>").sender
        == "carol@example.org"
    )


def test_missing_from_is_data_not_an_error() -> None:
    letter = _letter("Subject: no sender")
    assert (letter.sender, letter.sender_name) == ("", "")


def test_bad_date_is_none_and_zone_less_date_is_utc() -> None:
    assert _letter("From: a@example.org\nDate: yesterday-ish").date is None
    date = _letter("From: a@example.org\nDate: Mon, 5 Jan 2026 10:00:00 -0000").date
    assert date == datetime(2026, 1, 5, 10, tzinfo=UTC)


def test_message_ids_without_brackets_and_folded() -> None:
    letter = _letter(
        "From: a@example.org\nMessage-ID: plain-id@example.org\nIn-Reply-To: <a@x> (Bob's message)\n"
        "References: <one@x>\n  <two\n @x> <three@x>"
    )
    assert letter.message_id == "plain-id@example.org"
    assert letter.in_reply_to == "a@x"
    assert letter.references == ("one@x", "two@x", "three@x")


def test_ascii_declared_utf8_body() -> None:
    assert _letter("From: a@example.org", "Grüße\nPING\n", charset="us-ascii").body_text == "Grüße\nPING"


@pytest.mark.parametrize(
    ("charset", "text"),
    [
        ("iso-8859-8-i", "שלום, ההוראות שלי"),
        ("iso-8859-6-e", "مرحبا"),
        ("x-sjis", "こんにちは"),
        ("windows-874", "สวัสดี"),
    ],
)
def test_charset_labels_python_lacks_are_decoded(charset: str, text: str) -> None:
    raw = f"From: a@example.org\nContent-Type: text/plain; charset={charset}\n\n".encode() + text.encode(
        {"iso-8859-8-i": "iso8859-8", "iso-8859-6-e": "iso8859-6", "x-sjis": "cp932", "windows-874": "cp874"}[
            charset
        ]
    )
    assert parse_letter(raw).body_text == text


def test_non_text_charset_name_falls_back() -> None:
    assert _letter("From: a@example.org", "Grüße\n", charset="base64").body_text == "Grüße"


def test_empty_plain_part_falls_back_to_html() -> None:
    raw = (
        b"From: a@example.org\nContent-Type: multipart/alternative; boundary=b\n\n"
        b"--b\nContent-Type: text/plain\n\n\n--b\nContent-Type: text/html\n\n<p>PING</p>\n--b--\n"
    )
    assert parse_letter(raw).command_text == "PING"


def test_malformed_html_does_not_crash() -> None:
    raw = b"From: a@example.org\nContent-Type: text/html\n\n<p>PING</p><![foo[ HELP"
    assert "PING" in parse_letter(raw).body_text


def test_nul_bytes_are_dropped() -> None:
    assert _letter("From: a@example.org", "PI\x00NG\n").body_text == "PING"


@pytest.mark.parametrize(
    "raw", [b"", b"\r\n\r\n", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"just some text\n"]
)
def test_bytes_that_are_no_message_raise(raw: bytes) -> None:
    with pytest.raises(MessageFormatError):
        parse_letter(raw)


@pytest.mark.parametrize("path", MESSAGES, ids=[path.stem for path in MESSAGES])
def test_truncated_corpus_messages_never_crash(path: Path) -> None:
    raw = path.read_bytes()
    for cut in range(0, len(raw), max(1, len(raw) // 40)):
        try:
            letter = parse_letter(raw[:cut])
        except MessageFormatError:
            continue
        assert isinstance(letter.command_text, str)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2_000))
def test_random_bytes_never_crash(raw: bytes) -> None:
    try:
        letter = parse_letter(raw)
    except MessageFormatError:
        return
    assert isinstance(letter.body_text, str)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(MESSAGES),
    st.lists(st.tuples(st.integers(min_value=0), st.binary(min_size=1, max_size=8)), max_size=6),
)
def test_mutated_corpus_messages_never_crash(path: Path, edits: list[tuple[int, bytes]]) -> None:
    raw = bytearray(path.read_bytes())
    for position, chunk in edits:
        index = position % (len(raw) + 1)
        raw[index : index + len(chunk)] = chunk
    try:
        letter = parse_letter(bytes(raw))
    except MessageFormatError:
        return
    for text in (letter.subject, letter.sender, letter.sender_name, letter.body_text):
        text.encode("utf-8")  # no lone surrogates: everything must be storable


def test_the_headers_of_a_letter_too_deep_to_read_are_read() -> None:
    depth = 2000
    parts = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n) for n in range(depth)
    )
    raw = (
        b"From: Alice <alice@Players.TEST>\r\nSubject: deep\r\nMessage-ID: <d@x>\r\n"
        + parts
        + b"\r\nPING\r\n"
    )
    with pytest.raises(MessageFormatError):
        parse_letter(raw)
    letter = parse_headers(raw)
    assert (letter.sender, letter.sender_name, letter.subject) == ("alice@players.test", "Alice", "deep")
    assert (letter.message_id, letter.body_text, letter.too_large) == ("d@x", "", False)


@pytest.mark.parametrize("raw", [b"", b"\r\n\r\n", b"just some text\n"])
def test_no_headers_no_letter(raw: bytes) -> None:
    with pytest.raises(MessageFormatError):
        parse_headers(raw)
