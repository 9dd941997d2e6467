# SPDX-License-Identifier: GPL-3.0-or-later
"""``verify --letters`` cannot be switched off or fooled (issue 31, items 3 and 7).

The game is found in the player's letters by what they state (chain heads, commitments) and the
code of their tag (the chain's game's), never by the tag the archive gives; a mailbox with no
letter of the game is a failure, and letters of another game are said apart, never failed.
"""

from __future__ import annotations

import hashlib
import json
import mailbox
import re
import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailbot.verifier.pages import page_text, sent_html
from tests.services.game_helpers import Harness, parse, text
from tests.services.helpers import GM
from tests.services.test_games_by_mail import NORTH
from tests.verifier.test_verify_tampering import (
    Data,
    Finished,
    _letters,
    _run,
    _summary_counts_every_problem,
    finished_duel,
    rewrite,
)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Finished]:
    with finished_duel(tmp_path_factory.mktemp("played")) as done:
        yield done


def _edited(played: Finished, folder: Path, *edits: object) -> Data:
    data = played.archive(folder)
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
    played: Finished, tmp_path: Path, tag: str
) -> None:
    h = played.h
    folder = tmp_path / "rewrite"
    _edited(played, folder, rewrite, _tag(tag))
    done = _run(folder, "--letters", str(_letters(h, NORTH, tmp_path / "north.mbox")))
    assert done.returncode == 1, done.stdout
    assert "is not in the archive's chain" in done.stdout
    assert "letters: 0 " not in done.stdout
    _summary_counts_every_problem(done.stdout)


def test_an_honest_archive_under_another_tag_checks_clean(played: Finished, tmp_path: Path) -> None:
    """The tag is not what matches letters to the game: renaming it changes nothing."""
    h = played.h
    folder = tmp_path / "renamed"
    _edited(played, folder, _tag("XX-7"))
    done = _run(folder, "--letters", str(_letters(h, NORTH, tmp_path / "north.mbox")))
    assert done.returncode == 0, done.stdout
    assert int(done.stdout.split("letters: ")[1].split()[0]) > 3


@pytest.fixture
def own(tmp_path: Path) -> Iterator[Finished]:
    """A game of the test's own, for a test that adds to its letters."""
    with finished_duel(tmp_path) as done:
        yield done


def test_history_letters_in_the_mailbox_are_not_taken_for_reports(own: Finished, tmp_path: Path) -> None:
    """Outside players' trial: a player who had asked for HISTORY got a FAILED line for every
    copy ("the archive does not account for this report"): each carried its report's chain head
    line, and its text marked where the game moved on since. The reports as first sent are the
    ones checked; the copies state no head."""
    h, game_id = own.h, own.game_id
    tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    assert any("] History: " in str(m["Subject"]) for m in h.mail(NORTH, f"{tag} history", "HISTORY\n"))
    folder = tmp_path / "honest"
    _edited(own, folder)
    done = _run(folder, "--letters", str(_letters(h, NORTH, tmp_path / "north.mbox")))
    assert done.returncode == 0, done.stdout
    assert "FAILED" not in done.stdout


def test_a_mailbox_without_a_letter_of_the_game_is_a_failure(played: Finished, tmp_path: Path) -> None:
    h = played.h
    folder = tmp_path / "plain"
    played.archive(folder)
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
        said = "under a tag of this game (DU-...) states a chain head or commitment of this archive"
        assert said in done.stdout


def _another(found: re.Match[str]) -> str:
    return hashlib.sha256(found.group().encode()).hexdigest()


def _of_another_game(h: Harness, path: Path) -> Path:
    """North's letters as those of another game would read: tagged WI-1, each report at a chain
    head of its own, but the commitments and the seed chain's anchor this game's (the demo's
    games all draw their seeds from one seed)."""
    box = mailbox.mbox(path)
    for sent in h.sink.sent:
        if sent.recipient == NORTH:
            msg = EmailMessage()
            msg["Subject"] = re.sub(r"\[DU-\d+", "[WI-1", str(parse(sent.raw)["Subject"]))
            heads = re.compile(r"(chain head: )([0-9a-f]{64})")
            msg.set_content(heads.sub(lambda found: found.group(1) + _another(found), text(parse(sent.raw))))
            box.add(msg)
    box.flush()
    box.close()
    return path


