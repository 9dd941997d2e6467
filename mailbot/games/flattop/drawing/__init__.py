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
game has one frame). The printed board comes first (``printed.py``, drawn once per game):
land, partial land, hexsides, the sections' lines and numerals, every printed base; then
weather, paths and symbols. Labels
are placed where nothing else is (:meth:`cv.Labels.free`), most wanted first: each hex
with symbols gets a block of its hex id and what is there, each other ``named`` hex its
id, a leader line when the label had to stand off; what finds no room gets a number on
the map and a line in the key under it. Board names and the regular grid of ids
(``grid_ids``) are drawn only where they are free. A compass and a five-hex scale sit
right of the title.

Where the action is compact, the zoomed inset (``inset.py``) is this drawing through a window
at 1.5x to 2x. Its labels are placed again for that window (:meth:`Map._inset_labels`): as
many pixels high on its picture as the theatre's on its own, each beside its symbol, with a
key of its own under the window for a label that finds no room even there. They are a second
group of the map's SVG, hidden on the theatre map; the inset shows them in place of the
theatre's (its PNG, and a browser through the map's ``#inset`` view).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import drawsvg as dw

from mailbot.games.flattop.drawing.board import (
    FADE,
    GRID_SIZE,
    KEY_COLUMNS,
    MAP_TOP,
    SHEET,
    board_for,
    weather_outline,
)
from mailbot.games.flattop.drawing.inset import (
    INSET_HEIGHT,
    INSET_STEP,
    INSET_WIDTH,
    THEATRE_LABELS,
    inset,
    inset_labels,
    inset_view,
    window,
)
from mailbot.games.flattop.drawing.labels import THEATRE, Placed, Printed, Scale, Window
from mailbot.games.flattop.drawing.printed import board_key, board_places, printed_board
from mailbot.games.flattop.drawing.symbols import (
    CLOUD,
    GRID_INK,
    ID_INK,
    LEGEND,
    SEARCH,
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

#: what the map renderer (``mailbot.render.maps``) and the tests use of the drawer
__all__ = [
    "CAPTION",
    "INSET_CAPTION",
    "INSET_HEIGHT",
    "INSET_STEP",
    "INSET_WIDTH",
    "PNG_COLOURS",
    "PNG_WIDTH",
    "Map",
    "Marker",
    "draw",
    "inset",
    "inset_frame",
]

#: the PNG of a map is the whole sheet a pixel a unit, in a palette (a fifth of the bytes)
PNG_WIDTH = SHEET
PNG_COLOURS = 64
#: what a letter calls the map and its inset: a step of Flat Top is an hour
CAPTION = "The map of this hour"
INSET_CAPTION = "Where your units and contacts are, zoomed"


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
        self._storm_ids(d, printed)
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
        return window(board, points)

    def _inset_labels(self, printed: Printed, frame: Window) -> tuple[dw.Group, Window]:
        """The inset's labels and the window it shows (:func:`inset_labels`), placed as the
        theatre's are, for the inset's scale."""

        def place(labels: cv.Labels, scale: Scale) -> Placed:
            self.block_markers(labels)
            return self._place_labels(labels, printed.bases, scale)

        return inset_labels(printed, frame, place)

    def title(self) -> str:
        side = "Referee" if self.side == "referee" else self.side
        return f"{side} map, {self.model['time']}"

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

    def _storm_ids(self, d: dw.Drawing | dw.Group, printed: Printed) -> None:
        """Each grid id a storm hex reaches printed again over it, with a halo: the board prints
        them bare (no weather is in the board, and a halo on every id is half the text to
        paint), and grey on a storm's dark grey they could not be read."""
        storms = {self.at(str(i)) for i in self.model["storms"]}
        boxes = []  # each storm hex's middle: the part of it its top and bottom edges span
        for h in sorted(h for h in storms if self.board.inside(h)):
            x, y = self.board.centre(h)
            boxes.append((x - self.board.size / 2, y - self.board.rise, self.board.size, 2 * self.board.rise))
        group = dw.Group(class_="storm-id")
        for hex_id, (x, baseline, anchor, _) in printed.grid_under(boxes):
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


def draw(model: Mapping[str, Any]) -> str:
    """The SVG of one ``r["map"]`` (module docstring)."""
    return Map(model).draw()


def inset_frame(model: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """The inset's window on the sheet of ``model`` (:meth:`Map.inset_frame`)."""
    return Map(model).inset_frame()
