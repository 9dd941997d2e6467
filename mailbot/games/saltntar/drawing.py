# SPDX-License-Identifier: GPL-3.0-or-later
"""The Salt'n'Tar course: every ship with her heading and way, the finish line and the wind.

Drawn from the report view's ``r["map"]`` alone (``mailbot/games/saltntar/view.py``,
:func:`map_model`): plane coordinates with x east and y north, neighbouring
cells one unit apart; headings and the wind in compass degrees (0 = North,
clockwise); the wind is named for where it blows from. Salt'n'Tar has no
hidden information, so every seat's map shows every ship; the seat's own are
outlined in black.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import drawsvg as dw

from mailbot.render.maps import canvas as cv
from mailbot.render.maps.canvas import Entry, num

MAP_TOP = 50
MAX_MAP_HEIGHT = 600
MAX_CELL = 36  # units a cell: a short course need not fill the page
WATER, GRID, FINISH, SUNK = "#e6f0f8", "#b9cad8", "#f5c518", "#6b7280"
SEATS = ("#b91c1c", "#1d4ed8", "#047857", "#7c3aed", "#b45309", "#0e7490")
#: a hull in cell units, bow along +forward: bow, starboard bow, starboard quarter, ...
HULL = ((0.45, 0.0), (0.1, 0.17), (-0.35, 0.14), (-0.35, -0.14), (0.1, -0.17))
COMPASS = 24
#: what a letter calls the map (``mailbot.render.maps``): the course as the turn leaves it
CAPTION = "The map of this turn"


@dataclass(frozen=True)
class Sea:
    """Where the plane falls on the sheet: ``scale`` units a cell, north up."""

    west: float
    north: float
    scale: float
    left: float
    top: float
    width: float
    height: float

    def at(self, point: Sequence[float]) -> tuple[float, float]:
        return self.left + (point[0] - self.west) * self.scale, self.top + (
            self.north - point[1]
        ) * self.scale


def sea_for(bounds: Sequence[float]) -> Sea:
    # Half a cell more on every side: the bounds hold cell centres, the cells reach beyond.
    west, south, east, north = (
        float(v) + edge for v, edge in zip(bounds, (-0.6, -0.6, 0.6, 0.6), strict=True)
    )
    wide, high = max(east - west, 1.0), max(north - south, 1.0)
    scale = min((cv.WIDTH - 2 * cv.PAD) / wide, MAX_MAP_HEIGHT / high, MAX_CELL)
    left = (cv.WIDTH - wide * scale) / 2
    return Sea(west, north, scale, left, MAP_TOP, wide * scale, high * scale)


def along(degrees: float) -> tuple[float, float]:
    """A compass bearing as a unit vector on the sheet (y grows down)."""
    angle = math.radians(degrees)
    return math.sin(angle), -math.cos(angle)


def cell_outline(shape: str, x: float, y: float, scale: float) -> list[tuple[float, float]]:
    if shape == "square":
        half = scale / 2
        return [(x - half, y - half), (x + half, y - half), (x + half, y + half), (x - half, y + half)]
    return cv.hexagon(x, y, scale / math.sqrt(3), pointy=shape == "hex-pointy")


class Course:
    """One ``r["map"]`` read and drawn."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.model = model
        self.sea = sea_for(model["bounds"])
        self.seats = [str(s) for s in model["seats"]]

    def colour(self, ship: Mapping[str, Any]) -> str:
        if ship["sunk"]:
            return SUNK
        seat = str(ship["seat"])
        return SEATS[self.seats.index(seat) % len(SEATS)] if seat in self.seats else cv.INK

    def draw(self) -> str:
        entries = self.legend_entries()
        top = MAP_TOP + self.sea.height + cv.PAD
        d = cv.sheet(top + cv.legend_height(entries), f"Turn {self.model['turn']}: {self.model['title']}")
        d.append(dw.Text(self.wind_words(), cv.LABEL_SIZE + 1, cv.PAD, 42, fill=cv.INK))
        self._water(d)
        labels = cv.Labels(cv.PAD / 2, MAP_TOP, cv.WIDTH - cv.PAD / 2, top)
        labels.taken.append((cv.WIDTH - cv.PAD - 2 * COMPASS - 8, MAP_TOP, 2 * COMPASS + 8, 2 * COMPASS + 20))
        for ship in self.model["ships"]:
            d.append(self._course(ship))
            half = self.hull_size() * 0.45
            labels.block(*self.sea.at(ship["at"]), half, half)
        for ship in self.model["ships"]:
            self._ship(d, ship, labels)
        self._compass(d)
        cv.legend(d, entries, top)
        return str(d.as_svg())

    def wind_words(self) -> str:
        wind = self.model["wind"]
        return f"Wind from the {wind['name']}, Wind Speed {wind['speed']} ({wind['strength']})"

    def _water(self, d: dw.Drawing) -> None:
        s, shape = self.sea, str(self.model["shape"])
        d.append(dw.Rectangle(num(s.left), num(s.top), num(s.width), num(s.height), fill=WATER))
        cells = "".join(cv.polygon(cell_outline(shape, *s.at(c), s.scale)) for c in self.model["cells"])
        if cells:
            d.append(dw.Path(cells, fill="none", stroke=GRID, stroke_width=0.6, class_="grid"))
        finish = "".join(cv.polygon(cell_outline(shape, *s.at(c), s.scale)) for c in self.model["finish"])
        if finish:
            d.append(dw.Path(finish, fill=FINISH, fill_opacity=0.7, stroke="#a16207", class_="finish"))

    def _course(self, ship: Mapping[str, Any]) -> dw.Group:
        """Her way this turn at the overall Wind Speed: an arrow ``reach`` cells long."""
        group = dw.Group(class_="course", data_ship=str(ship["name"]))
        reach = float(ship["reach"]) * self.sea.scale
        if ship["sunk"] or reach <= 0:
            return group
        x, y = self.sea.at(ship["at"])
        dx, dy = along(float(ship["course"]))
        end = (x + dx * reach, y + dy * reach)
        colour = self.colour(ship)
        line = f"M{num(x)},{num(y)}L{num(end[0])},{num(end[1])}"
        group.append(dw.Path(line, stroke=colour, stroke_width=2, stroke_dasharray="6,3", fill="none"))
        head = cv.arrowhead(*end, math.atan2(dy, dx), 8)
        group.append(dw.Path(cv.polygon(head), fill=colour))
        return group

    def hull_size(self) -> float:
        return max(self.sea.scale, 22.0)  # a hull stays visible when the course is long

    def _ship(self, d: dw.Drawing, ship: Mapping[str, Any], labels: cv.Labels) -> None:
        x, y = self.sea.at(ship["at"])
        size = self.hull_size()
        fx, fy = along(float(ship["heading"]))
        hull = [(x + (f * fx - s * fy) * size, y + (f * fy + s * fx) * size) for f, s in HULL]
        group = dw.Group(class_="ship", data_name=str(ship["name"]), data_seat=str(ship["seat"]))
        group.append(dw.Title(f"{ship['name']} ({ship['seat']}): {ship['status']}"))
        outline = {"stroke": cv.INK, "stroke_width": 1.6} if ship["mine"] else {"stroke": "#ffffff"}
        group.append(dw.Path(cv.polygon(hull), fill=self.colour(ship), **outline))
        if ship["sunk"]:
            r = size * 0.3
            cross = f"M{num(x - r)},{num(y - r)}L{num(x + r)},{num(y + r)}"
            cross += f"M{num(x - r)},{num(y + r)}L{num(x + r)},{num(y - r)}"
            group.append(dw.Path(cross, stroke=cv.INK, stroke_width=2))
        d.append(group)
        words = f"{ship['name']} {ship['heading_name']} {ship['speed']}''"
        if ship["sunk"]:
            words = f"{ship['name']} (sunk)"
        lx, ly, anchor = labels.place(x, y, [words], cv.LABEL_SIZE, size * 0.5)
        cv.text(
            d,
            words,
            cv.LABEL_SIZE,
            lx,
            ly,
            fill=self.colour(ship),
            anchor=anchor,
            weight="bold" if ship["mine"] else "normal",
        )

    def _compass(self, d: dw.Drawing) -> None:
        """North up, and an arrow blowing downwind from where the wind comes."""
        cx, cy = cv.WIDTH - cv.PAD - COMPASS - 4, MAP_TOP + COMPASS + 16
        group = dw.Group(class_="wind")
        group.append(
            dw.Circle(cx, cy, COMPASS, fill="#ffffff", fill_opacity=0.85, stroke=cv.INK, stroke_width=1)
        )
        group.append(dw.Text("N", 10, cx, cy - COMPASS - 3, fill=cv.INK, text_anchor="middle"))
        if int(self.model["wind"]["speed"]) > 0:
            ux, uy = along(float(self.model["wind"]["from"]))
            tail, tip = (
                (cx + ux * COMPASS * 0.8, cy + uy * COMPASS * 0.8),
                (cx - ux * COMPASS * 0.8, cy - uy * COMPASS * 0.8),
            )
            line = f"M{num(tail[0])},{num(tail[1])}L{num(tip[0])},{num(tip[1])}"
            group.append(dw.Path(line, stroke="#0369a1", stroke_width=3, fill="none"))
            group.append(dw.Path(cv.polygon(cv.arrowhead(*tip, math.atan2(-uy, -ux), 9)), fill="#0369a1"))
        d.append(group)

    def legend_entries(self) -> list[Entry]:
        entries = []
        for seat in self.seats:
            ships = [str(s["name"]) for s in self.model["ships"] if s["seat"] == seat]
            mine = " (you)" if seat == self.model["seat"] else ""
            entries.append(
                Entry(_hull(SEATS[self.seats.index(seat) % len(SEATS)]), f"{seat}{mine}: {', '.join(ships)}")
            )
        entries.append(Entry(_arrow("#374151", dashed=True), "Way this turn, at WS"))
        if self.model["finish"]:
            entries.append(Entry(_finish, "Finish line"))
        entries.append(Entry(_arrow("#0369a1", dashed=False), "Wind, blowing downwind"))
        return entries


def _hull(colour: str) -> cv.Symbol:
    def symbol(g: dw.Group, x: float, y: float) -> None:
        points = [(x + f * 20, y - s * 20) for f, s in HULL]
        g.append(dw.Path(cv.polygon(points), fill=colour))

    return symbol


def _arrow(colour: str, *, dashed: bool) -> cv.Symbol:
    def symbol(g: dw.Group, x: float, y: float) -> None:
        dash = {"stroke_dasharray": "4,2"} if dashed else {}
        g.append(
            dw.Path(f"M{num(x - 9)},{num(y)}L{num(x + 6)},{num(y)}", stroke=colour, stroke_width=2, **dash)
        )
        g.append(dw.Path(cv.polygon(cv.arrowhead(x + 10, y, 0.0, 7)), fill=colour))

    return symbol


def _finish(g: dw.Group, x: float, y: float) -> None:
    g.append(dw.Path(cv.polygon(cell_outline("square", x, y, 12)), fill=FINISH, stroke="#a16207"))


def draw(model: Mapping[str, Any]) -> str:
    """The SVG of one ``r["map"]`` (module docstring)."""
    return Course(model).draw()
