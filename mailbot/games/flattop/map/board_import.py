# SPDX-License-Identifier: GPL-3.0-or-later
"""A scenario file from a digitised board: one CSV row per hex, plus the scenario card as data.

The printed Flat Top board is not available to the project (flattop.md, "Map
and scenarios"): "A group that digitises its own board replaces only data."
Digitising means walking the board hex by hex and writing down what is
printed there. This module turns that list into the TOML the game reads
(:func:`board_to_scenario`), and an existing scenario's map back into the list
(:func:`board_csv`), so a group can start from the approximate map and correct it.

The CSV (``docs/flattop-scenarios.md`` has the long form). One header row; then
one row per hex that is not plain sea or carries a marking; blank lines and
lines starting with ``#`` are skipped. Columns (any order, header names as here;
only ``hex`` and ``terrain`` are required):

- ``hex``: the hex ID on the layout, e.g. ``V-F24``. A shared half hex may be
  listed from both of its sections; the rows are merged and must agree.
- ``terrain``: ``sea``, ``partial`` (also ``sea/land``, ``coastal``) or ``land``
  (also ``all-land``), standard 12.5. Unlisted hexes are sea.
- ``island``: the island(s) the hex belongs to, ``;``-separated; required on land.
- ``hexsides``: ``DIR:kind`` items, ``;``-separated: the printed reef, all-land
  or mountain side between this hex and its neighbour in direction DIR
  (``N NE SE S SW NW`` or 1-6), standard 12.5 and 14.15.5.
- ``directional``: the printed wind arrow of the section whose Directional hex
  this is (standard 6.2-6.3), e.g. ``NW``.
- ``entry``: an off-board base's Entry Hex label, e.g. ``5N``: the number is the
  delay in turns, the letters name the base through the meta's ``entry_bases``
  (reference A.3).
- ``base``: the name(s) of the base(s) printed in the hex, ``;``-separated; their
  factors come from the meta's ``bases`` (the scenario card, not the board).
- ``unloading``: ``yes`` where transports may unload (reference A.5.1).
- ``zone``: ``japanese`` for a hex of the Japanese coastwatcher zone (seed 003, 7.9.6).

``meta`` is the rest of the scenario, as the TOML file would hold it: ``id``,
``title``, ``approximate``, ``notes``, ``special_rules``, ``time``, ``victory``,
``weather``, ``options``, ``coastwatchers``, ``bases`` (without hexes: the CSV
places them), ``task_forces``, ``map`` (``layout = "custom"`` with its
``sectors``' geometry, or nothing for the standard layout); and two keys only
the converter reads: ``entry_bases`` (label letters -> base name, e.g.
``{"N": "New Caledonia"}``) and ``aliases`` (island -> other spellings).

Pure: text in, text out. Every mistake found is listed in one GameError, with
the CSV line it is on. The order of battle is checked when the game loads the
result (:func:`mailbot.games.flattop.map.scenario.load_scenario`), which needs
the tables.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import (
    Direction,
    Hex,
    HexMap,
    Terrain,
    parse_direction,
    parse_roman,
    step,
)
from mailbot.games.flattop.map.scenario import Scenario, read_layout
from mailbot.games.flattop.map.scenario_reader import Reader

__all__ = ["COLUMNS", "board_csv", "board_to_scenario", "to_toml"]

COLUMNS = ("hex", "terrain", "island", "hexsides", "directional", "entry", "base", "unloading", "zone")
_TERRAIN = {
    "": Terrain.SEA,
    "sea": Terrain.SEA,
    "partial": Terrain.PARTIAL,
    "sea/land": Terrain.PARTIAL,
    "coastal": Terrain.PARTIAL,
    "land": Terrain.LAND,
    "all-land": Terrain.LAND,
}
_YES, _NO = frozenset({"yes", "y", "true", "1", "x"}), frozenset({"", "no", "n", "false", "0"})
_HEXSIDES = ("reef", "land", "mountain")  # standard 12.5, 14.15.5
_ENTRY = re.compile(r"^(\d+)\s*([A-Za-z]+)$")
_META_KEYS = frozenset(
    {
        "id",
        "title",
        "approximate",
        "notes",
        "special_rules",
        "time",
        "victory",
        "weather",
        "options",
        "map",
        "coastwatchers",
        "bases",
        "task_forces",
        "entry_bases",
        "aliases",
    }
)
_PASSED_ON = ("time", "victory", "weather", "options")  # copied into the file as they are


@dataclass
class _Cell:
    """What the board shows in one hex, merged over the rows that name it."""

    terrain: Terrain
    islands: list[str] = field(default_factory=list)
    wind: Direction | None = None
    entry: str | None = None
    bases: list[str] = field(default_factory=list)
    unloading: bool = False
    zone: bool = False


@dataclass
class _Board:
    map: HexMap
    problems: list[str]
    cells: dict[Hex, _Cell] = field(default_factory=dict)
    sides: dict[frozenset[Hex], str] = field(default_factory=dict)
    entries: dict[str, Hex] = field(default_factory=dict)

    def fail(self, line: int, where: str, message: str) -> None:
        self.problems.append(f"line {line} ({where}): {message}" if line else message)


# --- CSV -> TOML --------------------------------------------------------------------


def board_to_scenario(csv_text: str, meta: Mapping[str, Any]) -> str:
    """The scenario TOML for the hexes of ``csv_text`` and the rest of the scenario in ``meta``."""
    problems = [f"meta: unknown key {key!r}" for key in sorted(set(meta) - _META_KEYS)]
    reader = Reader({})
    layout = read_layout(reader, _mapping(meta.get("map"), "map", problems))
    problems += [f"meta: {p}" for p in reader.problems]
    board = _Board(HexMap(layout), problems)
    _read_rows(board, csv_text)
    data = _scenario(board, meta)
    if problems:
        listed = "\n".join(f"  {p}" for p in problems)
        raise GameError(f"the digitised board has problems:\n{listed}")
    return to_toml(data)


def _mapping(value: Any, where: str, problems: list[str]) -> Mapping[str, Any]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    problems.append(f"meta: {where} must be a table")
    return {}


def _read_rows(board: _Board, text: str) -> None:
    header: list[str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in next(csv.reader([line]))]
        if header is None:
            header = [c.lower() for c in cells]
            _check_header(board, number, header)
            continue
        if len(cells) > len(header):
            board.fail(number, "row", f"{len(cells)} cells but {len(header)} columns")
        row = dict(zip(header, cells, strict=False))
        _read_row(board, number, row)
    if header is None:
        board.fail(0, "", "the CSV has no header row")


def _check_header(board: _Board, line: int, header: list[str]) -> None:
    for name in header:
        if name not in COLUMNS:
            board.fail(line, "header", f"unknown column {name!r} (columns: {', '.join(COLUMNS)})")
    for name in ("hex", "terrain"):
        if name not in header:
            board.fail(line, "header", f"the column {name!r} is required")
    if len(set(header)) != len(header):
        board.fail(line, "header", "a column is named twice")


def _read_row(board: _Board, line: int, row: Mapping[str, str]) -> None:
    text = row.get("hex", "")
    h = board.map.parse(text)
    if h is None:
        board.fail(line, text or "?", "is not a hex ID on this layout (e.g. 'V-F24')")
        return
    terrain = _TERRAIN.get(row.get("terrain", "").lower())
    if terrain is None:
        board.fail(line, text, f"terrain {row.get('terrain')!r} is not sea, partial or land")
        return
    cell = _Cell(terrain, _names(row.get("island", "")), bases=_names(row.get("base", "")))
    if terrain is not Terrain.SEA and not cell.islands:
        board.fail(line, text, f"a {terrain.value} hex needs its island's name")
    cell.wind = _wind(board, line, text, row.get("directional", ""))
    cell.entry = _entry(board, line, text, row.get("entry", ""), h)
    cell.unloading = _yes(board, line, text, "unloading", row.get("unloading", ""))
    cell.zone = _zone(board, line, text, row.get("zone", ""))
    _merge(board, line, text, h, cell)
    _hexsides(board, line, text, h, row.get("hexsides", ""))


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(";") if name.strip()]


def _wind(board: _Board, line: int, where: str, value: str) -> Direction | None:
    if not value:
        return None
    wind = parse_direction(value)
    if wind is None:
        board.fail(line, where, f"directional {value!r} is not a direction (N, NE, SE, S, SW, NW or 1-6)")
    return wind


def _entry(board: _Board, line: int, where: str, value: str, h: Hex) -> str | None:
    if not value:
        return None
    label = value.upper().replace(" ", "")
    if _ENTRY.match(label) is None:
        board.fail(line, where, f"entry {value!r} is not a label like '5N' (delay, then base letters)")
        return None
    if board.entries.setdefault(label, h) != h:
        board.fail(line, where, f"entry hex {label} is listed twice")
    return label


def _yes(board: _Board, line: int, where: str, column: str, value: str) -> bool:
    word = value.lower()
    if word not in _YES | _NO:
        board.fail(line, where, f"{column} {value!r} is not yes or no")
    return word in _YES


def _zone(board: _Board, line: int, where: str, value: str) -> bool:
    word = value.lower()
    if word not in ("", "japanese"):
        board.fail(line, where, f"zone {value!r}: the only coastwatcher zone is 'japanese' (seed 003, 7.9.6)")
    return word == "japanese"


def _merge(board: _Board, line: int, where: str, h: Hex, cell: _Cell) -> None:
    """A hex named twice (a shared half hex, listed from both sections) must say the same."""
    old = board.cells.get(h)
    if old is None:
        board.cells[h] = cell
        return
    for name in ("terrain", "wind", "entry"):
        mine, theirs = getattr(cell, name), getattr(old, name)
        if mine is not None and theirs is not None and mine != theirs:
            board.fail(line, where, f"{name} disagrees with an earlier row for the same hex")
        elif theirs is None:
            setattr(old, name, mine)
    old.islands += [i for i in cell.islands if i not in old.islands]
    old.bases += [b for b in cell.bases if b not in old.bases]
    old.unloading |= cell.unloading
    old.zone |= cell.zone


def _hexsides(board: _Board, line: int, where: str, h: Hex, value: str) -> None:
    for item in _names(value):
        way, _, kind = item.partition(":")
        toward = parse_direction(way)
        if toward is None or kind.strip().lower() not in _HEXSIDES:
            board.fail(line, where, f"hexside {item!r} is not DIR:kind (kind reef, land or mountain)")
            continue
        other = step(h, toward)
        if not board.map.on_board(other):
            board.fail(line, where, f"hexside {item!r} leads off the board")
            continue
        pair, kind = frozenset((h, other)), kind.strip().lower()
        if board.sides.setdefault(pair, kind) != kind:
            board.fail(line, where, f"hexside {item!r} disagrees with the other hex's row")


def _order(hexes: Iterable[Hex]) -> list[Hex]:
    return sorted(hexes)


def _scenario(board: _Board, meta: Mapping[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": meta.get("id", ""),
        "title": meta.get("title", ""),
        "approximate": meta.get("approximate", False),
    }
    for key in ("notes", "special_rules"):
        if key in meta:
            data[key] = meta[key]
    unloading = [board.map.hex_id(h) for h in _order(board.cells) if board.cells[h].unloading]
    if unloading:
        data["unloading"] = unloading
    data |= {key: meta[key] for key in _PASSED_ON if key in meta}
    given = meta.get("map")
    data["map"] = _map(board, given if isinstance(given, Mapping) else {})
    data["coastwatchers"] = _coastwatchers(board, meta)
    data["entry_hexes"] = _entry_hexes(board, meta)
    data["bases"] = _bases(board, meta)
    if "task_forces" in meta:
        data["task_forces"] = meta["task_forces"]
    data["islands"] = _islands(board, meta)
    return data


def _geometry(given: Mapping[str, Any]) -> dict[int, Mapping[str, Any]]:
    """A custom layout's sections by numeral (``I`` or ``1``), as meta gives them."""
    found = {}
    for sector in given.get("sectors", []) if isinstance(given.get("sectors"), list) else []:
        numeral = sector.get("numeral") if isinstance(sector, Mapping) else None
        number = parse_roman(numeral) if isinstance(numeral, str) else numeral
        if isinstance(number, int) and isinstance(sector, Mapping):
            found[number] = sector
    return found


