# SPDX-License-Identifier: GPL-3.0-or-later
"""A real ``mailbot run`` fed 5,000 fuzzed letters keeps answering, on SQLite and PostgreSQL.

The corpus comes from a seeded ``random.Random``: random bytes, broken MIME, hostile headers (NUL,
control characters, raw 8-bit bytes, 5,000-character Message-IDs), machine mail that must never
be answered (auto-replies, bounces, lists, delivery reports), and letters from the two real seats
of a running duel with random order lines. It is put into the bot's mailbox with one IMAP
MULTIAPPEND session (LITERAL+), which is ~10 times faster than LMTP. Then a player sends PING.

Dovecot stores a NUL byte as 0x80, so the bot sees that byte where the corpus had a NUL.
"""

from __future__ import annotations

import asyncio
import base64
import email
import email.utils
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col, select

from mailbot.store.models import Inbound, InboundState, Outbound
from mailbot.testing.mailrig import MailRig
from tests.e2e.botproc import BotProcess, parse, ping, text_of, wait_until

LETTERS = 5000
SEED = 20260523
APPEND_CHUNK = 250  # letters per MULTIAPPEND command
FINAL = {InboundState.PROCESSED, InboundState.IGNORED, InboundState.SHUNTED}


@dataclass
class Corpus:
    letters: list[bytes] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    # Machine mail: its Message-IDs (the rows must be ignored) and its senders (must get nothing).
    automatic_ids: set[str] = field(default_factory=set)
    automatic_senders: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Cast:
    """Who writes: a few ordinary players (hostile letters come from them) and the two seats."""

    players: list[str]
    seats: dict[str, str]  # address -> subject tag [DU-n secret]


def _head(*pairs: tuple[str, str | bytes]) -> bytes:
    lines = []
    for name, value in pairs:
        raw = value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")
        lines.append(name.encode() + b": " + raw)
    return b"\r\n".join(lines) + b"\r\n"


def _mid(kind: str, i: int) -> str:
    return f"<{kind}-{i}-{SEED}@fuzz.players.test>"


def _junk_text(rnd: random.Random, n: int) -> str:
    alphabet = "abcXYZ019 ;:<>@[]()=?-_\t\"'\\/äöüßéñ漢字ДЖ🙂\u200b\u202e\ufeff"
    return "".join(rnd.choice(alphabet) for _ in range(n))


# -- the letter kinds ---------------------------------------------------------------------------


def random_bytes(rnd: random.Random, i: int, cast: Cast) -> bytes:
    return b"%d " % i + rnd.randbytes(rnd.randint(16, 3000))


def broken_mime(rnd: random.Random, i: int, cast: Cast) -> bytes:
    sender = rnd.choice(cast.players)
    head = _head(("From", sender), ("Subject", f"fuzz {i}"), ("Message-ID", _mid("mime", i)))
    text = b"PING\r\nwhat is this\r\n"
    variant = rnd.randrange(10)
    if variant == 0:  # boundary announced, another one used, never closed
        return (
            head
            + b'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="aaa"\r\n\r\n'
            + (b"--bbb\r\nContent-Type: text/plain\r\n\r\n" + text)
        )
    if variant == 1:  # multipart without any boundary
        return head + b"Content-Type: multipart/alternative\r\n\r\n--\r\n" + text + b"--\r\n"
    if variant == 2:  # truncated and invalid base64
        body = base64.b64encode(text * 3)[: rnd.randint(1, 30)] + rnd.choice([b"", b"!!**", b"=", b"==="])
        return (
            head
            + b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + body
        )
    if variant == 3:  # unknown or wrong charsets
        charset = rnd.choice([b"x-klingon", b"utf-7", b"iso-2022-jp", b"us-ascii", b"utf-16", b"\xff\xfe"])
        body = "PING\r\nGrüße aus Köln ✓\r\n".encode(rnd.choice(["latin-1", "utf-8", "utf-16"]), "replace")
        return head + b"Content-Type: text/plain; charset=" + charset + b"\r\n\r\n" + body
    if variant == 4:  # broken quoted-printable
        return head + b"Content-Transfer-Encoding: quoted-printable\r\n\r\nP=49NG=ZZ=\r\n=\r\n=E"
    if variant == 5:  # deep nesting
        depth = rnd.randint(20, 120)
        parts = b"".join(
            b'--b%d\r\nContent-Type: multipart/mixed; boundary="b%d"\r\n\r\n' % (d, d + 1)
            for d in range(depth)
        )
        return head + b'Content-Type: multipart/mixed; boundary="b0"\r\n\r\n' + parts + text
    if variant == 6:  # garbage Content-Type and parameters
        ctype = rnd.choice(
            [b"text/", b";;;;", b"multipart/mixed; boundary=", b'text/plain; charset="', b"\x00/\x01"]
        )
        return head + b"Content-Type: " + ctype + b"\r\n\r\n" + text
    if variant == 7:  # broken encoded words
        subject = rnd.choice(["=?utf-8?B?!!!?=", "=?x-unknown?Q?abc?=", "=?utf-8?Q?=FF=FE?=", "=?=?==??"])
        return _head(("From", sender), ("Subject", subject), ("Message-ID", _mid("mime", i))) + b"\r\n" + text
    if variant == 8:  # an attachment and no text at all
        return head + (
            b'Content-Type: multipart/mixed; boundary="z"\r\n\r\n'
            b"--z\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Transfer-Encoding: base64\r\n\r\n"
            + base64.b64encode(rnd.randbytes(300))
            + b"\r\n--z--\r\n"
        )
    # bare LF and bare CR line ends
    return head.replace(b"\r\n", rnd.choice([b"\n", b"\r"])) + b"\n" + text.replace(b"\r\n", b"\r")


