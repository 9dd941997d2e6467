# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 32: Flat Top letters that lead with what to decide, read as the players get them; and
issue 16: the game played by mail to its end, strikes each way, a delayed sinking, a decision.

The Flat Top demo is played once by mail (``play_demo``, the embedded mail server), and every
report in the two players' mailboxes is read as sent: its subject, its text part's first lines,
its HTML part in headless Chromium at desktop and phone width. Nothing here is a hand-made
letter: what a rule about letters says is checked on every letter of a whole game.
"""

from __future__ import annotations

import mailbox
import re
import sqlite3
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from mailbot.games.flattop.view import GRAMMAR_POINTER, SYNTAX
from tests.demo_plays import DemoPlays, Played
from tests.e2e.browser import DESKTOP, Browser

PLAYERS = ("player1@demo.localhost", "player2@demo.localhost")
PHONE = (375, 740)  # issue 32's phone width
#: a Flat Top report's subject: tag, hour (and sub-step), what is due, then the game's title
SUBJECT = re.compile(
    r"^\[FL-\d+ \w+\] T\d+ \d{4} D\d+(?: [a-z ]+?)?: "
    r"(?:(?:orders|seal) due \w{3} \d{1,2} \w{3} \d\d:\d\d|nothing due from you|game over) - \S"
)
HEAD_LINES = 10  # "every Flat Top letter says what is owed within its first 10 lines"


@dataclass(frozen=True)
class Letter:
    address: str
    subject: str
    text: str
    html: str


def _part(msg: EmailMessage, kind: str) -> str:
    part = msg.get_body(preferencelist=(kind,))
    return "" if part is None else str(part.get_content())


@pytest.fixture(scope="module")
def game(demo_plays: DemoPlays) -> Played:
    """The Flat Top demo game, played once by mail for the whole run (``tests/e2e/demos.py``)."""
    return demo_plays("flattop")


@pytest.fixture(scope="module")
def reports(game: Played) -> list[Letter]:
    """Every report the two players got in one Flat Top demo game, in the order received."""
    work, result = game.work, game.result
    assert result.summary.endswith("finished"), result.summary
    found = []
    for address in PLAYERS:
        box = mailbox.mbox(work / "mail" / f"{address}.mbox")
        kept = list(box)
        box.close()
        for raw in kept:
            msg = BytesParser(policy=policy.default).parsebytes(raw.as_bytes())
            assert isinstance(msg, EmailMessage)
            subject = " ".join(str(msg["Subject"]).split())
            if "== Flat Top: report for" in _part(msg, "plain"):
                found.append(Letter(address, subject, _part(msg, "plain"), _part(msg, "html")))
    assert len(found) > 40
    return found


def test_every_report_says_what_is_owed_and_by_when_in_its_first_ten_lines(reports: list[Letter]) -> None:
    for letter in reports:
        head = letter.text.splitlines()[:HEAD_LINES]
        assert "What you must decide:" in head, letter.subject
        if "game over" in letter.subject:
            continue
        owed = "orders due" in letter.subject or "seal due" in letter.subject
        deadline = [line for line in head if line.startswith(("  Deadline: ", "  The step closes: "))]
        assert len(deadline) == 1, (letter.subject, head)
        assert deadline[0].startswith("  Deadline: ") is owed, (letter.subject, head)
        # then what changed this hour, then the rest
        text = letter.text
        assert text.index("What you must decide:") < text.index("What changed") < text.index("Weather near")


def test_no_letter_says_nothing_is_owed_and_then_what_to_send(reports: list[Letter]) -> None:
    """Issue 32: the combat-choice letter said "Nothing is owed" and then "Send: ORDERS T4.strike"."""
    quiet = [letter for letter in reports if "nothing due from you" in letter.subject]
    assert quiet, "the demo has combat steps a side owes nothing in"
    for letter in quiet:
        assert "Nothing is owed by your side in this step." in letter.text
        assert not re.search(r"^Send: ", letter.text, re.MULTILINE), letter.subject
        assert "You owe orders" not in letter.text
    for letter in reports:
        if "orders due" in letter.subject:
            assert "Nothing is owed" not in letter.text and "Send: ORDERS " in letter.text


def test_the_order_grammar_is_in_the_first_letter_and_a_pointer_after(reports: list[Letter]) -> None:
    for address in PLAYERS:
        own = [letter for letter in reports if letter.address == address]
        assert all(line in own[0].text for line in SYNTAX[1:4]), "the first letter gives the grammar"
        # the hour's letters (a combat sub-step's carries its own short help)
        hours = [letter for letter in own[1:] if re.search(r" D\d+: orders due", letter.subject)]
        assert hours
        for letter in hours:
            assert SYNTAX[2] not in letter.text, letter.subject
            assert " ".join(GRAMMAR_POINTER[0].split()) in " ".join(letter.text.split())


def test_the_weather_is_summarised_in_the_body_and_listed_in_the_appendix(reports: list[Letter]) -> None:
    for letter in reports:
        text = letter.text
        appendix = text.index("Appendix: weather, every hex")
        assert text.index("Weather near") < text.index("Contacts (") < appendix
        assert text.index("\nStorms: ") > appendix  # every storm hex only at the end
        assert "Every cloud marker and storm hex: in the appendix at the end." in text[:appendix]


def test_subjects_fit_a_mail_index(reports: list[Letter]) -> None:
    """Issue 32: subjects were cut to "Demo Flat T" in a mail index. The hour and what is due now
    come right after the tag: the first 40 characters show the hour and begin what is due."""
    for letter in reports:
        assert SUBJECT.match(letter.subject), letter.subject
        head = letter.subject.split(" - ", 1)[0]
        assert head.index(": ") < 38 and len(head) <= 72, letter.subject
    assert any("strike: nothing due from you" in letter.subject for letter in reports)


def test_each_contact_has_one_estimate(reports: list[Letter]) -> None:
    """Issue 32: two observers' estimates side by side ("about 3 ships / about 4 ships")."""
    rows = 0
    for letter in reports:
        text = letter.text
        start, end = text.index("by kind of observer):"), text.index("Combat results table")
        block = " ".join(text[start:end].split())
        for found in re.split(r"(?= D\d+ \d{4} [IVX]+-)", block)[1:]:
            # A letter that carries several hours (quiet hours played without mail) has a
            # contacts list for each: a row ends where the next hour's report begins.
            row = found.split(" --- ", 1)[0]
            rows += 1
            assert " / " not in row, row
            assert row.count(" condition ") == 1 or "also reported" in row or "(condition" in row, row
    assert rows > 0