def test_letters_of_another_game_are_counted_apart_never_failed(played: Finished, tmp_path: Path) -> None:
    """A mailbox holding another game's letters beside this one's: they are said once, and none
    of them is a failure, though it states a commitment this chain holds."""
    h = played.h
    folder = tmp_path / "two"
    played.archive(folder)
    other = _of_another_game(h, tmp_path / "other.mbox")
    ours = _letters(h, NORTH, tmp_path / "north.mbox")
    both = tmp_path / "both.mbox"
    both.write_bytes(ours.read_bytes() + other.read_bytes())
    count = sum(1 for sent in h.sink.sent if sent.recipient == NORTH)
    done = _run(folder, "--letters", str(both))
    assert done.returncode == 0, done.stdout
    assert f"letters: {count} are of another game (WI-1), not checked\n" in done.stdout
    assert done.stdout.count("WI-1") == 1
    done = _run(folder, "--letters", str(other))
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "none of your letters under a tag of this game (DU-...)" in failed[0], failed
    assert f"letters: {count} are of another game (WI-1), not checked\n" in done.stdout
    _summary_counts_every_problem(done.stdout)


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
    played: Finished, tmp_path: Path, content_type: str, name: str
) -> None:
    h = played.h
    folder = tmp_path / "parts"
    played.archive(folder)
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


def _page_of(folder: Path, data: Data, n: int) -> Path:
    """The page that holds report ``n``'s HTML part (game.json names it instead of holding it)."""
    assert "html" not in data["reports"][n] and data["reports"][n]["html_file"].startswith("steps/")
    return folder / data["reports"][n]["html_file"]


def test_an_edited_letter_page_in_the_archive_is_caught(played: Finished, tmp_path: Path) -> None:
    folder = tmp_path / "html"
    page = _page_of(folder, played.archive(folder), 2)
    assert "hit points" in page.read_text()
    page.write_text(page.read_text().replace("hit points", "hitpoints"))
    done = _run(folder)
    assert done.returncode == 1, done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "report 2 (to " in failed[0], failed
    assert "its text/html is not the one logged when sent" in failed[0]


def test_a_letters_stylesheet_edited_or_a_page_missing_is_caught(played: Finished, tmp_path: Path) -> None:
    """The letters' shared stylesheets are part of every letter as sent: editing one fails every
    report that carries it; a page taken away is said."""
    folder = tmp_path / "styles"
    data = played.archive(folder)
    sheets = sorted(p for p in (folder / "steps" / "styles").glob("*.css") if p.name != "attributes.css")
    assert sheets and all(hashlib.sha256(s.read_bytes()).hexdigest() == s.stem for s in sheets)
    sheets[0].write_text(sheets[0].read_text() + "\nbody { color: red; }\n")
    _page_of(folder, data, 1).unlink()
    done = _run(folder)
    assert done.returncode == 1, done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    with_html = [n for n, r in enumerate(data["reports"]) if r.get("html_file")]
    assert len(failed) == len(with_html) + 1, failed  # each report's HTML part, and the missing page
    assert f"the letter page {data['reports'][1]['html_file']} is missing" in done.stdout
    _summary_counts_every_problem(done.stdout)


def test_a_style_attribute_edited_in_the_sites_stylesheet_is_caught(played: Finished, tmp_path: Path) -> None:
    """The letters' style attributes, a rule each in one stylesheet for the site, are part of
    every letter that had them: a rule edited fails each report whose page names it."""
    folder = tmp_path / "attributes"
    data = played.archive(folder)
    sheet = folder / "steps" / "styles" / "attributes.css"
    rule = next(line for line in sheet.read_text().splitlines() if "padding" in line)
    key = rule.split('"')[1]
    named = [
        n
        for n, r in enumerate(data["reports"])
        if r.get("html_file") and f'data-style="{key}"' in _page_of(folder, data, n).read_text()
    ]
    assert named and "padding" not in _page_of(folder, data, named[0]).read_text()  # no attribute left
    assert _run(folder).returncode == 0
    sheet.write_text(sheet.read_text().replace(rule, rule.replace("padding", "margin")))
    done = _run(folder)
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert done.returncode == 1 and len(failed) == len(named), failed
    assert all("text/html is not the one logged" in line for line in failed)