def hostile_headers(rnd: random.Random, i: int, cast: Cast) -> bytes:
    sender = rnd.choice(cast.players)
    mid = _mid("hdr", i)
    variant = rnd.randrange(9)
    if variant == 0:  # NUL and control characters
        subject = "PING\x00" + "".join(
            chr(rnd.choice([*range(1, 9), 11, 12, *range(14, 32), 127])) for _ in range(20)
        )
        pairs: list[tuple[str, str | bytes]] = [("From", sender), ("Subject", subject), ("Message-ID", mid)]
    elif variant == 1:  # raw 8-bit bytes that are not UTF-8
        pairs = [
            ("From", b"J\xf6rg \xff\xfe <" + sender.encode() + b">"),
            ("Subject", b"Gr\xfc\xdfe \x80\x81"),
            ("Message-ID", mid),
        ]
    elif variant == 2:  # a 5,000-character Message-ID
        pairs = [
            ("From", sender),
            ("Subject", "PING"),
            ("Message-ID", f"<{i}-" + "x" * 5000 + "@fuzz.players.test>"),
        ]
    elif variant == 3:  # a non-ASCII Message-ID, with NUL and raw bytes
        pairs = [
            ("From", sender),
            ("Subject", "PING"),
            ("Message-ID", f"<ü{i}\x00ß".encode() + b"\xff@fuzz>"),
        ]
    elif variant == 4:  # overlong subject and an unfolded 20,000-character header
        pairs = [
            ("From", sender),
            ("Subject", "PING " + _junk_text(rnd, 6000)),
            ("Message-ID", mid),
            ("X-Long", "y" * 20000),
        ]
    elif variant == 5:  # hundreds of headers, some without a colon
        pairs = [("From", sender), ("Message-ID", mid)] + [
            (f"X-H{n}", _junk_text(rnd, 10)) for n in range(400)
        ]
        return _head(*pairs) + b"no colon here\r\n\x00\x01\x02: weird name\r\n\r\nPING\r\n"
    elif variant == 6:  # sender addresses that cannot or should not be answered normally
        odd = rnd.choice(
            ["jörg@players.test", "x@nowhere.invalid", "a@b@c", "<>", '"q\\"x"@players.test', "@"]
        )
        pairs = [("From", odd), ("Subject", "PING"), ("Message-ID", mid)]
    elif variant == 7:  # header injection attempts in values
        pairs = [
            ("From", sender),
            ("Subject", "PING\rBcc: victim@players.test"),
            ("Message-ID", mid),
            ("In-Reply-To", "<a>\nX: y"),
        ]
    else:  # several From, Message-ID and Subject headers
        pairs = [
            ("From", sender),
            ("From", rnd.choice(cast.players)),
            ("Subject", "PING"),
            ("Subject", _junk_text(rnd, 30)),
            ("Message-ID", mid),
            ("Message-ID", mid + "x"),
        ]
    return _head(*pairs) + b"\r\nPING\r\n" + _junk_text(rnd, rnd.randint(0, 200)).encode()


