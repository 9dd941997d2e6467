# SPDX-License-Identifier: GPL-3.0-or-later
"""verify.py checks what a reader sees, not only game.json: every fact a page marks (a roll's
faces and total, a seat's orders, the game's result), the stylesheets, and every report in
``mail.mbox``. Each case edits a page (never game.json) of a finished duel's archive and runs
the archive's own ``verify.py``, as a player would."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.render.archive_pages import environment
from mailbot.render.templates import Renderer
from mailbot.services.archive.archive import export
from mailbot.verifier import facts
from tests.services.game_helpers import Harness
from tests.verifier.test_verify_tampering import (
    Finished,
    _play,
    _run,
    _summary_counts_every_problem,
    finished,
    h,
)

__all__ = ["finished", "h"]

Edit = Callable[[Path], None]


@pytest.fixture
def clean(finished: Finished, tmp_path: Path) -> Path:
    """A copy of the finished duel's archive, which verify.py checks clean, for the test to edit."""
    folder = tmp_path / "clean"
    finished.archive(folder)
    return folder


def _edit(path: Path, old: str, new: str, pattern: bool = False) -> None:
    text = path.read_text(encoding="utf-8")
    changed = re.sub(old, new, text, count=1) if pattern else text.replace(old, new, 1)
    assert changed != text, f"{old!r} not in {path}"
    path.write_text(changed, encoding="utf-8")


def _rolled_page(folder: Path) -> Path:
    data = json.loads((folder / "game.json").read_text())
    step = [s for s in data["steps"] if s["rolls"]][-1]
    return folder / "steps" / f"{facts.step_stem(step['key'], step['attempt'])}.html"


def dice_faces(folder: Path) -> None:
    """A roll's first face and its total changed where the step's page shows them."""
    row = r'(<tr data-roll="[^"]*/0">(?:<td[^>]*>[^<]*</td>){2}<td data-fact="faces">)(\d+)'
    _edit(_rolled_page(folder), row, r"\g<1>9\2", pattern=True)


def orders_block(folder: Path) -> None:
    _edit(folder / "steps" / "T1.orders.html", "<pre data-fact", "<pre>ATTACK 3</pre><pre data-fact")
    _edit(folder / "steps" / "T1.orders.html", ">ATTACK 2\n", ">ATTACK 3\nATTACK 2\n")


def result(folder: Path) -> None:
    _edit(folder / "index.html", r'(data-fact="game/result">)([^<]*)', r"\1someone else won", pattern=True)


def row_removed(folder: Path) -> None:
    _edit(_rolled_page(folder), r'(?s)<tr data-roll="[^"]*/0">.*?</tr>\n', "", pattern=True)


def unbacked_roll(folder: Path) -> None:
    _edit(
        _rolled_page(folder),
        "</tbody>",
        '<tr><td data-fact="roll/T9.extra/1/0/faces">6 6</td></tr>\n</tbody>',
    )


def hidden_by_attribute(folder: Path) -> None:
    _edit(_rolled_page(folder), '<section id="dice">', '<section id="dice" style="display:none">')


def style_appended(folder: Path) -> None:
    with (folder / "style.css").open("a", encoding="utf-8") as sheet:
        sheet.write("#dice{display:none} ")


def report_in_mbox(folder: Path) -> None:
    _edit(folder / "mail.mbox", "Game log chain head:", "You won.\nGame log chain head:")


EDITS: dict[str, tuple[Edit, str]] = {
    "dice-faces": (dice_faces, "/0/faces reads '9"),
    "orders-block": (orders_block, "its orders/T1.orders/1/north reads 'ATTACK 3\\nATTACK 2"),
    "result": (result, "index.html: its game/result reads 'someone else won', game.json says"),
    "row-removed": (row_removed, "/0/faces ("),
    "unbacked-roll": (unbacked_roll, "shows roll/T9.extra/1/0/faces ('6 6'), which game.json does not hold"),
    "hidden-by-attribute": (hidden_by_attribute, "a <section> with a style attribute can hide"),
    "style-appended": (style_appended, "style.css is not mailbot's stylesheet"),
    "report-in-mbox": (report_in_mbox, "its text is not the report the chain logged at the head it states"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_page_is_caught(clean: Path, name: str) -> None:
    edit, expected = EDITS[name]
    edit(clean)
    done = _run(clean)
    assert done.returncode == 1, done.stdout
    assert expected in done.stdout, done.stdout
    _summary_counts_every_problem(done.stdout)


def test_a_removed_fact_names_its_page(clean: Path) -> None:
    """A roll's row taken off its page is a FAILED line naming the page and each fact it showed."""
    row_removed(clean)
    page = _rolled_page(clean).relative_to(clean).as_posix()
    lines = [line for line in _run(clean).stdout.splitlines() if line.startswith("FAILED:")]
    assert lines and all(line.startswith(f"FAILED: {page}: it lacks roll/") for line in lines), lines
    assert len(lines) == len(facts.ROLL_FIELDS)


def test_a_result_edited_in_game_json_and_on_the_page_is_not_the_chains(clean: Path) -> None:
    data = json.loads((clean / "game.json").read_text())
    assert data["game"]["result"]
    data["game"]["result"] = "south wins"
    (clean / "game.json").write_text(json.dumps(data))
    result(clean)
    _edit(clean / "index.html", "someone else won", "south wins")
    done = _run(clean)
    assert "the game's result is not the one the chain logged when it finished" in done.stdout


def test_an_archive_mbox_report_missing_is_named(clean: Path) -> None:
    text = (clean / "mail.mbox").read_text(encoding="utf-8")
    letters = re.split(r"(?m)^(?=From )", text)
    kept = [letter for letter in letters if "Game log chain head:" not in letter or "resolved" not in letter]
    (clean / "mail.mbox").write_text("".join(kept), encoding="utf-8")
    assert "mail.mbox lacks report" in _run(clean).stdout


def test_the_checker_knows_mailbots_stylesheet() -> None:
    css = environment().get_template("style.css.j2").render().encode("utf-8")
    assert hashlib.sha256(css).hexdigest() == facts.STYLE_SHA256


def test_a_gms_archive_templates_are_used_but_not_his_stylesheet(h: Harness, tmp_path: Path) -> None:
    """The GM's override folder (``bot.template_overrides``) replaces an archive page as it
    replaces a letter; style.css stays mailbot's (verify.py holds it byte for byte)."""
    game_id = _play(h)
    overrides = tmp_path / "mine" / "archive"
    overrides.mkdir(parents=True)
    shipped = Path(__file__).parents[2] / "templates" / "archive" / "index.html.j2"
    index = shipped.read_text(encoding="utf-8").replace("<h1", "<p>The Tuesday club's league</p>\n<h1", 1)
    assert "Tuesday club" in index
    (overrides / "index.html.j2").write_text(index, encoding="utf-8")
    (overrides / "style.css.j2").write_text("#dice { display: none }\n", encoding="utf-8")
    folder = tmp_path / "site"
    with Session(h.bot.engine) as session:
        export(session, game_id, folder, renderer=Renderer(tmp_path / "mine"))
    assert "The Tuesday club's league" in (folder / "index.html").read_text(encoding="utf-8")
    assert "display: none" not in (folder / "style.css").read_text(encoding="utf-8")
    done = _run(folder)
    assert done.returncode == 0, done.stdout
