# SPDX-License-Identifier: GPL-3.0-or-later
"""Map pictures (``mailbot.render.maps``): what they show, that they are stable, and the letters.

The SVG is read back with the stdlib XML parser: symbols carry ``class`` and
``data-hex``/``data-name``/``data-ship`` attributes, so the tests find every
task force, contact and ship the way a reader's eye would, without pixels.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlmodel import Session, col, select

from mailbot import render
from mailbot.core.dice import DiceStream
from mailbot.core.game import Line, Setup
from mailbot.games.flattop import drawing as flattop_drawing
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.drawing.board import board_for
from mailbot.games.flattop.map.hexes import Hex, hex_id
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.geometry import find_grid
from mailbot.games.saltntar.view import MAP_MAX_CELLS, compass, plane
from mailbot.registry import Registry
from mailbot.render.maps import PNG_WIDTH, MapError, MapPicture, draw_map
from mailbot.services.base.tags import tag
from mailbot.services.play.games import GameSetup
from mailbot.store.game_tables import Report
from tests.games.saltntar.conftest import load_data
from tests.services.game_helpers import Harness, to
from tests.services.helpers import GM

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[2]


def ids(*cells: tuple[int, int]) -> dict[str, list[int]]:
    return {hex_id(Hex(c, r)): [c, r] for c, r in cells}


def H(col: int, row: int) -> str:
    return hex_id(Hex(col, row))


def flattop_model(**changes: Any) -> dict[str, Any]:
    """A hand-made ``r["map"]`` of the schema: two TFs, a base, three AFs, two contacts, weather."""
    model: dict[str, Any] = {
        "side": "Allied",
        "time": "D1 0700",
        "forces": [
            {
                "side": "Allied",
                "task_forces": [
                    {"name": "TF17", "hex": H(5, 30), "ships": 8, "carriers": True},
                    {"name": "TF44", "hex": H(3, 33), "ships": 5, "carriers": False},
                ],
                "bases": [{"name": "Port Moresby", "hex": H(1, 26)}],
                "air": [
                    {"name": "AF1", "hex": H(6, 25), "altitude": "high", "mission": "search"},
                    {"name": "AF2", "hex": H(7, 27), "altitude": "low", "mission": "strike"},
                    {"name": "AF3", "hex": H(5, 30), "altitude": "", "mission": "other"},
                ],
            }
        ],
        "contacts": [
            {"hex": H(8, 22), "kind": "ships", "condition": 2, "age": 0, "label": "ships C2 carriers 0700"},
            {"hex": H(10, 24), "kind": "planes", "condition": 1, "age": 2, "label": "planes C1 0500"},
        ],
        "clouds": [H(4, 28)],
        "cloud_radius": 1,
        "storms": [H(9, 31), H(9, 32), H(10, 31)],
        "searches": [[H(5, 30), H(5, 28), H(6, 26), H(6, 25)]],
        "strikes": [[H(5, 30), H(6, 29), H(7, 27)]],
        "bounds": [0, 20, 12, 35],
    }
    model |= changes
    used = [(5, 30), (3, 33), (1, 26), (6, 25), (7, 27), (8, 22), (10, 24), (4, 28), (9, 31), (9, 32)]
    used += [(10, 31), (5, 28), (6, 26), (6, 29)]
    model["hexes"] = ids(*used)
    return model


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def with_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == name]


def texts(root: ET.Element) -> str:
    return "\n".join("".join(e.itertext()) for e in root.iter(f"{SVG}text"))


def flattop_svg(model: dict[str, Any]) -> str:
    picture = draw_map("flattop", {"map": model})
    assert picture is not None
    return picture.svg


# --- Flat Top ------------------------------------------------------------------------------------


def test_the_flattop_map_shows_every_own_unit_and_every_contact_where_the_view_has_it() -> None:
    model = flattop_model()
    root = parse(flattop_svg(model))
    tfs = {
        (e.get("data-name"), e.get("data-hex")) for e in root.iter() if e.get("class") in ("tf", "carrier")
    }
    assert tfs == {("TF17", H(5, 30)), ("TF44", H(3, 33))}
    assert [e.get("data-hex") for e in with_class(root, "carrier")] == [H(5, 30)]
    assert [e.get("data-name") for e in with_class(root, "base")] == ["Port Moresby"]
    air = {e.get("data-name"): e.get("data-hex") for e in with_class(root, "air")}
    assert air == {"AF1": H(6, 25), "AF2": H(7, 27), "AF3": H(5, 30)}
    contacts = sorted(e.get("data-hex") or "" for e in with_class(root, "contact"))
    assert contacts == sorted(c["hex"] for c in model["contacts"])
    words = texts(root)
    assert "Allied map, D1 0700" in words
    assert "TF17 (8)" in words and "TF44 (5)" in words and "AF1 high" in words
    assert "ships C2 carriers 0700" in words and "planes C1 0500 (2h ago)" in words


@pytest.mark.parametrize("side", ["Allied", "Japanese"])
def test_in_the_png_own_units_are_solid_and_contacts_hollow_also_in_grey(side: str) -> None:
    """The two sides' colours are nearly one grey (blue 79, red 75): own units and contacts are
    told apart by their fill, solid against hollow, and the palette PNG keeps that."""
    model = flattop_model(side=side)
    model["forces"][0]["side"] = side
    picture = draw_map("flattop", {"map": model})
    assert picture is not None
    grey = Image.open(io.BytesIO(picture.png())).convert("L")
    board = board_for(model["bounds"])
    m = max(4.0, min(board.size * 0.42, 9.0))  # a symbol's half size (Map.marker_size)

    def at(col: int, row: int, dx: float, dy: float) -> int:
        x, y = board.centre(Hex(col, row))
        value = grey.getpixel((round(x + dx), round(y + dy)))
        assert isinstance(value, int)
        return value

    assert at(3, 33, 0.5 * m, 0) < 130 and at(3, 33, 0, 0.5 * m) < 130  # TF44: a solid disc
    assert at(8, 22, 0.7 * m, 0) > 220 and at(8, 22, -0.7 * m, 0) > 220  # a contact: a hollow diamond
    assert at(8, 22, 1.2 * m - 1, 0) < 170  # ... outlined in the other side's colour


def test_no_contact_is_drawn_where_the_view_has_none() -> None:
    root = parse(flattop_svg(flattop_model(contacts=[])))
    assert with_class(root, "contact") == [] and with_class(root, "contact-label") == []
    assert "Contact" not in texts(root)  # nor in the legend


def test_contacts_show_their_condition_and_fade_with_age() -> None:
    root = parse(flattop_svg(flattop_model()))
    by_hex = {e.get("data-hex"): e for e in with_class(root, "contact")}
    fresh, old = by_hex[H(8, 22)], by_hex[H(10, 24)]
    assert fresh.get("opacity") is None and float(old.get("opacity") or 1) < 0.6
    assert "2" in "".join(fresh.itertext()) and "1" in "".join(old.itertext())


def test_clouds_cover_every_hex_within_the_radius_and_storms_are_their_own_layer() -> None:
    root = parse(flattop_svg(flattop_model(cloud_radius=2)))
    (clouds,) = with_class(root, "clouds")
    d = clouds.get("d") or ""  # a hex and its two rings: one loop round their outside edges
    assert d.count("M") == 1 and d.count("L") + 1 == 6 * (2 * 2 + 1)
    (storms,) = with_class(root, "storms")
    storm = storms.get("d") or ""  # three hexes in a row: one loop, 18 edges less twice 2 shared
    assert storm.count("M") == 1 and storm.count("L") + 1 == 14
    assert (storms.get("fill"), clouds.get("fill")) == ("#6b7480", "#c9ced4")  # storms darker


def test_search_paths_are_dashed_and_strike_paths_are_arrows() -> None:
    root = parse(flattop_svg(flattop_model()))
    (search,) = with_class(root, "search")
    assert search.get("stroke-dasharray") and (search.get("d") or "").count("L") == 3
    (strike,) = with_class(root, "strike")
    line, head = list(strike)
    assert line.get("stroke-dasharray") is None and (line.get("d") or "").count("L") == 2
    assert (head.get("d") or "").endswith("Z")  # the arrowhead
    assert "Search path, this hour" in texts(root) and "Strike path, this hour" in texts(root)


def test_the_same_view_gives_the_same_bytes_in_another_process() -> None:
    """Set and dict order vary with the hash seed between processes: nothing may depend on it."""
    model = flattop_model()
    here = flattop_svg(copy.deepcopy(model))
    assert here == flattop_svg(model)
    script = (
        "import json, sys\nfrom mailbot.render.maps import draw_map\n"
        "sys.stdout.write(draw_map('flattop', {'map': json.load(sys.stdin)}).svg)"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(model), capture_output=True, text=True,
        check=True, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    assert there.stdout == here


def test_a_real_flattop_view_is_drawn_from_its_map() -> None:
    state = fw.searched()  # the Allies see the Japanese TF1 at I-G17 with AF1 over it
    view = fw.GAME.view(state, (), "allied")
    root = parse(flattop_svg(view["map"]))
    names = {e.get("data-name") for e in root.iter() if e.get("class") in ("tf", "carrier")}
    assert names == {tf["name"] for tf in view["map"]["forces"][0]["task_forces"]}
    assert [e.get("data-hex") for e in with_class(root, "contact")] == ["I-G17"]


def test_a_broken_map_is_an_error_of_the_tree_and_no_map_is_none() -> None:
    model = flattop_model()
    model["contacts"][0]["hex"] = "VII-Q4"  # not in map.hexes
    with pytest.raises(MapError, match="VII-Q4"):
        draw_map("flattop", {"map": model})
    assert draw_map("flattop", {"title": "no map here"}) is None
    assert draw_map("duel", {"map": flattop_model()}) is None


# --- PNG -----------------------------------------------------------------------------------------


def check_png(data: bytes, width: int) -> None:
    """A PNG ``width`` pixels wide that is a picture, not a blank sheet."""
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.width == width and image.height > width // 2
    small = image.resize((image.width // 4, image.height // 4))
    colours = small.getcolors(maxcolors=small.width * small.height) or []
    assert len(colours) > 20
    background = max(colours)[0]
    assert 1 - background / (small.width * small.height) > 0.3  # more than the sheet's white


@pytest.mark.parametrize("width", [900, 360])
def test_the_png_has_the_width_asked_for_and_is_not_blank(width: int) -> None:
    check_png(MapPicture(flattop_svg(flattop_model())).png(width), width)


# --- Salt'n'Tar ----------------------------------------------------------------------------------


def saltntar_view(scenario: str, seats: tuple[str, str], turns: int = 2, **more: Any) -> dict[str, Any]:
    game = SaltNTarGame()
    data = load_data()
    data["scenarios"][scenario] = data["scenarios"][scenario] | more
    state = game.new_game(Setup(scenario, seats, data=data), dice=DiceStream(b"m" * 32, "", "setup"))
    for _ in range(turns):
        step = game.step(state)
        assert step is not None
        orders = {s: game.parse(state, s, [Line(1, f"TURN {state.fleet(s)[0].name} +1")]) for s in step.owing}
        dice = DiceStream(b"m" * 32, "", step.key)
        state = game.resolve(state, {s: p.orders for s, p in orders.items()}, dice=dice).state
    return dict(game.view(state, (), seats[0]))


@pytest.mark.parametrize(
    ("grid", "point", "degrees"),
    [("square", 1, 0), ("square", 3, 90), ("square", 6, 225), ("hex-vertical", 2, 60),
     ("hex-vertical", 4, 180), ("hex-horizontal", 3, 90), ("hex-horizontal", 1, 330)],
)  # fmt: skip
def test_points_become_compass_degrees_on_every_grid(grid: str, point: int, degrees: int) -> None:
    assert compass(find_grid(grid), point) == degrees


@pytest.mark.parametrize("grid", ["hex-vertical", "hex-horizontal"])
def test_neighbouring_hexes_are_one_unit_apart_on_the_plane(grid: str) -> None:
    board = find_grid(grid)
    for point in range(1, 7):
        x, y = plane(board, board.step((3, -2), point))
        ox, oy = plane(board, (3, -2))
        assert abs((x - ox) ** 2 + (y - oy) ** 2 - 1) < 1e-9


@pytest.mark.parametrize(
    ("scenario", "seats"), [("race", ("red", "blue")), ("hex-chase", ("merchant", "viking"))]
)
def test_the_course_shows_every_ship_with_her_heading_way_and_the_wind(
    scenario: str, seats: tuple[str, str]
) -> None:
    view = saltntar_view(scenario, seats)
    picture = draw_map("saltntar", view)
    assert picture is not None
    root = parse(picture.svg)
    ships = {e.get("data-name"): e.get("data-seat") for e in with_class(root, "ship")}
    assert ships == {s["name"]: s["seat"] for s in view["ships"]}
    courses = [e for e in with_class(root, "course") if len(e)]
    assert len(courses) == sum(1 for s in view["map"]["ships"] if float(s["reach"]) > 0)
    words = texts(root)
    assert f"Wind from the {view['wind']['direction_name']}, Wind Speed {view['wind']['speed']}" in words
    for ship in view["map"]["ships"]:
        assert f"{ship['name']} {ship['heading_name']} {ship['speed']}''" in words
    assert len(with_class(root, "wind")) == 1
    assert bool(with_class(root, "finish")) == (scenario == "race")
    assert "(you)" in words and picture.svg == draw_map("saltntar", copy.deepcopy(view)).svg  # type: ignore[union-attr]
    check_png(picture.png(), PNG_WIDTH)


def test_a_far_finish_line_lists_no_grid_and_still_draws() -> None:
    view = saltntar_view("race", ("red", "blue"), turns=0, finish={"cells": [[400, 400]]})
    assert view["map"]["cells"] == [] and MAP_MAX_CELLS < 400 * 400
    root = parse(draw_map("saltntar", view).svg)  # type: ignore[union-attr]
    assert with_class(root, "grid") == [] and len(with_class(root, "ship")) == 2


def test_every_seat_sees_the_same_course() -> None:
    """No hidden information: only the seat's own marking differs."""
    one, two = (saltntar_view("race", seats) for seats in (("red", "blue"), ("blue", "red")))
    strip = ("seat", "mine")
    for a, b in zip(one["map"]["ships"], two["map"]["ships"], strict=True):
        assert {k: v for k, v in a.items() if k not in strip} == {
            k: v for k, v in b.items() if k not in strip
        }