def _owed_hour(reports: list[Letter]) -> Letter:
    """A late report with orders due: a long letter (news, contacts, aircraft aloft)."""
    owed = [letter for letter in reports if "orders due" in letter.subject]
    return max(owed, key=lambda letter: len(letter.html))


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_owed_lines_are_on_the_first_screen_in_a_browser(
    reports: list[Letter], tmp_path: Path, size: tuple[int, int]
) -> None:
    """The HTML part in Chromium: the deadline line's bottom lies within the first screen, and
    nothing is wider than the screen (no sideways scrolling)."""
    page = tmp_path / "letter.html"
    page.write_text(_owed_hour(reports).html, encoding="utf-8")
    browser = Browser()
    frame = tmp_path / "frame.html"
    bottom = float(
        browser.measure(page, frame, size, "doc.getElementById('deadline').getBoundingClientRect().bottom")
    )
    assert 0 < bottom <= size[1], f"the deadline ends at {bottom}px, below the first {size[1]}px"
    width = int(browser.measure(page, frame, size, "doc.documentElement.scrollWidth"))
    assert width <= size[0], f"the letter is {width}px wide at {size[0]}px"


def test_flattop_is_played_by_mail_and_the_sides_find_each_other(game: Played) -> None:
    """Issue 16 "By mail": the demo plays to its end with strikes each way, the makeup and the target
    choice by mail, damage reports that differ per side, a delayed sinking and a decision (the
    full Coral Sea's staffs concede a lost carrier battle, ``demo_review.concedes``).
    The demo seed (``demo/replay.py``) makes the game the same every run, so all of it must show."""
    tmp_path, played = game.work, game.result
    summary = played.summary
    found = re.fullmatch(
        r"demo: \d+ mails in, \d+ replies out, (\d+) turns, (\d+) hours without a letter"
        r" \((\d+) reports to each seat\), game \d+ finished",
        summary,
    )
    assert found, summary
    hours, quiet, _ = (int(n) for n in found.groups())
    with sqlite3.connect(tmp_path / "demo.db") as conn:
        hourly = conn.execute(
            "select count(*) from report where seat = 'allied' and step_key like 'T%.orders'"
        ).fetchone()[0]
    # A night played with fewer hourly letters than hours (combat sub-steps bring letters of their own).
    assert hours >= 12 and quiet > 0 and hourly < hours

    with sqlite3.connect(tmp_path / "demo.db") as conn:
        reports = conn.execute("select seat, text from report where step_key = 'T3.orders'").fetchall()
    texts = dict(reports)
    assert set(texts) == {"allied", "japanese"} and texts["allied"] != texts["japanese"]
    contacts = [t.split("Contacts (")[1].split("\n\n")[0] for t in texts.values()]
    assert all("condition" in block for block in contacts)  # both sides hold contact reports
    assert "Shokaku" not in texts["allied"] and "Yorktown" not in texts["japanese"]  # never enemy names
    battles = re.fullmatch(
        r"battles: air (\d+), surface \d+, sealed values \d+, hours without mail \d+", played.battles
    )
    assert battles and int(battles[1]) >= 1, played.battles
    with sqlite3.connect(tmp_path / "demo.db") as conn:
        letters = conn.execute("select seat, text from report").fetchall()
    told = {seat: "\n".join(t for s, t in letters if s == seat) for seat in ("allied", "japanese")}
    # A strike each way by mail: the attacker's makeup and report, the defender's own report of it.
    struck = [
        (a, d) for a, d in (("allied", "japanese"), ("japanese", "allied")) if "Air strike at" in told[a]
    ]
    assert len(struck) == 2, "strikes did not go both ways"
    for attacker, defender in struck:
        assert "Precise makeup" in told[attacker] and "Enemy air strike at" in told[defender]
    # LI 4: a ship destroyed but slow to sink: "is sinking" to her side, "dead in the water" to the
    # enemy (reported crippled until she goes down).
    sinking = [side for side in told if "is sinking" in told[side]]
    assert sinking, "no delayed sinking"
    enemy = {"allied": "japanese", "japanese": "allied"}
    assert any("dead in the water" in told[enemy[side]] for side in sinking)
    assert "Victory points:" in told["allied"] and "Victory points:" in told["japanese"]
    # A decision: the rules' end (the totals in the last report) or a side that gave the game up.
    with sqlite3.connect(tmp_path / "demo.db") as conn:
        (result,) = conn.execute("select result from game").fetchone()
    conceded = re.fullmatch(r"(allied|japanese) wins: \w+ conceded", result)
    assert "Totals:" in told["japanese"] or conceded, result


