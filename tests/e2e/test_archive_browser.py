# SPDX-License-Identifier: GPL-3.0-or-later
"""The archive of finished demo games, in a real browser (Debian's headless Chromium) and by verify.py.

Each demo is played in process on the embedded mail server (``play_demo``); its
archive is exported into the work folder. Chromium reads the pages from disk:
its DOM (``--dump-dom``) is searched with html5lib for the links a reader
would follow, from the index to a turn page and to a map, and screenshots at
desktop and phone width, light and dark, must show something (Pillow: more
than one colour, enough pixels that are not the background). A page's width
at 360 px is measured in the browser itself, through a frame.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from PIL import Image

from tests.demo_plays import DemoPlays, Played
from tests.e2e.browser import DESKTOP, PHONE, XHTML, Browser

DEMOS = ("duel", "wif", "atlantic-storm", "salt-n-tar", "flattop")


@pytest.fixture
def played(demo_plays: DemoPlays) -> Callable[[str], Played]:
    """Each demo game, played once for the whole run (``tests/e2e/demos.py``)."""
    return demo_plays


@pytest.fixture
def browser() -> Browser:
    return Browser()


def links(tree: Element, tag: str, attribute: str) -> list[str]:
    return [str(e.get(attribute)) for e in tree.iter(f"{XHTML}{tag}") if e.get(attribute)]


def assert_not_blank(image: Image.Image, min_share: float = 0.02) -> None:
    """More than one colour, and at least ``min_share`` of the pixels not the background's colour."""
    colours = image.getcolors(maxcolors=image.width * image.height) or []
    assert len(colours) > 1, "a blank screenshot"
    background = max(count for count, _ in colours)
    share = 1 - background / (image.width * image.height)
    assert share >= min_share, f"only {share:.1%} of the screenshot is not background"


def is_dark(image: Image.Image) -> bool:
    colours = image.getcolors(maxcolors=image.width * image.height) or []
    _, background = max(colours, key=lambda item: item[0])
    return sum(background) / 3 < 80


