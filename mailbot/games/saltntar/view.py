# SPDX-License-Identifier: GPL-3.0-or-later
"""The report model: what ``mailbot/games/saltntar/templates/report.*.j2`` render as ``r``.

Salt'n'Tar has no hidden information: every seat sees every ship. Only the
order template differs (a seat's own ships), and events are filtered by
audience all the same, so a future private event stays private.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from mailbot.core.game import Event
from mailbot.games.saltntar import maneuvers
from mailbot.games.saltntar.geometry import Cell, Grid, bearing_index, downwind
from mailbot.games.saltntar.movement import DRIFT, ROW, forced_heading, inches, motion, nominal
from mailbot.games.saltntar.state import CHASE, CHASER, CLOSE, FIRE, OPENING, QUARRY, Ship, State
from mailbot.games.saltntar.tables import HEAD_TO_WIND
from mailbot.games.saltntar.wind import wind_text

TITLE = "Salt'n'Tar"


def _wind(state: State) -> dict[str, Any]:
    grid, wind, rules = state.grid, state.wind, state.rules
    return {
        "direction": wind.direction,
        "direction_name": grid.name(wind.direction),
        "downwind": grid.name(downwind(grid, wind.direction)),
        "speed": wind.speed,
        "name": rules.wind_name(wind.speed),
        "calm": wind.speed <= rules.calm,
        "gale": wind.speed >= rules.gale,
        "note": wind.note,
        "text": wind_text(state),
    }


def _distance(state: State, ship: Ship) -> str:
    """Inches to the finish line (race) or to the nearest ship of the other role (chase)."""
    if state.course.kind == CHASE:
        other = QUARRY if ship.role == CHASER else CHASER
        cells = [s.cell for s in state.ships if s.afloat and s.role == other]
    else:
        cells = list(state.course.finish)
    if not cells:
        return ""
    return str(min(state.grid.distance(ship.cell, cell) for cell in cells) * state.course.inches_per_cell)


def _status(ship: Ship) -> str:
    if ship.sunk:
        return "sunk"
    if ship.sinks_after is not None:
        return f"sinking: goes down at the end of turn {ship.sinks_after}"
    return "at anchor" if ship.anchored else "afloat"


def _ship(state: State, ship: Ship, seat: str | None) -> dict[str, Any]:
    grid, kind = state.grid, state.ship_type(ship)
    way = nominal(state, ship)
    row = kind.row(way.bearing)
    return {
        "name": ship.name,
        "seat": ship.seat,
        "mine": ship.seat == seat,
        "type": kind.name,
        "role": ship.role,
        "position": f"({ship.cell[0]}, {ship.cell[1]})",
        "progress": inches(ship.progress),
        # the way those inches were made: they count only on that way (moves.py)
        "progress_way": grid.short(ship.progress_way) if ship.progress and ship.progress_way else "",
        "heading": ship.heading,
        "heading_name": grid.name(ship.heading),
        "bearing": row.label,
        "bn": row.bn,
        "speed": inches(way.speed),
        "way": way.why,
        "strain": ship.strain,
        "crew": ship.crew,
        "masts": ship.masts,
        "speed_loss": ship.speed_loss,
        "rig": "none (dismasted)" if ship.masts == 0 else ship.rig,
        "maneuver": maneuvers.busy(ship),
        "status": _status(ship),
        "distance": _distance(state, ship),
    }


def _turn_words(change: int) -> str:
    if change == 0:
        return "now"
    return f"TURN {change:+d}" + (" (1 Strain)" if abs(change) > 1 else "")


def _card_row(state: State, ship: Ship, heading: int) -> dict[str, Any]:
    """One heading on a ship's bearing card: the way she would make on it at this wind.

    The point of sail is named as her type's table prints it ("Luffing", "Backing"), also when
    she would not sail on it: the speed says how she goes then ("2'' adrift towards E")."""
    grid = state.grid
    change = grid.difference(ship.heading, heading)
    way = motion(state, replace(ship, heading=heading), state.wind.speed)
    label = state.ship_type(ship).row(way.bearing).label
    speed = f"{inches(way.speed)}''" + _HOW.get(way.mode, "")
    if way.direction != heading and way.speed:
        speed += f" towards {grid.short(way.direction)}"
    return {
        "heading": grid.short(heading),
        "off": bearing_index(grid, heading, state.wind.direction),
        "bearing": label,
        "speed": speed,
        "mode": way.mode,
        "turn": _turn_words(change) if abs(change) <= 2 else "",
    }


#: the bearing card's columns at their narrowest (the last, the order, as wide as it is)
_CARD_WIDTHS = (4, 5, 18, 15)
#: how a ship goes on a heading she does not sail (the bearing card's speed column)
_HOW = {DRIFT: " adrift", ROW: " rowing"}


def _card_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The card as columns as wide as their longest entry and two spaces more, so that no entry
    runs into the next: the letter indents them by four and keeps them within 72 columns."""
    heads = ("to", "off", "point of sail", "speed", "order")
    keys = ("heading", "off", "bearing", "speed", "turn")
    table = [heads, *[tuple(str(row[key]) for key in keys) for row in rows]]
    widths = [max(least, *(len(line[n]) + 2 for line in table)) for n, least in enumerate(_CARD_WIDTHS)]
    return [
        ("".join(f"{cell:<{width}}" for cell, width in zip(line, widths, strict=False)) + line[-1]).rstrip()
        for line in table
    ]


