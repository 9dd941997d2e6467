# SPDX-License-Identifier: GPL-3.0-or-later
"""The map of the hour for one side (or the referee): ``r["map"]``, read by ``mailbot.render.maps``.

Like the rest of the view it is built from the side's own units, its own knowledge (the merged
contacts of ``view_contacts``), the public board (clouds and storms, standard 6) and the events
addressed to it: the paths its own AFs flew this hour are read from the hour's search, flight
and rendezvous events, which only the flying side is told. Nothing else about the enemy is
read, so an unseen enemy TF changes nothing here. The part of the board drawn (``bounds``) is
the whole theatre, the same every hour for every side, so consecutive maps share one frame.

The printed board (:func:`board_part`) is public and the same every hour: land and partial
land hexes, the islands' names, hexsides (reef, all-land, mountain), every printed base, the
sections with their numerals and a regular grid of hex ids to read the numbering from.
``named`` lists the hexes the letter names (own units, contacts, this hour's paths, plots, the
nearest storm): the drawer labels each of them with its hex id.

Schema (every value JSON-like; every hex id used has its ``[col, row]`` in ``hexes``, the
global grid of ``map.hexes.Hex``, or, a hex of the printed board, in ``board_hexes``)::

    {"side": "Allied" | "Japanese" | "referee", "time": "D1 0800",
     "hexes": {id: [col, row]}, "board_hexes": "id:col,row;...",
     "bounds": [min_col, min_row, max_col, max_row],
     "forces": [{"side": "Allied", "task_forces": [{"name", "hex", "ships", "carriers"}],
                 "bases": [{"name", "hex"}], "air": [{"name", "hex", "altitude", "mission"}]}],
     "contacts": [{"hex", "kind", "condition", "age", "label"}],
     "clouds": [id], "cloud_radius": int, "storms": [id],
     "searches": [[id, ...]], "strikes": [[id, ...]],
     "land": [id], "partial": [id], "islands": [{"name", "hex"}], "hexsides": [[id, id, kind]],
     "board_bases": [{"name", "hex"}], "sections": [{"name", "bounds"}], "grid_ids": [id],
     "named": [id]}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from mailbot.core.game import Event
from mailbot.games.flattop.map.hexes import Hex, HexMap, Terrain, roman
from mailbot.games.flattop.map.scenario import Island, Scenario
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFormation, Side

#: the hour's flight events (``observation.resolve_search``, ``air.resolve_flight``): the AF and
#: its route as hex ids; a follower's route starts at the rendezvous hex
_ROUTES = {
    "ft.search": re.compile(r"AF(\d+) searched (.+?) \("),
    "ft.flight": re.compile(r"AF(\d+) flew (.+?), -?\d+ MP left"),
    "ft.rendezvous": re.compile(r"AF(\d+) met AF\d+ at (.+?) and followed it to (.+)$"),
}
_ATTACK = re.compile(r"AF(\d+) reached \S+ (?:with AF\d+ )?to attack")

Path = tuple[Side, int, str, tuple[str, ...]]  # side, AF number, event kind, hex ids


def side_name(side: Side) -> str:
    return side.value.capitalize()


def build_map(
    state: FlatTopState,
    events: Sequence[Event],
    seat: str | None,
    sides: Sequence[Side],
    contacts: Sequence[Mapping[str, Any]],
    *,
    also: Iterable[str] = (),
) -> dict[str, Any]:
    """The map dict of the module docstring; ``contacts`` are the merged rows of the sides shown,
    ``also`` other hexes the letter names (plots, the nearest storm): labelled like the rest."""
    board = state.scenario.map
    searches, strikes = flown_paths(state, events, seat, sides)
    storms = (h for h in storm_hexes(state.weather, state.rules.weather) if board.on_board(h))
    model: dict[str, Any] = {
        "side": "referee" if seat is None else side_name(Side(seat)),
        "time": state.time.label,
        "forces": [_forces(state, side) for side in sides],
        "contacts": [_contact(c) for c in contacts if board.parse(c["hex"]) is not None],
        # A marker may stand off the board and still cover hexes on it: its id is then "?col,row".
        "clouds": sorted({board.hex_id(c.hex) for c in state.weather.clouds}),
        "cloud_radius": state.rules.weather.cloud_radius,
        "storms": sorted(board.hex_id(h) for h in storms),
        "searches": searches,
        "strikes": strikes,
    }
    model["named"] = sorted({*_known_ids(model), *(h for h in also if board.parse(h) is not None)})
    printed = board_part(*_board_key(state.scenario))
    model.update(printed.model())
    where = {board.hex_id(c.hex): c.hex for c in state.weather.clouds}
    ids = {*_all_ids(model), *model["named"]}
    # The hour's hexes as [col, row]; the printed board's (Coral Sea: 450) as one string, the
    # same every hour: 450 fewer containers a view for the garbage collector to count and walk
    # (a profile of a tick once charged a whole collection, 5 ms, to building those lists)
    model["hexes"] = {i: _hex(state, where, i).as_list() for i in sorted(ids)}
    model["board_hexes"] = printed.places
    model["bounds"] = list(printed.bounds)
    return model


def _hex(state: FlatTopState, known: Mapping[str, Hex], hex_id: str) -> Hex:
    """The global hex of an id: an on-board id parses; an off-board marker's is looked up."""
    found = state.scenario.map.parse(hex_id)
    return found if found is not None else known[hex_id]


