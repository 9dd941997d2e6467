# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top side's map of the hour, drawn from the report view's ``r["map"]`` alone (the
game's map drawer: ``mailbot.render.maps`` finds it as the package's ``drawing``).

The schema (``mailbot/games/flattop/view.py`` builds it from the side's own
units, its knowledge and the public board)::

    {"side": "Allied" | "Japanese" | "referee", "time": "<hour label>",
     "hexes": {"<hex id>": [col, row], ...},      # every hex id used below, or
     "board_hexes": "<hex id>:col,row;...",      # ... the printed board's, in one string
     "bounds": [min_col, min_row, max_col, max_row],
     "forces": [{"side": ..., "task_forces": [{"name", "hex", "ships", "carriers"}],
                 "bases": [{"name", "hex"}], "air": [{"name", "hex", "altitude", "mission"}]}],
     "contacts": [{"hex", "kind", "condition", "age", "label"}],
     "clouds": [id, ...], "cloud_radius": int, "storms": [id, ...],
     "searches": [[id, ...], ...], "strikes": [[id, ...], ...]}

Geometry (``games/flattop/map/hexes.py``): flat-topped hexes, odd columns half
a hex lower, columns grow east and rows south.

The frame is the model's ``bounds`` (the view gives the whole theatre, so every map of a
game has one frame). The printed board comes first: land, partial land, hexsides, the
sections' lines and numerals, every printed base; then weather, paths and symbols. Labels
are placed where nothing else is (:meth:`cv.Labels.free`), most wanted first: each hex
with symbols gets a block of its hex id and what is there, each other ``named`` hex its
id, a leader line when the label had to stand off; what finds no room gets a number on
the map and a line in the key under it. Board names and the regular grid of ids
(``grid_ids``) are drawn only where they are free. A compass and a five-hex scale sit
right of the title.

Where the action is compact, the zoomed inset (:func:`inset`) is this drawing through a window
at 1.5x to 2x. Its labels are placed again for that window (:meth:`Map._inset_labels`): as
many pixels high on its picture as the theatre's on its own, each beside its symbol, with a
key of its own under the window for a label that finds no room even there. They are a second
group of the map's SVG, hidden on the theatre map; the inset shows them in place of the
theatre's (its PNG, and a browser through the map's ``#inset`` view).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any

import drawsvg as dw

from mailbot.games.flattop.drawing.board import (
    FADE,
    GRID_SIZE,
    KEY_COLUMNS,
    MAP_TOP,
    PLACE_SIZE,
    SHEET,
    board_for,
    grid_outline,
    weather_outline,
)
from mailbot.games.flattop.drawing.labels import THEATRE, Placed, Printed, Scale, Spot, Window, fragment
from mailbot.games.flattop.drawing.marks import compass_and_scale, hexsides
from mailbot.games.flattop.drawing.symbols import (
    BASE_INK,
    CLOUD,
    COAST,
    GRID,
    GRID_INK,
    ID_INK,
    LAND,
    LAND_INK,
    LEADER,
    LEGEND,
    SEA,
    SEARCH,
    SECTION_INK,
    SIDES,
    STORM,
    STRIKE,
    SYMBOLS,
    UNKNOWN,
    legend_symbol,
    path_symbol,
    polyline,
    swatch,
)
from mailbot.games.flattop.map.hexes import Hex
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import Entry, num

#: the PNG of a map is the whole sheet a pixel a unit, in a palette (a fifth of the bytes)
PNG_WIDTH = SHEET
PNG_COLOURS = 64

#: the inset (:func:`inset`): a PNG this many pixels, the theatre's sheet seen through a window
#: of one of :data:`INSET_WINDOWS` units wide (2x, 1.875x or 1.5x the theatre's scale); wider
#: (zooming by less than 1.5x), it is left out
INSET_WIDTH, INSET_HEIGHT = 480, 360
INSET_WINDOWS = (240.0, 256.0, 320.0)
#: around the action's hexes, in units: a symbol and most of its label
INSET_PAD = 36.0
#: the window's corner stands on whole steps of this many units: the action moving a hex mostly
#: keeps the frame, and at those scales (exact binary fractions) the corner falls on a whole
#: pixel, so the PNG's board layer is the whole board's, painted once and shifted
#: (``render.maps.raster``)
INSET_STEP = 16.0
#: the inset's labels, in pixels of its picture: a little larger than the theatre's on its own
#: (10 and 9), since a phone shows the inset's 480 pixels in about 360; its key's lines
INSET_LABEL, INSET_ID, INSET_KEY = 13.0, 12.0, 12.0
#: the inset's key, when it has one, makes its picture taller by whole steps of this many pixels:
#: at each of :data:`INSET_WINDOWS` a step is a whole tenth of a unit (the SVG's numbers) and the
#: picture keeps its window's proportions exactly
INSET_KEY_STEP = 15
#: the inset's view (``<map>.svg#inset``): through it a browser shows the inset's labels in
#: place of the theatre's (:func:`inset_view`), as :func:`inset` does for the PNG
INSET_VIEW = "inset"
THEATRE_LABELS, INSET_LABELS = "labels", "inset-labels"


