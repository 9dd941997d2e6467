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