def bearing_card(state: State, ship: Ship) -> dict[str, Any]:
    """Each heading with its point of sail and speed this turn (the overall Wind Speed, no luck),
    and the TURN order that reaches it: what a skipper reads before choosing a turn."""
    grid = state.grid
    forced = forced_heading(state, ship, state.wind.speed)
    if forced is not None:  # a gale or a sinking hull: downwind is the only way (movement.py)
        way = nominal(state, ship)
        return {
            "ship": ship.name,
            "rows": [],
            "lines": [f"{grid.short(forced)}: {inches(way.speed)}'' ({way.why}); no other heading"],
            "note": "a gale or a sinking hull swings her downwind whatever her TURN orders",
        }
    rows = [_card_row(state, ship, heading) for heading in range(1, grid.points + 1)]
    return {
        "ship": ship.name,
        "rows": rows,
        "lines": _card_lines(rows),
        "note": (
            "off: points off dead downwind; "
            f"TURN +1 turns one point clockwise ({grid.short(ship.heading)} to "
            f"{grid.short(grid.rotate(ship.heading, 1))}), -1 counter-clockwise (to "
            f"{grid.short(grid.rotate(ship.heading, -1))}); speeds at Wind Speed {state.wind.speed} "
            f"before any luck; {state.rules.cite('bearings')}"
        ),
    }


def _the_result(state: State, event: Event) -> bool:
    return state.finished and event.kind == "result" and event.text == state.result


def _cards(state: State, seat: str | None) -> list[dict[str, Any]]:
    if seat is None or state.finished:
        return []
    return [bearing_card(state, ship) for ship in state.fleet(seat) if not ship.anchored]


def objective(state: State) -> str:
    course = state.course
    if course.kind == CHASE:
        return (
            f"Chase: a chaser wins by coming within {course.catch_within}'' of the quarry; "
            f"the quarry wins by staying free for {course.escape_after} turns."
        )
    cells = ", ".join(f"({x}, {y})" for x, y in course.finish)
    limit = f" within {course.turn_limit} turns" if course.turn_limit else ""
    return f"Race: the first ship across the finish line{limit} wins. Finish line cells: {cells}."


def _combat_template(state: State, seat: str) -> list[str]:
    lines: list[str] = []
    for ship in state.fleet(seat):
        if state.phase == FIRE:
            lines += [f"# TURN {ship.name} {ship.second:+d}" if ship.second else f"# TURN {ship.name} 0"]
            lines += [f"# FIRE {ship.name} <target and weapons>", f"# SPELL {ship.name} <spell and target>"]
        else:
            lines += [f"# RAM {ship.name} <target>", f"# BOARD {ship.name} <target>"]
            lines += [f"# ACTION {ship.name} <what>"]
            open_now = [kind for kind in maneuvers.WORDS if maneuvers.problem(ship, kind) is None]
            lines += [f"# {maneuvers.WORDS[kind]} {ship.name}" for kind in open_now]
    return lines + (["# RESULT <what your combat system gave>"] if state.phase == CLOSE else [])


