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
from typing import Any

from PIL import Image

from mailbot.games.flattop.drawing import (
    INSET_HEIGHT,
    INSET_STEP,
    INSET_WIDTH,
    Map,
    inset_frame,
)
from mailbot.games.flattop.map.hexes import parse_hex_id
from mailbot.render.maps import draw_map, png_of
from mailbot.render.maps.raster import paint
from tests.render.test_flattop_map_reads import coral_sea_maps

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
    model = crowded_coral_sea()
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    root = re.compile(r"<svg\b[^>]*>")
    assert root.sub("", picture.inset) == root.sub("", picture.svg)
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
