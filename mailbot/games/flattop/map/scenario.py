# SPDX-License-Identifier: GPL-3.0-or-later
"""Scenarios: from parsed TOML (``mailbot/games/flattop/data/scenarios/*.toml``) to frozen dataclasses.

Pure: the edge reads the files and hands in plain mappings, the scenario and
``tables`` (the files of ``mailbot/games/flattop/data/tables/`` by stem: ``ships``,
``planes``, ``coastwatchers``, ``time``). :func:`load_scenario` never raises on
bad data: it returns every problem it finds, each with where it is, so a
group digitising its own board sees all its mistakes at once.

The file format is documented field by field in ``docs/flattop-scenarios.md`` (and,
as comments, in ``mailbot/games/flattop/data/scenarios/test-small.toml``); the map part
(sections, terrain, hex IDs) in :mod:`mailbot.games.flattop.map.hexes`.

Arrival schedules (reference B.13: "OB per side ... start hex"): a task force or a
base's ``[[bases.arrivals]]`` table with ``arrives = "D2 0600"`` is not in play at the
start; it is kept in :attr:`Scenario.arrivals` and enters at the start of that turn
(:mod:`mailbot.games.flattop.map.arrivals`). A task force with ``from_off_map = true``
enters from beyond the map edge, so its ``hex`` must be an edge hex.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import (
    STANDARD_LAYOUT,
    Direction,
    Hex,
    HexMap,
    Layout,
    Sector,
    Terrain,
    column_index,
    distance,
    neighbours,
    parse_direction,
    parse_roman,
    roman,
)
from mailbot.games.flattop.map.scenario_reader import (
    Reader,
    ScenarioProblem,
    check_unique,
    plane_types,
    read_air_arrival,
    read_base,
    read_task_force,
)
from mailbot.games.flattop.units import AirBoxes, Base, Side, TaskForce

__all__ = [
    "AirArrival",
    "Arrival",
    "ForceArrival",
    "GameTime",
    "Loaded",
    "Scenario",
    "ScenarioProblem",
    "load_scenario",
    "plane_types",
    "read_layout",
    "require_scenario",
]
_FIRST_LABEL = re.compile(r"^([A-Z]+)(\d+)$")
_TIME = re.compile(r"^\s*D(\d+)\s+(\d{2})00\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class GameTime:
    """A turn by day and clock hour: hour 1..24, the 2400 turn is a day's last (reference A.2)."""

    day: int
    hour: int

    @property
    def label(self) -> str:
        return f"D{self.day} {self.hour:02d}00"

    def plus(self, turns: int) -> GameTime:
        index = (self.day - 1) * 24 + self.hour - 1 + turns
        return GameTime(index // 24 + 1, index % 24 + 1)

    def next(self) -> GameTime:
        return self.plus(1)

    def turns_since(self, other: GameTime) -> int:
        return (self.day - other.day) * 24 + self.hour - other.hour


@dataclass(frozen=True)
class Island:
    """An island's land and partial-land hexes; ``aliases`` carry other spellings (e.g. seed 003's)."""

    name: str
    hexes: frozenset[Hex]
    aliases: tuple[str, ...] = ()

    def answers_to(self, name: str) -> bool:
        wanted = name.strip().casefold()
        return wanted in (n.casefold() for n in (self.name, *self.aliases))


@dataclass(frozen=True)
class SectorInfo:
    """Per board section: its Directional hex and the printed wind arrow (standard 6.2-6.3)."""

    numeral: int
    directional: Hex
    wind: Direction


@dataclass(frozen=True)
class EntryHex:
    """Where planes of an off-board base enter and leave, e.g. ``5N`` (reference A.3)."""

    label: str
    hex: Hex
    base: str
    delay: int  # turns from take-off to appearing in the entry hex


@dataclass(frozen=True)
class Coastwatchers:
    """Seed 003, 7.9.5: the islands each side watches; 7.9.6: the Japanese New Guinea zone."""

    allied: frozenset[str] = frozenset()
    japanese: frozenset[str] = frozenset()
    japanese_zone: frozenset[Hex] = frozenset()
    zone_island: str = "New Guinea"

    def islands(self, side: Side) -> frozenset[str]:
        return self.allied if side is Side.ALLIED else self.japanese


@dataclass(frozen=True)
class ForceArrival:
    """A task force that enters play at the start of ``time``, in ``task_force.hex``.

    ``from_off_map``: it comes from beyond the map edge (its hex is an edge hex);
    otherwise it appears where it is, e.g. a convoy sailing from a harbour.
    """

    time: GameTime
    task_force: TaskForce
    from_off_map: bool = False

    @property
    def side(self) -> Side:
        return self.task_force.side


@dataclass(frozen=True)
class AirArrival:
    """Air factors that join ``base``'s boxes at the start of ``time`` (reinforcements flown in)."""

    time: GameTime
    base: str
    side: Side
    boxes: AirBoxes


Arrival = ForceArrival | AirArrival


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    approximate: bool
    map: HexMap
    sectors: tuple[SectorInfo, ...]
    islands: tuple[Island, ...]
    bases: tuple[Base, ...]
    task_forces: tuple[TaskForce, ...]
    start: GameTime
    end: GameTime
    night_hours: frozenset[int]
    hexsides: Mapping[frozenset[Hex], str] = field(default_factory=dict)
    entry_hexes: tuple[EntryHex, ...] = ()
    coastwatchers: Coastwatchers = field(default_factory=Coastwatchers)
    clouds: str = "scattered"  # initial clouds: scattered | front | none (standard 6.3)
    unloading: frozenset[Hex] = frozenset()  # where AP/APD may unload (reference A.5.1)
    notes: str = ""
    special_rules: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    arrivals: tuple[Arrival, ...] = ()  # forces entering after the start, by time (file order within)

    def island(self, name: str) -> Island | None:
        """The island by name or alias (seed 003's spellings are aliases)."""
        return next((i for i in self.islands if i.answers_to(name)), None)

    def island_of(self, h: Hex) -> tuple[Island, ...]:
        return tuple(i for i in self.islands if h in i.hexes)

    def hexside(self, a: Hex, b: Hex) -> str | None:
        """``reef``, ``land`` or ``mountain`` between adjacent hexes (standard 12.5, 14.15.5)."""
        return self.hexsides.get(frozenset((a, b)))

    def sector(self, numeral: int) -> SectorInfo | None:
        return next((s for s in self.sectors if s.numeral == numeral), None)

    def is_night(self, time: GameTime) -> bool:
        return time.hour in self.night_hours

    def base(self, name: str) -> Base | None:
        return next((b for b in self.bases if b.name.casefold() == name.strip().casefold()), None)


@dataclass(frozen=True)
class Loaded:
    scenario: Scenario | None
    problems: tuple[ScenarioProblem, ...] = ()


# --- loading ----------------------------------------------------------------------


_HEXSIDE_KINDS = ("reef", "land", "mountain")  # standard 12.5, 14.15.5
_CLOUD_SETUPS = ("scattered", "front", "none")


def _numeral(r: Reader, value: Any, where: str) -> int:
    numeral = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str):
        numeral = parse_roman(value)
    if numeral is None or numeral < 1:
        r.fail(where, f"{value!r} is not a board section numeral (I, II, ... or 1, 2, ...)")
        return 0
    return numeral


