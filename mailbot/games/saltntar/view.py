# SPDX-License-Identifier: GPL-3.0-or-later
"""The report model: what ``mailbot/games/saltntar/templates/report.*.j2`` render as ``r``.

Salt'n'Tar has no hidden information: every seat sees every ship. Only the
order template differs (a seat's own ships), and events are filtered by
audience all the same, so a future private event stays private.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mailbot.core.game import Event
from mailbot.games.saltntar import maneuvers
from mailbot.games.saltntar.geometry import downwind
from mailbot.games.saltntar.movement import inches, nominal
from mailbot.games.saltntar.state import CHASE, CHASER, CLOSE, FIRE, OPENING, QUARRY, Ship, State
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
        ["TURN <ship> <first> <second>  -1, 0 or +1 before each half move (two changes: 1 Strain)"]
        if state.course.combat
        else [
            "TURN <ship> +1 | -1          change heading one point (free)",
            "TURN <ship> +2 | -2          two points: dangerous, marks 1 Strain",
        ]
    )
    return [
        f"Orders for turn {state.turn}, one a line; text after # is a comment.",
        *turning,
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


def design_defaults(state: State) -> list[str]:
    """The tables in force that seed 001 lacks, as every letter states them."""
    rules = state.rules
    notes = []
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
        "events": [{"kind": e.kind, "text": e.text} for e in events if e.visible_to(seat)],
        "orders": order_template(state, seat),
        "help": syntax_help(state),
    }
