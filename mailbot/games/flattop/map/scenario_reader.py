# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading scenario data: the problem-collecting reader and the order of battle.

:mod:`mailbot.games.flattop.map.scenario` reads the map and the calendar with the
same :class:`Reader`; this module reads bases, task forces, ships and their
air factors (reference A.5), building each ship from ``ships.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, TypeVar

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import STANDARD_LAYOUT, Hex, HexMap, Terrain
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Armament,
    Base,
    Handling,
    PlaneCategory,
    PlaneType,
    Ship,
    ShipType,
    Side,
    TaskForce,
)

E = TypeVar("E", bound=Enum)


@dataclass(frozen=True)
class ScenarioProblem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


_MAX_SHIPS = {Side.ALLIED: 15, Side.JAPANESE: 10}  # reference A.5.1 (standard 4.1)
_CARRIER_TF_NUMBERS = range(1, 10)  # plane-carrying ships only in TFs 1-9 (reference A.5.1)
_SHIP_FIELDS = ("gunnery", "aa", "torpedo", "movement", "damage", "ammo")
_CARRIER_FIELDS = ("capacity", "launch", "launch_min", "readying")
# Who may handle which planes (standard 8.9, reference A.5.3).
_HANDLES = {
    "CV": {PlaneCategory.CARRIER},
    "CVL": {PlaneCategory.CARRIER},
    "AV": {PlaneCategory.FLOAT},
    "CAV": {PlaneCategory.FLOAT},
    "BB": {PlaneCategory.FLOAT},
    Handling.LP: {PlaneCategory.LAND, PlaneCategory.CARRIER},
    Handling.SP: {PlaneCategory.SEA, PlaneCategory.FLOAT},
    Handling.BOTH: set(PlaneCategory),
}