def read_layout(r: Reader, m: Mapping[str, Any]) -> Layout:
    """The ``[map]`` table's layout: the standard one, or ``layout = "custom"`` with its sections."""
    kind = m.get("layout", "standard")
    if kind == "standard":
        return STANDARD_LAYOUT
    if kind != "custom":
        r.fail("map.layout", f"must be 'standard' or 'custom', not {kind!r}")
        return STANDARD_LAYOUT
    sectors = []
    for where, s in r.tables_in(m.get("sectors"), "map.sectors"):
        first = _FIRST_LABEL.match(str(s.get("first", "A1")))
        column = column_index(first[1]) if first else None
        if first is None or column is None:
            r.fail(f"{where}.first", f"{s.get('first')!r} is not a label like 'A1'")
            continue
        west, north, cols, rows = (r.number(s, key, where) for key in ("west", "north", "cols", "rows"))
        numeral = _numeral(r, s.get("numeral"), f"{where}.numeral")
        sectors.append(Sector(numeral, west, north, cols, rows, first_column=column, first_row=int(first[2])))
    return Layout(tuple(sectors))


def _read_sectors(r: Reader, m: Mapping[str, Any]) -> tuple[SectorInfo, ...]:
    infos = []
    for where, s in r.tables_in(m.get("sectors"), "map.sectors"):
        numeral = _numeral(r, s.get("numeral"), f"{where}.numeral")
        directional = r.hex(s.get("directional"), f"{where}.directional")
        wind = parse_direction(str(s.get("wind", "")))
        if wind is None:
            r.fail(f"{where}.wind", f"{s.get('wind')!r} is not a direction (1-6 or N, NE, SE, S, SW, NW)")
        sector = r.map.layout.sector(numeral)
        if directional is not None and sector is not None and not sector.contains(directional):
            r.fail(f"{where}.directional", f"is not on section {sector.name}")
        if directional is not None and wind is not None and numeral:
            infos.append(SectorInfo(numeral, directional, wind))
    missing = {s.numeral for s in r.map.layout.sectors} - {i.numeral for i in infos}
    for numeral in sorted(missing):
        r.fail("map.sectors", f"section {roman(numeral)} needs a directional hex and a wind arrow")
    return tuple(infos)