# --- letters and the archive ---------------------------------------------------------------------


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/maps.db")
    yield harness
    harness.bot.engine.dispose()


def start(h: Harness, plugin: str, scenario: str, seats: dict[str, str]) -> int:
    setup = GameSetup(
        plugin=plugin, scenario=scenario, title="Map test", deadline="48h", timezone="Europe/Berlin",
        gm_address=GM, options={}, early=timedelta(minutes=5), reminders=(),
    )  # fmt: skip
    with Session(h.bot.engine) as session, session.begin():
        game_id = int(h.bot.games.create(session, setup).id or 0)
    for seat, address in seats.items():
        h.invite(game_id, seat, address)
    return game_id


def maps_in(letter: Any) -> list[tuple[str, bytes]]:
    """The pictures of a letter, wherever they stand (a map is shown inside the HTML part)."""
    return [
        (part.get_filename(), part.get_content())
        for part in letter.walk()
        if part.get_content_type() == "image/png"
    ]


def shape(part: Any) -> Any:
    """A letter's MIME tree as nested (type, parts) pairs."""
    kind = part.get_content_type()
    return (kind, [shape(sub) for sub in part.iter_parts()]) if part.is_multipart() else kind


def test_a_report_shows_its_map_inside_the_html_part_and_names_it_in_the_text(h: Harness) -> None:
    """Issue 32: the HTML part shows the map inline (``cid:``), the text part names the picture;
    a calendar entry stays an attachment beside them. Where the side's units and contacts
    gather (test-small's corner of the sea), a zoomed inset follows the map, shown and named
    the same way."""
    start(h, "flattop", "test-small", FLATTOP)
    letters = h.flush()
    for seat, address in FLATTOP.items():
        (report,) = [m for m in to(letters, address) if "] T1 0500 D1: " in m["Subject"]]
        pictures = [p for p in report.walk() if p.get_content_type() == "image/png"]
        names = [p.get_filename() for p in pictures]
        assert names == [f"map-{seat}-turn1.png", f"map-{seat}-turn1-zoomed.png"]
        related = ("multipart/related", ["text/html", *(["image/png"] * len(pictures))])
        assert shape(report) == (
            "multipart/mixed",
            [("multipart/alternative", ["text/plain", related]), "text/calendar"],
        )
        html = report.get_body(preferencelist=("html",)).get_content()
        cids = [str(picture["Content-ID"]).strip("<>") for picture in pictures]
        assert all(picture.get_content_disposition() == "inline" for picture in pictures)
        assert re.findall(r'<img src="cid:([^"]+)"', html) == cids  # the inset under the map
        text = " ".join(report.get_body(preferencelist=("plain",)).get_content().split())
        for name in names:
            assert f"see the attached picture {name}" in text
            assert f"also attached as {name}" in html
        # the HTML part shows the picture, so it does not send its reader to the attachment
        assert "see the attached picture" not in html
        assert "Where your units and contacts are, zoomed" in html
        assert "The map of this hour: see the attached picture" in text  # Flat Top's CAPTION
        check_png(pictures[1].get_content(), flattop_drawing.INSET_WIDTH)


