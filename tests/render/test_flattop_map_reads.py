# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top map read as a player plans from it: land in the frame, every hex the letter
names labelled with its id, no label over another, one frame hour after hour.

Boxes are those of the SVG's text as a browser lays it out on the narrowest screen
(``canvas.NARROWEST``): position, anchor, size, DejaVu Sans's advances and line box, and the
whole pixels a browser rounds them out to (``canvas.text_box``, what the placer keeps room for).
:mod:`tests.e2e.test_flattop_map_browser` measures the same boxes in Chromium.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import cache
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.games.flattop.drawing.board import ROOT3, SHEET, board_for
from mailbot.games.flattop.drawing.printed import board_key, printed_board
from mailbot.games.flattop.drawing.symbols import SEA
from mailbot.games.flattop.map.hexes import Hex, hex_id
from mailbot.render.maps import canvas as cv
from mailbot.render.maps import draw_map
from tests.games.flattop.conftest import load_scenario_data
from tests.games.flattop.play import GAME, game_data, new, play
from tests.render.test_maps import flattop_model

SVG = "{http://www.w3.org/2000/svg}"
LABELS = ("unit-label", "contact-label", "hex-id", "key-number", "place-name", "island-name", "grid-id")
Box = tuple[float, float, float, float]
PIXEL = SHEET / cv.NARROWEST  # a screen pixel in units where a map is narrowest
ROUNDED = 0.05


def coral_sea_maps(hours: int, seat: str = "allied") -> list[dict[str, Any]]:
    """The seat's map model for each of the first ``hours`` hours of Coral Sea, nobody ordering."""
    data = game_data()
    data["scenarios"]["coral-sea"] = load_scenario_data("coral-sea")
    state = new(data, "coral-sea", clear=False)
    models = []
    for _ in range(hours):
        models.append(dict(GAME.view(state, (), seat)["map"]))
        state = play(state, {"allied": [], "japanese": []}).state
    return models


def svg_of(model: dict[str, Any]) -> ET.Element:
    picture = draw_map("flattop", {"map": model})
    assert picture is not None
    return ET.fromstring(picture.svg)


def frame(root: ET.Element) -> Box:
    """The board's sea rectangle: the map's frame."""
    (sea,) = [e for e in root.iter(f"{SVG}rect") if e.get("fill") == SEA]
    return tuple(float(sea.get(k, "0")) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]


def visible(root: ET.Element) -> Iterator[ET.Element]:
    """Every element of ``root`` a reader sees: none inside a ``display="none"`` group (a map's
    labels for its inset, or the theatre's in the inset)."""
    if root.get("display") == "none":
        return
    yield root
    for child in root:
        yield from visible(child)


def label_boxes(root: ET.Element, pixel: float = PIXEL) -> list[tuple[str, str, Box]]:
    """(class, text, box) of every label line shown, where a screen pixel is ``pixel`` units;
    a line's halo copy is the same line."""
    seen: dict[tuple[str, str, str, str], tuple[str, str, Box]] = {}
    for group in visible(root):
        cls = group.get("class", "")
        if group.tag != f"{SVG}g" or cls not in LABELS:
            continue
        for text in group.iter(f"{SVG}text"):
            words, size = "".join(text.itertext()), float(text.get("font-size", "0"))
            x, y, anchor = (
                float(text.get("x", "0")),
                float(text.get("y", "0")),
                text.get("text-anchor", "start"),
            )
            width, height = cv.text_box([words], size, pixel)
            end = cv.ROUND_END * pixel
            left = {"start": x - end, "middle": x - width / 2, "end": x + end - width}[anchor]
            top = y - cv.ASCENT * size - cv.ROUND_ABOVE * pixel
            # less the SVG's rounding of a place to 0.1 (``canvas.num``): two lines of a block abut
            box = (left + ROUNDED, top + ROUNDED, width - 2 * ROUNDED, height - 2 * ROUNDED)
            seen[(group.get("data-hex", ""), words, text.get("x", ""), text.get("y", ""))] = (cls, words, box)
    return list(seen.values())


def overlap(a: Box, b: Box) -> float:
    wide = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    high = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, wide) * max(0.0, high)


def check_reads(model: dict[str, Any]) -> ET.Element:
    root = svg_of(model)
    left, top, width, height = frame(root)
    # Land inside the frame, where the model puts it.
    land = [e for e in root.iter(f"{SVG}path") if e.get("class") == "land"]
    assert model["land"] and len(land) == 1
    points = path_points(land[0].get("d", ""))
    xs, ys = [x for x, _ in points], [y for _, y in points]
    assert left - 1 <= min(xs) and max(xs) <= left + width + 1
    assert top - 1 <= min(ys) and max(ys) <= top + height + 1
    # Every hex the letter names has its id on the map, or a number there and a line in the key.
    boxes = label_boxes(root)
    shown = {words for cls, words, _ in boxes if cls in ("unit-label", "contact-label", "hex-id")}
    numbered = {g.get("data-hex") for g in visible(root) if g.get("class") == "key-number"}
    keyed = {t.get("data-hex") for g in visible(root) if g.get("class") == "key" for t in g}
    assert model["named"]
    for name in model["named"]:
        assert name in shown or (name in numbered and name in keyed), name
    # No label over another.
    for (_, one, a), (_, two, b) in combinations(boxes, 2):
        assert overlap(a, b) < 0.01, (one, two)
    return root