def _read_islands(r: Reader, value: Any) -> tuple[Island, ...]:
    islands, terrain = [], dict[Hex, Terrain]()
    for where, m in r.tables_in(value, "islands"):
        hexes: set[Hex] = set()
        for kind in (Terrain.LAND, Terrain.PARTIAL):
            for h in r.hexes(m.get(kind.value), f"{where}.{kind.value}"):
                if terrain.get(h, kind) is not kind:
                    r.fail(f"{where}.{kind.value}", f"{r.map.hex_id(h)} is both land and partial land")
                terrain[h] = kind
                hexes.add(h)
        islands.append(
            Island(r.text(m, "name", where), frozenset(hexes), tuple(r.names(m.get("aliases"), where)))
        )
    r.map = HexMap(r.map.layout, MappingProxyType(terrain))
    return tuple(islands)


def _read_hexsides(r: Reader, value: Any) -> dict[frozenset[Hex], str]:
    sides = {}
    for where, m in r.tables_in(value, "map.hexsides"):
        pair = r.hexes(m.get("between"), f"{where}.between")
        kind = m.get("kind")
        if kind not in _HEXSIDE_KINDS:
            r.fail(f"{where}.kind", f"{kind!r} is not one of {', '.join(_HEXSIDE_KINDS)}")
        elif len(pair) != 2 or distance(*pair) != 1:
            r.fail(f"{where}.between", "must name two adjacent hexes")
        else:
            sides[frozenset(pair)] = str(kind)
    return sides


def _coastwatcher_names(r: Reader, m: Mapping[str, Any]) -> Mapping[str, Any]:
    """The scenario's own lists, or the seed 003, 7.9.5 list it names (``list = "coral-sea"``)."""
    if "list" not in m:
        return m
    lists = r.table(r.tables.get("coastwatchers"), "tables.coastwatchers")
    chosen = lists.get(m["list"])
    if not isinstance(chosen, Mapping):
        r.fail("coastwatchers.list", f"{m['list']!r} is not a list in coastwatchers.toml")
        return {}
    return chosen