FLATTOP = {"allied": "allied@players.test", "japanese": "japanese@players.test"}


def test_every_flattop_report_carries_the_seats_map_and_the_report_row_keeps_its_svg(h: Harness) -> None:
    game_id = start(h, "flattop", "test-small", FLATTOP)
    letters = h.flush()
    for seat, address in FLATTOP.items():
        (report,) = [m for m in to(letters, address) if "] T1 0500 D1: " in m["Subject"]]
        (name, data), *inset = maps_in(report)
        assert name == f"map-{seat}-turn1.png" and [n for n, _ in inset] == [f"map-{seat}-turn1-zoomed.png"]
        check_png(data, flattop_drawing.PNG_WIDTH)
    step = h.steps(game_id)[-1]
    for seat, address in FLATTOP.items():
        secret = h.seat(game_id, seat).secret
        h.mail(address, f"[{tag(h.game(game_id))} {secret}] orders", f"ORDERS {step.key}\nHOLD\nEND\n")
    resolved = [m for m in h.tick(600) if "] T2 0600 D1: " in m["Subject"]]
    assert sorted(name for m in resolved for name, _ in maps_in(m)) == [
        "map-allied-turn2-zoomed.png", "map-allied-turn2.png",
        "map-japanese-turn2-zoomed.png", "map-japanese-turn2.png",
    ]  # fmt: skip
    with Session(h.bot.engine) as session:
        rows = list(session.exec(select(Report).where(Report.game_id == game_id).order_by(col(Report.id))))
    assert [r.seat for r in rows] == ["allied", "japanese"] * 2
    for row in rows:
        assert f"{row.seat.capitalize()} map" in texts(parse(row.map_svg))
    assert all(with_class(parse(row.map_svg), "contact") == [] for row in rows[:2])  # nothing seen yet


