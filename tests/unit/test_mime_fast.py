# SPDX-License-Identifier: GPL-3.0-or-later
"""The fast MIME parse gives the very Letter the ``email.policy.default`` parse gave, for all our letters.

``tests/unit/mime_reference.py`` is the old parse, kept verbatim. Each letter the
test suite and the demo use (the .eml files, builder-made letters in every
encoding, demo letters, the 5,000 fuzzed letters of the e2e test, their
truncations) and generated hostile ones go through both; the Letters must be
equal field by field (``repr`` too, so a date's zone counts). The shortcuts
the fast parse takes are also checked one by one against ``email.policy.default``.
"""

from __future__ import annotations

import dataclasses
import email.policy
import random
import string
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from email.parser import BytesParser, Parser
from email.policy import Policy
from email.utils import format_datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mailbot.core.demo import orders
from mailbot.core.letter import Letter
from mailbot.demo.scripts import demos
from mailbot.errors import MessageFormatError
from mailbot.mail.headers import parsed_once
from mailbot.mail.mime import MAX_PARSED_HEADER, PLAIN_ADDRESS, letter_texts, parse_headers, parse_letter
from mailbot.mail.mimebody import MAX_SECTIONS, PLAIN_CONTENT_HEADERS, is_plain_tree
from tests.e2e.test_fuzzed_letters import Cast, make_corpus
from tests.unit import mime_reference as reference

TESTS = Path(__file__).resolve().parents[1]
EML_FILES = sorted(TESTS.rglob("*.eml"))
MIN_EML_FILES = 29
DATE = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
#: the reference's policy, ``email.policy.default`` parsing each header value once (held to it
#: header by header in tests/unit/test_mail_headers.py): the old parse reads a part's type again
#: for each question it asks, and 5,000 letters each of a few parts spent most of their time so
_READ = parsed_once()


def _outcome(parse: Callable[..., Letter], raw: bytes, **limits: int) -> Letter | str:
    try:
        return parse(raw, **limits)
    except MessageFormatError as exc:  # refusing the bytes is an outcome to compare as well
        if isinstance(exc.__cause__, RecursionError):  # the text says where the stack ran out
            return "MessageFormatError: nested too deeply"
        return f"MessageFormatError: {exc}"


def assert_same(raw: bytes, **limits: int) -> None:
    """parse_letter and letter_texts give what the old parse gave, or refuse the bytes the same way."""
    with _reference_parses_once():
        expected = _outcome(reference.parse_letter, raw, **limits)
        actual = _outcome(parse_letter, raw, **limits)
        if (
            isinstance(expected, Letter)
            and isinstance(actual, Letter)
            and len(expected.subject) > MAX_PARSED_HEADER
        ):
            # a Subject that long is cut at a space before it is decoded (test_mime_bounds.py)
            assert len(actual.subject) <= MAX_PARSED_HEADER and expected.subject.startswith(actual.subject)
            expected = dataclasses.replace(expected, subject=actual.subject)
        assert actual == expected
        assert repr(actual) == repr(expected)
        if isinstance(expected, Letter):
            assert letter_texts(raw) == reference.letter_texts(raw)


@contextmanager
def _reference_parses_once() -> Iterator[None]:
    """The old parse reads a letter's bytes once for both its answers (its ``parse_letter``, then its
    ``letter_texts``, each of which parsed them whole: 10 and 8 s of the 5,000 fuzzed letters).
    Both only read the message they get, so sharing it changes neither answer; the fast path
    under test still parses the bytes afresh for each."""
    original = reference._parse
    kept: dict[tuple[bytes, bool], EmailMessage] = {}

    def once(raw: bytes, *, headers_only: bool) -> EmailMessage:
        key = (raw, headers_only)
        if key not in kept:
            kept[key] = original(raw, headers_only=headers_only)
        return kept[key]

    reference._parse = once
    policy, reference._POLICY = reference._POLICY, _READ
    try:
        yield
    finally:
        reference._parse, reference._POLICY = original, policy


