# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top side's map of the hour, drawn from the report view's ``r["map"]`` alone.

The schema (``mailbot/games/flattop/view.py`` builds it from the side's own
units, its knowledge and the public board)::

    {"side": "Allied" | "Japanese" | "referee", "time": "<hour label>",
     "hexes": {"<hex id>": [col, row], ...},      # every hex id used below
     "bounds": [min_col, min_row, max_col, max_row],
     "forces": [{"side": ..., "task_forces": [{"name", "hex", "ships", "carriers"}],
                 "bases": [{"name", "hex"}], "air": [{"name", "hex", "altitude", "mission"}]}],
     "contacts": [{"hex", "kind", "condition", "age", "label"}],
     "clouds": [id, ...], "cloud_radius": int, "storms": [id, ...],
     "searches": [[id, ...], ...], "strikes": [[id, ...], ...]}

Geometry (``games/flattop/map/hexes.py``): flat-topped hexes, odd columns half
a hex lower, columns grow east and rows south. Hex ids are labelled sparsely:
the hexes of ``hexes`` (where something is), no two closer than
:data:`ID_SPACING`, those with units and contacts first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import drawsvg as dw

from mailbot.games.flattop.map.hexes import Hex, distance, within
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import Entry, num
from mailbot.render.maps.flattop_symbols import (
    CLOUD,
    GRID,
    ID_INK,
    LEGEND,
    SEA,
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

ROOT3 = math.sqrt(3)
MAP_TOP = 34
MAX_MAP_HEIGHT = 620
MAX_HEX = 28  # circumradius: a few hexes around one TF need not fill the page
ID_SPACING = 3  # hexes between two hex-id labels
#: a contact's opacity by age in hours (0 = seen this hour); older ones fade
FADE = (1.0, 0.7, 0.5, 0.35)


@dataclass(frozen=True)
class Board:
    """Where the bounds' hexes fall on the sheet."""

    bounds: tuple[int, int, int, int]
    size: float  # hex circumradius
    left: float
    top: float

    @property
    def width(self) -> float:
        c0, _, c1, _ = self.bounds
        return self.size * (1.5 * (c1 - c0) + 2)

    @property
    def height(self) -> float:
        _, r0, _, r1 = self.bounds
        return self.size * ROOT3 * (r1 - r0 + 1.5)

    def centre(self, h: Hex) -> tuple[float, float]:
        c0, r0, _, _ = self.bounds
        x = self.left + self.size * (1 + 1.5 * (h.col - c0))
        y = self.top + self.size * ROOT3 * (h.row - r0 + 0.5 + 0.5 * (h.col & 1))
        return x, y

    def inside(self, h: Hex) -> bool:
        c0, r0, c1, r1 = self.bounds
        return c0 <= h.col <= c1 and r0 <= h.row <= r1

    def hexes(self) -> list[Hex]:
        c0, r0, c1, r1 = self.bounds
        return [Hex(c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)]

    def outline(self, hexes: Iterable[Hex]) -> str:
        return "".join(hex_outline(self, h) for h in hexes)


# The outlines are pure functions of immutable inputs, and the same board comes back every hour
# (bounds follow a side's units): kept, they cost a lookup instead of trigonometry and rounding
# per corner, which was most of drawing a map. Keyed by value, so nothing of one map reaches another.
@lru_cache(maxsize=32)
def grid_outline(board: Board) -> str:
    """Every hex of the board: the grid's one path (a few thousand hexes on a whole-sea map)."""
    return board.outline(board.hexes())


@lru_cache(maxsize=8192)
def hex_outline(board: Board, h: Hex) -> str:
    return cv.polygon(cv.hexagon(*board.centre(h), board.size))


def board_for(bounds: Sequence[int]) -> Board:
    c0, r0, c1, r1 = (int(v) for v in bounds)
    if c1 < c0 or r1 < r0:
        raise ValueError(f"bounds {list(bounds)} are empty")
    box = (c0, r0, c1, r1)
    units = Board(box, 1.0, 0.0, 0.0)
    size = min((cv.WIDTH - 2 * cv.PAD) / units.width, MAX_MAP_HEIGHT / units.height, MAX_HEX)
    left = (cv.WIDTH - units.width * size) / 2
    return Board(box, size, left, MAP_TOP)


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
        self.hexes = {str(k): Hex.from_list(v) for k, v in model["hexes"].items()}
        self.board = board_for(model["bounds"])
        self.side = str(model["side"])
        self.own = self._own_markers()
        self.contacts = self._contact_markers()

    def at(self, hex_id: str) -> Hex:
        if hex_id not in self.hexes:
            raise KeyError(f"hex {hex_id!r} has no coordinates in map.hexes")
        return self.hexes[hex_id]

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
        entries = self.legend_entries()
        top = MAP_TOP + self.board.height + cv.PAD
        d = cv.sheet(top + cv.legend_height(entries), self.title())
        self._sea(d)
        self._weather(d)
        self._paths(d)
        labels = cv.Labels(cv.PAD / 2, MAP_TOP, cv.WIDTH - cv.PAD / 2, top)
        self._hex_ids(d)
        self.block_markers(labels)
        self._markers(d, labels)
        cv.legend(d, entries, top)
        return str(d.as_svg())

    def title(self) -> str:
        side = "Referee" if self.side == "referee" else self.side
        return f"{side} map, {self.model['time']}"

    def _sea(self, d: dw.Drawing) -> None:
        b = self.board
        d.append(dw.Rectangle(num(b.left), num(b.top), num(b.width), num(b.height), fill=SEA))
        d.append(dw.Path(grid_outline(b), fill="none", stroke=GRID, stroke_width=0.6, class_="grid"))

    @cached_property
    def covered(self) -> list[Hex]:
        radius = int(self.model["cloud_radius"])
        hexes = {h for cloud in self.model["clouds"] for h in within(self.at(str(cloud)), radius)}
        return sorted(h for h in hexes if self.board.inside(h))

    def _weather(self, d: dw.Drawing) -> None:
        clouds = self.covered
        storms = sorted(h for h in {self.at(str(s)) for s in self.model["storms"]} if self.board.inside(h))
        if clouds:
            d.append(dw.Path(self.board.outline(clouds), fill=CLOUD, fill_opacity=0.8, class_="clouds"))
        if storms:
            d.append(dw.Path(self.board.outline(storms), fill=STORM, fill_opacity=0.75, class_="storms"))

    def _paths(self, d: dw.Drawing) -> None:
        width = max(1.2, min(2.5, self.board.size / 8))
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

    def _hex_ids(self, d: dw.Drawing) -> None:
        size = min(self.board.size * 0.3, 8.0)
        if size < 5.5:
            return  # too small to read: the whole board on one sheet
        busy = {m.hex for m in (*self.own, *self.contacts)}
        order = sorted(self.hexes, key=lambda k: (k not in busy, self.hexes[k].col, self.hexes[k].row, k))
        chosen: list[Hex] = []
        group = dw.Group(class_="hex-ids")
        for hex_id in order:
            h = self.hexes[hex_id]
            if not self.board.inside(h) or any(distance(h, c) < ID_SPACING for c in chosen):
                continue
            chosen.append(h)
            x, y = self.board.centre(h)
            cv.text(group, hex_id, size, x, y - self.board.size * 0.55, fill=ID_INK, anchor="middle")
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

    def _markers(self, d: dw.Drawing, labels: cv.Labels) -> None:
        slots = self.slots()
        for marker, x, y in slots:
            d.append(self._symbol(marker, x, y, self.marker_size()))
        # One label block per hex for own units and one for contacts, beside their symbols.
        blocks: dict[tuple[str, bool], list[tuple[Marker, float, float]]] = {}
        for slot in slots:
            blocks.setdefault((slot[0].hex, slot[0].kind == "contact"), []).append(slot)
        for (_, contact), block in blocks.items():
            xs = [x for _, x, _ in block]
            x, y = (min(xs) + max(xs)) / 2, block[0][2]
            lines = [marker.label for marker, _, _ in block]
            gap = self.marker_size() + (max(xs) - min(xs)) / 2 + 2
            lx, ly, anchor = labels.place(x, y, lines, cv.LABEL_SIZE, gap)
            group = dw.Group(class_="contact-label" if contact else "unit-label")
            fade = max(marker.opacity for marker, _, _ in block)
            colour = block[0][0].colour
            cv.text(group, lines, cv.LABEL_SIZE, lx, ly, fill=colour, anchor=anchor, opacity=fade)
            d.append(group)

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
                    fill="#ffffff",
                    font_family=cv.FONT,
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