def order_template(state: State, seat: str | None) -> list[str]:
    """Orders that change nothing, ready to edit: the commented lines are the choices open now."""
    if seat is None or state.finished:
        return []
    if state.phase in (FIRE, CLOSE):
        return _combat_template(state, seat)
    lines = []
    for ship in state.fleet(seat):
        lines.append(f"TURN {ship.name} 0" if not ship.anchored and ship.sinks_after is None else "")
        lines.append(f"# LUCK {ship.name}")
        if state.phase == OPENING:
            continue  # maneuvers are declared in the closing step of a naval-combat turn
        open_now = [kind for kind in maneuvers.WORDS if maneuvers.problem(ship, kind) is None]
        lines += [f"# {maneuvers.WORDS[kind]} {ship.name}" for kind in open_now]
    return [line for line in lines if line]


_COMBAT_HELP = {
    FIRE: [
        "Missile step: missiles and spells are recorded in the order of initiative, then the second",
        "half move in reverse initiative order. One order a line; text after # is a comment.",
        "FIRE <ship> <target and weapons>     a missile attack, e.g. FIRE Swallow Amazon 20 archers",
        "SPELL <ship> <spell and target>      a spell",
        "TURN <ship> -1 | 0 | +1              change the second half move (a second change: 1 Strain)",
        "Your combat system resolves them; send its results in the closing step (RESULT).",
    ],
    CLOSE: [
        "Closing step: ramming, boarding and other actions are recorded in the order of initiative.",
        "RAM <ship> <target> [<how>]          BOARD <ship> <target> [<how>]",
        "ACTION <ship> <what>                 any other action your combat system allows",
        "RESULT <what>                        an outcome your combat system gave (recorded)",
        "REEF | UNREEF | FURL | SET SAIL | ANCHOR | WEIGH <ship>   at the end of the turn",
    ],
}


def syntax_help(state: State) -> list[str]:
    if state.phase in _COMBAT_HELP:
        return [
            f"Turn {state.turn}. {line}" if n == 0 else line
            for n, line in enumerate(_COMBAT_HELP[state.phase])
        ]
    grid = state.grid
    points = ", ".join(f"{p} {grid.short(p)}" for p in range(1, grid.points + 1))
    turning = (
        [
            "TURN <ship> <first> <second>  -1, 0 or +1 before each half move (two changes: 1 Strain);",
            "                              +1 is one point clockwise, -1 counter-clockwise",
        ]
        if state.course.combat
        else [
            "TURN <ship> +1 | -1          one point clockwise | counter-clockwise (free)",
            "TURN <ship> +2 | -2          two points: dangerous, marks 1 Strain",
        ]
    )
    return [
        f"Orders for turn {state.turn}, one a line; text after # is a comment.",
        *turning,
        "TURN <ship> to starboard      +1 in words; to port -1, two points to port -2",
        "TURN <ship> TO <point>        steer for a heading at most two points away",
        "LUCK [<ship>]                 your side's luck die, for one ship or for all of them",
        (
            "Maneuvers, missiles, ramming and boarding come in the next two steps of the turn."
            if state.phase == OPENING
            else "REEF | UNREEF | FURL | SET SAIL | ANCHOR | WEIGH <ship>   at the end of the turn"
        ),
        f"Points: {points}. The wind is named for where it blows from.",
    ]


def order_help(state: State, seat: str | None) -> list[str]:
    return syntax_help(state) + order_template(state, seat)


def bearing_mapping(state: State) -> str:
    """E.g. ``0 points off downwind Running, 1 Broad Reaching, ...`` for this game's grid."""
    names = [bearing_name(key) for key in state.rules.bearings(state.grid.points)]
    return ", ".join(f"{n} off downwind {name}" if n == 0 else f"{n} {name}" for n, name in enumerate(names))


