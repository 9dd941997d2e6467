# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 32, tested as a person would look: a Flat Top map and its letter in headless Chromium.

The first hours of the full Coral Sea are played with the demo's scripted orders (and a plot
several turns long for Lexington's TF, so a letter names plotted hexes). Each side's map of two
consecutive hours is laid out by Chromium at desktop and phone width, and measured there: every
all-land hex of the scenario inside the frame is inside the drawn land; every hex the letter names
(before its weather appendix) is labelled with its id or numbered and keyed; no two labels'
boxes, as the browser lays them out, overlap; the frame (the board's sea) of one side is where it
was the hour before. :mod:`tests.render.test_flattop_map_reads` checks the same on the SVG's own
numbers; this is what a reader's screen shows. The zoomed inset, laid out at phone width,
shows its hex ids apart and twice as large as the theatre's.
"""

from __future__ import annotations

import json
import re
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Line, Setup
from mailbot.games.flattop.demo import flattop_orders
from mailbot.games.flattop.drawing import INSET_HEIGHT, INSET_WIDTH, Map, inset_frame
from mailbot.games.flattop.drawing.board import board_for
from mailbot.games.flattop.drawing.symbols import SEA
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.map.scenario import require_scenario
from mailbot.games.flattop.view import HEX_WORD
from mailbot.render.maps import draw_map
from mailbot.render.templates import wrap72
from tests.e2e.browser import DESKTOP, Browser
from tests.games.flattop.conftest import load_scenario_data, load_tables
from tests.games.flattop.test_demo_script import ENV, GAME, SEED
from tests.render.test_flattop_map_inset import TFS, crowded_coral_sea, crowded_hour
from tests.render.test_flattop_map_reads import LABELS, overlap

PHONE = (375, 740)  # issue 32's phone width
SEATS = ("allied", "japanese")
HOURS = 3  # D1 0500 to 0700: searchers out, contacts in, a plot under way (at 0800 Tulagi is struck)
#: Lexington's TF steams north for the hours played: its letter names the hexes of its plot
PLOT = "PLOT TF2 VII-O40 VII-O39 / VII-O38 VII-O37 / VII-O36 VII-O35 / VII-O34 VII-O33 / VII-N32 VII-M32"
Hour = dict[str, tuple[str, str, list[list[float]]]]  # seat -> (letter text, map SVG, land centres)


@cache
def played() -> tuple[Hour, ...]:
    """Each hour's letter, map and the centres of the all-land hexes inside the map's frame."""
    data = {"tables": load_tables(), "scenarios": {"coral-sea": load_scenario_data("coral-sea")}}
    scenario = require_scenario(data["scenarios"]["coral-sea"], data["tables"])
    state = GAME.new_game(Setup("coral-sea", SEATS, data=data), dice=DiceStream(SEED, "", "s"))
    events: tuple[Event, ...] = ()
    hours = []
    for turn in range(1, HOURS + 1):
        step = GAME.step(state)
        assert step is not None and step.key == f"T{turn}.orders", step
        hour: Hour = {}
        parsed = {}
        for seat in SEATS:
            view = GAME.view(state, events, seat)
            text = ENV.get_template("flattop/templates/report.txt.j2").render(r=view, due=None)
            picture = draw_map("flattop", view)
            assert picture is not None
            board = board_for(view["map"]["bounds"])
            land = [
                list(board.centre(h)) for h in board.hexes() if scenario.map.terrain_of(h) is Terrain.LAND
            ]
            hour[seat] = (text, picture.svg, land)
            lines = flattop_orders(seat, step.key, wrap72(text), turn)
            if seat == "allied" and turn == 1:  # this plot instead of the staff plan's (demo_plans)
                lines = [line for line in lines if not line.startswith("PLOT TF2 ")] + [PLOT]
            parsed[seat] = GAME.parse(state, seat, [Line(i + 1, t) for i, t in enumerate(lines)])
            assert parsed[seat].problems == (), parsed[seat].problems
        hours.append(hour)
        digest = order_digest({seat: list(p.normalised) for seat, p in parsed.items()})
        outcome = GAME.resolve(
            state, {s: p.orders for s, p in parsed.items()}, dice=DiceStream(SEED, digest, step.key)
        )
        state, events = outcome.state, outcome.events
    return tuple(hours)


#: what the browser reports of a map laid out in the frame (``doc``: the page's document)
MEASURE = """JSON.stringify((function () {
  var svg = doc.querySelector('svg');
  var sea = Array.from(svg.querySelectorAll('rect')).find(function (r) {
    return r.getAttribute('fill') === '%s';
  });
  var frame = sea.getBoundingClientRect();
  var land = svg.querySelector('path.land');
  var dry = JSON.parse(doc.getElementById('land').textContent);
  var wet = dry.filter(function (p) { return !land.isPointInFill(new DOMPoint(p[0], p[1])); });
  var labels = [];
  svg.querySelectorAll('%s').forEach(function (g) {
    g.querySelectorAll('text').forEach(function (t) {
      var b = t.getBoundingClientRect();
      if (!b.width) { return; }  // not shown: the inset's labels on the map, or the map's in the inset
      labels.push([g.getAttribute('class'), g.getAttribute('data-hex') || '', t.textContent,
                   t.getAttribute('x'), t.getAttribute('y'), b.left, b.top, b.width, b.height]);
    });
  });
  function hexes(selector) {
    return Array.from(svg.querySelectorAll(selector)).filter(function (e) {
      return e.getBoundingClientRect().width;
    }).map(function (e) { return e.dataset.hex; });
  }
  var numbered = hexes('g.key-number'), keyed = hexes('g.key > *');
  return {frame: [frame.left, frame.top, frame.width, frame.height], wet: wet, labels: labels,
          numbered: numbered, keyed: keyed};
})())"""


def measure(
    browser: Browser, tmp_path: Path, svg: str, land: list[list[float]], size: tuple[int, int]
) -> Any:
    """The map laid out as a reader's screen of ``size`` shows it, inside a page as wide as the screen."""
    page = tmp_path / "map.html"
    body = svg.split("?>", 1)[-1].replace("<svg ", '<svg style="width:100%;height:auto;display:block" ', 1)
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'></head>"
        f"<body style='margin:0'>{body}<script type='application/json' id='land'>{json.dumps(land)}</script>"
        "</body></html>",
        encoding="utf-8",
    )
    selector = ", ".join(f"g.{cls}" for cls in LABELS)
    found = browser.measure(page, tmp_path / "frame.html", size, MEASURE % (SEA, selector))
    return json.loads(found)