@dataclass(frozen=True)
class Marker:
    """One symbol in a hex: an own unit or a contact."""

    kind: str  # tf, carrier, base, air-search, air-strike, air-other, contact
    hex: str
    colour: str
    label: str
    opacity: float = 1.0
    note: str = ""  # drawn inside the symbol (a contact's condition)
    name: str = ""


class Map:
    """One ``r["map"]`` read and drawn."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.model = model
        # Read as asked for: the model names every hex of the printed board, and a
        # map's own drawing asks for a few hundred (the board is drawn once, from its key).
        self.coordinates: Mapping[str, Any] = model["hexes"]
        self.printed = board_places(str(model.get("board_hexes", "")))
        self.hexes: dict[str, Hex] = {}
        self.board = board_for(model["bounds"])
        self.side = str(model["side"])
        self.own = self._own_markers()
        self.contacts = self._contact_markers()

    def at(self, hex_id: str) -> Hex:
        found = self.hexes.get(hex_id)
        if found is None:
            if hex_id in self.coordinates:
                found = Hex.from_list(self.coordinates[hex_id])
            elif hex_id in self.printed:
                found = self.printed[hex_id]
            else:
                raise KeyError(f"hex {hex_id!r} has no coordinates in map.hexes")
            self.hexes[hex_id] = found
        return found

    def _own_markers(self) -> list[Marker]:
        markers: list[Marker] = []
        for force in self.model["forces"]:
            colour = SIDES.get(str(force["side"]), cv.INK)
            for tf in force["task_forces"]:
                kind = "carrier" if tf["carriers"] else "tf"
                label = f"{tf['name']} ({tf['ships']})"
                markers.append(Marker(kind, str(tf["hex"] or ""), colour, label, name=str(tf["name"])))
            for base in force["bases"]:
                markers.append(
                    Marker("base", str(base["hex"] or ""), colour, str(base["name"]), name=str(base["name"]))
                )
            for af in force["air"]:
                mission = af["mission"] if af["mission"] in ("search", "strike") else "other"
                label = " ".join(filter(None, (str(af["name"]), str(af["altitude"]))))
                markers.append(
                    Marker(f"air-{mission}", str(af["hex"] or ""), colour, label, name=str(af["name"]))
                )
        # A unit off the board (a base's entry box, planes not yet arrived) has no hex to show.
        placed = [marker for marker in markers if marker.hex]
        for marker in placed:
            self.at(marker.hex)
        return placed

    def contact_colour(self) -> str:
        others = [colour for side, colour in SIDES.items() if side != self.side]
        return others[0] if self.side in SIDES else UNKNOWN

    def _contact_markers(self) -> list[Marker]:
        colour, markers = self.contact_colour(), []
        for contact in self.model["contacts"]:
            age = int(contact["age"])
            words = str(contact["label"] or contact["kind"])
            words += f" ({age}h ago)" if age else ""
            markers.append(
                Marker(
                    "contact",
                    str(contact["hex"]),
                    colour,
                    words,
                    FADE[min(age, len(FADE) - 1)],
                    str(int(contact["condition"])),
                )
            )
            self.at(markers[-1].hex)
        return markers

    def draw(self) -> str:
        printed = printed_board(board_key(self.model))
        entries = self.legend_entries()
        bottom = MAP_TOP + self.board.height
        labels = printed.labels()
        self.block_markers(labels)
        placed = self._place_labels(labels, printed.bases)
        key_top = bottom + cv.PAD
        key_rows = math.ceil(len(placed.key) / KEY_COLUMNS)
        top = key_top + key_rows * cv.LEGEND_ROW + (cv.PAD if placed.key else 0)
        d = cv.sheet(top + cv.legend_height(entries, SHEET), self.title(), width=SHEET)
        frame = self.inset_frame()
        zoomed = None if frame is None else self._inset_labels(printed, frame)
        if zoomed is not None:  # where the inset looks (:func:`inset`; an archive's page shows it so)
            d.svg_args["data-inset"] = " ".join(str(num(v)) for v in zoomed[1])
        d.append(dw.Raw(printed.under))
        self._weather(d)
        d.append(dw.Raw(printed.over))
        self._storm_ids(d, printed.grid)
        self._paths(d)
        slots = self.slots()
        for marker, x, y in slots:
            d.append(self._symbol(marker, x, y, self.marker_size()))
        if zoomed is not None:
            d.append(dw.Raw(inset_view(zoomed[1])))
        theatre = dw.Group(class_=THEATRE_LABELS)  # its key too: the inset shows its own
        placed.draw(theatre)
        self._key(theatre, placed.key, key_top)
        d.append(theatre)
        cv.legend(d, entries, top, SHEET)
        if zoomed is not None:  # last: its key, under the window, lies over what the sheet has there
            d.append(zoomed[0])
        return str(d.as_svg())

    def inset_frame(self) -> tuple[float, float, float, float] | None:
        """The inset's window on the sheet (x, y, width, height, in units): around the side's task
        forces and air formations, its contacts and this hour's paths (what the model holds:
        nothing the side has not seen), padded, its corner snapped to :data:`INSET_STEP`, in the
        aspect of the inset's PNG and on the board. None when there is nothing to show or no
        window of :data:`INSET_WINDOWS` holds it (the action spans most of the theatre)."""
        board = self.board
        # Not the bases: they hold still, spread over the theatre (Japanese ones from Kavieng to
        # Deboyne), and the theatre map and the board name them: with them no inset would zoom.
        hexes = {m.hex for m in (*self.own, *self.contacts) if m.kind != "base"}
        hexes |= {str(h) for path in (*self.model["searches"], *self.model["strikes"]) for h in path}
        points = [board.centre(h) for h in (self.at(i) for i in sorted(hexes)) if board.inside(h)]
        if not points:
            return None
        xs, ys = [x for x, _ in points], [y for _, y in points]
        aspect = INSET_WIDTH / INSET_HEIGHT
        need = max(max(xs) - min(xs) + 2 * INSET_PAD, (max(ys) - min(ys) + 2 * INSET_PAD) * aspect)
        # One step more than needed: snapping the corner to a step moves the window by up to one.
        wide = next((w for w in INSET_WINDOWS if w >= need + INSET_STEP), None)
        if wide is None or wide > board.width or wide / aspect > board.height:
            return None
        high = wide / aspect
        x = _snap((min(xs) + max(xs) - wide) / 2, board.left, board.left + board.width - wide)
        y = _snap((min(ys) + max(ys) - high) / 2, board.top, board.top + board.height - high)
        return x, y, wide, high

    def _inset_labels(self, printed: Printed, frame: Window) -> tuple[dw.Group, Window]:
        """The labels of the hexes inside the inset's window, placed anew for its scale
        (:class:`Scale`: as many pixels high on its picture as the theatre's on its own, so
        nearer their symbols), never over the board's names and ids: hidden on the theatre
        map, shown in the inset (:func:`inset`; ``#inset`` in a browser, :func:`inset_view`).
        With them the window the inset shows: ``frame``, or, when a label has no room even
        there (it is numbered), ``frame`` and the key under it, the inset's picture taller
        by whole steps of :data:`INSET_KEY_STEP` pixels."""
        x, y, wide, high = frame
        pixel = wide / INSET_WIDTH
        scale = Scale(INSET_LABEL * pixel, INSET_ID * pixel, pixel, frame, between=True)
        # the board's names and ids as large as the window shows them, and no larger
        labels = printed.placed.zoomed(
            x + pixel, y + pixel, x + wide - pixel, y + high - pixel, wide / cv.NARROWEST
        )
        self.block_markers(labels)
        placed = self._place_labels(labels, printed.bases, scale)
        group = dw.Group(class_=INSET_LABELS, display="none")
        placed.draw(group)
        if not placed.key:
            return group, frame
        # a row as a phone lays it out, in whole pixels of the picture
        pitch = math.ceil(cv.line_pitch(INSET_KEY, INSET_WIDTH / cv.NARROWEST))
        extra = INSET_KEY_STEP * math.ceil((len(placed.key) * pitch + INSET_KEY) / INSET_KEY_STEP)
        self._inset_key(group, placed.key, (x, y + high, wide, extra * pixel), pitch * pixel)
        return group, (x, y, wide, high + extra * pixel)

    @staticmethod
    def _inset_key(
        group: dw.Group,
        key: Sequence[tuple[str, str, list[str], str]],
        box: Window,
        pitch: float,
    ) -> None:
        """The inset's key in ``box``, under its window, on white over what the sheet has there:
        a line a numbered label, as under the theatre map."""
        left, top, width, height = box
        size = INSET_KEY * width / INSET_WIDTH
        group.append(dw.Rectangle(num(left), num(top), num(width), num(height), fill=cv.PAPER))
        group.append(
            dw.Path(f"M{num(left)},{num(top)}h{num(width)}", stroke=LEADER, stroke_width=num(size / 10))
        )
        lines = dw.Group(class_="key")
        for index, (number, hex_id, words, colour) in enumerate(key):
            line = f"{number}  {hex_id}" + (f": {', '.join(words)}" if words else "")
            while len(line) > 1 and cv.text_width(line, size) > width - size:
                line = line[:-2] + "…"  # a line longer than the window: the hex and most of the rest
            baseline = top + size / 2 + index * pitch + cv.ASCENT * size
            lines.append(
                dw.Text(line, num(size), num(left + size / 2), num(baseline), fill=colour, data_hex=hex_id)
            )
        group.append(lines)

    def draw_board(self) -> Printed:
        """The printed board alone, as two SVG layers (under the weather, over it) and the
        boxes its names and grid ids take: the same for every hour of a game."""
        bottom = MAP_TOP + self.board.height
        labels = cv.Labels(
            self.board.left, self.board.top, self.board.left + self.board.width, bottom, SHEET / cv.NARROWEST
        )
        under = dw.Group(class_="board", data_layer=num(bottom))
        self._sea(under)
        # its own font: kept apart from the sheet (a picture of its own in an archive), it
        # inherits nothing from the sheet's root
        over = dw.Group(class_="board-print", data_layer=num(bottom), font_family=cv.FONT)
        compass_and_scale(over, self.board)
        self._hexsides(over)
        self._sections(over)
        self._board_bases(over)
        placed, grid = Placed(), list[tuple[str, Spot]]()
        bases = self._place_board(labels, placed, grid)
        placed.draw(over)
        labels.index()
        return Printed(fragment(under), fragment(over), labels, bases, tuple(grid))

    def title(self) -> str:
        side = "Referee" if self.side == "referee" else self.side
        return f"{side} map, {self.model['time']}"

    def _sea(self, d: dw.Drawing | dw.Group) -> None:
        b = self.board
        d.append(dw.Rectangle(num(b.left), num(b.top), num(b.width), num(b.height), fill=SEA))
        land = self._ids_inside(self.model.get("land", ()))
        partial = self._ids_inside(self.model.get("partial", ()))
        if partial:
            d.append(dw.Path(b.outline(partial), fill=COAST, class_="partial-land"))
        if land:
            d.append(dw.Path(b.outline(land), fill=LAND, class_="land"))
        d.append(dw.Path(grid_outline(b), fill="none", stroke=GRID, stroke_width=0.5, class_="grid"))

    def _ids_inside(self, ids: Iterable[Any]) -> list[Hex]:
        return sorted(h for h in (self.at(str(i)) for i in ids) if self.board.inside(h))

    def _hexsides(self, d: dw.Drawing | dw.Group) -> None:
        sides = [
            (self.at(str(a)), self.at(str(b)), str(kind)) for a, b, kind in self.model.get("hexsides", ())
        ]
        hexsides(d, self.board, sides)

    def _sections(self, d: dw.Drawing | dw.Group) -> None:
        """The board's sections: their shared columns and rows as lines, numerals in the corner."""
        b = self.board
        c0, r0, c1, r1 = b.bounds
        lines, group = [], dw.Group(class_="sections")
        for section in self.model.get("sections", ()):
            w, n = (int(v) for v in section["bounds"][:2])
            if w > c0:
                x = b.centre(Hex(w, n))[0]
                lines.append(f"M{num(x)},{num(b.top)}V{num(b.top + b.height)}")
            if n > r0:
                y = b.centre(Hex(w, n))[1]
                lines.append(f"M{num(b.left)},{num(y)}H{num(b.left + b.width)}")
            if c0 <= w <= c1 and r0 <= n <= r1:
                x, y = b.centre(Hex(w, n))
                cv.text(
                    group,
                    str(section["name"]),
                    16,
                    x + b.size,
                    y + b.size * 2.4,
                    fill=SECTION_INK,
                    weight="bold",
                )
        d.append(dw.Path("".join(sorted(set(lines))), fill="none", stroke=SECTION_INK, stroke_width=1.2))
        d.append(group)

    def _board_bases(self, d: dw.Drawing | dw.Group) -> None:
        """Every printed base, own or not: a ring (an own base also gets its square)."""
        group = dw.Group(class_="board-base")
        r = max(3.0, self.board.size * 0.45)
        for base in self.model.get("board_bases", ()):
            h = self.at(str(base["hex"]))
            if self.board.inside(h):
                x, y = self.board.centre(h)
                group.append(
                    dw.Circle(num(x), num(y), num(r), fill="#ffffff", stroke=BASE_INK, stroke_width=1.5)
                )
        d.append(group)

    @cached_property
    def covered(self) -> str:
        """The outline of the hexes under cloud (:func:`weather_outline`), "" if none."""
        clouds = tuple(sorted({(h.col, h.row) for h in (self.at(str(c)) for c in self.model["clouds"])}))
        return weather_outline(self.board, clouds, int(self.model["cloud_radius"]))

    def _weather(self, d: dw.Drawing | dw.Group) -> None:
        storms = tuple(sorted({(h.col, h.row) for h in (self.at(str(s)) for s in self.model["storms"])}))
        if self.covered:
            d.append(dw.Path(self.covered, fill=CLOUD, fill_opacity=0.55, class_="clouds"))
        if storms:
            d.append(
                dw.Path(weather_outline(self.board, storms, 0), fill=STORM, fill_opacity=0.6, class_="storms")
            )

    def _storm_ids(self, d: dw.Drawing | dw.Group, grid: Sequence[tuple[str, Spot]]) -> None:
        """Each grid id a storm hex reaches printed again over it, with a halo: the board prints
        them bare (no weather is in the board, and a halo on every id is half the text to
        paint), and grey on a storm's dark grey they could not be read."""
        storms = {self.at(str(i)) for i in self.model["storms"]}
        boxes = []  # each storm hex's middle: the part of it its top and bottom edges span
        for h in sorted(h for h in storms if self.board.inside(h)):
            x, y = self.board.centre(h)
            boxes.append((x - self.board.size / 2, y - self.board.rise, self.board.size, 2 * self.board.rise))
        group = dw.Group(class_="storm-id")
        for hex_id, (x, baseline, anchor, box) in grid:
            if any(cv.overlap(box, storm) > 0 for storm in boxes):
                cv.text(group, hex_id, GRID_SIZE, x, baseline, fill=GRID_INK, anchor=anchor)
        if group.children:
            d.append(group)

    def _paths(self, d: dw.Drawing | dw.Group) -> None:
        width = max(1.2, min(2.5, self.board.size / 5))
        for path in self.model["searches"]:
            points = [self.board.centre(self.at(str(h))) for h in path]
            d.append(polyline(points, SEARCH, width, dashed=True, cls="search"))
        for path in self.model["strikes"]:
            points = [self.board.centre(self.at(str(h))) for h in path]
            group = dw.Group(class_="strike")
            group.append(polyline(points, STRIKE, width * 1.3, dashed=False, cls="strike-line"))
            end, before = points[-1], next((p for p in reversed(points) if p != points[-1]), None)
            if before is not None:
                angle = math.atan2(end[1] - before[1], end[0] - before[0])
                group.append(dw.Path(cv.polygon(cv.arrowhead(*end, angle, width * 4)), fill=STRIKE))
            d.append(group)

    def _place_labels(
        self, labels: cv.Labels, printed: frozenset[tuple[str, str]], scale: Scale = THEATRE
    ) -> Placed:
        """Every label's place, most wanted first, where the printed board's labels are not
        (``printed``: the bases it names under their hex ids): the named hexes' blocks (their
        id, then what is there), the other named hexes' ids, each of ``scale``'s sizes and only
        those of hexes it shows. A block with no free place near its hex goes to the numbered
        key. An own base the board prints with its id needs no line of its own, nor does the id
        of a hex the board prints."""
        placed = Placed()
        pad = scale.pad
        near = self.marker_size() + 2 * pad
        far = near * 2.6
        blocks: dict[str, list[Marker]] = {}
        for marker in sorted((*self.own, *self.contacts), key=lambda m: m.kind == "contact"):
            blocks.setdefault(marker.hex, []).append(marker)
        ids = {hex_id for hex_id, _ in printed}
        shown = [m for ms in blocks.values() for m in ms if scale.shows(self.board.centre(self.at(m.hex)))]
        for hex_id in self.in_order(shown):
            here = blocks[hex_id]
            x, y = self.board.centre(self.at(hex_id))
            half = self.marker_size() + self.spacing(len(here)) * (len(here) - 1) / 2
            told = [m for m in here if m.kind != "base" or (hex_id, m.label) not in printed]
            if not told:
                continue
            lines = [*([] if hex_id in ids else [hex_id]), *(m.label for m in told)]
            spot = labels.free(x, y, lines, scale.label, scale.gaps(half, near, far))
            if spot is None:
                number = str(len(placed.key) + 1)
                gaps = [half + pad, half + near, half + far]
                spot = labels.free(x, y, [number], scale.label, gaps, edge=scale.window is not None)
                placed.key.append((number, hex_id, [m.label for m in here], here[0].colour))
                if spot is not None:
                    placed.add("key-number", hex_id, [number], [cv.INK], spot, (x, y), far, size=scale.label)
                continue
            inks = [*([] if hex_id in ids else [ID_INK]), *(m.colour for m in told)]
            cls = "contact-label" if all(m.kind == "contact" for m in told) else "unit-label"
            opacity = max(m.opacity for m in told)
            leader = scale.leader(half, near)
            placed.add(cls, hex_id, lines, inks, spot, (x, y), leader, opacity, size=scale.label)
        named = sorted(
            {str(i) for i in self.model.get("named", ())} - blocks.keys() - ids,
            key=lambda k: (self.at(k).col, self.at(k).row, k),
        )
        self._place_named(labels, placed, named, scale)
        return placed

    def _place_named(self, labels: cv.Labels, placed: Placed, named: Sequence[str], scale: Scale) -> None:
        pad = scale.pad
        near = self.marker_size() + 2 * pad
        far = near * 2.6
        for hex_id in named:
            h = self.at(hex_id)
            if not self.board.inside(h) or not scale.shows(self.board.centre(h)):
                continue
            x, y = self.board.centre(h)
            spot = labels.free(x, y, [hex_id], scale.hex_id, [3 * pad, near, far, far * 1.6])
            if spot is None:
                number = str(len(placed.key) + 1)
                placed.key.append((number, hex_id, [], ID_INK))
                gaps = [2 * pad, near, far]
                spot = labels.free(x, y, [number], scale.hex_id, gaps, edge=scale.window is not None)
                if spot is not None:
                    placed.add("key-number", hex_id, [number], [cv.INK], spot, (x, y), far, size=scale.hex_id)
                continue
            placed.add("hex-id", hex_id, [hex_id], [ID_INK], spot, (x, y), near, size=scale.hex_id)

    def _place_board(
        self, labels: cv.Labels, placed: Placed, grid: list[tuple[str, Spot]]
    ) -> frozenset[tuple[str, str]]:
        """The board's names and grid ids where they are free: each base's name under its hex
        id (a letter names a base by its hex: the id has its room before the hour's labels
        crowd it), or its name alone; the islands' names but those a base's name already
        says; then the grid (each id placed also in ``grid``). Returns the bases printed under
        their ids."""
        printed, names = set(), set()
        for base in self.model.get("board_bases", ()):
            hex_id, name = str(base["hex"]), str(base["name"])
            h = self.at(hex_id)
            if self.board.inside(h):
                x, y = self.board.centre(h)
                gap = [self.board.size * 0.6]
                spot = labels.free(x, y, [hex_id, name], PLACE_SIZE, gap)
                if spot is not None:
                    printed.add((hex_id, name))
                    names.add(name)
                    self._place_base(placed, hex_id, name, spot, (x, y))
                elif (spot := labels.free(x, y, [name], PLACE_SIZE, gap)) is not None:
                    names.add(name)
                    placed.add("place-name", hex_id, [name], [BASE_INK], spot, (x, y), 1e9, size=PLACE_SIZE)
        for island in self.model.get("islands", ()):
            h = self.at(str(island["hex"]))
            # An island that bears a base's name (Deboyne, Shortland) is named once, by its base.
            if self.board.inside(h) and str(island["name"]) not in names:
                x, y = self.board.centre(h)
                spot = labels.free(x, y, [str(island["name"])], PLACE_SIZE, [0.0, self.board.size])
                if spot is not None:
                    placed.add(
                        "island-name",
                        str(island["hex"]),
                        [str(island["name"])],
                        [LAND_INK],
                        spot,
                        (x, y),
                        1e9,
                        size=PLACE_SIZE,
                    )
        for hex_id in self.model.get("grid_ids", ()):
            h = self.at(str(hex_id))
            if self.board.inside(h):
                x, y = self.board.centre(h)
                spot = labels.free(x, y + GRID_SIZE * 0.6, [str(hex_id)], GRID_SIZE, [0.0])
                if spot is not None:
                    grid.append((str(hex_id), spot))
                    placed.add(
                        "grid-id", str(hex_id), [str(hex_id)], [GRID_INK], spot, (x, y), 1e9, size=GRID_SIZE
                    )
        return frozenset(printed)

    @staticmethod
    def _place_base(
        placed: Placed,
        hex_id: str,
        name: str,
        spot: tuple[float, float, str, tuple[float, float, float, float]],
        at: tuple[float, float],
    ) -> None:
        """A base's hex id over its name in the block ``spot``, each line a label of its own (an
        id is a hex id wherever it stands)."""
        x, baseline, anchor, (left, top, width, height) = spot
        pitch = height / 2
        for index, (cls, words, ink) in enumerate(
            (("hex-id", hex_id, ID_INK), ("place-name", name, BASE_INK))
        ):
            line = (x, baseline + index * pitch, anchor, (left, top + index * pitch, width, pitch))
            placed.add(cls, hex_id, [words], [ink], line, at, 1e9, size=PLACE_SIZE)

    def _key(self, d: dw.Group, key: Sequence[tuple[str, str, list[str], str]], top: float) -> None:
        """The labels that found no room on the map, by number: hex id, then what is there."""
        group = dw.Group(class_="key")
        width = (SHEET - 2 * cv.PAD) / KEY_COLUMNS
        for index, (number, hex_id, words, colour) in enumerate(key):
            row, column = divmod(index, KEY_COLUMNS)
            x, y = cv.PAD + column * width, top + row * cv.LEGEND_ROW + cv.LEGEND_SIZE
            line = f"{number}  {hex_id}" + (f": {', '.join(words)}" if words else "")
            fits = int(width / (cv.LEGEND_SIZE * cv.CHAR_WIDTH)) - 1
            line = line if len(line) <= fits else line[: fits - 1] + "…"
            group.append(dw.Text(line, cv.LEGEND_SIZE, num(x), num(y), fill=colour, data_hex=hex_id))
        d.append(group)

    def slots(self) -> list[tuple[Marker, float, float]]:
        """Every symbol with its place: those of one hex side by side, own units first."""
        markers, placed = [*self.own, *self.contacts], []
        for hex_id in self.in_order(markers):
            here = [marker for marker in markers if marker.hex == hex_id]
            x, y = self.board.centre(self.at(hex_id))
            step = self.spacing(len(here))
            placed += [(marker, x + (i - (len(here) - 1) / 2) * step, y) for i, marker in enumerate(here)]
        return placed

    def marker_size(self) -> float:
        return max(4.0, min(self.board.size * 0.42, 9.0))

    def spacing(self, count: int) -> float:
        """Between the symbols of one hex, side by side."""
        return min(2.3 * self.marker_size(), 1.6 * self.board.size / count)

    def in_order(self, markers: Sequence[Marker]) -> list[str]:
        """The hexes of ``markers`` on the drawn part of the board, west to east, north to south."""
        hexes = {marker.hex for marker in markers if self.board.inside(self.at(marker.hex))}
        return sorted(hexes, key=lambda k: (self.at(k).col, self.at(k).row, k))

    def block_markers(self, labels: cv.Labels) -> None:
        """Labels go around every symbol of the map, not over one drawn later."""
        markers = [*self.own, *self.contacts]
        for hex_id in self.in_order(markers):
            count = sum(1 for marker in markers if marker.hex == hex_id)
            half = self.marker_size() * 1.2 + self.spacing(count) * (count - 1) / 2
            labels.block(*self.board.centre(self.at(hex_id)), half, self.marker_size() * 1.2)

    def _symbol(self, marker: Marker, x: float, y: float, m: float) -> dw.Group:
        attrs = {"data_hex": marker.hex} | ({"data_name": marker.name} if marker.name else {})
        if marker.opacity < 1:
            attrs["opacity"] = str(num(marker.opacity))
        group = dw.Group(class_=marker.kind.split("-")[0], **attrs)
        group.append(dw.Title(marker.label))
        SYMBOLS[marker.kind](group, x, y, m, marker.colour)
        if marker.note:
            group.append(
                dw.Text(
                    marker.note,
                    num(m * 1.1),
                    num(x),
                    num(y + m * 0.4),
                    fill=marker.colour,
                    font_weight="bold",
                    text_anchor="middle",
                )
            )
        return group

    def legend_entries(self) -> list[Entry]:
        kinds = {m.kind for m in (*self.own, *self.contacts)}
        sides = [str(f["side"]) for f in self.model["forces"]]
        colour = SIDES.get(sides[0], cv.INK) if sides else cv.INK
        entries = (
            [Entry(swatch(SIDES.get(s, cv.INK)), f"{s} forces") for s in sides] if len(sides) > 1 else []
        )
        entries += [Entry(legend_symbol(kind, colour), words) for kind, words in LEGEND if kind in kinds]
        if self.contacts:
            entries.append(Entry(legend_symbol("contact", self.contact_colour()), "Contact: condition, age"))
        if self.model["searches"]:
            entries.append(Entry(path_symbol(SEARCH, dashed=True), "Search path, this hour"))
        if self.model["strikes"]:
            entries.append(Entry(path_symbol(STRIKE, dashed=False), "Strike path, this hour"))
        if self.covered:
            entries.append(Entry(swatch(CLOUD), "Clouds"))
        if self.model["storms"]:
            entries.append(Entry(swatch(STORM), "Storm"))
        return entries


def board_key(model: Mapping[str, Any]) -> tuple[Any, ...]:
    """Everything of ``model`` the printed board is drawn from, as a hashable value."""
    islands = tuple((str(i["name"]), str(i["hex"])) for i in model.get("islands", ()))
    hexsides = tuple((str(a), str(b), str(kind)) for a, b, kind in model.get("hexsides", ()))
    bases = tuple((str(b["name"]), str(b["hex"])) for b in model.get("board_bases", ()))
    sections = tuple((str(s["name"]), tuple(int(v) for v in s["bounds"])) for s in model.get("sections", ()))
    land = tuple(str(i) for i in model.get("land", ()))
    partial = tuple(str(i) for i in model.get("partial", ()))
    grid = tuple(str(i) for i in model.get("grid_ids", ()))
    # Written as one string, not a tuple a hex: some 3,400 tuples a map, each a container the
    # garbage collector counts and walks, made a Coral Sea hour slower outside its maps. A view
    # gives it as it is (``board_hexes``, the same string every hour).
    where = str(model.get("board_hexes", ""))
    if not where:
        ids = {*land, *partial, *grid, *(h for _, h in islands), *(h for _, h in bases)}
        ids |= {h for a, b, _ in hexsides for h in (a, b)}
        hexes = model["hexes"]
        where = ";".join(f"{i}:{int(hexes[i][0])},{int(hexes[i][1])}" for i in sorted(ids))
    bounds = tuple(int(v) for v in model["bounds"])
    return bounds, land, partial, islands, hexsides, bases, sections, grid, where


@lru_cache(maxsize=4)
def printed_board(key: tuple[Any, ...]) -> Printed:
    """The board of ``key`` (:func:`board_key`) drawn: a pure function of it, kept, since every
    hour of a game has the same board. Drawn from the key alone, so nothing of the hour's
    map (units, contacts, its time) reaches it."""
    bounds, land, partial, islands, hexsides, bases, sections, grid, where = key
    model = {
        "side": "referee",
        "time": "",
        "hexes": {i: [int(c), int(r)] for i, c, r in _places(where)},
        "bounds": list(bounds),
        "forces": [],
        "contacts": [],
        "clouds": [],
        "cloud_radius": 0,
        "storms": [],
        "searches": [],
        "strikes": [],
        "land": list(land),
        "partial": list(partial),
        "islands": [{"name": n, "hex": h} for n, h in islands],
        "hexsides": [list(side) for side in hexsides],
        "board_bases": [{"name": n, "hex": h} for n, h in bases],
        "sections": [{"name": n, "bounds": list(b)} for n, b in sections],
        "grid_ids": list(grid),
    }
    return Map(model).draw_board()


@lru_cache(maxsize=4)
def board_places(where: str) -> Mapping[str, Hex]:
    """A model's ``board_hexes`` read: each printed hex by its id (kept: the same every hour)."""
    return MappingProxyType({i: Hex(int(c), int(r)) for i, c, r in _places(where)})


def _places(where: str) -> list[tuple[str, str, str]]:
    """:func:`board_key`'s ``where`` read back: (id, col, row) for each hex."""
    places = []
    for item in where.split(";") if where else ():
        hex_name, _, col_row = item.rpartition(":")
        col, _, row = col_row.partition(",")
        places.append((hex_name, col, row))
    return places


def draw(model: Mapping[str, Any]) -> str:
    """The SVG of one ``r["map"]`` (module docstring)."""
    return Map(model).draw()


def inset_frame(model: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """The inset's window on the sheet of ``model`` (:meth:`Map.inset_frame`)."""
    return Map(model).inset_frame()


def _snap(corner: float, low: float, high: float) -> float:
    """``corner`` on a whole :data:`INSET_STEP`, kept between ``low`` and ``high`` (the board's
    edges, each rounded outward to a step: the window may show a step of the sheet's margin)."""
    step = INSET_STEP
    snapped = step * round(corner / step)
    return min(max(snapped, step * math.floor(low / step)), step * math.ceil(high / step))


_ROOT = re.compile(r"<svg\b[^>]*>")
_SIZE = re.compile(r'\s(width|height|viewBox)="[^"]*"')
_INSET = re.compile(r'\sdata-inset="([^"]*)"')


def inset_view(frame: Window) -> str:
    """The SVG that shows the inset's labels in place of the theatre's when the map is seen
    through its view (``<map>.svg#inset``: its window): a ``:target`` rule, which no painter
    applies to the whole map (it is seen through no view)."""
    hide, show = (f"#{INSET_VIEW}:target ~ .{cls}" for cls in (THEATRE_LABELS, INSET_LABELS))
    box = " ".join(str(num(v)) for v in frame)
    style = f"<style>{hide}{{display:none}}{show}{{display:inline}}</style>"
    return f'{style}\n<view id="{INSET_VIEW}" viewBox="{box}" />'


def inset(model: Mapping[str, Any], svg: str) -> str | None:
    """The map ``svg`` of ``model`` seen through its ``data-inset`` window (:meth:`Map.inset_frame`,
    written there by :meth:`Map.draw`): the same drawing, its root's size and viewBox changed and
    the inset's labels shown in place of the theatre's (as the map's ``#inset`` view shows it
    in a browser), so an archive keeping the map keeps the inset with it; None when there is
    no inset."""
    root = _ROOT.search(svg)
    window = _INSET.search(root.group(0)) if root is not None else None
    if root is None or window is None:
        return None
    sized = _SIZE.sub("", root.group(0)).removesuffix(">")
    wide, high = (float(v) for v in window.group(1).split()[2:])
    height = round(INSET_WIDTH * high / wide)  # INSET_HEIGHT, or taller by the key's steps
    head = f'{sized} width="{INSET_WIDTH}" height="{height}" viewBox="{window.group(1)}">'
    body = svg[root.end() :]
    body = body.replace(f'<g class="{THEATRE_LABELS}">', f'<g class="{THEATRE_LABELS}" display="none">', 1)
    body = body.replace(f'<g class="{INSET_LABELS}" display="none">', f'<g class="{INSET_LABELS}">', 1)
    return svg[: root.start()] + head + body