# --- own forces --------------------------------------------------------------------------------


def _forces(state: FlatTopState, side: Side) -> dict[str, Any]:
    name = state.scenario.map.hex_id
    on = state.scenario.map.on_board  # off-board bases and In Flight boxes have no place here
    tfs = [
        {
            "name": f"TF{tf.number}",
            "hex": name(tf.hex),
            "ships": len(tf.afloat),
            "carriers": bool(tf.carriers),
        }
        for tf in state.own_tfs(side)
        if on(tf.hex)
    ]
    bases = [
        {"name": b.name, "hex": name(b.hex)} for b in state.own_bases(side) if b.hex is not None and on(b.hex)
    ]
    air = [
        {"name": f"AF{af.number}", "hex": name(af.hex), "altitude": _altitude(af), "mission": mission(af)}
        for af in state.own_air(side)
        if af.hex is not None and on(af.hex)
    ]
    return {"side": side_name(side), "task_forces": tfs, "bases": bases, "air": air}


def _altitude(af: AirFormation) -> str:
    return af.stacks[0].altitude.value if af.stacks else ""


def mission(af: AirFormation) -> str:
    """``strike`` for an AF armed at take-off (bombers stay bombers until they land, reference
    A.6; an armed search is a strike looking for its target), ``search`` for an unarmed
    searcher, ``other`` for the rest (CAP, escorts, ferries)."""
    if any(s.armament is not None or s.expended for s in af.stacks):
        return "strike"
    return "search" if af.searching else "other"


def _contact(row: Mapping[str, Any]) -> dict[str, Any]:
    carriers = " carriers" if row["kind"] == "ships" and "carrier" in row["text"] else ""
    return {
        "hex": row["hex"],
        "kind": row["kind"],
        "condition": row["condition"],
        "age": row["age"],
        "label": f"{row['kind']} C{row['condition']}{carriers} {row['time'][-4:]}",
    }


# --- the hour's own flights --------------------------------------------------------------------


def flown_paths(
    state: FlatTopState, events: Sequence[Event], seat: str | None, sides: Sequence[Side]
) -> tuple[list[list[str]], list[list[str]]]:
    """(search paths, strike paths) the ``sides``' AFs flew in the events the seat was told.

    A path is a strike's when its AF declared an attack (15), or when an armed AF flew it on a
    FLY order; the other search paths are searches; unarmed FLY flights (CAP, ferries) are
    left out: the AF's own marker shows where it is.
    """
    told = [e for e in events if e.visible_to(seat)]
    paths = [p for p in _paths(state, told) if p[0] in sides]
    attacked = {(s, n) for s, n in _attackers(told)}
    armed = {(af.side, af.number) for af in state.air if af.side in sides and mission(af) == "strike"}
    searches: list[list[str]] = []
    strikes: list[list[str]] = []
    for side, number, kind, hexes in paths:
        if (side, number) in attacked or (kind != "ft.search" and (side, number) in armed):
            strikes.append(list(hexes))
        elif kind == "ft.search":
            searches.append(list(hexes))
    return searches, strikes


def _teller(event: Event) -> Side | None:
    """The one side an event was addressed to (flight events go to the flying side only)."""
    if len(event.audience) != 1:
        return None
    (seat,) = event.audience
    return next((s for s in Side if s.value == seat), None)


def _paths(state: FlatTopState, events: Sequence[Event]) -> Iterator[Path]:
    for event in events:
        side, pattern = _teller(event), _ROUTES.get(event.kind)
        found = pattern.match(event.text) if pattern is not None else None
        if side is None or found is None:
            continue
        given = event.data.get("path")  # a structured path, when the event carries one
        words = [str(w) for w in given] if isinstance(given, list) else " ".join(found.groups()[1:]).split()
        hexes = _route(state, words)
        if len(hexes) > 1:
            yield side, int(found[1]), event.kind, hexes


def _route(state: FlatTopState, words: Sequence[str]) -> tuple[str, ...]:
    """The hex ids among ``words``, canonical, a hex entered twice in a row (a search's extra
    MP spent there) once."""
    board = state.scenario.map
    hexes: list[str] = []
    for word in words:
        h = board.parse(word)
        if h is not None and (not hexes or hexes[-1] != board.hex_id(h)):
            hexes.append(board.hex_id(h))
    return tuple(hexes)


