# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top map's inset: the theatre's drawing seen through a window around the side's task
forces, air formations, contacts and this hour's paths, at about twice the theatre's scale.

Its frame holds every one of them, lies on the board, zooms by 1.5x at least (or there is no
inset), and is read from the map model alone: what the side has not seen cannot move it (the
no-leak pair is in ``tests/differential/test_map_no_leak.py``).
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from itertools import combinations
from typing import Any

from PIL import Image

from mailbot.games.flattop.drawing import (
    INSET_HEIGHT,
    INSET_STEP,
    INSET_WIDTH,
    Map,
    inset_frame,
)
from mailbot.games.flattop.map.hexes import Hex, hex_id, parse_hex_id
from mailbot.render.maps import canvas as cv
from mailbot.render.maps import draw_map, png_of
from mailbot.render.maps.raster import paint
from tests.render.test_flattop_map_reads import coral_sea_maps, label_boxes, overlap, visible

#: where the crowded Allied hour's units, contact and search stand (Coral Sea, section VII)
TFS = ("VII-F28", "VII-H30", "VII-F31")
CONTACT = "VII-J27"
SEARCH = ("VII-F28", "VII-G28", "VII-H27", "VII-I27", "VII-J27")


def crowded_coral_sea(model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Allied start of Coral Sea with its task forces gathered south of Guadalcanal, one
    contact and one search path this hour: the action a corner of the theatre."""
    model = dict(coral_sea_maps(1)[0] if model is None else model)
    (force,) = model["forces"]
    force = dict(
        force, task_forces=[dict(tf, hex=h) for tf, h in zip(force["task_forces"], TFS, strict=True)]
    )
    model["forces"] = [force]
    model["contacts"] = [
        {"hex": CONTACT, "kind": "ships", "condition": 3, "age": 0, "label": "ships C3 0500"}
    ]
    model["searches"] = [list(SEARCH)]
    model["hexes"] = {**model["hexes"], **{h: parse_hex_id(h).as_list() for h in (*TFS, *SEARCH)}}  # type: ignore[union-attr]
    model["named"] = sorted({*model["named"], *TFS, *SEARCH})
    return model


def action_points(model: dict[str, Any]) -> list[tuple[float, float]]:
    """The centres of the model's TFs, AFs, contacts and path hexes on the sheet."""
    drawn = Map(model)
    hexes = {m.hex for m in (*drawn.own, *drawn.contacts) if m.kind != "base"}
    hexes |= {h for path in (*model["searches"], *model["strikes"]) for h in path}
    return [drawn.board.centre(drawn.at(h)) for h in hexes]


def test_the_inset_frames_every_unit_contact_and_path_on_the_board() -> None:
    model = crowded_coral_sea()
    frame = inset_frame(model)
    assert frame is not None
    x, y, wide, high = frame
    board = Map(model).board
    assert wide / high == INSET_WIDTH / INSET_HEIGHT and INSET_WIDTH / wide >= 1.5
    size = board.size
    for px, py in action_points(model):  # each symbol whole, not only its centre
        assert x + size <= px <= x + wide - size and y + size <= py <= y + high - size, (px, py)
    # On the board (its corner on a whole step may show part of a step of the margin)
    assert board.left - INSET_STEP < x and x + wide < board.left + board.width + INSET_STEP
    assert board.top - INSET_STEP < y and y + high < board.top + board.height + INSET_STEP


def test_the_inset_is_the_same_drawing_through_a_window_painted_small() -> None:
    """The same drawing but for its root and which labels it shows: its own, not the theatre's."""
    model = crowded_coral_sea()
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    root = re.compile(r"<svg\b[^>]*>")
    groups = ('<g class="labels">', '<g class="inset-labels">')
    assert [picture.svg.count(g) for g in groups] == [1, 0]
    assert [picture.inset.count(g) for g in groups] == [0, 1]
    hidden = ' display="none"'
    assert root.sub("", picture.inset).replace(hidden, "") == root.sub("", picture.svg).replace(hidden, "")
    box = " ".join(str(v) for v in inset_frame(model) or ())
    assert f'viewBox="{box}"' in picture.inset
    png = picture.inset_png()
    assert png is not None and Image.open(io.BytesIO(png)).size == (INSET_WIDTH, INSET_HEIGHT)
    assert len(png) < len(picture.png()) / 2


def test_no_inset_when_the_action_spans_the_theatre() -> None:
    """Coral Sea's start: each side's task forces are spread over the theatre."""
    for seat in ("allied", "japanese"):
        model = coral_sea_maps(1, seat)[0]
        assert inset_frame(model) is None
        picture = draw_map("flattop", {"map": model})
        assert picture is not None and picture.inset is None and picture.inset_png() is None


def test_the_next_hours_window_elsewhere_reuses_the_painted_board() -> None:
    """A window's corner on a whole step is on a whole pixel: the board is painted once at the
    inset's scale and shifted, not painted again for each frame."""
    model = crowded_coral_sea()
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    widest = re.sub(r'viewBox="[\d.]+ ', 'viewBox="704.0 ', picture.inset, count=1)
    png_of(widest, INSET_WIDTH, 64)  # the window furthest east: the widest layer
    kept = len(paint._board_layers)
    for x in (400, 464, 16):
        moved = re.sub(r'viewBox="[\d.]+ ', f'viewBox="{x}.0 ', picture.inset, count=1)
        assert moved != picture.inset
        png_of(moved, INSET_WIDTH, 64)
        assert len(paint._board_layers) == kept


# --- the inset's labels ------------------------------------------------------------------------


def crowded_hour(around: int = 1) -> dict[str, Any]:
    """:func:`crowded_coral_sea` with planes an hour old on ``around`` hexes beside each task
    force (east, south, west, north): the theatre map has no room for some labels and keys them."""
    model = crowded_coral_sea()
    model["contacts"] = [*model["contacts"]]
    for tf in TFS:
        centre = parse_hex_id(tf)
        for dc, dr in ((1, 0), (0, 1), (-1, 0), (0, -1))[:around]:
            spot = Hex(centre.col + dc, centre.row + dr)
            model["contacts"].append(
                {"hex": hex_id(spot), "kind": "planes", "condition": 3, "age": 1, "label": "planes C3 0400"}
            )
            model["hexes"][hex_id(spot)] = spot.as_list()
    model["named"] = sorted({*model["named"], *(c["hex"] for c in model["contacts"])})
    return model


def keyed(root: ET.Element) -> set[str]:
    """The hexes the key a reader sees names (the theatre's under the map, or the inset's)."""
    return {str(t.get("data-hex")) for g in visible(root) if g.get("class") == "key" for t in g}


def inset_pixel(inset: ET.Element) -> float:
    """A screen pixel in units where the inset is narrowest (its window over ``cv.NARROWEST``)."""
    return float(inset.get("viewBox", "").split()[2]) / cv.NARROWEST


def test_labels_the_theatre_keys_read_in_full_in_the_inset_near_their_symbols_and_apart() -> None:
    """The theatre has no room beside some symbols and keys their labels under the map, a key
    the inset's window does not show. The inset places its own, for its scale: each unit and
    contact inside the window reads in full beside its symbol (no number, no leader line, no
    key), over no other label and none of the board's names and hex ids."""
    model = crowded_hour()
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    theatre, inset = ET.fromstring(picture.svg), ET.fromstring(picture.inset)
    x, y, wide, high = (float(v) for v in inset.get("viewBox", "").split())
    assert (wide, high) == inset_frame(model)[2:]  # type: ignore[index]  # no key under the window
    drawn = Map(model)
    inside = [
        m
        for m in (*drawn.own, *drawn.contacts)
        if x <= drawn.board.centre(drawn.at(m.hex))[0] <= x + wide
        and y <= drawn.board.centre(drawn.at(m.hex))[1] <= y + high
    ]
    assert len(inside) >= 2 * len(TFS)
    sent_away = keyed(theatre) & {m.hex for m in inside}
    assert len(sent_away) >= 2, sent_away  # the theatre had no room for them

    boxes = label_boxes(inset, inset_pixel(inset))
    lines = {(group.get("data-hex"), "".join(t.itertext())) for group in visible(inset) for t in group}
    for marker in inside:
        assert (marker.hex, marker.label) in lines and (marker.hex, marker.hex) in lines, marker
    placed = [e for e in visible(inset) if e.get("class") in ("key-number", "leader", "key")]
    assert placed == [] and keyed(inset) == set()
    for (_, one, a), (_, two, b) in combinations(boxes, 2):
        assert overlap(a, b) < 0.01, (one, two)
    # beside its symbol: each block's nearest line within a hex's width of its hex's centre
    for group in visible(inset):
        if group.get("class") in ("unit-label", "contact-label"):
            cx, cy = drawn.board.centre(drawn.at(str(group.get("data-hex"))))
            away = []
            for _, _, (left, top, w, h) in label_boxes(group, inset_pixel(inset)):
                dx, dy = max(left - cx, 0, cx - left - w), max(top - cy, 0, cy - top - h)
                away.append((dx * dx + dy * dy) ** 0.5)
            assert min(away) < 2 * drawn.board.size, (group.get("data-hex"), away)


def test_an_inset_with_no_room_for_a_label_shows_its_own_key_under_its_window() -> None:
    """Planes on every side of each task force: even the inset has no room for some labels. Each
    is numbered and its line is in a key under the window, in the inset itself (its picture
    taller by whole 15-pixel steps); every symbol in the window is labelled in full or keyed."""
    model = crowded_hour(around=4)
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    inset = ET.fromstring(picture.inset)
    x, y, wide, high = (float(v) for v in inset.get("viewBox", "").split())
    frame = inset_frame(model)
    assert frame is not None and (x, y, wide) == frame[:3] and high > frame[3]
    height = int(inset.get("height", "0"))
    assert height > INSET_HEIGHT and (height - INSET_HEIGHT) % 15 == 0
    assert abs(wide / high - INSET_WIDTH / height) < 1e-9
    png = picture.inset_png()
    assert png is not None and Image.open(io.BytesIO(png)).size == (INSET_WIDTH, height)
    drawn = Map(model)
    keys = keyed(inset)
    numbered = {str(g.get("data-hex")) for g in visible(inset) if g.get("class") == "key-number"}
    assert numbered and numbered <= keys
    lines = {(group.get("data-hex"), "".join(t.itertext())) for group in visible(inset) for t in group}
    for marker in (*drawn.own, *drawn.contacts):
        cx, cy = drawn.board.centre(drawn.at(marker.hex))
        if x <= cx <= x + wide and y <= cy <= y + frame[3]:
            assert (marker.hex, marker.label) in lines or marker.hex in keys, marker
    for group in visible(inset):  # the key's lines under the window, inside the picture
        if group.get("class") == "key":
            for text in group:
                assert y + frame[3] < float(text.get("y", "0")) < y + high
    boxes = label_boxes(inset, inset_pixel(inset))
    for (_, one, a), (_, two, b) in combinations(boxes, 2):
        assert overlap(a, b) < 0.01, (one, two)


def test_the_theatre_map_is_painted_as_it_was_without_the_insets_labels() -> None:
    """The inset's labels, their view and its rule are in the map's SVG, hidden: the theatre's
    PNG is the same bytes as the map's without them."""
    picture = draw_map("flattop", {"map": crowded_hour()})
    assert picture is not None and picture.inset is not None
    without = re.sub(r"<style>[^<]*</style>\n<view [^>]*/>\n", "", picture.svg)
    without = without[: without.index('<g class="inset-labels"')] + "</svg>\n"
    assert without != picture.svg and "inset-labels" not in without
    assert picture.png() == png_of(without, INSET_WIDTH * 2, 64)