def _read_coastwatchers(r: Reader, value: Any, islands: tuple[Island, ...]) -> Coastwatchers:
    m = r.table(value, "coastwatchers")
    lists = _coastwatcher_names(r, m)
    watched: dict[str, set[str]] = {"allied": set(), "japanese": set(), "both": set()}
    for key, names in watched.items():
        for name in r.names(lists.get(key), f"coastwatchers.{key}"):
            island = next((i for i in islands if i.answers_to(name)), None)
            if island is None:
                r.fail(f"coastwatchers.{key}", f"no island {name!r} on this map")
            else:
                names.add(island.name)
    zone = frozenset(r.hexes(m.get("japanese_zone"), "coastwatchers.japanese_zone"))
    zone_island = str(m.get("zone_island", "New Guinea"))
    allied, japanese = watched["allied"] | watched["both"], watched["japanese"] | watched["both"]
    return Coastwatchers(frozenset(allied), frozenset(japanese), zone, zone_island)


def _turn(r: Reader, value: Any, where: str) -> GameTime | None:
    """``D2 0600`` as a GameTime; None (and a problem) for anything else."""
    match = _TIME.match(str(value if value is not None else ""))
    if match is None or not 1 <= int(match[2]) <= 24 or int(match[1]) < 1:
        r.fail(where, f"{value!r} is not a turn like 'D1 0500' (hours 0100-2400)")
        return None
    return GameTime(int(match[1]), int(match[2]))


def _read_time(r: Reader, value: Any) -> tuple[GameTime, GameTime, frozenset[int]]:
    m = r.table(value, "time")
    times = [_turn(r, m.get(key), f"time.{key}") or GameTime(1, 1) for key in ("start", "end")]
    if times[1] < times[0]:
        r.fail("time.end", "comes before the start")
    night_table = r.table(r.table(r.tables.get("time"), "tables.time").get("night"), "time.night")
    night = m.get("night_hours", night_table.get("hours", []))
    if not isinstance(night, list) or not all(isinstance(h, int) and 1 <= h <= 24 for h in night):
        r.fail("time.night_hours", "must list hours 1..24")
        night = []
    return times[0], times[1], frozenset(night)


def _read_entries(r: Reader, value: Any, bases: tuple[Base, ...]) -> tuple[EntryHex, ...]:
    entries = []
    for where, m in r.tables_in(value, "entry_hexes"):
        label, base, h = (
            r.text(m, "label", where),
            r.text(m, "base", where),
            r.hex(m.get("hex"), f"{where}.hex"),
        )
        found = next((b for b in bases if b.name == base), None)
        if found is None or not found.off_board or label not in found.entry:
            r.fail(f"{where}.base", f"{base!r} is not an off-board base listing entry hex {label!r}")
        if h is not None:
            entries.append(EntryHex(label, h, base, r.number(m, "delay", where)))
    return tuple(entries)


def _arrival_time(r: Reader, value: Any, where: str, start: GameTime, end: GameTime) -> GameTime | None:
    """An ``arrives`` turn: after the start (a force there at the start simply starts) and by the end."""
    time = _turn(r, value, where)
    if time is not None and not start < time <= end:
        r.fail(where, f"{time.label} is not after the start {start.label} and by the end {end.label}")
        return None
    return time


def _on_edge(board: HexMap, h: Hex) -> bool:
    return any(not board.on_board(n) for n in neighbours(h))


def _read_task_forces(
    r: Reader, value: Any, start: GameTime, end: GameTime
) -> tuple[tuple[TaskForce, ...], tuple[ForceArrival, ...]]:
    """The task forces on the map at the start, and those that arrive later (``arrives``)."""
    present, arriving = [], []
    for where, m in r.tables_in(value, "task_forces"):
        tf = read_task_force(r, where, m)
        off_map = r.flag(m, "from_off_map", where)
        if off_map and "arrives" not in m:
            r.fail(f"{where}.from_off_map", "only a force that arrives later comes from off the map")
        if tf is not None and off_map and not _on_edge(r.map, tf.hex):
            r.fail(f"{where}.hex", f"{r.map.hex_id(tf.hex)} is not on the map edge (from_off_map)")
        if tf is None:
            continue
        if "arrives" not in m:
            present.append(tf)
        elif (time := _arrival_time(r, m["arrives"], f"{where}.arrives", start, end)) is not None:
            arriving.append(ForceArrival(time, tf, off_map))
    return tuple(present), tuple(arriving)