# --- the .eml files, whole, cut down to their headers, with short texts, and truncated ----------


def test_every_eml_file_is_found() -> None:
    assert len(EML_FILES) >= MIN_EML_FILES


@pytest.mark.parametrize("path", EML_FILES, ids=[str(path.relative_to(TESTS)) for path in EML_FILES])
def test_eml_file(path: Path) -> None:
    raw = path.read_bytes()
    assert_same(raw)
    assert_same(raw, max_bytes=len(raw) - 1)
    assert_same(raw, max_text_chars=20)


@pytest.mark.parametrize("path", EML_FILES, ids=[str(path.relative_to(TESTS)) for path in EML_FILES])
def test_truncated_eml_file(path: Path) -> None:
    raw = path.read_bytes()
    for cut in range(0, len(raw), max(1, len(raw) // 40)):
        assert_same(raw[:cut])


def test_the_eml_files_mostly_take_the_fast_path() -> None:
    """Guards the speed: ordinary mail must not fall back to the default policy."""
    fast = [
        is_plain_tree(BytesParser(policy=email.policy.compat32).parsebytes(p.read_bytes())) for p in EML_FILES
    ]
    assert sum(fast) >= len(fast) - 2


# --- builder-made letters (tests/services/helpers.py style), every encoding ---------------------

NAMES = [
    "",
    "Alice",
    "Jürgen Müller",
    "Doe, John",
    "Zoë 🙂",
    "Дмитрий",
    "山田太郎",
    'Bob "the Builder"',
    "J. R. R.",
]
SUBJECTS = [
    "PING",
    "[DU-3 s0003x] orders (7)",
    "Befehle für Runde 5",
    "Re: [FT-12 Ab3x] Aufträge — Zug 3",
    "Automatic reply: Turn 5",
    "Réponse automatique : absent",
    "注文",
    "x" * 200,
    "",
]
BODIES = [
    "ORDERS\nATTACK 1\nDEFEND 2\nEND\n-- \nplayer 0\n",
    "ORDERS\nTF1 V-F22 V-F23 – nach Norden\nEND\n\nGrüße\nJürgen\n",
    "PING\n\nOn Mon, Alice wrote:\n> ORDERS\n> ATTACK 3\n",
    "Привет\nORDERS\nATTACK 2\n",
    "\n",
]


def built(
    name: str,
    subject: str,
    body: str,
    *,
    cte: str | None = None,
    charset: str = "utf-8",
    policy: Policy = email.policy.default,
    headers: dict[str, str] | None = None,
) -> bytes:
    msg = EmailMessage(policy=policy)
    msg["From"] = f'"{name}" <alice@Players.TEST>' if name else "alice@players.test"
    msg["To"] = "bot@example.test"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(DATE)
    msg["Message-ID"] = "<1.2.3@players.test>"
    for key, value in (headers or {}).items():
        msg[key] = value
    msg.set_content(body, cte=cte, charset=charset)
    return msg.as_bytes(policy=policy)


def builder_letters() -> Iterator[tuple[str, bytes]]:
    for n, name in enumerate(NAMES):
        for m, subject in enumerate(SUBJECTS):
            body = BODIES[(n + m) % len(BODIES)]
            yield f"rfc2047-{n}-{m}", built(name, subject, body)
            yield f"utf8-headers-{n}-{m}", built(name, subject, body, policy=email.policy.SMTPUTF8)
    for n, body in enumerate(BODIES):
        for cte in ("quoted-printable", "base64", "8bit", "7bit"):
            if cte == "7bit" and not body.isascii():
                continue
            yield f"{cte}-{n}", built("Jürgen", "Befehle", body, cte=cte)
        for charset in ("iso-8859-1", "koi8-r", "shift_jis", "utf-16"):
            try:
                yield f"{charset}-{n}", built("", "x", body, charset=charset, cte="base64")
            except UnicodeEncodeError:  # the body has characters this charset cannot write
                continue


@pytest.mark.parametrize(
    ("label", "raw"), list(builder_letters()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_builder_letter(label: str, raw: bytes) -> None:
    assert_same(raw)
    assert is_plain_tree(BytesParser(policy=email.policy.compat32).parsebytes(raw))  # ordinary: the fast way


def _shapes() -> Iterator[tuple[str, EmailMessage]]:
    html = "<html><body><div>ORDERS</div><div>ATTACK <b>2</b> &amp; DEFEND 1</div><p>Grüße</p></body></html>"
    msg = EmailMessage()
    msg.set_content(html, subtype="html")
    yield "html-only", msg
    msg = EmailMessage()
    msg.set_content("ORDERS\nATTACK 1\n")
    msg.add_alternative(html, subtype="html")
    yield "alternative", msg
    msg = EmailMessage()
    msg.set_content("")
    msg.add_alternative(html, subtype="html")
    yield "alternative-empty-plain", msg
    msg = EmailMessage()
    msg.set_content("ORDERS\nATTACK 1\n")
    msg.add_attachment(
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)), maintype="image", subtype="png", filename="map.png"
    )
    msg.add_attachment("ORDERS\nATTACK 3\n", filename="orders.txt")
    msg.add_attachment("Befehle\n", filename="Befehle für Runde 5.txt")  # RFC 2231 name
    yield "mixed-attachments", msg
    msg = EmailMessage()
    msg.set_content(html, subtype="html")
    msg.add_related(b"GIF89a", maintype="image", subtype="gif", cid="<logo@x>")
    yield "related", msg
    inner = EmailMessage()
    inner["From"], inner["Subject"] = "carol@players.test", "ORDERS"
    inner.set_content("ORDERS\nATTACK 3\n")
    msg = EmailMessage()
    msg.set_content("See the forwarded letter.\n")
    msg.add_attachment(inner)
    yield "forwarded-rfc822", msg
    msg = EmailMessage()
    msg.set_content("ORDERS \nATTACK 1 \nand DEFEND 2\n> quoted \n> more\n-- \nsig\n")
    msg.set_param("format", "flowed")
    msg.set_param("delsp", "yes")
    yield "flowed-delsp", msg


@pytest.mark.parametrize("shape", [label for label, _ in _shapes()])
def test_mime_shape(shape: str) -> None:
    msg = dict(_shapes())[shape]
    msg["From"] = '"Jürgen Müller" <juergen@web.example>'
    msg["Subject"] = "Re: [DU-1 abc] Befehle für Runde 5"
    msg["Message-ID"] = "<shape@web.example>"
    for policy in (email.policy.default, email.policy.SMTPUTF8):
        raw = msg.as_bytes(policy=policy)
        assert_same(raw)
        assert_same(raw.replace(b"\n", b"\r\n"))


# --- what the demo's players send, and the e2e fuzz corpus --------------------------------------


def demo_letters() -> Iterator[bytes]:
    """``mailbot.demo.run.Player.send`` letters with every demo's answers."""
    for n, demo in enumerate(demos()):
        bodies = [f"HELP\nJOIN {n} south Ab3xYz\n", orders("d1.0500", demo.script.mistake or "PASS")]
        for seat in ("north", "south", "Axis", "Allies", "japan", "usa"):
            for step, kind in (("d1.0500", "orders"), ("t1.bid", "sealed"), ("r1.fire", "orders")):
                bodies.append(demo.script.answer(seat, step, kind, 0, ""))
        for body in bodies:
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = (
                "player1@demo.localhost",
                "bot@demo.localhost",
                "Re: [DU-1 x] orders",
            )
            msg["Message-ID"] = f"<{n}.{len(body)}@demo.localhost>"
            msg.set_content(body)
            yield msg.as_bytes()


def test_demo_letters() -> None:
    letters = list(demo_letters())
    assert len(letters) > 50
    for raw in letters:
        assert_same(raw)


@pytest.mark.slow  # 5,000 hostile letters through the old parse take ~15 s
def test_the_fuzzed_letters_of_the_e2e_test() -> None:
    cast = Cast(
        players=[f"player{n}@players.test" for n in range(5)],
        seats={"north@players.test": "[DU-1 Ab3xYz]", "south@players.test": "[DU-1 Qr7sTu]"},
    )
    corpus = make_corpus(cast)
    capped = 0
    for raw in corpus.letters:
        if raw.count(b"; boundary=") > MAX_SECTIONS:  # nested past the cap (the old parse read them)
            with pytest.raises(MessageFormatError, match=r"more than 100 multipart sections$"):
                parse_letter(raw)
            capped += 1
        else:
            assert_same(raw)
    assert 0 < capped < len(corpus.letters) // 50


# --- generated hostile letters: header soup around the boundary of the fast path ----------------

FRAGMENTS = [
    "text/plain", "text/html", "TEXT/PLAIN", "multipart/alternative", "multipart/mixed", "multipart/related",
    "multipart/report", "message/rfc822", "multipart/digest", "text/", "/", ";", "; ", ";\r\n ", "\r\n\t",
    "charset=utf-8", 'charset="iso-8859-1"', "charset=koi8-r", "charset*=utf-8''%C3%BC", "charset=",
    "boundary=b1", 'boundary="b1"', "boundary=b2 ", "boundary*0=b; boundary*1=1", "format=flowed",
    "delsp=yes", 'start="<c@x>"', "type=text/html", "attachment", "inline", 'filename="a.txt"',
    "filename*=utf-8''%C3%BC.txt", "base64", "quoted-printable", "8bit", " base64", "=?utf-8?q?x?=",
    "=?utf-8?b?w7w=?=", "=?x-unknown?q?a?=", "=?", "(comment)", "(", '"', '"quoted, name"', "\\",
    "<a@b.example>", "a@b.example", "Bob", "Jürgen", "Ünïcode", ",", ":", "@", "<>", " ", "\t", "\x00",
    "\udcff\udcfe", "\udcc3\udcbc",
]  # fmt: skip
HEADER_NAMES = [
    "Content-Type", "Content-Disposition", "Content-Transfer-Encoding", "From", "Sender", "Subject",
    "Return-Path", "Message-ID", "References", "Date", "Content-ID", "Auto-Submitted", "List-Id",
]  # fmt: skip

header_values = st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join)
header_lists = st.lists(st.tuples(st.sampled_from(HEADER_NAMES), header_values), max_size=6)


def _head(headers: list[tuple[str, str]]) -> bytes:
    text = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return text.encode("utf-8", "surrogateescape")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header_lists, st.lists(header_lists, max_size=3), st.lists(st.sampled_from(["b1", "b2"]), max_size=3))