def bearing_name(key: str) -> str:
    return "head to wind (Luffing/Backing, backwards)" if key == HEAD_TO_WIND else key.title()


def design_defaults(state: State) -> list[str]:
    """Every design default in force (data/defaults.toml and the tables marked default), as
    every letter lists them."""
    rules = state.rules
    notes = []
    for entry in rules.defaults:
        line = entry.line
        if entry.key == "bearings":
            line += f"; points {bearing_mapping(state)}"
        notes.append(line)
    if rules.recovery.rule != "none":
        notes.append(f"Strain recovery: {rules.recovery.text} (the seed gives no way to clear Strain)")
    else:
        notes.append("Strain recovery: none, as the seed is written (Strain never clears)")
    rowers = [f"{kind.name} {kind.oars}''" for kind in rules.ships.values() if kind.oars]
    if rowers:
        notes.append(f"oars in a Calm (the seed gives no rowing speed): {', '.join(rowers)} a turn")
    if state.course.combat:
        notes.append(f"initiative in naval combat: {rules.initiative} a side, highest first, ties roll again")
    return notes


def build_view(state: State, events: Sequence[Event], seat: str | None) -> dict[str, Any]:
    return {
        "phase": state.phase,
        "initiative": list(state.initiative),
        "defaults": design_defaults(state),
        "game": TITLE,
        "title": state.course.title,
        "scenario": state.scenario,
        "seat": seat or "",
        "referee": seat is None,
        "turn": state.turn,
        "finished": state.finished,
        "result": state.result,
        "winners": list(state.winners),
        "objective": objective(state),
        "grid": {
            "kind": state.course.grid,
            "points": [{"number": p, "name": state.grid.name(p)} for p in range(1, state.grid.points + 1)],
            "inches_per_cell": state.course.inches_per_cell,
            "combat": state.course.combat,
        },
        "wind": _wind(state),
        "ships": [_ship(state, ship, seat) for ship in state.ships],
        "cards": _cards(state, seat),
        "events": [
            {"kind": e.kind, "text": e.text}
            for e in events
            if e.visible_to(seat) and not _the_result(state, e)
        ],
        # The letter that ends the game closes with the moderator's "The game is over" section,
        # which states the result: the report then says it nowhere else (issue 37: "Dead heat"
        # was printed four times). A letter without that turn's events (STATUS) states it here.
        "result_below": any(_the_result(state, e) for e in events),
        "orders": order_template(state, seat),
        "help": syntax_help(state),
        "map": map_model(state, seat),
    }


# --- the map (drawn by the package's drawing.py from this dict alone) -------------------

#: cells drawn around the ships and the finish line
MAP_MARGIN = 2
#: no grid is listed past this many cells (a scenario may put its finish line far away):
#: the drawer then shows the ships and the line on plain water
MAP_MAX_CELLS = 2500
#: the drawn area is at least this wide for its height, and this tall for its width
MAP_MIN_ASPECT = 0.6
_ROOT3 = math.sqrt(3)
#: how each grid's cells look: square, flat-topped hexagons (neighbours North and South share
#: a side) or pointy-topped ones (neighbours East and West share a side)
_SHAPES = {"square": "square", "hex-vertical": "hex-flat", "hex-horizontal": "hex-pointy"}


def plane(grid: Grid, cell: Cell) -> tuple[float, float]:
    """A cell's centre on the plane, x east and y north, neighbours one unit apart.

    Square cells are (x, y) already. Both hex grids are axial (q, r) (geometry.py): on
    the vertical one q steps Northeast and r North; on the horizontal one q steps East
    and r Northeast.
    """
    a, b = cell
    if grid.kind == "hex-vertical":
        return (a * _ROOT3 / 2, b + a / 2)
    if grid.kind == "hex-horizontal":
        return (a + b / 2, b * _ROOT3 / 2)
    return (float(a), float(b))


def compass(grid: Grid, point: int) -> int:
    """A point as compass degrees (0 = North, clockwise), from the plane direction of its step."""
    x, y = plane(grid, grid.step((0, 0), point))
    return round(math.degrees(math.atan2(x, y))) % 360


