# SPDX-License-Identifier: GPL-3.0-or-later
"""How the Flat Top demo's planes fly (:mod:`mailbot.games.flattop.demo`): the factors printed on
the side's own plane and carrier counters, paths around storms and into the wind (standard 6.6,
6.10), and whether a flight can reach its goal and still be home in range before nightfall."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mailbot.games.flattop.demo_reading import OwnAF, OwnTF, Report
from mailbot.games.flattop.map.hexes import STANDARD_LAYOUT, Hex, distance, hex_id, neighbours, step

LAST_LIGHT = 19  # the first night hour (tables/time.toml): strikes are home before it


@dataclass(frozen=True)
class PlaneData:
    movement: int  # MF
    range: int  # turns aloft
    load: str = ""  # what READY arms it with ("" = a fighter, unarmed)


#: own plane counters (tables/planes.toml, design defaults): MF, range, the load READY gives
PLANES: Mapping[str, PlaneData] = {
    "Dauntless": PlaneData(9, 6, "GP"),
    "Devastator": PlaneData(6, 5, "TORPEDO"),
    "Wildcat": PlaneData(8, 6),
    "Val": PlaneData(9, 7, "AP"),
    "Kate": PlaneData(7, 7, "TORPEDO"),
    "Zero": PlaneData(10, 8),
}


@dataclass(frozen=True)
class CarrierData:
    launch: int  # normal LF
    launch_min: int  # minimum LF
    readying: int  # Readying Factor


#: own carrier counters (tables/ships.toml [classes], reference A.14)
CARRIERS: Mapping[str, CarrierData] = {
    "Yorktown": CarrierData(11, 3, 9),
    "Lexington": CarrierData(12, 3, 8),
    "Shokaku": CarrierData(10, 3, 8),
    "Zuikaku": CarrierData(10, 3, 8),
    "Shoho": CarrierData(4, 2, 4),
}


def route(start: Hex, goal: Hex, storms: frozenset[Hex], limit: int) -> list[Hex]:
    """The first ``limit`` hexes of a shortest on-board path around storms (breadth first)."""
    before: dict[Hex, Hex | None] = {start: None}
    queue = deque([start])
    while queue and goal not in before:
        here = queue.popleft()
        for h in neighbours(here):
            if h not in before and STANDARD_LAYOUT.on_board(h) and h not in storms:
                before[h] = here
                queue.append(h)
    end = goal if goal in before else min(before, key=lambda h: _distance_key(h, goal))
    path: list[Hex] = []
    step: Hex | None = end
    while step is not None and step != start:  # the start's own entry is None
        path.append(step)
        step = before[step]
    return list(reversed(path))[: max(limit, 0)]


def _distance_key(h: Hex, goal: Hex) -> tuple[int, int, int]:
    return distance(h, goal), h.col, h.row


def sweep(start: Hex, goal: Hex, storms: frozenset[Hex], mp: int) -> list[Hex]:
    """``mp`` hexes: toward ``goal`` around storms, then round the hexes next to it, since what was
    seen there last turn may have moved a hex (a TF turning into the wind, standard 6.10)."""
    path = route(start, goal, storms, mp)
    if (path[-1] if path else start) != goal:
        return path
    for h in (*neighbours(goal), *neighbours(goal)[:1]):
        if len(path) >= mp or h in storms or not STANDARD_LAYOUT.on_board(h):
            break
        path.append(h)
    return path


def path_text(path: Sequence[Hex]) -> str:
    return " ".join(hex_id(h) for h in path)


def into_the_wind(report: Report, tf: OwnTF) -> Hex | None:
    """The hex one step into the wind from ``tf`` (standard 6.10), None when no plane may fly there."""
    sectors = STANDARD_LAYOUT.sectors_of(tf.hex)
    wind = report.winds.get(sectors[0].numeral) if sectors else None
    if wind is None:
        return None
    there = step(tf.hex, wind.opposite)
    return there if STANDARD_LAYOUT.on_board(there) and there not in report.storms else None


def launch_path(report: Report, tf: OwnTF, goal: Hex, mp: int) -> list[Hex]:
    """A take-off path of ``mp`` hexes toward ``goal`` that is legal whether or not the TF turns into
    the wind first: it starts in the hex into the wind (a step from the TF, staying put from there)."""
    wind = into_the_wind(report, tf)
    if wind is None:
        return []
    return [wind, *sweep(wind, goal, report.storms, mp - 1)]


def turns_to_fly(d: int, mf: int) -> int:
    return max(math.ceil(d / mf), 0) if mf > 0 else 99


def may_go_on(af: OwnAF, goal: Hex, home: Hex) -> bool:
    """Whether ``af`` may fly on toward ``goal`` this turn and still be home with a turn to spare."""
    after = distance(goal, home)
    if distance(af.hex, goal) > af.mf:  # somewhere on the way: no farther than the farther end
        after = max(after, distance(af.hex, home))
    return af.range_left - 1 >= turns_to_fly(after, af.mf) + 1


def strike_reach(start: Hex, goal: Hex, plane: PlaneData, hour: int) -> bool:
    """A normal launch (half MF, less the step into the wind) reaches ``goal`` and is home in range
    with a turn to spare, before nightfall."""
    first, d = math.ceil(plane.movement / 2) - 1, distance(start, goal)
    out = 1 if d <= first else 1 + turns_to_fly(d - first, plane.movement)
    back = turns_to_fly(d, plane.movement)
    return out + back + 1 <= plane.range and hour + out + back <= LAST_LIGHT