@pytest.mark.parametrize("game", DEMOS)
def test_the_archive_of_every_finished_demo_passes_verify(played: Callable[[str], Played], game: str) -> None:
    run = played(game)
    assert run.result.summary.endswith("finished"), run.result.summary
    done = subprocess.run(
        [sys.executable, str(run.archive / "verify.py"), str(run.archive)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    total = int(last.split()[1])
    assert last == f"verify: {total} rolls, {total} ok, 0 failed" and total > 0


def test_the_atlantic_storm_archive_lists_its_steps_by_convoy(played: Callable[[str], Played]) -> None:
    """The game's own name for a turn (``core.game.Labelled``), not "Turn 4" in a numbered list."""
    index = (played("atlantic-storm").archive / "index.html").read_text(encoding="utf-8")
    assert "<li>Convoy C4 (1940)\n" in index and "Turn 4" not in index
    assert '<ul class="turns">' in index


def _turn_page(browser: Browser, archive: Path) -> tuple[Path, Element]:
    """The first turn page the index links to that shows letters (and a map, where the game has maps)."""
    index = browser.dom(archive / "index.html")
    steps = [link for link in links(index, "a", "href") if link.startswith("steps/")]
    assert steps, "the index links to no turn"
    fallback = None
    for link in steps:
        page = archive / link
        tree = browser.dom(page)
        if not any(e.get("class") == "letter" for e in tree.iter(f"{XHTML}article")):
            continue
        if links(tree, "img", "src") or links(tree, "object", "data"):
            return page, tree
        fallback = fallback or (page, tree)
    assert fallback is not None, "no turn page shows a letter"
    return fallback


@pytest.mark.parametrize("game", ["duel", "flattop"])
def test_the_browser_follows_the_index_to_a_turn_page(
    played: Callable[[str], Played], browser: Browser, tmp_path: Path, game: str
) -> None:
    archive = played(game).archive
    for size in (DESKTOP, PHONE):
        assert_not_blank(browser.shot(archive / "index.html", tmp_path / f"index-{size[0]}.png", size))
    page, tree = _turn_page(browser, archive)
    assert any((e.text or "").strip() for e in tree.iter(f"{XHTML}pre"))  # a letter's text, as sent
    for size in (DESKTOP, PHONE):
        assert_not_blank(browser.shot(page, tmp_path / f"turn-{size[0]}.png", size))
    dark = browser.shot(page, tmp_path / "turn-dark.png", PHONE, dark=True)
    assert is_dark(dark) and not is_dark(Image.open(tmp_path / f"turn-{PHONE[0]}.png").convert("RGB"))
    assert_not_blank(dark)
    for shown in (archive / "index.html", page):
        assert browser.width(shown, tmp_path / "frame.html") <= PHONE[0], f"{shown} is wider than a phone"


#: the Flat Top board's sea (``games/flattop/drawing/symbols.SEA``): drawn only by the board layer
SEA = (0xE8, 0xF1, 0xFA)


def share_of(image: Image.Image, colour: tuple[int, int, int]) -> float:
    colours = {rgb: count for count, rgb in image.getcolors(maxcolors=image.width * image.height) or []}
    return colours.get(colour, 0) / (image.width * image.height)


def test_the_browser_opens_a_flattop_map_from_a_turn_page(
    played: Callable[[str], Played], browser: Browser, tmp_path: Path
) -> None:
    """The map is shown on its turn page and opens on its own, board and hour together: the
    board is a picture of its own kept once for the game (steps/layers), which the browser
    must draw under the hour's overlay in both places."""
    page, tree = _turn_page(browser, played("flattop").archive)
    maps = [src for src in links(tree, "object", "data") if src.endswith(".svg")]
    assert maps, f"{page.name} shows no map"
    picture = (page.parent / maps[0]).resolve()
    assert picture.is_file() and picture.parent.name == page.stem  # saved next to its page
    assert "layers/" in picture.read_text(encoding="utf-8")  # the board is not in the file itself
    shown = browser.shot(page, tmp_path / "turn-map.png", (DESKTOP[0], 6000))
    assert share_of(shown, SEA) > 0.01, "the turn page shows no board under its map"
    for size in (DESKTOP, PHONE):
        alone = browser.shot(picture, tmp_path / f"map-{size[0]}.png", size)
        assert_not_blank(alone, min_share=0.05)
        assert share_of(alone, SEA) > 0.05, "the map opened alone shows no board"


def test_a_whole_flattop_game_archive_is_under_10_mb(played: Callable[[str], Played]) -> None:
    """Issue 32: each map's board once for the game, the pictures and HTML parts once (on the
    pages, not again in mail.mbox), each map once (game.json names its page's file)."""
    archive = played("flattop").archive
    size = sum(path.stat().st_size for path in archive.rglob("*") if path.is_file())
    assert size < 10_000_000, f"the archive is {size / 1e6:.1f} MB"
    pictures = [path.read_text(encoding="utf-8") for path in (archive / "steps" / "layers").glob("*.svg")]
    assert len([text for text in pictures if "data-layer=" in text]) <= 4  # the boards, beside shared shapes


def test_a_flattop_letters_html_part_in_the_browser(
    played: Callable[[str], Played], browser: Browser, tmp_path: Path
) -> None:
    page, tree = _turn_page(browser, played("flattop").archive)
    parts = [href for href in links(tree, "a", "href") if href.endswith(".html") and "/" in href]
    letters = [(page.parent / href).resolve() for href in parts if "referee" not in href]
    assert letters, f"{page.name} links to no letter's HTML part"
    letter = max(letters, key=lambda path: path.stat().st_size)  # a report, not a short reply
    for size in (DESKTOP, PHONE):
        assert_not_blank(browser.shot(letter, tmp_path / f"letter-{size[0]}.png", size))
    assert_not_blank(browser.shot(letter, tmp_path / "letter-dark.png", PHONE, dark=True))
    assert browser.width(letter, tmp_path / "frame.html") <= PHONE[0]
    dom = browser.dom(letter)
    assert all("://" not in src for src in links(dom, "img", "src"))  # nothing fetched from outside


def test_the_demo_keeps_every_letter_as_a_file(played: Callable[[str], Played]) -> None:
    run = played("duel")
    letters = run.result.letters
    assert letters is not None and run.archive.parent == letters.parent
    for kept in run.result.mailboxes:
        files = sorted((letters / kept.address).glob("*.txt")) if kept.letters else []
        assert len(files) == kept.letters, kept.address
        for file in files:
            head = file.read_text(encoding="utf-8").split("\n\n", 1)[0].splitlines()
            assert [line.split(":", 1)[0] for line in head] == ["From", "To", "Subject", "Date"]
            assert "[" not in file.name  # no tag, and so no secret, in a file name


def test_mailbot_demo_ends_by_saying_where_the_letters_and_the_archive_are(demo_plays: DemoPlays) -> None:
    done = demo_plays("duel")
    assert done.stdout.strip().splitlines()[-1].startswith("demo: ")  # stdout stays the summary
    *_, letters, archive = done.stderr.strip().splitlines()
    assert letters == f"letters: {done.work / 'letters'} (one file per letter)"
    index = done.work / "archive" / "index.html"  # by default, in the work folder
    assert archive.startswith(f"archive: {index} (open it in a browser") and index.is_file()
    assert f"mailbot archive serve {done.work / 'archive'}" in archive
    flattop = demo_plays("flattop")  # played with --archive DIR: the archive is there
    assert flattop.archive == flattop.work.parent / "exported"
    assert (flattop.archive / "index.html").is_file() and not (flattop.work / "archive").exists()
