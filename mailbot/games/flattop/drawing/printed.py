# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top map's printed board: sea, land, hexsides, sections, the printed bases, their
names and the grid of ids, drawn once per game (:func:`printed_board`, kept by its
:func:`board_key`) and laid under and over every hour's map (``drawing.Map``).

Drawn from the board's own part of the model alone, so nothing of an hour (units, contacts,
its time) can reach the layers an archive keeps once for the whole game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import drawsvg as dw

from mailbot.games.flattop.drawing.board import GRID_SIZE, MAP_TOP, PLACE_SIZE, SHEET, board_for, grid_outline
from mailbot.games.flattop.drawing.labels import Placed, Printed, Spot, fragment
from mailbot.games.flattop.drawing.marks import compass_and_scale, hexsides
from mailbot.games.flattop.drawing.symbols import (
    BASE_INK,
    COAST,
    GRID,
    GRID_INK,
    ID_INK,
    LAND,
    LAND_INK,
    SEA,
    SECTION_INK,
)
from mailbot.games.flattop.map.hexes import Hex
from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import num


class BoardPrinter:
    """The printed board of a model that holds nothing else (:func:`printed_board` makes it)."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.model = model
        self.board = board_for(model["bounds"])
        self.hexes: dict[str, Hex] = {}

    def at(self, hex_id: str) -> Hex:
        found = self.hexes.get(hex_id)
        if found is None:
            if hex_id not in self.model["hexes"]:
                raise KeyError(f"hex {hex_id!r} has no coordinates in map.hexes")
            found = self.hexes[hex_id] = Hex.from_list(self.model["hexes"][hex_id])
        return found

    def draw(self) -> Printed:
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
    return BoardPrinter(model).draw()


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