def automatic(rnd: random.Random, i: int, cast: Cast) -> bytes:
    """Machine mail that must never be answered; it even carries commands and a seat's tag."""
    sender = f"auto-{i}@players.test"
    extra: list[tuple[str, str | bytes]] = []
    body = b"PING\r\nHELP\r\nORDERS\r\nATTACK 3\r\nEND\r\n"
    subject = f"{rnd.choice(list(cast.seats.values()))} orders"
    ctype = "text/plain; charset=utf-8"
    variant = rnd.randrange(12)
    if variant == 0:
        extra = [("Auto-Submitted", rnd.choice(["auto-replied", "AUTO-REPLIED", "auto-replied; owner=x"]))]
    elif variant == 1:
        extra = [("Auto-Submitted", rnd.choice(["auto-generated", "auto-notified", "Auto-Generated (x)"]))]
    elif variant == 2:
        extra = [("Precedence", rnd.choice(["bulk", "list", "junk", "BULK", " bulk "]))]
    elif variant == 3:
        extra = [("List-Id", f"Game list <games{i}.lists.players.test>")]
    elif variant == 4:
        extra = [("List-Unsubscribe", "<mailto:leave@lists.players.test>")]
    elif variant == 5:
        sender = f"MAILER-DAEMON@mx{i}.players.test"
    elif variant == 6:
        sender = f"postmaster@relay{i}.players.test"
    elif variant == 7:
        ctype = 'multipart/report; report-type=delivery-status; boundary="r"'
        body = (
            b"--r\r\nContent-Type: text/plain\r\n\r\nDelivery failed\r\nPING\r\n--r\r\n"
            b"Content-Type: message/delivery-status\r\n\r\nStatus: 5.1.1\r\n--r--\r\n"
        )
    elif variant == 8:
        extra = [("Return-Path", "<>")]
    elif variant == 9:
        extra = [("X-Autoreply", "yes")]
    elif variant == 10:
        subject = rnd.choice(["Out of office: ", "Automatic reply: ", "Auto: "]) + subject
    else:  # machine mail with hostile bytes as well
        extra = [
            ("Auto-Submitted", "auto-replied"),
            ("X-Junk", b"\x00\xff\x01" + rnd.randbytes(20).replace(b"\r", b"").replace(b"\n", b"")),
        ]
    mid = _mid("auto", i)
    pairs: list[tuple[str, str | bytes]] = [
        ("From", sender),
        ("Subject", subject),
        ("Message-ID", mid),
        *extra,
    ]
    return _head(*pairs, ("Content-Type", ctype)) + b"\r\n" + body


ORDER_WORDS = [
    "ATTACK",
    "DEFEND",
    "ATT",
    "DEF",
    "attack",
    "Defend:",
    "DEFENCE",
    "BID",
    "SEAL",
    "ATK",
    "ORDERS",
]


def _order_line(rnd: random.Random) -> str:
    roll = rnd.random()
    if roll < 0.6:
        return f"{rnd.choice(ORDER_WORDS)} {rnd.randint(-2, 6)}"
    if roll < 0.7:
        return f"ATTACK {rnd.randint(0, 3)} DEFEND {rnd.randint(0, 3)}"
    if roll < 0.8:
        return _junk_text(rnd, rnd.randint(0, 80))
    if roll < 0.9:
        return rnd.choice(
            ["", "   ", "-- ", "> ATTACK 3", "ATTACK", "ATTACK three", "ATTACK 2.5", "ATTACK ２"]
        )
    return "ATTACK " + "9" * rnd.randint(5, 400)


def seat_letter(rnd: random.Random, i: int, cast: Cast) -> bytes:
    address, tag = rnd.choice(list(cast.seats.items()))
    secret = tag.strip("[]").split()[1]
    lines = [_order_line(rnd) for _ in range(rnd.randint(0, 12))]
    before = rnd.sample(["STATUS", "SHOW ORDERS", "WAIT", "NOWAIT", "PING", "HELP"], rnd.randint(0, 2))
    body = [*before, "ORDERS", *lines] + (["END"] if rnd.random() < 0.8 else [])
    subject = f"Re: {tag} orders"
    variant = rnd.randrange(6)
    if variant == 0:  # no tag: the secret on a line of its own
        subject, body = "orders", [f"SECRET {secret}", *body]
    elif variant == 1:  # a wrong secret: refused to the seat, nothing changes
        subject = f"Re: {tag[:-2]}Zz] orders"
    elif variant == 2:  # the order lines in 8-bit or in a base64 part
        raw_body = "\r\n".join(body).encode("latin-1", "replace")
        head = _head(("From", address), ("Subject", subject), ("Message-ID", _mid("seat", i)))
        return (
            head
            + b"Content-Type: text/plain; charset=latin-1\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + (base64.encodebytes(raw_body))
        )
    head = _head(("From", address), ("Subject", subject), ("Message-ID", _mid("seat", i)))
    return head + b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + "\r\n".join(body).encode() + b"\r\n"