def path_points(d: str) -> list[tuple[float, float]]:
    """The points of a path written in M, m, L, l and z (pairs after a moveto are linetos)."""
    points: list[tuple[float, float]] = []
    x = y = 0.0
    start = (0.0, 0.0)
    for command, numbers in re.findall(r"([MmLlZz])([^MmLlZz]*)", d):
        if command in "Zz":
            x, y = start
            continue
        values = [float(v) for v in re.findall(r"-?(?:\d+\.?\d*|\.\d+)", numbers)]
        for index, (dx, dy) in enumerate(zip(values[0::2], values[1::2], strict=True)):
            x, y = (x + dx, y + dy) if command.islower() else (dx, dy)
            if index == 0 and command in "Mm":
                start = (x, y)
            points.append((x, y))
    return points


def test_relative_paths_read_as_the_points_they_were_written_from() -> None:
    pieces = [(cv.hexagon(30.04, 40, 8.1), True), ([(1.25, 2), (3, 4.96)], False)]
    rounded = [(cv.num(x), cv.num(y)) for points, _ in pieces for x, y in points]
    assert [(round(x, 6), round(y, 6)) for x, y in path_points(cv.relative_path(pieces))] == rounded


def test_a_coral_sea_map_shows_land_names_every_hex_and_keeps_its_frame() -> None:
    first, second = coral_sea_maps(2)
    one, two = check_reads(first), check_reads(second)
    assert frame(one) == frame(two) and one.get("width") == two.get("width")
    islands = {words for cls, words, _ in label_boxes(one) if cls == "island-name"}
    assert "New Guinea" in islands
    assert any(g.get("class") == "compass" for g in one.iter(f"{SVG}g"))
    assert any(g.get("class") == "scale" for g in one.iter(f"{SVG}g"))


def test_the_board_lies_on_the_pixel_grid_so_its_rows_repeat() -> None:
    """Whole units for the radius, a corner's rise and the board's corner: every two columns and
    every row the grid's pixels repeat, and neighbours share their corners exactly."""
    model = coral_sea_maps(1)[0]
    board = board_for(model["bounds"])
    c0, r0, _, _ = board.bounds
    assert all(float(v).is_integer() for v in (board.size, board.rise, board.left, board.top))
    assert abs(board.rise / (board.size * ROOT3 / 2) - 1) < 0.05  # near a regular hexagon
    for col, row in ((c0, r0), (c0 + 7, r0 + 11), (c0 + 30, r0 + 20)):
        x, y = board.centre(Hex(col, row))
        assert board.centre(Hex(col + 2, row)) == (x + 3 * board.size, y)
        assert board.centre(Hex(col, row + 1)) == (x, y + 2 * board.rise)
        above, below = (row - 1, row) if col % 2 == 0 else (row, row + 1)
        for other in (Hex(col + 1, above), Hex(col + 1, below)):
            shared = set(board.corners(Hex(col, row))) & set(board.corners(other))
            assert len(shared) == 2, (col, row, other)