def test_an_hours_maps_are_painted_once_a_side_whoever_reads_them(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: a PNG is made once per side and hour, never per recipient. Flat Top has one
    seat a side, and its observers get no side's map (nor any: it has no public view)."""
    game_id = start(h, "flattop", "test-small", FLATTOP)
    h.flush()
    watchers = ["one@watchers.test", "two@watchers.test"]
    for watcher in watchers:
        h.mail(watcher, "watching", f"OBSERVE {game_id}\n")
    painted: list[str] = []
    real = render.maps.png_of

    def counted(svg: str, width: int, colours: int | None = None) -> bytes:
        painted.append(svg)
        return real(svg, width, colours)

    monkeypatch.setattr(render.maps, "png_of", counted)
    step = h.steps(game_id)[-1]
    for seat, address in FLATTOP.items():
        secret = h.seat(game_id, seat).secret
        h.mail(address, f"[{tag(h.game(game_id))} {secret}] orders", f"ORDERS {step.key}\nHOLD\nEND\n")
    letters = h.tick(600)
    assert all(to(letters, watcher) for watcher in watchers)  # the observers had their letter
    # each side's map and its inset (test-small's units gather in a corner of the sea)
    assert len(painted) == 2 * len(FLATTOP) == len(set(painted))
    assert sorted(name for m in letters for name, _ in maps_in(m)) == [
        "map-allied-turn2-zoomed.png", "map-allied-turn2.png",
        "map-japanese-turn2-zoomed.png", "map-japanese-turn2.png",
    ]  # fmt: skip


def test_salt_n_tar_reports_carry_the_course(h: Harness) -> None:
    seats = {"red": "red@players.test", "blue": "blue@players.test"}
    game_id = start(h, "saltntar", "race", seats)
    letters = h.flush()
    for seat, address in seats.items():
        (report,) = [m for m in to(letters, address) if "the game begins" in m["Subject"]]
        ((name, data),) = maps_in(report)
        assert name == f"map-{seat}-turn1.png" and data.startswith(PNG_SIGNATURE)
        # the game's own words (its drawer's CAPTION): "of this hour" was Flat Top's
        text = " ".join(report.get_body(preferencelist=("plain",)).get_content().split())
        assert f"The map of this turn: see the attached picture {name}." in text
        assert "this hour" not in text
    with Session(h.bot.engine) as session:
        svgs = [r.map_svg for r in session.exec(select(Report).where(Report.game_id == game_id))]
    assert len(svgs) == 2 and all(len(with_class(parse(s), "ship")) == 2 for s in svgs)


def test_a_game_without_a_map_sends_no_picture_and_keeps_no_svg(h: Harness) -> None:
    game_id = h.create()  # the duel
    h.invite(game_id, "north", "north@players.test")
    h.invite(game_id, "south", "south@players.test")
    letters = h.flush()
    assert letters and all(maps_in(m) == [] for m in letters)
    with Session(h.bot.engine) as session:
        rows = list(session.exec(select(Report).where(Report.game_id == game_id)))
    assert rows and all(r.map_svg == "" for r in rows)


def test_a_map_that_cannot_be_drawn_never_stops_the_letter(
    h: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(model: Any) -> str:
        raise KeyError("hex 'VII-Q4' has no coordinates in map.hexes")

    monkeypatch.setattr(flattop_drawing, "draw", broken)
    game_id = start(h, "flattop", "test-small", FLATTOP)
    letters = h.flush()
    reports = [m for m in letters if "] T1 0500 D1: " in m["Subject"]]
    assert len(reports) == 2 and all(maps_in(m) == [] for m in reports)
    assert any(part.get_filename() == "deadline.ics" for part in reports[0].iter_attachments())
    with Session(h.bot.engine) as session:
        rows = list(session.exec(select(Report).where(Report.game_id == game_id)))
    assert len(rows) == 2 and all(r.map_svg == "" for r in rows)
    assert "goes out without its map" in caplog.text and "VII-Q4" in caplog.text


def test_an_outside_game_package_draws_its_map_with_its_own_drawing_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package outside mailbot gets a map as a built-in one does: by its ``drawing`` module."""
    package = tmp_path / "outside_maps"
    package.mkdir()
    (package / "__init__.py").write_text("from tests.contract.fixtures.auction import GAME\n")
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><title>{}</title></svg>'
    drawer = f"PNG_WIDTH = 320\n\n\ndef draw(model):\n    return {svg!r}.format(model['name'])\n"
    (package / "drawing.py").write_text(drawer)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(["outside_maps"])
    monkeypatch.setattr(render.maps, "default_registry", lambda: registry)
    name = registry.packages()[0].name
    picture = draw_map(name, {"map": {"name": "Midway"}})
    assert picture is not None and picture.width == 320 and picture.colours is None
    assert (picture.caption, picture.inset_caption) == ("The map", "The map, zoomed")  # no CAPTION: neutral
    assert "<title>Midway</title>" in picture.svg
    assert draw_map(name, {"no map": True}) is None
    # A game without a drawer (the auction itself) has no map, whatever its view holds.
    monkeypatch.setattr(
        render.maps, "default_registry", lambda: Registry(["tests.contract.fixtures.auction"])
    )
    assert draw_map(name, {"map": {"name": "Midway"}}) is None
