# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter is parsed where it is read from the mailbox (``mail.parsed``): the letter process
takes that parse, and parses again whatever this code, under these limits, did not make."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from mailbot.mail import parsed
from mailbot.mail.mime import parse_letter
from mailbot.services.inbox import inbound
from mailbot.store.models import Inbound, InboundState
from tests.services.game_helpers import Harness, text
from tests.services.helpers import letter

CORPUS = Path(__file__).parents[1] / "data" / "mail"
STRANGER = "someone@players.test"
#: what the stranger's HELP is answered with, and what his STATUS is
_HELPED = "this list of commands"
_STATUS = "You are not playing in a game here"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


@pytest.mark.parametrize("limits", [(256_000, 64_000), (2_000, 300)], ids=["default", "tight"])
def test_a_kept_parse_is_the_letter_itself_for_every_letter_of_the_mail_corpus(
    limits: tuple[int, int],
) -> None:
    kept_under = parsed.ParseLimits(*limits)
    letters = sorted(CORPUS.glob("*.eml"))
    assert len(letters) >= 30
    for path in letters:
        raw = path.read_bytes()
        kept = parsed.parse_to_keep(raw, kept_under)
        assert kept is not None, path.name
        stored = json.loads(json.dumps(kept))  # as the store gives it back
        assert parsed.kept_letter(stored, kept_under) == parse_letter(
            raw, max_bytes=limits[0], max_text_chars=limits[1]
        ), path.name


def _store(h: Harness, body: str = "HELP\n") -> int:
    h.clock.advance(1)
    assert h.bot.inject(letter(sender=STRANGER, subject="hello", body=body)) == 1
    with Session(h.bot.engine) as session:
        return max(row.id or 0 for row in session.exec(select(Inbound)))


def _row(h: Harness, inbound_id: int) -> Inbound:
    with Session(h.bot.engine) as session:
        row = session.get_one(Inbound, inbound_id)
        session.expunge(row)
        return row


def _keep(h: Harness, inbound_id: int, kept: dict[str, Any] | None) -> None:
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Inbound, inbound_id).letter = kept


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The letters the letter process parses itself from now on."""
    seen: list[bytes] = []
    real = inbound.parse_letter

    def counted(raw: bytes, **limits: int) -> Any:
        seen.append(raw)
        return real(raw, **limits)

    monkeypatch.setattr(inbound, "parse_letter", counted)
    return seen


def test_the_letter_process_takes_the_readers_parse_and_drops_it_with_the_handling(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbound_id = _store(h)
    assert _row(h, inbound_id).letter is not None, "parsed as it was stored"
    parses = _parses(monkeypatch)

    h.bot.processor.process_pending()

    assert parses == [], "not parsed a second time"
    row = _row(h, inbound_id)
    assert row.state is InboundState.PROCESSED
    assert row.letter is None, "the kept parse goes with the handling: the raw letter stays the record"
    (reply,) = h.flush()
    assert reply["To"] == STRANGER and _HELPED in text(reply)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda kept: kept | {"parser": "another version of the parser"}, id="other-code"),
        pytest.param(lambda kept: kept | {"limits": [1_000, 100]}, id="other-limits"),
        pytest.param(lambda kept: kept | {"letter": {"sender": STRANGER}}, id="not-as-written"),
        pytest.param(lambda kept: {"something": "else"}, id="no-parse"),
    ],
)
def test_a_parse_this_code_under_these_limits_did_not_make_is_parsed_again(
    h: Harness, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    inbound_id = _store(h, "HELP\n")
    kept = _row(h, inbound_id).letter
    assert kept is not None
    # What the kept parse says differs from the letter: used, it would answer another command.
    kept["letter"]["command_text"] = kept["letter"]["body_text"] = "STATUS\n"
    _keep(h, inbound_id, change(kept))
    parses = _parses(monkeypatch)

    h.bot.processor.process_pending()

    assert len(parses) == 1, "parsed again from the raw letter"
    assert _row(h, inbound_id).letter is None
    (reply,) = h.flush()
    assert _HELPED in text(reply) and _STATUS not in text(reply), "what the letter says, not the kept parse"


def test_an_unchanged_parse_is_used_even_where_it_says_otherwise_than_the_raw_letter(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counterpart of the test above: without a change to its fingerprint or limits, the kept
    parse is what is read (so that test shows the checks, not a parse made again every time)."""
    inbound_id = _store(h, "HELP\n")
    kept = _row(h, inbound_id).letter
    assert kept is not None
    kept["letter"]["command_text"] = kept["letter"]["body_text"] = "STATUS\n"
    _keep(h, inbound_id, kept)
    parses = _parses(monkeypatch)

    h.bot.processor.process_pending()

    assert parses == []
    (reply,) = h.flush()
    assert _STATUS in text(reply) and _HELPED not in text(reply)


def test_a_letter_the_reader_cannot_parse_is_stored_unparsed_and_answered_as_before(h: Harness) -> None:
    raw = b"\x00\x01 not a header at all"
    assert parsed.parse_to_keep(raw, parsed.ParseLimits(256_000, 64_000)) is None
    h.bot.inject(raw)
    with Session(h.bot.engine) as session:
        row = session.exec(select(Inbound)).one()
    assert row.letter is None
    h.bot.processor.process_pending()
    assert _row(h, row.id or 0).state is InboundState.SHUNTED, "no header: nobody to answer, as before"


def test_the_fingerprint_follows_the_parsers_files() -> None:
    """A change to any module or data file of ``mailbot.mail`` (or to ``core/letter.py``) makes
    a kept parse stale; files elsewhere do not."""
    names = {name for name, _ in parsed._files_under(parsed.files("mailbot") / "mail")}
    assert {
        "mime.py",
        "mimebody.py",
        "quoting.py",
        "data/auto-replies.toml",
        "data/quote-phrases.toml",
    } <= names
    assert len(parsed.fingerprint()) == 32