def test_a_game_given_up_tells_each_side_the_score_it_ended_on(game: Played) -> None:
    """A concession ends the game before its rules do: the "Game over" letter gives the victory
    points then (``core.game.Scored``), as the last report gives them at the rules' own end."""
    work = game.work
    with sqlite3.connect(work / "demo.db") as conn:
        (result,) = conn.execute("select result from game").fetchone()
        conceding = [row[0] for row in conn.execute("select sender from inbound where instr(raw, 'CONCEDE')")]
    # The demo seed's game ends with the Allies conceding on D3 (README). Only they do: the Japanese
    # staff counts the carrier its strikes left dead in the water against the one it lost (when it
    # counted none, both staffs conceded that evening and the first letter read decided the game).
    assert result == "japanese wins: allied conceded", result
    assert conceding == [PLAYERS[0]], conceding  # the Allies' player; the Japanese sent none
    for address in PLAYERS:
        box = mailbox.mbox(work / "mail" / f"{address}.mbox")
        kept = [BytesParser(policy=policy.default).parsebytes(m.as_bytes()) for m in box]
        box.close()
        over = [m for m in kept if str(m["Subject"]).endswith(": Game over")]
        assert len(over) == 1 and isinstance(over[0], EmailMessage), address
        body = _part(over[0], "plain")
        found = re.search(r"Victory points when the game ended: allied (\d+), japanese (\d+)\.", body)
        assert found, body