KINDS: dict[str, Callable[[random.Random, int, Cast], bytes]] = {
    "random": random_bytes,
    "mime": broken_mime,
    "headers": hostile_headers,
    "automatic": automatic,
    "seat": seat_letter,
}


def make_corpus(cast: Cast, count: int = LETTERS, seed: int = SEED) -> Corpus:
    rnd = random.Random(seed)
    names = [name for name in KINDS for _ in range(count // len(KINDS))]
    names += [rnd.choice(list(KINDS)) for _ in range(count - len(names))]
    rnd.shuffle(names)
    corpus = Corpus()
    for i, name in enumerate(names):
        raw = KINDS[name](rnd, i, cast)
        corpus.letters.append(raw)
        corpus.kinds.append(name)
        if name == "automatic":
            corpus.automatic_ids.add(_mid("auto", i).strip("<>"))
            sender = email.message_from_bytes(raw)["From"]
            corpus.automatic_senders.add(email.utils.parseaddr(str(sender))[1].lower())
    return corpus


# -- delivery -----------------------------------------------------------------------------------


async def multiappend(rig: MailRig, address: str, letters: list[bytes]) -> None:
    """APPEND every letter to ``address``'s INBOX over one plain IMAP session, many per command."""
    reader, writer = await asyncio.open_connection(rig.host, rig.imap_port)
    try:

        async def until_tagged(tag: bytes) -> bytes:
            while not (line := await asyncio.wait_for(reader.readline(), 60)).startswith(tag + b" "):
                if not line:
                    raise ConnectionError("IMAP connection closed")
            return line

        await reader.readline()
        writer.write(f'a LOGIN "{address}" "{rig.player_password}"\r\n'.encode())
        assert (await until_tagged(b"a")).startswith(b"a OK")
        for n, start in enumerate(range(0, len(letters), APPEND_CHUNK)):
            tag = b"m%d" % n
            command = [tag + b" APPEND INBOX"]
            command += [b" {%d+}\r\n" % len(raw) + raw for raw in letters[start : start + APPEND_CHUNK]]
            writer.write(b"".join(command) + b"\r\n")
            await writer.drain()
            answer = await until_tagged(tag)
            assert answer.startswith(tag + b" OK"), answer
        writer.write(b"z LOGOUT\r\n")
        await until_tagged(b"z")
    finally:
        writer.close()
        await writer.wait_closed()


# -- the test -----------------------------------------------------------------------------------


@pytest.fixture
def bot(mail_rig: MailRig, tmp_path: Path, db_url: str) -> Iterator[BotProcess]:
    proc = BotProcess(mail_rig, tmp_path)
    proc.use_store(db_url)
    yield proc
    proc.stop()


def _inbound_states(bot: BotProcess) -> list[tuple[int, str | None, InboundState, str]]:
    eng = bot.engine()
    try:
        with Session(eng) as session:
            query = select(Inbound.id, Inbound.message_id, Inbound.state, Inbound.reason)
            return [tuple(row) for row in session.exec(query.order_by(col(Inbound.id)))]  # type: ignore[misc]
    finally:
        eng.dispose()


def _outbound(bot: BotProcess) -> list[tuple[str, int | None]]:
    eng = bot.engine()
    try:
        with Session(eng) as session:
            return [tuple(row) for row in session.exec(select(Outbound.recipient, Outbound.inbound_id))]  # type: ignore[misc]
    finally:
        eng.dispose()


def _count(bot: BotProcess, where: sa.ColumnElement[bool]) -> int:
    eng = bot.engine()
    try:
        if not sa.inspect(eng).has_table("inbound"):
            return 0  # the bot has not created its schema yet
        with eng.connect() as conn:
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(Inbound).where(where)).scalar_one()
            )
    finally:
        eng.dispose()