def _map(board: _Board, given: Mapping[str, Any]) -> dict[str, Any]:
    """Each section's Directional hex and wind arrow (standard 6.2-6.3), then the hexsides."""
    layout, geometry = board.map.layout, _geometry(given)
    sectors = []
    for sector in layout.sectors:
        winds = {
            h: c.wind for h, c in sorted(board.cells.items()) if c.wind and layout.home_sector(h) == sector
        }
        if len(winds) != 1:
            board.fail(0, "", f"section {sector.name} needs exactly one directional hex, not {len(winds)}")
            continue
        ((h, wind),) = winds.items()
        placed = {"numeral": sector.name, "directional": board.map.hex_id(h), "wind": wind.name}
        sectors.append({**geometry.get(sector.numeral, {}), **placed})
    hexsides = [
        {"between": [board.map.hex_id(h) for h in sorted(pair)], "kind": kind}
        for pair, kind in sorted(board.sides.items(), key=lambda item: sorted(item[0]))
    ]
    return {"layout": given.get("layout", "standard"), "sectors": sectors, "hexsides": hexsides}


def _coastwatchers(board: _Board, meta: Mapping[str, Any]) -> dict[str, Any]:
    watchers = dict(_mapping(meta.get("coastwatchers"), "coastwatchers", board.problems))
    zone = [board.map.hex_id(h) for h in _order(board.cells) if board.cells[h].zone]
    if zone:
        watchers.setdefault("zone_island", "New Guinea")
        watchers["japanese_zone"] = zone
    return watchers


