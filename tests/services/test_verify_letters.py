# SPDX-License-Identifier: GPL-3.0-or-later
"""``verify --letters`` cannot be switched off or fooled (issue 31, items 3 and 7).

The game is found in the player's letters by what they state (chain heads, commitments), never
by the tag the archive gives; a mailbox with no letter of the game is a failure.
"""

from __future__ import annotations

import hashlib
import json
import mailbox
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.services.game_helpers import Harness, parse, text
from tests.services.test_games_by_mail import NORTH
from tests.services.test_verify_tampering import (
    Data,
    _export,
    _letters,
    _play,
    _run,
    _summary_counts_every_problem,
    rewrite,
)


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[Harness, int]]:
    harness = Harness(f"sqlite:///{tmp_path}/l.db")
    yield harness, _play(harness)
    harness.bot.engine.dispose()


def _edited(h: Harness, game_id: int, folder: Path, *edits: object) -> Data:
    data = _export(h, game_id, folder)
    for edit in edits:
        assert callable(edit)
        edit(data)
    (folder / "game.json").write_text(json.dumps(data))
    return data


def _tag(new: str) -> object:
    def edit(data: Data) -> None:
        data["game"]["tag"] = new

    return edit


@pytest.mark.parametrize("tag", ["DU-99", "du-1", ""])
def test_a_rewritten_chain_under_another_tag_is_still_checked_against_the_letters(
    played: tuple[Harness, int], tmp_path: Path, tag: str
) -> None:
    h, game_id = played
    folder = tmp_path / "rewrite"
    _edited(h, game_id, folder, rewrite, _tag(tag))
    done = _run(folder, "--letters", str(_letters(h, NORTH, tmp_path / "north.mbox")))
    assert done.returncode == 1, done.stdout
    assert "is not in the archive's chain" in done.stdout
    assert "letters: 0 " not in done.stdout
    _summary_counts_every_problem(done.stdout)


def test_an_honest_archive_under_another_tag_checks_clean(
    played: tuple[Harness, int], tmp_path: Path
) -> None:
    """The tag is not what matches letters to the game: renaming it changes nothing."""
    h, game_id = played
    folder = tmp_path / "renamed"
    _edited(h, game_id, folder, _tag("XX-7"))
    done = _run(folder, "--letters", str(_letters(h, NORTH, tmp_path / "north.mbox")))
    assert done.returncode == 0, done.stdout
    assert int(done.stdout.split("letters: ")[1].split()[0]) > 3


def test_a_mailbox_without_a_letter_of_the_game_is_a_failure(
    played: tuple[Harness, int], tmp_path: Path
) -> None:
    h, game_id = played
    folder = tmp_path / "plain"
    _export(h, game_id, folder)
    other = mailbox.mbox(tmp_path / "other.mbox")
    for sent in h.sink.sent:  # letters of another game: every head and commitment another
        if sent.recipient == NORTH:
            msg = EmailMessage()
            msg["Subject"] = parse(sent.raw)["Subject"]
            msg.set_content(re.sub(r"[0-9a-f]{64}", _another, text(parse(sent.raw))))
            other.add(msg)
    other.flush()
    other.close()
    for mbox in (tmp_path / "other.mbox", tmp_path / "empty.mbox"):
        mailbox.mbox(mbox).close()
        done = _run(folder, "--letters", str(mbox))
        assert done.returncode == 1, done.stdout
        assert "none of your letters states a chain head or commitment of this archive" in done.stdout


def _another(found: re.Match[str]) -> str:
    return hashlib.sha256(found.group().encode()).hexdigest()


def _edited_part(raw: bytes, content_type: str) -> bytes:
    """The letter with one part changed, as a mail server (or the moderator's outbox) could."""
    msg = parse(raw)
    for part in msg.walk():
        if part.get_content_type() == content_type and "hit points" in part.get_content():
            part.set_content(part.get_content().replace("hit points", "hitpoints"), subtype="html")
            return msg.as_bytes()
        if part.get_content_type() == content_type and content_type == "text/calendar":
            data = part.get_payload(decode=True) + b"X-EDITED:1\r\n"
            part.set_content(data, "text", "calendar", filename="deadline.ics")
            return msg.as_bytes()
    raise AssertionError(f"no {content_type} part to edit")


@pytest.mark.parametrize(
    ("content_type", "name"), [("text/html", "text/html"), ("text/calendar", "deadline.ics")]
)
def test_an_edited_part_of_a_report_letter_is_caught(
    played: tuple[Harness, int], tmp_path: Path, content_type: str, name: str
) -> None:
    h, game_id = played
    folder = tmp_path / "parts"
    _export(h, game_id, folder)
    box = mailbox.mbox(tmp_path / "north.mbox")
    reports = [s for s in h.sink.sent if s.recipient == NORTH and b"Game log chain head" in s.raw]
    for sent in h.sink.sent:
        if sent.recipient == NORTH:
            box.add(_edited_part(sent.raw, content_type) if sent is reports[1] else sent.raw)
    box.flush()
    box.close()
    done = _run(folder, "--letters", str(tmp_path / "north.mbox"))
    assert done.returncode == 1, done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and f"its part {name} is not the one the chain logged" in failed[0], failed


def test_an_edited_html_part_in_the_archive_is_caught(played: tuple[Harness, int], tmp_path: Path) -> None:
    h, game_id = played
    folder = tmp_path / "html"

    def edit(data: Data) -> None:
        data["reports"][2]["html"] = data["reports"][2]["html"].replace("hit points", "hitpoints")

    _edited(h, game_id, folder, edit)
    done = _run(folder)
    assert done.returncode == 1, done.stdout
    assert "report 2 (to " in done.stdout and "its text/html is not the one logged when sent" in done.stdout