def test_the_corpus_is_reproducible() -> None:
    cast = Cast(["p@players.test"], {"a@players.test": "[DU-1 abc]", "b@players.test": "[DU-1 def]"})
    first, second = make_corpus(cast, 200), make_corpus(cast, 200)
    assert first.letters == second.letters
    assert set(first.kinds) == set(KINDS)
    assert any(b"\x00" in raw for raw in first.letters)
    assert any(len(raw) > 5000 and b"xxxxx" in raw for raw in first.letters)


@pytest.mark.slow
async def test_five_thousand_fuzzed_letters_then_a_ping_is_answered(
    mail_rig: MailRig, bot: BotProcess
) -> None:
    gm, north, south, pinger = (mail_rig.new_address() for _ in range(4))
    _, tags = bot.seat_duel(gm, north, south)
    cast = Cast([mail_rig.new_address() for _ in range(8)], tags)
    corpus = make_corpus(cast)

    bot.start()
    # The welcome letters prove the bot is up, reading and sending.
    for player in (north, south):
        await mail_rig.wait_for_mail(player, mail_rig.player_password, count=1, timeout=30)

    started = time.monotonic()
    await multiappend(mail_rig, bot.address, corpus.letters)
    delivered = time.monotonic()
    original = ping(pinger, bot.address)
    await mail_rig.send(original)
    (reply,) = await mail_rig.wait_for_mail(pinger, mail_rig.player_password, count=1, timeout=180)
    answered = time.monotonic()

    assert parse(reply)["In-Reply-To"] == original["Message-ID"]
    assert "PING: how your letter was read" in text_of(reply)
    assert bot.proc is not None and bot.proc.poll() is None, "the bot process died"

    total = LETTERS + 1
    await wait_until(
        lambda: _count(bot, col(Inbound.state) != InboundState.NEW) >= total,
        timeout=60,
        what="every letter handled",
    )
    finished = time.monotonic()
    rows = _inbound_states(bot)
    assert len(rows) == total, f"{len(rows)} inbound rows for {total} letters"
    assert [state for _, _, state, _ in rows if state not in FINAL] == []

    automatic_rows = {
        mid: (row_id, state, reason) for row_id, mid, state, reason in rows if mid in corpus.automatic_ids
    }
    assert set(automatic_rows) == corpus.automatic_ids
    answered_automatic = {mid: v for mid, v in automatic_rows.items() if v[1] is not InboundState.IGNORED}
    assert answered_automatic == {}
    automatic_inbound = {row_id for row_id, _, _ in automatic_rows.values()}
    outbound = _outbound(bot)
    assert [r for r, inbound_id in outbound if inbound_id in automatic_inbound] == []
    assert [r for r, _ in outbound if r.lower() in corpus.automatic_senders] == []

    shunted = [(row_id, reason) for row_id, _, state, reason in rows if state is InboundState.SHUNTED]
    log = bot.log_text()
    print(
        f"\n[{bot.db_url.split(':')[0]}] {LETTERS} letters appended in {delivered - started:.1f} s; "
        f"PING answered {answered - started:.1f} s after the first append; all handled after "
        f"{finished - started:.1f} s; {len(outbound)} outbound rows; shunted {len(shunted)}; "
        f"loop failures logged: {log.count('loop failed')}"
    )
    assert "the work loop failed" not in log and "the reading loop failed" not in log


@pytest.fixture
def sqlite_bot(mail_rig: MailRig, tmp_path: Path) -> Iterator[BotProcess]:
    proc = BotProcess(mail_rig, tmp_path)
    yield proc
    proc.stop()


async def test_a_subject_with_a_unicode_line_separator_is_answered(
    mail_rig: MailRig, sqlite_bot: BotProcess, player_address: str
) -> None:
    subject = base64.b64encode("PING \u2028 please".encode()).decode()
    raw = (
        f"From: {player_address}\r\nTo: {sqlite_bot.address}\r\nSubject: =?utf-8?b?{subject}?=\r\n"
        f"Message-ID: <line-separator-{SEED}@players.test>\r\n\r\nPING\r\n"
    ).encode()
    sqlite_bot.start()
    await multiappend(mail_rig, sqlite_bot.address, [raw])
    await wait_until(
        lambda: _count(sqlite_bot, col(Inbound.state) != InboundState.NEW) == 1, timeout=30, what="handled"
    )
    eng = sqlite_bot.engine()
    try:
        with Session(eng) as session:
            ((state, trace),) = session.exec(select(Inbound.state, Inbound.traceback)).all()
    finally:
        eng.dispose()
    assert state is InboundState.PROCESSED, trace