def named_in(letter: str) -> set[str]:
    """The hexes a letter names before its weather appendix (which lists every storm and cloud)."""
    return set(HEX_WORD.findall(letter.split("Appendix: weather", 1)[0]))


@pytest.fixture
def browser() -> Browser:
    return Browser()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("seat", SEATS)
def test_a_map_shows_its_land_labels_its_letters_hexes_and_keeps_its_frame_in_a_browser(
    browser: Browser, tmp_path: Path, seat: str, size: tuple[int, int]
) -> None:
    frames = []
    for hour in played()[-2:]:  # two consecutive hours
        letter, svg, land = hour[seat]
        shown = measure(browser, tmp_path, svg, land, size)
        frames.append(shown["frame"])
        assert land and shown["wet"] == [], f"{len(shown['wet'])} land hexes drawn as sea"
        labelled = ("unit-label", "contact-label", "hex-id")
        words = {words for cls, _, words, *_ in shown["labels"] if cls in labelled}
        for name in sorted(named_in(letter)):
            # labelled beside its hex, or a line of the key under the map (numbered on it where there is room)
            assert name in words or name in shown["keyed"], name
    # the same frame (a browser's layout differs in the fifth decimal from one page to the next)
    assert all(abs(a - b) < 0.5 for a, b in zip(*frames, strict=True)), frames
    assert frames[0][2] <= size[0], "the map is wider than the screen"


def test_the_letters_name_plotted_hexes_the_maps_must_label() -> None:
    """The check above can fail: Lexington's letter names the hexes of her plot, which the map
    labels (or numbers and keys, where a column of them leaves no room) only because the view
    hands them to the map as named (``view.HEX_WORD``)."""
    letter, svg, _ = played()[1]["allied"]
    plotted = re.search(r"TF2 at \S+, speed \d+, plot ([^\n]*)", letter)
    assert plotted is not None and HEX_WORD.findall(plotted[1])
    for name in HEX_WORD.findall(plotted[1]):
        assert f">{name}<" in svg or re.search(rf">\d+  {name}<", svg), name


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("seat", SEATS)
def test_no_label_covers_another_in_a_browser(
    browser: Browser, tmp_path: Path, seat: str, size: tuple[int, int]
) -> None:
    """Boxes as Chromium lays the labels out, each line once (its halo copy is the same line).
    At 375 px the whole theatre is drawn with letters about 4 px high, whose boxes Chromium
    rounds out to whole pixels: the placer keeps that room (``canvas.text_box``)."""
    for hour in played()[-2:]:
        _, svg, land = hour[seat]
        shown = measure(browser, tmp_path, svg, land, size)
        lines = {(cls, where, words, x, y): box for cls, where, words, x, y, *box in shown["labels"]}
        for (one, a), (two, b) in combinations(lines.items(), 2):
            # a corner's touch as the browser's fonts draw it, not a label over another
            assert overlap(a, b) <= 0.05 * min(a[2] * a[3], b[2] * b[3]), (one[2], two[2], size)


