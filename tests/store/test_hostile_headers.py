# SPDX-License-Identifier: GPL-3.0-or-later
"""Hostile letters are stored on SQLite and PostgreSQL alike: headers cleaned, raw bytes intact.

PostgreSQL refuses NUL and lone surrogates in text, values over a column's
length and index entries over 2704 bytes; SQLite takes them all. Each letter
goes in under its own savepoint, so one the database still refuses is stored
as ``shunted`` and the rest of its batch goes on.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.services.inbox.intake import Intake, IntakeResult
from mailbot.store import repo
from mailbot.store.models import Inbound, InboundState
from mailbot.testing.fakes import FakeMailbox, FakeSource

NOW = datetime(2026, 11, 21, 12, 30, tzinfo=UTC)
PREFIX_998 = "p" * 998
UNCLEAN = re.compile(r"[\x00-\x08\x0a-\x1f\ud800-\udfff]")


def _letter(headers: bytes, body: bytes = b"body\r\n") -> bytes:
    return headers + b"\r\n" + body


def _corpus() -> list[tuple[str, bytes]]:
    """(name, raw) in delivery order; ``dup:`` names the same letter again by another path (one
    more header), ``reuse:`` a letter of other text under the Message-ID of the one named."""
    two_k = [(PREFIX_998 + tail * 1002 + "@x").encode() for tail in "ab"]
    return [
        ("nul-from", _letter(b"From: a\x00b@x.test\r\nSubject: s\r\nMessage-ID: <nul-from@x>\r\n")),
        ("nul-subject", _letter(b"From: a@x.test\r\nSubject: x\x00y\r\nMessage-ID: <nul-subject@x>\r\n")),
        ("nul-mid", _letter(b"From: a@x.test\r\nMessage-ID: <nul\x00mid@x>\r\n")),
        ("nul-mid-twin", _letter(b"From: a@x.test\r\nMessage-ID: <nulmid@x>\r\n")),  # the same minus NUL
        (
            "controls",
            _letter(b"From: a@x.test\r\nSubject: \x01\x02\x1b[31m\x7f\tok\r\nMessage-ID: <c\x01@x>\r\n"),
        ),
        ("mid-5000", _letter(b"From: a@x.test\r\nMessage-ID: <" + b"m" * 5000 + b"@x>\r\n")),
        ("mid-2000-a", _letter(b"Message-ID: <" + two_k[0] + b">\r\n")),
        ("mid-2000-b", _letter(b"Message-ID: <" + two_k[1] + b">\r\n")),
        ("mid-4-byte-chars", _letter(("Message-ID: <" + "\U0001f600" * 990 + "@x>\r\n").encode())),
        ("mid-3-byte-chars", _letter(("Message-ID: <" + _cjk(995) + "@x>\r\n").encode())),
        (
            "latin-1",
            _letter(b"From: J\xe9r\xf4me <j@x.test>\r\nSubject: caf\xe9\r\nMessage-ID: <\xe9\xff@x>\r\n"),
        ),
        ("utf-8", _letter("From: Jürgen <j@x.test>\r\nSubject: Grüße\r\nMessage-ID: <ü@x>\r\n".encode())),
        ("long-subject", _letter(b"Subject: " + b"\xff" * 5000 + b"\r\nFrom: " + b"f" * 5000 + b"@x\r\n")),
        ("empty", b""),
        ("random-1", random.Random(1).randbytes(4000)),
        ("random-2", random.Random(2).randbytes(70)),
        ("no-headers", b"\r\n\r\n\x00\x00\x00"),
        ("dup-first", _letter(b"Message-ID: <dup@x>\r\n", b"first copy")),
        ("reuse:dup-first", _letter(b"Message-ID: <dup@x>\r\n", b"second copy, other bytes")),
        ("dup:dup-first", _letter(b"Received: by relay2\r\nMessage-ID: <dup@x>\r\n", b"first copy \r\n")),
        ("dup-long-first", _letter(b"Message-ID: <" + b"d" * 3000 + b">\r\n", b"first")),
        ("reuse:dup-long-first", _letter(b"Message-ID: <" + b"d" * 3000 + b">\r\n", b"second")),
        ("dup:dup-long-first", _letter(b"Message-ID: <" + b"d" * 3000 + b">\r\n", b"first")),
        *((f"fuzz-{i}", _fuzz_letter(random.Random(i), i)) for i in range(200)),
    ]


def _cjk(n: int) -> str:
    rng = random.Random(7)  # incompressible: PostgreSQL cannot squeeze it into an index entry
    return "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(n))


def _fuzz_letter(rng: random.Random, i: int) -> bytes:
    """Broken MIME or plain noise; a unique Message-ID or body so no two are one letter."""
    if rng.random() < 0.25:
        return rng.randbytes(rng.randrange(16, 3000)) + b"#%d" % i
    lines = []
    if rng.random() < 0.7:
        lines.append(b"Message-ID: <r%d-" % i + _header_noise(rng) + b">")
    for _ in range(rng.randrange(0, 8)):
        name = rng.choice([b"From", b"Subject", b"To", b"Content-Type", b"Content-Transfer-Encoding"])
        lines.append(
            rng.choice([name, rng.randbytes(6)]) + rng.choice([b": ", b":", b" ", b""]) + _header_noise(rng)
        )
    sep = rng.choice([b"\r\n", b"\n", b"\r"])
    body = rng.randbytes(rng.randrange(0, 500)) + b"#%d" % i
    return sep.join(lines) + sep + sep + body


def _header_noise(rng: random.Random) -> bytes:
    size = rng.choice([0, 5, 80, 997, 998, 999, 2500])
    noise = rng.randbytes(size).replace(b"\r", b"").replace(b"\n", b"")
    pieces = [
        noise,
        b"=?utf-8?b?" + noise[:40] + b"?=",
        b"=?x-unknown?q?\x00\xff?=",
        noise.replace(b"\x00", b"\t"),
    ]
    return rng.choice(pieces)


def _poll(engine: Engine, raws: Sequence[bytes]) -> tuple[IntakeResult, FakeMailbox]:
    mailbox = FakeMailbox(uidvalidity=7)
    for raw in raws:
        mailbox.deliver(raw, NOW)
    return _poll_again(engine, mailbox), mailbox


def _poll_again(engine: Engine, mailbox: FakeMailbox) -> IntakeResult:
    """One pass of the reading loop, as a fresh start of the bot would make it."""
    intake = Intake(engine=engine, mailbox="INBOX", clock=lambda: NOW)
    return asyncio.run(intake.poll(FakeSource(mailbox), mailbox.uidvalidity))


def _rows(engine: Engine) -> list[Inbound]:
    with Session(engine) as session:
        return list(session.exec(select(Inbound).order_by(col(Inbound.id))))


def _assert_storable(row: Inbound) -> None:
    for name in ("mailbox", "message_id", "dedupe_key", "sender", "subject", "reason"):
        value = getattr(row, name)
        if value is None:
            continue
        assert not UNCLEAN.search(value), (name, value[:60])
        assert len(value) <= repo.column_length("inbound", name), name
    for key in (row.message_id, row.dedupe_key):
        assert key is None or len(key.encode()) <= repo.INDEX_BYTES


def test_hostile_corpus_is_stored_one_row_per_letter(engine: Engine) -> None:
    corpus = _corpus()
    result, mailbox = _poll(engine, [raw for _, raw in corpus])
    expected = {uid: raw for uid, (name, raw) in enumerate(corpus, start=1) if not name.startswith("dup:")}
    rows = _rows(engine)
    assert {row.uid: row.raw for row in rows} == expected  # raw bytes exactly as fetched
    assert (result.fetched, result.stored, result.duplicates) == (len(corpus), len(expected), 2)
    assert [row.state for row in rows] == [InboundState.NEW] * len(expected)  # none had to be shunted
    for row in rows:
        _assert_storable(row)
    assert len({row.dedupe_key for row in rows}) == len(rows)
    reused = {uid for uid, (name, _) in enumerate(corpus, start=1) if name.startswith("reuse:")}
    assert {row.uid for row in rows if repo.reuses_message_id(row)} == reused  # to be answered "not read"
    assert mailbox.seen == set(mailbox.messages)


def test_corpus_stores_the_same_on_a_second_delivery(engine: Engine) -> None:
    """A UIDVALIDITY change re-reads everything: every letter is then a duplicate."""
    corpus = [raw for _, raw in _corpus()]
    first, mailbox = _poll(engine, corpus)
    mailbox.renumber(8)
    again = _poll_again(engine, mailbox)
    assert (again.fetched, again.stored) == (len(corpus), 0)
    assert len(_rows(engine)) == first.stored


def test_overlong_ids_keep_a_prefix_and_stay_apart(engine: Engine) -> None:
    corpus = dict(_corpus())
    _poll(engine, [corpus["mid-5000"], corpus["mid-2000-a"], corpus["mid-2000-b"], corpus["nul-mid"]])
    mids = [row.message_id or "" for row in _rows(engine)]
    assert mids[0].startswith("m" * 900) and len(mids[0]) <= 998
    assert mids[1].startswith(PREFIX_998[:900]) and mids[2].startswith(PREFIX_998[:900])
    assert mids[1] != mids[2]
    assert mids[3].startswith("nulmid@x~")  # cleaned, and marked as changed


def test_lone_surrogates_are_stored(engine: Engine) -> None:
    """Surrogates from a decoder that used surrogateescape, and stray ones from anywhere."""
    texts = ["a\udcff\udce9b", "\ud800x", "y\udfff", "\udc00\ud83d\ude00"]
    items = [
        repo.NewInbound(i, t.encode("utf-8", "surrogatepass"), NOW, t, f"mid:{t}", "0" * 64, t, t)
        for i, t in enumerate(texts)
    ]
    with Session(engine) as session, session.begin():
        assert repo.add_inbound(session, "INBOX\udcff", 1, items, NOW) == len(texts)
    rows = _rows(engine)
    assert [row.raw for row in rows] == [item.raw for item in items]
    assert rows[0].subject == "a\ufffd\ufffdb" and rows[1].subject == "\ufffdx"
    for row in rows:
        _assert_storable(row)


def test_duplicate_in_one_batch_is_counted_once_and_logged(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mailbot.store.repo")
    corpus = dict(_corpus())
    result, _ = _poll(
        engine, [corpus["dup-first"], corpus["dup:dup-first"], corpus["reuse:dup-first"], corpus["empty"]]
    )
    assert (result.fetched, result.stored) == (4, 3)
    rows = _rows(engine)
    assert [row.raw for row in rows] == [corpus["dup-first"], corpus["reuse:dup-first"], b""]
    assert [repo.reuses_message_id(row) for row in rows] == [False, True, False]
    assert any("duplicate" in r.message and r.levelno == logging.INFO for r in caplog.records)
    assert any("re-uses the Message-ID" in r.message and r.levelno == logging.WARNING for r in caplog.records)


@pytest.fixture
def poison(engine: Engine) -> Engine:
    """A database that refuses any letter with the subject ``poison`` (a stand-in for any refusal)."""
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql(
                "CREATE TRIGGER poison BEFORE INSERT ON inbound WHEN NEW.subject = 'poison' "
                "BEGIN SELECT RAISE(ABORT, 'poisoned letter'); END"
            )
        else:
            conn.exec_driver_sql(
                "CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN IF NEW.subject = 'poison' THEN "
                "RAISE EXCEPTION 'poisoned letter'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql"
            )
            conn.exec_driver_sql(
                "CREATE TRIGGER poison BEFORE INSERT ON inbound FOR EACH ROW EXECUTE FUNCTION poison()"
            )
    return engine


def test_refused_letter_is_shunted_and_the_batch_goes_on(
    poison: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mailbot.store.repo")
    raws = [
        _letter(b"Subject: %s\r\nMessage-ID: <%d@x>\r\n" % (s, i))
        for i, s in enumerate([b"ok", b"poison", b"ok"])
    ]
    result, mailbox = _poll(poison, raws)
    rows = _rows(poison)
    assert [row.raw for row in rows] == raws and result.stored == 3
    assert [row.state for row in rows] == [InboundState.NEW, InboundState.SHUNTED, InboundState.NEW]
    assert "poisoned letter" in rows[1].reason and "poisoned letter" in (rows[1].traceback or "")
    assert rows[1].dedupe_key.startswith("sha:")
    assert any("shunted" in r.message and r.levelno == logging.ERROR for r in caplog.records)
    assert _poll_again(poison, mailbox).fetched == 0  # the cursor moved past the batch


def test_key_clash_with_a_concurrent_writer_is_a_duplicate(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The pre-check missed a row another writer committed meanwhile: the insert clashes."""
    caplog.set_level(logging.INFO, logger="mailbot.store.repo")
    with Session(engine) as session, session.begin():
        repo.add_inbound(session, "INBOX", 1, [_item("mid:race", b"theirs")], NOW)
    real, calls = repo.existing_keys, []

    def blind_first(session: Session, keys: Sequence[str]) -> set[str]:
        calls.append(keys)
        return set() if len(calls) == 1 else real(session, keys)

    monkeypatch.setattr(repo, "existing_keys", blind_first)
    with Session(engine) as session, session.begin():
        assert (
            repo.add_inbound(session, "INBOX", 1, [_item("mid:race", b"ours"), _item("mid:new", b"n")], NOW)
            == 1
        )
    assert [row.raw for row in _rows(engine)] == [b"theirs", b"n"]
    assert any("stored meanwhile" in r.message and r.levelno == logging.INFO for r in caplog.records)


def test_add_inbound_stays_inside_the_callers_transaction(engine: Engine) -> None:
    """Savepoints must not commit early (pysqlite would, if the SAVEPOINT opened the transaction)."""

    def store_then_fail() -> None:
        with Session(engine) as session, session.begin():
            repo.add_inbound(session, "INBOX", 1, [_item("mid:1"), _item("mid:2")], NOW)
            raise RuntimeError("the caller fails after storing")

    with pytest.raises(RuntimeError):
        store_then_fail()
    assert _rows(engine) == []


def _item(key: str, raw: bytes = b"x") -> repo.NewInbound:
    return repo.NewInbound(1, raw, NOW, None, key, "0" * 64, "a@b.test", "s")


@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=3000))
def test_fit_key_is_storable_stable_and_keeps_keys_apart(text: str) -> None:
    key = repo.fit_key(text, 998)
    assert not UNCLEAN.search(key) and len(key) <= 998 and len(key.encode()) <= repo.INDEX_BYTES
    assert repo.fit_key(text, 998) == key == repo.fit_key(key, 998)
    if key != text:
        assert repo.fit_key(text + "z", 998) != key