def _read_air_arrivals(
    r: Reader, read: list[tuple[str, Mapping[str, Any], Base | None]], start: GameTime, end: GameTime
) -> tuple[AirArrival, ...]:
    """Every base's ``[[bases.arrivals]]``; start and arrivals together must fit the base's MC."""
    found = []
    for where, m, base in read:
        if base is None:
            continue
        due = []
        for w, am in r.tables_in(m.get("arrivals"), f"{where}.arrivals"):
            boxes = read_air_arrival(r, w, am, base)
            time = _arrival_time(r, am.get("arrives"), f"{w}.arrives", start, end)
            if time is not None:
                due.append(AirArrival(time, base.name, base.side, boxes))
        total = base.boxes.total + sum(a.boxes.total for a in due)
        if base.capacity is not None and total > base.capacity:
            r.fail(
                f"{where}.arrivals",
                f"{total} air factors with the arrivals exceed the capacity {base.capacity}",
            )
        found += due
    return tuple(found)


def _schedule(arrivals: tuple[Arrival, ...]) -> tuple[Arrival, ...]:
    """By time; within a turn, file order (task forces first), so every reading gives the same order."""
    return tuple(sorted(arrivals, key=lambda a: a.time))


def load_scenario(data: Mapping[str, Any], tables: Mapping[str, Any]) -> Loaded:
    """A scenario from its parsed TOML; ``scenario`` is None when there are problems."""
    r = Reader(tables)
    r.planes = plane_types(r.table(tables.get("planes"), "tables.planes"))
    m = r.table(data.get("map"), "map")
    r.map = HexMap(read_layout(r, m))
    sectors = _read_sectors(r, m)
    islands = _read_islands(r, data.get("islands"))
    hexsides = _read_hexsides(r, m.get("hexsides"))
    start, end, night = _read_time(r, data.get("time"))
    read = [(w, bm, read_base(r, w, bm)) for w, bm in r.tables_in(data.get("bases"), "bases")]
    bases = tuple(b for _, _, b in read if b is not None)
    tfs, forces = _read_task_forces(r, data.get("task_forces"), start, end)
    check_unique(r, bases, tfs + tuple(f.task_force for f in forces))
    arrivals = _schedule(forces + _read_air_arrivals(r, read, start, end))
    clouds = str(r.table(data.get("weather"), "weather").get("clouds", "scattered"))
    if clouds not in _CLOUD_SETUPS:
        r.fail("weather.clouds", f"must be one of {', '.join(_CLOUD_SETUPS)}")
    scenario = Scenario(
        id=r.text(data, "id", "scenario"),
        title=r.text(data, "title", "scenario"),
        approximate=r.flag(data, "approximate", "scenario"),
        map=r.map,
        sectors=sectors,
        islands=islands,
        bases=bases,
        task_forces=tfs,
        start=start,
        end=end,
        night_hours=night,
        hexsides=MappingProxyType(hexsides),
        entry_hexes=_read_entries(r, data.get("entry_hexes"), bases),
        coastwatchers=_read_coastwatchers(r, data.get("coastwatchers"), islands),
        clouds=clouds,
        unloading=frozenset(r.hexes(data.get("unloading"), "unloading")),
        notes=str(data.get("notes", "")),
        special_rules=tuple(r.names(data.get("special_rules"), "special_rules")),
        options=MappingProxyType(dict(r.table(data.get("options"), "options"))),
        arrivals=arrivals,
    )
    return Loaded(None if r.problems else scenario, tuple(r.problems))


def require_scenario(data: Mapping[str, Any], tables: Mapping[str, Any]) -> Scenario:
    """Like :func:`load_scenario`, but a broken scenario is a GameError listing every problem."""
    loaded = load_scenario(data, tables)
    if loaded.scenario is None:
        listed = "\n".join(f"  {problem}" for problem in loaded.problems)
        raise GameError(f"Flat Top scenario {data.get('id', '?')!r} has problems:\n{listed}")
    return loaded.scenario