def _xy(grid: Grid, cell: Cell) -> list[float]:
    x, y = plane(grid, cell)
    return [round(x, 3), round(y, 3)]


def _way_end(state: State, ship: Ship) -> tuple[float, float]:
    """Where her way this turn would end (the map's arrow), so the map shows all of it."""
    way = nominal(state, ship)
    x, y = plane(state.grid, ship.cell)
    reach = 0 if ship.sunk else float(way.speed) / state.course.inches_per_cell
    angle = math.radians(compass(state.grid, way.direction))
    return (x + reach * math.sin(angle), y + reach * math.cos(angle))


def _box(state: State) -> tuple[float, float, float, float]:
    grid = state.grid
    points = [plane(grid, cell) for cell in [ship.cell for ship in state.ships] + list(state.course.finish)]
    points += [_way_end(state, ship) for ship in state.ships]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    west, south, east, north = min(xs), min(ys), max(xs), max(ys)
    # Widen a narrow course (two ships in line) so the picture is not a sliver on a phone.
    wide = max(0.0, (north - south) * MAP_MIN_ASPECT - (east - west)) / 2
    tall = max(0.0, (east - west) * MAP_MIN_ASPECT - (north - south)) / 2
    margin = MAP_MARGIN
    return (west - wide - margin, south - tall - margin, east + wide + margin, north + tall + margin)


def _span(low: float, high: float) -> range:
    return range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1)


def _cells_in(grid: Grid, box: tuple[float, float, float, float]) -> Iterator[Cell]:
    """Every cell whose centre lies in ``box``: the first axis from x (or y), the other per line."""
    west, south, east, north = box
    if grid.kind == "hex-vertical":
        for a in _span(west * 2 / _ROOT3, east * 2 / _ROOT3):
            yield from ((a, b) for b in _span(south - a / 2, north - a / 2))
    elif grid.kind == "hex-horizontal":
        for b in _span(south * 2 / _ROOT3, north * 2 / _ROOT3):
            yield from ((a, b) for a in _span(west - b / 2, east - b / 2))
    else:
        yield from ((a, b) for a in _span(west, east) for b in _span(south, north))


def _grid_cells(grid: Grid, box: tuple[float, float, float, float]) -> list[list[float]]:
    west, south, east, north = box
    if (east - west + 1) * (north - south + 1) > MAP_MAX_CELLS:
        return []
    return [_xy(grid, cell) for cell in _cells_in(grid, box)]


def _map_ship(state: State, ship: Ship, seat: str | None) -> dict[str, Any]:
    grid, way = state.grid, nominal(state, ship)
    return {
        "name": ship.name,
        "seat": ship.seat,
        "mine": ship.seat == seat,
        "role": ship.role,
        "at": _xy(grid, ship.cell),
        "cell": f"({ship.cell[0]}, {ship.cell[1]})",
        "heading": compass(grid, ship.heading),
        "heading_name": grid.short(ship.heading),
        # where this turn's way would take her at the overall Wind Speed (no luck, no turn)
        "course": compass(grid, way.direction),
        "speed": inches(way.speed),
        "reach": round(float(way.speed) / state.course.inches_per_cell, 3),
        "status": _status(ship),
        "sunk": ship.sunk,
    }


def map_model(state: State, seat: str | None) -> dict[str, Any]:
    """The course, every ship with her heading and way, and the wind: all public (seed 001)."""
    grid, wind = state.grid, state.wind
    box = _box(state)
    return {
        "title": state.course.title,
        "turn": state.turn,
        "seat": seat or "",
        "seats": list(state.seats),
        "shape": _SHAPES[grid.kind],
        "bounds": [round(v, 3) for v in box],
        "cells": _grid_cells(grid, box),
        "finish": [_xy(grid, cell) for cell in state.course.finish],
        "inches_per_cell": state.course.inches_per_cell,
        "ships": [_map_ship(state, ship, seat) for ship in state.ships],
        "wind": {
            "from": compass(grid, wind.direction),
            "name": grid.name(wind.direction),
            "speed": wind.speed,
            "strength": state.rules.wind_name(wind.speed),
        },
    }
