# SPDX-License-Identifier: GPL-3.0-or-later
"""A played Flat Top game's archive is small for the letters it holds (issue 32: a whole game
under 10 MB), and its copy-once parts (maps' boards, legends and shared shapes, the letters' HTML
parts and stylesheets, the pages' stylesheet) still check whole with verify.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.demo.replay import step_seeds
from mailbot.services.archive.archive import export
from mailbot.services.base.tags import tag
from mailbot.store.game_tables import StepState
from tests.services.game_helpers import Harness
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.verifier.test_verify_attacks import _flattop

HOURS = 8  # Flat Top hours played, each with both sides' report and map
#: the whole archive's bytes over the letter pages it holds: 14.8 kB measured here (8 hours of
#: the small scenario, 37 letters; 17.9 before each letter's style attributes, each map's text
#: attributes and halos were kept once); the full Coral Sea played to the fifth day (demo seed
#: s2, 241 letter pages): 9.3 MB, 39 kB a letter page (12.6 MB, 52 kB before)
BYTES_PER_LETTER = 16_500
#: the whole archive's bytes over the steps played: 54.9 kB measured here (61.8 before); the
#: full Coral Sea played to the fifth day (demo seed s2, 127 steps): 73 kB a step (100 before).
#: 57.0 kB since the verifier reads a damaged archive's every field before it checks it: its
#: files are a fixed 70.7 kB of every archive (59.6 before), 1.1 kB a step of these ten.
#: 59.5 kB since the pages mark the facts they show and verify.py reads them back (``facts.py``,
#: ``archived_mail.py``: 2.5 kB a step, most of it the verifier's files and the rolls' marks).
#: The game is the same on every run (``SEED``): with fresh step seeds the weather and the maps
#: differ, and seven games measured 59.6-60.1 kB a step, across the line; this one is 58.8 kB.
BYTES_PER_TURN = 60_000
#: the step seeds' source: each run plays and measures the same game
SEED = "archive-size"


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/size.db", draw_seed=step_seeds(SEED))
    yield harness
    harness.bot.engine.dispose()


def _played(h: Harness) -> int:
    """The small Flat Top scenario's first hours, both sides sending empty orders (their plots held)."""
    game_id = _flattop(h)
    prefix = f"[{tag(h.game(game_id))}"
    while (step := h.steps(game_id)[-1]).state is StepState.OPEN and step.turn <= HOURS:
        for seat, address in (("allied", NORTH), ("japanese", SOUTH)):
            h.mail(address, f"{prefix} {h.seat(game_id, seat).secret}] orders", f"ORDERS {step.key}\nEND\n")
        h.tick(49 * 3600)
    return game_id


def test_a_flattop_archive_is_small_for_its_letters_and_checks_whole(h: Harness, tmp_path: Path) -> None:
    game_id = _played(h)
    out = tmp_path / "arch"
    with Session(h.bot.engine) as session:
        export(session, game_id, out)
    data = json.loads((out / "game.json").read_text(encoding="utf-8"))
    reports = data["reports"]
    assert len(reports) >= 2 * HOURS and all(r.get("map_file") for r in reports if r["seat"])
    assert all("html" not in r and r["html_file"] for r in reports)  # each HTML part on its page only
    letters = len(list((out / "steps").glob("*/*.html"))) - len(list((out / "steps").glob("*/referee.html")))
    size = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    assert size / letters < BYTES_PER_LETTER, (
        f"{size} bytes for {letters} letters: {size // letters} a letter"
    )
    assert len(list((out / "steps" / "styles").glob("*.css"))) <= 4  # the letters' stylesheets once
    maps = [p for p in (out / "steps").glob("*/*.svg") if p.parent.name != "layers"]
    legends = [p for p in (out / "steps" / "layers").glob("*.svg") if b'<g class="legend">' in p.read_bytes()]
    assert maps and not any(b'class="legend"' in p.read_bytes() for p in maps)  # each legend a picture
    assert 0 < len(legends) < len(maps) / 2
    turns = len(list((out / "steps").glob("*.html")))
    assert size / turns < BYTES_PER_TURN, f"{size} bytes for {turns} turns: {size // turns} a turn"
    _shared_once(out)
    _verified(out)
    sheet = out / "steps" / "layers" / "texts.css"
    sheet.write_text(sheet.read_text().replace("#b91c1c", "#b91c1d"))  # a red label's rule edited
    done = subprocess.run(
        [sys.executable, "verify.py", "."], cwd=out, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1 and "its map.svg is not the one logged when sent" in done.stdout, done.stdout


def test_a_finished_flattop_archive_keeps_the_referees_grammar_and_the_rolls_once(
    h: Harness, tmp_path: Path
) -> None:
    """Once the game has ended: the referee's view of every step, its order grammar on one page
    (the others link there), a side's own forces on that side's letter's page, and each roll on
    its step's page only."""
    game_id = _played(h)
    h.mail(NORTH, f"[{tag(h.game(game_id))} {h.seat(game_id, 'allied').secret}] I give up", "CONCEDE\n")
    out = tmp_path / "arch"
    with Session(h.bot.engine) as session:
        export(session, game_id, out)
    referee = [p.read_text() for p in sorted((out / "steps").glob("*/referee.html"))]
    assert len(referee) > HOURS and sum("Orders, one per line" in text for text in referee) == 1
    assert sum("The same as at set-up: <a" in text for text in referee) == len(referee) - 1
    pages = sorted((out / "steps").glob("*/referee.html"))
    found = [
        (page, re.search(r'letter to (\w+) at this step: <a href="([^"]+)"', page.read_text()))
        for page in pages
    ]
    linked = [(page, hit) for page, hit in found if hit]
    assert len(linked) > HOURS / 2  # a side's own forces: on its letter's page only
    for page, hit in linked:
        assert hit.group(1) in hit.group(2) and (page.parent / hit.group(2)).is_file()
    dice = (out / "dice.html").read_text()
    assert "initiative/allied</td>" not in dice and 'html#dice">' in dice
    assert '<td data-fact="label">initiative/allied</td>' in (out / "steps" / "T1.orders.html").read_text()
    _verified(out)


def _verified(out: Path) -> None:
    done = subprocess.run(
        [sys.executable, "verify.py", "."], cwd=out, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and ", 0 failed" in done.stdout, done.stdout


def _shared_once(out: Path) -> None:
    """What each page held again is kept once: the letters' style attributes and the maps' text
    attributes (a rule each of one stylesheet), a label's halo (in the label), the calendar
    entries (beside their letter, not again in mail.mbox); game.json an entry a line."""
    letters = [p.read_text() for p in (out / "steps").glob("*/*.html") if p.name != "referee.html"]
    assert letters and not any(' style="' in text for text in letters)
    assert all("styles/attributes.css" in text for text in letters)
    maps = [p.read_text() for p in (out / "steps").glob("*/*-map.svg")]
    assert maps and all('fill="#ffffff" stroke="#ffffff"' not in text for text in maps)  # no halo apart
    assert all(
        "layers/texts.css" in text and 'data-t="' in text and " font-size=" not in text for text in maps
    )
    assert b"text/calendar" not in (out / "mail.mbox").read_bytes()
    assert len(list((out / "steps").glob("*/*.ics"))) >= HOURS
    lines = (out / "game.json").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 2000 and lines[0] == "{"  # an entry a line