def _format_1(folder: Path, data: Data) -> None:
    """game.json as the first format wrote it: every report holds its text and HTML part."""
    for report in data["reports"]:
        if "text_file" in report:
            report["text"] = page_text(folder, report.pop("text_file"))
        name = report.pop("html_file", None)
        if name is not None:
            report["html"] = sent_html(folder, name, report.pop("html_swaps"))
    data["format"] = "mailbot-archive-1"


def test_an_archive_of_the_first_format_is_still_checked(played: Finished, tmp_path: Path) -> None:
    """An archive exported before the pages held the HTML parts (format 1) checks clean, and an
    HTML part edited in its game.json is caught as it was."""
    folder = tmp_path / "format1"
    data = played.archive(folder)
    _format_1(folder, data)
    shutil.rmtree(folder / "steps")  # game.json alone is what format 1 checked of the letters
    (folder / "game.json").write_text(json.dumps(data))
    assert _run(folder).returncode == 0, _run(folder).stdout
    data["reports"][2]["html"] = data["reports"][2]["html"].replace("hit points", "hitpoints")
    (folder / "game.json").write_text(json.dumps(data))
    done = _run(folder)
    assert done.returncode == 1, done.stdout
    assert "report 2 (to " in done.stdout and "its text/html is not the one logged when sent" in done.stdout


def test_an_edited_or_missing_letter_text_on_a_step_page_is_caught(played: Finished, tmp_path: Path) -> None:
    """game.json names each report's text on its step's page: the page's text is checked."""
    folder = tmp_path / "text"
    played.archive(folder)
    reports = json.loads((folder / "game.json").read_text())["reports"]
    on_pages = [r for r in reports if "text" not in r and "#letter-" in r["text_file"]]
    assert len(on_pages) >= len(reports) - 2  # the last step's reports: on no page when written
    edited, gone = reports[2]["text_file"].split("#"), reports[3]["text_file"].split("#")
    page = folder / edited[0]
    before, letter, after = page.read_text().partition(f'id="{edited[1]}"')
    assert "hit points" in after.split("</article>")[0]
    page.write_text(before + letter + after.replace("hit points", "hitpoints", 1))
    page = folder / gone[0]
    page.write_text(page.read_text().replace(f'id="{gone[1]}"', 'id="elsewhere"'))
    done = _run(folder)
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    # mail.mbox holds the reports as sent: the edited one and the one gone are not its letters
    assert sum(line.startswith("FAILED: mail.mbox lacks report") for line in failed) == 2, failed
    failed = [line for line in failed if not line.startswith("FAILED: mail.mbox")]
    # the text gone; each report altered; and so the chain's two reports the archive lacks
    assert done.returncode == 1 and len(failed) == 5, failed
    assert sum("that the archive lacks" in line for line in failed) == 2, failed
    assert f"report 2 (to {reports[2]['seat']}, {reports[2]['step']}) was altered" in done.stdout
    assert f"report 3 (to {reports[3]['seat']}): its text {reports[3]['text_file']} is missing" in done.stdout
    _summary_counts_every_problem(done.stdout)


def test_a_format_verify_does_not_know_is_refused(played: Finished, tmp_path: Path) -> None:
    folder = tmp_path / "format9"
    _edited(played, folder, _format("mailbot-archive-9"))
    done = _run(folder)
    assert done.returncode == 2 and "verify: " not in done.stdout, done.stdout
    assert "is of format 'mailbot-archive-9'" in done.stderr and "mailbot-archive-2" in done.stderr


def _format(name: str) -> object:
    def edit(data: Data) -> None:
        data["format"] = name

    return edit


def test_letters_under_this_games_tag_are_never_said_to_be_another_games(
    played: Finished, tmp_path: Path
) -> None:
    """The GM's notices ('[DU-1 GM] ...') state no chain head: his mailbox holds no report to
    check, but its letters are this game's, not another game's."""
    h = played.h
    folder = tmp_path / "gm"
    played.archive(folder)
    assert any(sent.recipient == GM for sent in h.sink.sent)
    notices = _letters(h, GM, tmp_path / "gm.mbox")
    done = _run(folder, "--letters", str(notices))
    assert "another game" not in done.stdout, done.stdout
    assert "none of your letters under a tag of this game (DU-...)" in done.stdout