def _attackers(events: Sequence[Event]) -> Iterator[tuple[Side, int]]:
    for event in events:
        side = _teller(event)
        found = _ATTACK.match(event.text) if event.kind == "ft.attack" else None
        if side is not None and found is not None:
            yield side, int(found[1])


# --- hexes and bounds --------------------------------------------------------------------------


def _known_ids(model: Mapping[str, Any]) -> Iterator[str]:
    """The hexes the side has something at: own units, contacts, own paths (not the weather)."""
    for force in model["forces"]:
        for group in ("task_forces", "bases", "air"):
            yield from (unit["hex"] for unit in force[group])
    yield from (c["hex"] for c in model["contacts"])
    for path in (*model["searches"], *model["strikes"]):
        yield from path


def _all_ids(model: Mapping[str, Any]) -> Iterator[str]:
    yield from _known_ids(model)
    yield from model["clouds"]
    yield from model["storms"]


# --- the printed board -------------------------------------------------------------------------


class Printed:
    """The board's public part of the map, worked out once per board (:func:`board_part`).

    Held as tuples; :meth:`model` hands out fresh lists (``build_map`` copies ``hexes`` the
    same way), so nothing a view holds reaches the kept value.
    """

    def __init__(
        self,
        board: HexMap,
        islands: tuple[Island, ...],
        hexsides: tuple[tuple[frozenset[Hex], str], ...],
        bases: tuple[tuple[str, Hex], ...],
    ) -> None:
        name = board.hex_id
        sectors = board.layout.sectors
        self.bounds = (
            min(s.west for s in sectors),
            min(s.north for s in sectors),
            max(s.west + s.cols - 1 for s in sectors),
            max(s.north + s.rows - 1 for s in sectors),
        )
        self.land = tuple(sorted(name(h) for h, t in board.terrain.items() if t is Terrain.LAND))
        self.partial = tuple(sorted(name(h) for h, t in board.terrain.items() if t is Terrain.PARTIAL))
        self.islands = tuple((i.name, name(_middle(i.hexes))) for i in islands if i.hexes)
        self.hexsides = tuple(sorted((*sorted(name(h) for h in pair), kind) for pair, kind in hexsides))
        self.bases = tuple(sorted((b, name(h)) for b, h in bases if board.on_board(h)))
        self.sections = tuple(
            (roman(s.numeral), (s.west, s.north, s.west + s.cols - 1, s.north + s.rows - 1)) for s in sectors
        )
        # Every GRID_STEP-th column and row of each section, from its first: the regular grid of ids.
        grid = {
            Hex(c, r)
            for s in sectors
            for c in range(s.west + 2, s.west + s.cols - 1, GRID_STEP)
            for r in range(s.north + 2, s.north + s.rows - 1, GRID_STEP)
        }
        self.grid_ids = tuple(sorted(name(h) for h in grid))
        every = set(board.terrain) | grid | {h for _, h in bases if board.on_board(h)}
        every |= {h for i in islands for h in i.hexes} | {h for pair, _ in hexsides for h in pair}
        self.hexes = {name(h): (h.col, h.row) for h in sorted(every)}
        #: every hex above as ``id:col,row``, ``;`` between them, in the order of their ids
        self.places = ";".join(f"{i}:{c},{r}" for i, (c, r) in sorted(self.hexes.items()))

    def model(self) -> dict[str, Any]:
        return {
            "land": list(self.land),
            "partial": list(self.partial),
            "islands": [{"name": n, "hex": h} for n, h in self.islands],
            "hexsides": [list(side) for side in self.hexsides],
            "board_bases": [{"name": n, "hex": h} for n, h in self.bases],
            "sections": [{"name": n, "bounds": list(b)} for n, b in self.sections],
            "grid_ids": list(self.grid_ids),
        }


GRID_STEP = 5  # columns and rows between two ids of the regular grid


def _middle(hexes: frozenset[Hex]) -> Hex:
    """The island's hex nearest its centre of mass (ties: the first in order)."""
    col = sum(h.col for h in hexes) / len(hexes)
    row = sum(h.row for h in hexes) / len(hexes)
    return min(sorted(hexes), key=lambda h: (h.col - col) ** 2 + (h.row - row) ** 2)


def _board_key(
    scenario: Scenario,
) -> tuple[HexMap, tuple[Island, ...], tuple[tuple[frozenset[Hex], str], ...], tuple[tuple[str, Hex], ...]]:
    hexsides = tuple(sorted(scenario.hexsides.items(), key=lambda item: sorted(item[0])))
    bases = tuple((b.name, b.hex) for b in scenario.bases if b.hex is not None)
    return scenario.map, scenario.islands, hexsides, bases


@lru_cache(maxsize=8)
def board_part(
    board: HexMap,
    islands: tuple[Island, ...],
    hexsides: tuple[tuple[frozenset[Hex], str], ...],
    bases: tuple[tuple[str, Hex], ...],
) -> Printed:
    """The printed board's map entries: a pure function of the board, kept (it never changes)."""
    return Printed(board, islands, hexsides, bases)