def test_header_soup(
    top: list[tuple[str, str]], parts: list[list[tuple[str, str]]], bounds: list[str]
) -> None:
    body = b"PING\r\n"
    for part, bound in zip(parts, bounds * 3, strict=False):
        body += f"--{bound}\r\n".encode() + _head(part) + b"\r\nORDERS\r\nSGVsbG8=\r\nP=C3=BCNG\r\n"
    body += b"--b1--\r\n"
    assert_same(_head([("From", "a@players.test"), *top]) + b"\r\n" + body)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2_000))
def test_random_bytes(raw: bytes) -> None:
    assert_same(raw)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(EML_FILES),
    st.lists(st.tuples(st.integers(min_value=0), st.binary(min_size=1, max_size=8)), max_size=6),
)
# a NUL in "<style ... style=display:none>": the "<tyle" left once it is dropped never closes
@example(TESTS / "data" / "mail" / "29_outlook_html_only_reply.eml", [(580, b"\x00")])
def test_mutated_eml_files(path: Path, edits: list[tuple[int, bytes]]) -> None:
    raw = bytearray(path.read_bytes())
    for position, chunk in edits:
        index = position % (len(raw) + 1)
        raw[index : index + len(chunk)] = chunk
    assert_same(bytes(raw))


def _nested_sections(depth: int) -> bytes:
    """A letter of ``depth`` multipart sections, each inside the one before."""
    parts = b"".join(
        b'--b%d\r\nContent-Type: multipart/mixed; boundary="b%d"\r\n\r\n' % (d, d + 1)
        for d in range(depth - 1)
    )
    return HEAD + b'Content-Type: multipart/mixed; boundary="b0"\r\n\r\n' + parts + b"PING\r\n"