def containers(value: Any) -> int:
    """How many lists and dicts ``value`` holds, itself included."""
    if isinstance(value, dict):
        return 1 + sum(containers(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(containers(v) for v in value)
    return 0


def test_a_views_map_holds_the_printed_boards_hexes_in_one_string() -> None:
    """The printed board's 450 hexes as [col, row] lists were as many containers a view for the
    garbage collector to walk; the board's places are one string, the hour's hexes a few lists."""
    first, second = coral_sea_maps(2)
    assert isinstance(first["board_hexes"], str) and first["board_hexes"] == second["board_hexes"]
    places = dict(item.split(":") for item in first["board_hexes"].split(";"))
    assert len(places) > 400 and {*first["land"], *first["grid_ids"]} <= places.keys()
    assert containers(first) < 300 and len(first["hexes"]) < 200


def test_a_played_hours_map_is_a_small_picture() -> None:
    """The PNG a letter carries: a Coral Sea hour's whole theatre, 960 pixels wide, in a palette.
    About 55 kB a map: 66 kB with ISA-L's greedy deflate, 112 kB when the grid's pixels differed
    hex by hex."""
    for model in coral_sea_maps(3)[1:]:
        picture = draw_map("flattop", {"map": model})
        assert picture is not None
        assert len(picture.png()) < 60_000


@pytest.mark.parametrize("crowd", [3, 8])
def test_a_crowded_corner_still_labels_every_hex_without_overlap(crowd: int) -> None:
    """Contacts on every hex round a TF: some labels stand off on leader lines or go to the key."""
    model = flattop_model()
    cells = [(5 + dc, 30 + dr) for dc in range(-1, 2) for dr in range(-1, 2) if (dc, dr) != (0, 0)][:crowd]
    for c, r in cells:
        model["contacts"].append(
            {"hex": hex_id(Hex(c, r)), "kind": "planes", "condition": 3, "age": 0, "label": "planes C3 0700"}
        )
        model["hexes"][hex_id(Hex(c, r))] = [c, r]
    model["land"] = [hex_id(Hex(2, 24))]
    model["hexes"][hex_id(Hex(2, 24))] = [2, 24]
    model["named"] = sorted(
        {c["hex"] for c in model["contacts"]}
        | {u["hex"] for f in model["forces"] for k in ("task_forces", "bases", "air") for u in f[k]}
        | {h for p in (*model["searches"], *model["strikes"]) for h in p}
    )
    root = check_reads(model)
    if crowd == 8:  # not every label finds room beside its hex
        stood_off = [e for e in root.iter(f"{SVG}path") if e.get("class") == "leader"]
        numbered = [g for g in root.iter(f"{SVG}g") if g.get("class") == "key-number"]
        assert stood_off or numbered


def test_an_island_that_bears_a_bases_name_is_named_once() -> None:
    """Deboyne and Shortland are each a base and an island: the board names each once, by its base."""
    root = svg_of(coral_sea_maps(1)[0])
    names = [
        "".join(text.itertext())
        for group in root.iter(f"{SVG}g")
        if group.get("class") in ("place-name", "island-name")
        for text in group.iter(f"{SVG}text")
        if text.get("stroke") is None  # a line's halo copy is the same line
    ]
    assert {"Deboyne", "Shortland", "Rabaul", "Bougainville"} <= set(names)
    assert sorted(n for n in names if names.count(n) > 1) == []


def test_a_grid_id_under_a_storm_is_printed_again_with_a_halo() -> None:
    """The board prints its grid ids bare, grey: on a storm's dark grey one could not be read.
    A storm over one prints it again over the storm, haloed; a storm elsewhere prints none."""
    model = coral_sea_maps(1)[0]
    grid_id = str(model["grid_ids"][len(model["grid_ids"]) // 2])

    places = dict(item.split(":") for item in model["board_hexes"].split(";"))
    col, row = (int(v) for v in places[grid_id].split(","))
    hexes = {**model["hexes"], "above": [col, row - 1]}  # the hex north of the id's own

    def reprinted(storms: list[str]) -> list[tuple[str, str | None]]:
        root = svg_of({**model, "hexes": hexes, "storms": storms})
        groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "storm-id"]
        return [("".join(t.itertext()), t.get("stroke")) for g in groups for t in g.iter(f"{SVG}text")]

    assert reprinted([grid_id]) == [(grid_id, cv.HALO), (grid_id, None)]
    assert reprinted(["above"]) == [] and reprinted([]) == []


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_grid_ids_under_storms_are_those_a_storm_box_overlaps(data: st.DataObject) -> None:
    """``Printed.grid_under`` looks only in the storms' cells: it finds exactly the ids whose
    boxes share some area with a storm's box, in the grid's order, as trying every id would."""
    model = _first_coral_sea_map()
    printed = printed_board(board_key(model))
    board = board_for(model["bounds"])
    c0, r0, c1, r1 = board.bounds
    spots = st.tuples(st.integers(c0, c1), st.integers(r0, r1))
    boxes = []
    for col, row in data.draw(st.lists(spots, max_size=12)):
        x, y = board.centre(Hex(col, row))
        boxes.append((x - board.size / 2, y - board.rise, board.size, 2 * board.rise))
    every = [item for item in printed.grid if any(cv.overlap(item[1][3], box) > 0 for box in boxes)]
    assert printed.grid_under(boxes) == every


@cache
def _first_coral_sea_map() -> dict[str, Any]:
    return coral_sea_maps(1)[0]


def test_the_font_is_named_once_on_the_sheet_and_once_on_the_printed_board() -> None:
    """Every text inherits its font: from the root, or from the board's printed layer, which an
    archive keeps as a picture of its own (a whole game's archive named it on every text, 0.5 MB)."""
    picture = draw_map("flattop", {"map": coral_sea_maps(1)[0]})
    assert picture is not None
    root = ET.fromstring(picture.svg)
    named = [e for e in root.iter() if e.get("font-family")]
    assert [e.tag.removeprefix(SVG) for e in named] == ["svg", "g"]
    assert all(e.get("font-family") == cv.FONT for e in named) and named[1].get("data-layer")
