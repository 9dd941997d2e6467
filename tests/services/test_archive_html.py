# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter's HTML part as its page shows it, and given back exactly as verify.py reads it."""

from __future__ import annotations

from pathlib import Path

from mailbot.services.archive.archive_html import ATTRIBUTES, kept_html, letter_page
from mailbot.verifier.pages import sent_html

SENT = (
    "<html><head><style>\nbody { margin: 0; }\n</style>\n"
    '<style data-css-inline="ignore">\n'
    "@media (prefers-color-scheme: dark) { body { color: #eee; } }\n</style></head>\n"
    "<body><p>See cid:map@x in text.</p>\n"
    '<img src="cid:map@x" alt="the map" style="max-width: 100%;">\n'
    '<img alt="a badge" src="cid:badge@x" /></body></html>\n'
)
NAMES = {"map@x": "001-north-map.svg", "badge@x": "001-north-2-badge.png"}


def _written(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def test_the_page_shows_the_saved_parts_and_gives_the_letter_back(tmp_path: Path) -> None:
    files: dict[str, bytes] = {}
    page = letter_page(SENT, NAMES, "../", files)
    assert "<style" not in page.text and len(files) == 3  # each block a stylesheet of its own
    assert page.text.count('<link rel="stylesheet" href="../styles/') == 3  # and the attributes'
    assert ' style="' not in page.text and 'alt="the map" data-style="036e4dc7">' in page.text
    assert files[ATTRIBUTES] == b'[data-style="036e4dc7"]{max-width: 100% !important;}\n'
    assert '<object data="001-north-map.svg" type="image/svg+xml" alt="the map"' in page.text
    assert '<img alt="a badge" src="001-north-2-badge.png" />' in page.text
    assert "See cid:map@x in text." in page.text  # only tags are swapped, and each is listed
    assert [sent for sent, _ in page.swaps] == [
        '<img src="cid:map@x" alt="the map" style="max-width: 100%;">',
        '<img alt="a badge" src="cid:badge@x" />',
    ]
    files["steps/letter/001-north.html"] = page.text.encode()
    _written(tmp_path, files)
    swaps = [list(swap) for swap in page.swaps]
    assert sent_html(tmp_path, "steps/letter/001-north.html", swaps) == SENT
    assert kept_html(tmp_path, "steps/letter/001-north.html", page.swaps, SENT.replace("\n", "\r\n"))
    assert not kept_html(tmp_path, "steps/letter/001-north.html", page.swaps, SENT.replace("map", "chart"))
    assert sent_html(tmp_path, "../outside.html", swaps) is None
    assert sent_html(tmp_path, "steps/letter/none.html", swaps) is None


def test_a_page_a_swap_cannot_be_undone_on_is_not_the_letter(tmp_path: Path) -> None:
    """A tag shown twice on the page (the page's own text repeating it) is not put back: the part
    then differs from the one sent and game.json keeps the part itself."""
    files: dict[str, bytes] = {}
    page = letter_page(SENT, NAMES, "../", files)
    files["steps/letter/001-north.html"] = (page.text + page.swaps[1][1]).encode()
    _written(tmp_path, files)
    assert not kept_html(tmp_path, "steps/letter/001-north.html", page.swaps, SENT)


def test_each_style_attribute_is_one_rule_for_the_whole_site_and_comes_back(tmp_path: Path) -> None:
    """A style attribute is a rule of one stylesheet for every letter (``data-style`` names it),
    and verify.py puts it back; one a rule would not give back stays in its tag."""
    files: dict[str, bytes] = {}
    other = SENT.replace("<p>", '<p style="color: red;">').replace("100%;", "100% !important;")
    pages = {"001-north": (SENT, letter_page(SENT, NAMES, "../", files))}
    pages["002-south"] = (other, letter_page(other, NAMES, "../", files))
    sheet = files[ATTRIBUTES].decode()
    assert sheet.count("\n") == 2 and "color: red !important;" in sheet  # max-width once, for both
    assert 'style="max-width: 100% !important;"' in pages["002-south"][1].text
    for name, (_, page) in pages.items():
        files[f"steps/letter/{name}.html"] = page.text.encode()
    _written(tmp_path, files)
    for name, (sent, page) in pages.items():
        assert kept_html(tmp_path, f"steps/letter/{name}.html", page.swaps, sent)
    (tmp_path / ATTRIBUTES).write_text(sheet.replace("red", "blue"))  # the stylesheet edited
    assert not kept_html(tmp_path, "steps/letter/002-south.html", pages["002-south"][1].swaps, other)
    assert kept_html(tmp_path, "steps/letter/001-north.html", pages["001-north"][1].swaps, SENT)