HEAD = b"From: a@players.test\r\nDate: Mon, 5 Jan 2026 10:00:00 +0530\r\n"


def test_deep_nesting_and_zoned_dates() -> None:
    for depth in (20, 30, MAX_SECTIONS):
        assert_same(_nested_sections(depth))
    rfc822 = b"Content-Type: message/rfc822\r\n\r\n" * 2000  # nested without a boundary
    assert_same(HEAD + rfc822 + b"\r\nPING\r\n")
    with pytest.raises(MessageFormatError, match=r"^unreadable message: its parts are nested too deeply$"):
        parse_letter(HEAD + rfc822 + b"\r\nPING\r\n")
    assert parse_letter(HEAD + b"\r\nPING\r\n").date == datetime(
        2026, 1, 5, 10, tzinfo=timezone(timedelta(hours=5.5))
    )


@pytest.mark.parametrize("depth", [MAX_SECTIONS + 1, 2000])
def test_a_letter_of_more_sections_than_the_cap_is_refused_unread(depth: int) -> None:
    """The old parse read these (2,000 deep: found too deep after a second of CPU); now refused."""
    sections = _nested_sections(depth)
    message = rf"^unreadable message: it has more than {MAX_SECTIONS} multipart sections$"
    for read in (parse_letter, letter_texts):
        with pytest.raises(MessageFormatError, match=message):
            read(sections)
    assert parse_headers(sections).sender == "a@players.test"  # so its sender can be told