class Reader:
    """Reads one scenario, collecting problems instead of raising."""

    def __init__(self, tables: Mapping[str, Any]) -> None:
        self.problems: list[ScenarioProblem] = []
        self.tables = tables
        self.map = HexMap(STANDARD_LAYOUT)
        self.planes: dict[str, PlaneType] = {}

    def fail(self, where: str, message: str) -> None:
        self.problems.append(ScenarioProblem(where, message))

    def table(self, value: Any, where: str) -> Mapping[str, Any]:
        if isinstance(value, Mapping):
            return value
        if value is not None:
            self.fail(where, "must be a table")
        return {}

    def tables_in(self, value: Any, where: str) -> list[tuple[str, Mapping[str, Any]]]:
        """An array of tables, each with its own ``where``."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(where, "must be an array of tables")
            return []
        return [(f"{where}[{i}]", self.table(item, f"{where}[{i}]")) for i, item in enumerate(value)]

    def text(self, m: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = m.get(key, default)
        if isinstance(value, str) and value.strip():
            return value.strip()
        self.fail(f"{where}.{key}", "is missing" if value is None else f"must be text, not {value!r}")
        return ""

    def number(self, m: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
        value = m.get(key, default)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        problem = "is missing" if value is None else f"must be a whole number >= 0, not {value!r}"
        self.fail(f"{where}.{key}", problem)
        return 0

    def flag(self, m: Mapping[str, Any], key: str, where: str, default: bool = False) -> bool:
        value = m.get(key, default)
        if isinstance(value, bool):
            return value
        self.fail(f"{where}.{key}", f"must be true or false, not {value!r}")
        return default

    def choice(self, enum: type[E], value: Any, where: str) -> E | None:
        try:
            return enum(value)
        except ValueError:
            allowed = ", ".join(str(member.value) for member in enum)
            self.fail(where, f"{value!r} is not one of {allowed}")
            return None

    def hex(self, value: Any, where: str) -> Hex | None:
        h = self.map.parse(value) if isinstance(value, str) else None
        if h is None:
            self.fail(where, f"{value!r} is not a hex ID on this map (e.g. 'V-F24')")
        return h

    def hexes(self, value: Any, where: str) -> list[Hex]:
        if not isinstance(value, list):
            if value is not None:
                self.fail(where, "must be a list of hex IDs")
            return []
        found = (self.hex(item, f"{where}[{i}]") for i, item in enumerate(value))
        return [h for h in found if h is not None]

    def names(self, value: Any, where: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(where, "must be a list of names")
            return []
        return [v.strip() for v in value]


def _read_stack(
    r: Reader, where: str, m: Mapping[str, Any], side: Side, handles: set[PlaneCategory]
) -> AirFactors | None:
    name = r.text(m, "plane", where)
    plane = r.planes.get(name)
    if plane is None:
        r.fail(f"{where}.plane", f"no plane type {name!r} in planes.toml")
        return None
    if plane.side is not side:
        r.fail(f"{where}.plane", f"{name} is a {plane.side} plane")
    if plane.category not in handles:
        r.fail(f"{where}.plane", f"{name} ({plane.category} plane) cannot be handled here (standard 8.9)")
    armament = r.choice(Armament, m["arm"], f"{where}.arm") if "arm" in m else None
    carrier = r.flag(m, "carrier", where, plane.category is PlaneCategory.CARRIER)
    return AirFactors(name, r.number(m, "count", where), carrier, armament)


def _read_boxes(r: Reader, value: Any, where: str, side: Side, handles: set[PlaneCategory]) -> AirBoxes:
    m = r.table(value, where)
    boxes: dict[str, tuple[AirFactors, ...]] = {}
    for box in ("just_landed", "readying", "ready", "dispersed"):
        stacks = (_read_stack(r, w, s, side, handles) for w, s in r.tables_in(m.get(box), f"{where}.{box}"))
        boxes[box] = tuple(s for s in stacks if s is not None)
    unknown = set(m) - set(boxes)
    if unknown:
        r.fail(where, f"unknown box(es) {sorted(unknown)}; boxes are {', '.join(boxes)}")
    return AirBoxes(**boxes)


def read_air_arrival(r: Reader, where: str, m: Mapping[str, Any], base: Base) -> AirBoxes:
    """The air factors of one ``[[bases.arrivals]]`` table, checked as the base's own boxes are.

    ``arrives`` (and a free ``note``) are the arrival's; every other key must be a box.
    """
    boxes = {k: v for k, v in m.items() if k not in ("arrives", "note")}
    found = _read_boxes(r, boxes, where, base.side, _HANDLES[base.handling])
    if found.total == 0:
        r.fail(where, "an arrival needs at least one air factor")
    return found


def _check_capacity(r: Reader, where: str, boxes: AirBoxes, capacity: int | None) -> None:
    if capacity is not None and boxes.total > capacity:
        r.fail(where, f"{boxes.total} air factors exceed the maximum capacity {capacity}")


def read_base(r: Reader, where: str, m: Mapping[str, Any]) -> Base | None:
    side = r.choice(Side, m.get("side"), f"{where}.side")
    handling = r.choice(Handling, m.get("handling", "LP"), f"{where}.handling")
    h = r.hex(m["hex"], f"{where}.hex") if "hex" in m else None
    if h is not None and r.map.terrain_of(h) is Terrain.SEA:
        r.fail(f"{where}.hex", f"{r.map.hex_id(h)} is all sea")
    capacity = None if m.get("capacity", "unlimited") == "unlimited" else r.number(m, "capacity", where)
    factors: dict[str, Any] = {k: r.number(m, k, where, d) for k, d in _BASE_FIELDS}
    if side is None or handling is None:
        return None
    boxes = _read_boxes(r, m.get("air"), f"{where}.air", side, _HANDLES[handling])
    _check_capacity(r, f"{where}.air", boxes, capacity)
    entry = tuple(r.names(m.get("entry"), f"{where}.entry"))
    if "hex" not in m and not entry:
        r.fail(where, "an off-board base (no hex) needs entry hexes")
    name, radar = r.text(m, "name", where), r.flag(m, "radar", where)
    base = Base(name, side, h, handling, capacity, 0, 0, 0, 0, radar=radar, entry=entry, boxes=boxes)
    return replace(base, **factors)


_BASE_FIELDS = (("launch", None), ("launch_min", None), ("readying", None), ("aa", 0), ("surface", 0))


def _lookup(r: Reader, table: Any, *keys: str) -> Mapping[str, Any]:
    """``table[k1][k2]...`` as a mapping; missing levels give an empty one."""
    for key in keys:
        table = r.table(table, f"ships.{key}").get(key)
    return r.table(table, "ships")


def _ship_factors(r: Reader, where: str, m: Mapping[str, Any], side: Side) -> dict[str, Any] | None:
    """Type line, the side's line, the class line, then the scenario's own keys (ships.toml).

    ``class`` names a class line; without it a ship whose name is a class (``Yorktown``) uses it.
    """
    ships = r.tables.get("ships")
    named = _lookup(r, ships, "classes", str(m.get("class", m.get("name"))))
    if "class" in m and not named:
        r.fail(f"{where}.class", f"no class {m['class']!r} in ships.toml")
    ship_type = r.choice(ShipType, m.get("type", named.get("type")), f"{where}.type")
    if ship_type is None:
        return None
    factors = dict(_lookup(r, ships, "types", ship_type.value))
    factors |= _lookup(r, ships, "side", side.value, ship_type.value)
    factors |= {k: v for k, v in named.items() if k != "type"}
    factors |= {k: v for k, v in m.items() if k in (*_SHIP_FIELDS, *_CARRIER_FIELDS, "radar")}
    return factors | {"type": ship_type}


def _read_ship(r: Reader, where: str, m: Mapping[str, Any], side: Side) -> Ship | None:
    factors = _ship_factors(r, where, m, side)
    if factors is None:
        return None
    ship_type: ShipType = factors["type"]
    handles = _HANDLES.get(ship_type.value, set())
    if ship_type is ShipType.BB and side is Side.ALLIED:
        handles = set()  # only a Japanese BB carries a float plane (reference A.5.1)
    factors.setdefault("capacity", 1 if handles else 0)
    numbers: dict[str, Any] = {k: r.number(factors, k, where, 0) for k in (*_SHIP_FIELDS, *_CARRIER_FIELDS)}
    boxes = _read_boxes(r, m.get("air"), f"{where}.air", side, handles)
    _check_capacity(r, f"{where}.air", boxes, numbers["capacity"])
    radar = r.flag(factors, "radar", where)
    ship = Ship(r.text(m, "name", where), ship_type, 0, 0, 0, 0, 0, radar=radar, boxes=boxes)
    return replace(ship, **numbers)


def read_task_force(r: Reader, where: str, m: Mapping[str, Any]) -> TaskForce | None:
    side = r.choice(Side, m.get("side"), f"{where}.side")
    h = r.hex(m.get("hex"), f"{where}.hex")
    if side is None or h is None:
        return None
    ships = tuple(
        s for w, sm in r.tables_in(m.get("ships"), f"{where}.ships") if (s := _read_ship(r, w, sm, side))
    )
    number = r.number(m, "number", where)
    if not 1 <= len(ships) <= _MAX_SHIPS[side]:
        r.fail(f"{where}.ships", f"a {side} TF holds 1 to {_MAX_SHIPS[side]} ships, not {len(ships)}")
    if number not in _CARRIER_TF_NUMBERS and any(s.type.carries_planes for s in ships):
        r.fail(f"{where}.number", "plane-carrying ships may only be in TFs 1-9 (reference A.5.1)")
    if not r.map.ships_may_enter(h):
        r.fail(f"{where}.hex", f"{r.map.hex_id(h)} is all land")
    plot = tuple(tuple(r.hexes(leg, f"{where}.plot")) for leg in m.get("plot", ()))
    return TaskForce(number, side, h, ships, plot, hidden=r.flag(m, "hidden", where, True))


def check_unique(r: Reader, bases: tuple[Base, ...], tfs: tuple[TaskForce, ...]) -> None:
    seen: set[object] = set()
    keys = [("bases", b.name) for b in bases] + [("task_forces", (tf.side.value, tf.number)) for tf in tfs]
    keys += [("ships", ship.name) for tf in tfs for ship in tf.ships]
    for where, key in keys:
        if (where, key) in seen:
            r.fail(where, f"{key!r} appears twice")
        seen.add((where, key))


_ROLES = {"F": ("interceptor", "escort", "bomber"), "E": ("interceptor", "escort"), "B": ("bomber",)}


def plane_types(table: Mapping[str, Any]) -> dict[str, PlaneType]:
    """``planes.toml`` as PlaneType by name; a malformed table is a GameError (it ships with the code)."""
    default = bool(table.get("default", False))
    found = {}
    for name, m in dict(table.get("planes", {})).items():
        try:
            roles = _ROLES[m.get("roles", "B")]
            found[name] = PlaneType(
                name, Side(m["side"]), PlaneCategory(m["category"]), int(m["movement"]), int(m["range"]),
                int(m["air_to_air"]), roles, _loads(table.get("loads", {}), name, roles), default,
            )  # fmt: skip
        except (KeyError, ValueError, TypeError) as error:
            raise GameError(f"planes.toml: plane {name!r} is malformed ({error!r})") from error
    return found


def _loads(table: Mapping[str, Any], plane: str, roles: tuple[str, ...]) -> tuple[Armament, ...]:
    """``[loads]`` of planes.toml: bombs for every plane that may bomb, torpedoes where listed."""
    bombs = tuple(Armament(load) for load in table.get("bombs", ())) if "bomber" in roles else ()
    torpedo = (Armament.TORPEDO,) if plane in table.get("torpedo", ()) else ()
    return bombs + torpedo
