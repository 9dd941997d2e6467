# SPDX-License-Identifier: GPL-3.0-or-later
"""A played Flat Top game's archive is small for the letters it holds (issue 32: a whole game
under 10 MB), and its copy-once parts (maps' boards, legends and shared shapes, the letters' HTML
parts and stylesheets, the pages' stylesheet) still check whole with verify.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.services.archive.archive import export
from mailbot.services.base.tags import tag
from mailbot.store.game_tables import StepState
from tests.services.game_helpers import Harness
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.services.test_verify_attacks import _flattop

HOURS = 8  # Flat Top hours played, each with both sides' report and map
#: the whole archive's bytes over the letter pages it holds: 17.9 kB measured here (8 hours of
#: the small scenario, 37 letters); the full Coral Sea demo game: 11.6 MB, 52 kB a letter page
BYTES_PER_LETTER = 21_000


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/size.db")
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
    done = subprocess.run(
        [sys.executable, "verify.py", "."], cwd=out, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and ", 0 failed" in done.stdout, done.stdout