def test_the_cap_counts_boundary_parameters_not_the_word() -> None:
    flat = b"".join(
        b'--b0\r\nContent-Type: multipart/mixed; BOUNDARY = "s%d"\r\n\r\n--s%d--\r\n' % (n, n)
        for n in range(MAX_SECTIONS - 1)
    )
    prose = b"Content-Type: text/plain\r\n\r\n" + b"a boundary=, the boundary\r\n" * 300
    assert_same(HEAD + prose)  # 600 times the word, no section
    assert_same(HEAD + b'Content-Type: multipart/mixed; boundary="b0"\r\n\r\n' + flat + b"--b0--\r\n")
    continued = b'--b0\r\nContent-Type: multipart/mixed; boundary*0="x"; boundary*1*=y\r\n\r\n--b0--\r\n'
    with pytest.raises(MessageFormatError, match=r"more than 100 multipart sections"):
        parse_letter(HEAD + b'Content-Type: multipart/mixed; boundary="b0"\r\n\r\n' + flat + continued)


# --- the shortcuts, each against email.policy.default itself ------------------------------------


def _both(headers: list[tuple[str, str]]) -> tuple[object, object]:
    text = "".join(f"{name}: {value}\n" for name, value in headers) + "\nbody\n"
    fast = Parser(policy=email.policy.compat32).parsestr(text, headersonly=True)
    exact = Parser(EmailMessage, policy=email.policy.default).parsestr(text, headersonly=True)
    return fast, exact


def _content_facts(msg: email.message.Message) -> tuple[object, ...]:
    """Everything the feedparser and the body walk read from a part's Content-* headers."""
    return (
        msg.get_content_type(),
        msg.get_content_maintype(),
        msg.get_default_type(),
        msg.get_boundary(),
        msg.get_content_charset(),
        msg.get_param("format", ""),
        msg.get_param("delsp", ""),
        msg.get_param("start"),
        msg.get_content_disposition(),
        str(msg.get("content-transfer-encoding", "")).lower(),
    )