def test_the_inset_shows_its_hex_ids_apart_and_twice_as_large_at_phone_width(
    browser: Browser, tmp_path: Path
) -> None:
    """The zoomed inset where the Allied units, a contact and a search gather: at 375 px every
    task force's hex id is shown inside the window, no label over another, and the ids stand
    at least twice as high as the theatre map's at that width (about 4 px there)."""
    picture = draw_map("flattop", {"map": crowded_coral_sea()})
    assert picture is not None and picture.inset is not None
    width, high = PHONE[0], PHONE[0] * INSET_HEIGHT / INSET_WIDTH

    def ids(svg: str) -> dict[str, list[float]]:
        shown = measure(browser, tmp_path, svg, [], PHONE)
        return {
            words: box
            for cls, _, words, _, _, *box in shown["labels"]
            if cls in ("unit-label", "contact-label", "hex-id") and HEX_WORD.fullmatch(words)
        }

    theatre, inset = ids(picture.svg), ids(picture.inset)
    inside = {
        w: b
        for w, b in inset.items()
        if b[0] >= 0 and b[1] >= 0 and b[0] + b[2] <= width and b[1] + b[3] <= high
    }
    assert set(TFS) <= inside.keys(), sorted(inside)
    for name in TFS:
        assert inside[name][3] >= 2 * theatre[name][3] >= 6, (name, inside[name], theatre[name])
    for (one, a), (two, b) in combinations(inside.items(), 2):
        assert overlap(a, b) <= 0.05 * min(a[2] * a[3], b[2] * b[3]), (one, two)


#: what the browser shows of a map seen through its ``#inset`` view in an ``<object>``, as an
#: archive's letter page shows the inset: each label line shown, its class, hex, words and box
#: in the page, and the object's box
THROUGH_VIEW = """JSON.stringify((function () {
  var shown = doc.querySelector('object'), svg = shown.contentDocument;
  var box = shown.getBoundingClientRect(), labels = [];
  svg.querySelectorAll('%s').forEach(function (g) {
    g.querySelectorAll('text').forEach(function (t) {
      var b = t.getBoundingClientRect();
      if (!b.width) { return; }
      labels.push([g.getAttribute('class'), g.getAttribute('data-hex') || '', t.textContent,
                   t.getAttribute('x'), t.getAttribute('y'), box.left + b.left, box.top + b.top,
                   b.width, b.height]);
    });
  });
  return {object: [box.left, box.top, box.width, box.height], labels: labels};
})())"""


def test_an_archive_page_shows_the_insets_own_labels_in_full_at_phone_width(
    browser: Browser, tmp_path: Path
) -> None:
    """The crowded hour whose theatre map keys some labels under the map: an archive's page shows
    the inset as the map's SVG through its ``#inset`` view (``<object>``, as a letter's page has
    it). At 375 px each unit and contact inside the window reads in full there, with its hex
    id, inside the picture and over no other label: the labels placed for the inset, not the
    theatre's (whose keyed ones would be bare numbers)."""
    model = crowded_hour()
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    (tmp_path / "map.svg").write_text(picture.svg, encoding="utf-8")
    page = tmp_path / "page.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'></head><body style='margin:0'>"
        '<object data="map.svg#inset" type="image/svg+xml" style="max-width: 100%;height: auto;"></object>'
        "</body></html>",
        encoding="utf-8",
    )
    selector = ", ".join(f"g.{cls}" for cls in LABELS)
    found = json.loads(browser.measure(page, tmp_path / "frame.html", PHONE, THROUGH_VIEW % selector))
    left, top, wide, high = found["object"]
    assert 0 < wide <= PHONE[0]
    lines = {(where, words): box for cls, where, words, _, _, *box in found["labels"]}
    inside = {k: b for k, b in lines.items() if b[0] >= left and b[1] >= top and b[0] + b[2] <= left + wide}
    inside = {k: b for k, b in inside.items() if b[1] + b[3] <= top + high}
    drawn = Map(model)
    x, y, w, h = inset_frame(model) or (0.0, 0.0, 0.0, 0.0)
    within = [
        m
        for m in (*drawn.own, *drawn.contacts)
        if x <= drawn.board.centre(drawn.at(m.hex))[0] <= x + w
        and y <= drawn.board.centre(drawn.at(m.hex))[1] <= y + h
    ]
    assert len(within) >= 2 * len(TFS)
    for marker in within:
        assert (marker.hex, marker.label) in inside and (marker.hex, marker.hex) in inside, marker
    assert not [k for k in lines if k[1].isdigit()], "a bare key number"
    for (one, a), (two, b) in combinations(inside.items(), 2):
        assert overlap(a, b) <= 0.05 * min(a[2] * a[3], b[2] * b[3]), (one, two)