def _entry_bases(meta: Mapping[str, Any], label: str) -> tuple[str | None, int]:
    """The base an Entry Hex label names through meta ``entry_bases`` (``5N``: "N"), and its delay."""
    match = _ENTRY.match(label)
    names = meta.get("entry_bases")
    if match is None or not isinstance(names, Mapping):
        return None, 0
    base = names.get(match[2])
    return (base if isinstance(base, str) else None), int(match[1])


def _entry_hexes(board: _Board, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = []
    for label, h in sorted(board.entries.items()):
        base, delay = _entry_bases(meta, label)
        if base is None:
            board.fail(0, "", f"entry hex {label}: meta entry_bases names no base for its letters")
            continue
        found.append({"label": label, "hex": board.map.hex_id(h), "base": base, "delay": delay})
    return found


def _bases(board: _Board, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The card's bases, placed in the hexes the board prints them in; off-board ones get their entries."""
    placed = {name: h for h in _order(board.cells) for name in board.cells[h].bases}
    given = meta.get("bases", [])
    if not isinstance(given, list):
        board.fail(0, "", "meta: bases must be a list of tables")
        return []
    bases, named = [], set()
    for m in (b for b in given if isinstance(b, Mapping)):
        name = str(m.get("name", ""))
        named.add(name)
        base = dict(m)
        if name in placed:
            if "hex" in base:
                board.fail(0, "", f"base {name!r}: its hex is on the board and in meta; give it once")
            # name, side, hex first: the order a reader of the file expects
            here = {k: base[k] for k in ("name", "side") if k in base}
            base = here | {"hex": board.map.hex_id(placed[name])} | base
        entries = [label for label in board.entries if _entry_bases(meta, label)[0] == name]
        if entries:
            base["entry"] = sorted({*base.get("entry", []), *entries})
        if "hex" not in base and "entry" not in base:
            board.fail(0, "", f"base {name!r} is on no hex of the board and has no entry hex")
        bases.append(base)
    for name in sorted(set(placed) - named):
        board.fail(0, "", f"the board shows base {name!r}, which meta bases does not list")
    return bases


def _islands(board: _Board, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    aliases = _mapping(meta.get("aliases"), "aliases", board.problems)
    names: list[str] = []
    for h in _order(board.cells):
        names += [i for i in board.cells[h].islands if i not in names]
    for name in sorted(set(aliases) - set(names)):
        board.fail(0, "", f"meta aliases name island {name!r}, which is on no hex")
    islands = []
    for name in names:
        island: dict[str, Any] = {"name": name}
        if name in aliases:
            island["aliases"] = list(aliases[name])
        for kind in (Terrain.LAND, Terrain.PARTIAL):
            island[kind.value] = [
                board.map.hex_id(h)
                for h in _order(board.cells)
                if name in board.cells[h].islands and board.cells[h].terrain is kind
            ]
        islands.append(island)
    return islands


# --- a scenario's map -> CSV --------------------------------------------------------


def board_csv(scenario: Scenario) -> str:
    """The CSV of ``scenario``'s map (every hex that is not plain sea), to correct and convert back."""
    board = scenario.map
    winds = {s.directional: s.wind for s in scenario.sectors}
    entries = {e.hex: e.label for e in scenario.entry_hexes}
    bases: dict[Hex, list[str]] = {}
    for base in scenario.bases:
        if base.hex is not None:
            bases.setdefault(base.hex, []).append(base.name)
    sides: dict[Hex, list[str]] = {}
    for pair, kind in scenario.hexsides.items():
        first, second = sorted(pair)
        toward = next(d for d in Direction if step(first, d) == second)
        sides.setdefault(first, []).append(f"{toward.name}:{kind}")
    marked = {*board.terrain, *winds, *entries, *bases, *sides, *scenario.unloading}
    marked |= scenario.coastwatchers.japanese_zone
    rows = [",".join(COLUMNS)]
    for h in sorted(marked):
        islands = [i.name for i in scenario.islands if h in i.hexes]
        cells = (
            board.hex_id(h),
            board.terrain_of(h).value,
            ";".join(islands),
            ";".join(sorted(sides.get(h, []))),
            winds[h].name if h in winds else "",
            entries.get(h, ""),
            ";".join(bases.get(h, [])),
            "yes" if h in scenario.unloading else "",
            "japanese" if h in scenario.coastwatchers.japanese_zone else "",
        )
        rows.append(",".join(_csv_cell(c) for c in cells))
    return "\n".join(rows) + "\n"


def _csv_cell(text: str) -> str:
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(c in text for c in ',"\n') else text


# --- a minimal TOML writer (the standard library only reads TOML) -------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_INLINE_WIDTH = 100  # a list of small tables wider than this becomes an array of tables


def to_toml(data: Mapping[str, Any]) -> str:
    """``data`` as TOML that ``tomllib.loads`` reads back equal; GameError for values TOML cannot hold."""
    out: list[str] = []
    _table(data, [], out, header=None)
    return "\n".join(out).strip() + "\n"


def _table(table: Mapping[str, Any], path: list[str], out: list[str], header: str | None) -> None:
    if header is not None:
        out += ["", header]
    top = not path  # the file's own lists of tables ([[bases]], [[islands]] ...) are never inline
    nested = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
    arrays = [(k, v) for k, v in table.items() if _table_array(v, top)]
    for key, value in table.items():
        if not isinstance(value, Mapping) and not _table_array(value, top):
            out.append(f"{_key(key)} = {_value(value, _key(key))}")
    for key, value in nested:
        dotted = ".".join(_key(k) for k in (*path, key))
        _table(value, [*path, key], out, f"[{dotted}]")
    for key, items in arrays:
        dotted = ".".join(_key(k) for k in (*path, key))
        for item in items:
            _table(item, [*path, key], out, f"[[{dotted}]]")


def _table_array(value: Any, top: bool = False) -> bool:
    """A list of tables written as ``[[...]]``: unless every table is flat and the list is short."""
    if not isinstance(value, list) or not value or not all(isinstance(v, Mapping) for v in value):
        return False
    flat = all(not isinstance(x, Mapping | list) for v in value for x in v.values())
    return top or not flat or len(_inline(value)) > _INLINE_WIDTH


def _key(key: Any) -> str:
    text = str(key)
    return text if _BARE_KEY.match(text) else json.dumps(text, ensure_ascii=False)


def _value(value: Any, key: str = "") -> str:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        text = _inline(value)
        if len(key) + len(text) + 3 > _INLINE_WIDTH:
            return _wrapped(value)
        return text
    return _inline(value)


def _wrapped(items: list[str], per_line: int = 10) -> str:
    lines = [
        "    " + ", ".join(json.dumps(s, ensure_ascii=False) for s in items[i : i + per_line])
        for i in range(0, len(items), per_line)
    ]
    return "[\n" + ",\n".join(lines) + "\n]"


def _inline(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    raise GameError(f"TOML cannot hold {value!r} here")


def _float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    return text if any(c in text for c in ".en") else f"{text}.0"