# The plain forms built piece by piece, as the grammar (mimebody.PLAIN_CONTENT_HEADERS) writes
# them, from the words mail uses and from any tokens: hypothesis's from_regex made them ten times
# slower, and rarely a word the parsers give a meaning to. The test checks that each value built
# is in the grammar.
_TOKEN_CHARS = "!#$%&'+-." + string.digits + string.ascii_letters + "^_`{|}~"
_WORDS = (
    "text", "plain", "html", "multipart", "mixed", "alternative", "related", "report", "message",
    "rfc822", "application", "octet-stream", "boundary", "charset", "utf-8", "UTF-8", "iso-8859-1",
    "format", "flowed", "fixed", "delsp", "yes", "no", "start", "type", "name", "attachment",
    "inline", "filename", "base64", "quoted-printable", "7bit", "8bit", "binary", "BASE64",
)  # fmt: skip
_tokens = st.one_of(st.sampled_from(_WORDS), st.text(st.sampled_from(_TOKEN_CHARS), min_size=1, max_size=10))
_parameter_tokens = st.one_of(
    st.sampled_from(_WORDS), st.text(st.sampled_from(_TOKEN_CHARS.replace("'", "")), min_size=1, max_size=10)
)
_quoted = st.text(st.sampled_from([chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\']), max_size=10)
_blanks = st.text(st.sampled_from(" \t"), max_size=2)
_folds = st.builds(
    lambda blanks, newline, indent: blanks + (newline + indent if newline else ""),
    _blanks,
    st.sampled_from(["", "\r\n", "\n", "\r"]),
    st.text(st.sampled_from(" \t"), min_size=1, max_size=2),
)
_parameter = st.builds(
    lambda fold, name, value, blanks: f";{fold}{name}={value}{blanks}",
    _folds,
    _parameter_tokens,
    st.one_of(_parameter_tokens, _quoted.map(lambda text: f'"{text}"')),
    _blanks,
)
_parameters = st.builds(
    lambda blanks, params, end: blanks + "".join(params) + end,
    _blanks,
    st.lists(_parameter, max_size=4),
    st.one_of(st.just(""), _blanks.map(lambda blanks: ";" + blanks)),
)
PLAIN_VALUES = {
    "content-type": st.builds(
        lambda main, sub, params: f"{main}/{sub}{params}", _tokens, _tokens, _parameters
    ),
    "content-disposition": st.builds(lambda kind, params: kind + params, _tokens, _parameters),
    "content-transfer-encoding": st.builds(lambda name, blanks: name + blanks, _tokens, _blanks),
}


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    PLAIN_VALUES["content-type"],
    PLAIN_VALUES["content-disposition"],
    PLAIN_VALUES["content-transfer-encoding"],
)
@pytest.mark.slow
@example('multipart/mixed;\r\n boundary="----=_Part_1"', 'attachment; filename="x;y.txt"', "base64")
@example('text/plain; charset=""; format=flowed;', "INLINE ;", "Quoted-Printable")
def test_plain_content_headers_read_alike_in_both_policies(ctype: str, disposition: str, cte: str) -> None:
    for name, value in (
        ("content-type", ctype),
        ("content-disposition", disposition),
        ("content-transfer-encoding", cte),
    ):
        assert PLAIN_CONTENT_HEADERS[name].fullmatch(value), (name, value)  # the strategies build the grammar
    if "=?" in ctype + disposition + cte:  # refused apart from the grammar
        return
    headers = [
        ("Content-Type", ctype),
        ("Content-Disposition", disposition),
        ("Content-Transfer-Encoding", cte),
    ]
    fast, exact = _both(headers)
    assert isinstance(fast, email.message.Message) and isinstance(exact, EmailMessage)
    assert _content_facts(fast) == _content_facts(exact)
    assert (fast.get_content_disposition() == "attachment") == exact.is_attachment()


@pytest.mark.parametrize(
    "ctype",
    [
        "multipart/mixed; boundary='",
        "multipart/mixed; boundary=a'b",
        "multipart/mixed; boundary=a''b",
        "text/plain; charset=utf-8'",
    ],
)
def test_a_quote_mark_in_a_parameter_goes_the_exact_way(ctype: str) -> None:
    """The default policy reads "'" in a parameter as RFC 2231's charset'language'value (found by
    the generated headers): such a header is not plain, and the letter reads as the old parse read it."""
    assert PLAIN_CONTENT_HEADERS["content-type"].fullmatch(ctype) is None
    boundary = ctype.partition("boundary=")[2]
    parts = (
        f"--{boundary}\r\nContent-Type: text/plain\r\n\r\nPING\r\n--{boundary}--\r\n"
        if boundary
        else "PÏNG\r\n"
    )
    letter = f"From: a@players.test\r\nContent-Type: {ctype}\r\n\r\n{parts}".encode()
    assert_same(letter)


def _default_from(value: str) -> tuple[str, str] | None:
    header = email.policy.default.header_factory("From", value)
    found = [(a.display_name, a.addr_spec) for a in header.addresses if a.username or a.domain]
    return found[0] if found else None


# The plain From forms built from their pieces (as the content headers above: from_regex took
# four times as long); the test checks that each is one.
_ATEXT = string.ascii_letters + string.digits + "!#$%&'*+/=?^_`{|}~-"
_atoms = st.one_of(
    st.sampled_from(["a", "players", "test", "John.Doe", "example"]),
    st.text(st.sampled_from(_ATEXT), min_size=1, max_size=6),
)
_addr_specs = st.builds(
    lambda local, domain: f"{local}@{domain}",
    st.lists(_atoms, min_size=1, max_size=3).map(".".join),
    st.lists(_atoms, min_size=1, max_size=3).map(".".join),
)
_NOT_TEXT = ["Cs", "Cc", "Zs", "Zl", "Zp"]  # surrogates, controls (C0 and C1) and every kind of space
_name_words = st.one_of(
    st.sampled_from(["Bob", "Jürgen", "Müller", "O'Neil", "=?", "Re", "admiral-Nagumo"]),
    st.text(
        st.characters(exclude_categories=_NOT_TEXT, exclude_characters='()<>@,:;."[]\\'),
        min_size=1,
        max_size=6,
    ),
)
_plain_froms = st.one_of(
    _addr_specs,
    st.builds(lambda spec: f"<{spec}>", _addr_specs),
    st.builds(
        lambda words, space, spec: f"{' '.join(words)}{space}<{spec}>",
        st.lists(_name_words, min_size=1, max_size=3),
        st.sampled_from(["", " "]),
        _addr_specs,
    ),
    st.builds(
        lambda quoted, space, spec: f'"{quoted}"{space}<{spec}>',
        st.text(st.characters(exclude_categories=["Cs", "Cc"], exclude_characters='"\\'), max_size=8),
        st.sampled_from(["", " "]),
        _addr_specs,
    ),
)


@settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
@given(_plain_froms)
@example('"Doe, John" <John.Doe@Example.COM>')
@example("Jürgen Müller <juergen@web.example>")
@example('"  spaced  out " <a@b>')
def test_plain_addresses_parse_as_written(value: str) -> None:
    match = PLAIN_ADDRESS.fullmatch(value)
    assert match is not None
    if "=?" in value:  # refused apart from the grammar
        return
    written = (match["words"] or match["quoted"] or "", match["bare"] or match["angle"])
    assert _default_from(value) == written


@settings(max_examples=2000, deadline=None)
@given(st.text(st.characters(blacklist_categories=["Cs"])))
@example("Re: [DU-3 s0003x]  orders\t(7) ")
def test_a_subject_without_encoded_words_is_its_own_decoding(value: str) -> None:
    if "=?" in value:
        return
    assert str(email.policy.default.header_factory("Subject", value)) == value


def test_generated_ascii_noise_in_content_headers() -> None:
    """Seeded noise made of header syntax: the guard and the exact path agree on every sample."""
    rnd = random.Random(12)
    alphabet = string.ascii_letters[:6] + "/;=\"' \t()*%?,\\-"

    def noise() -> str:
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30)))

    for _ in range(300):
        head = f"From: a@x.test\r\nContent-Type: text/plain;{noise()}\r\nContent-Transfer-Encoding: {noise()}"
        assert_same(f"{head}\r\n\r\nPING\r\n".encode())
