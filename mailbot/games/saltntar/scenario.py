# SPDX-License-Identifier: GPL-3.0-or-later
"""Building a new game from scenario data (``mailbot/games/saltntar/data/scenarios/*.toml``).

``Setup.data`` mirrors the config folder: ``data["ships"]`` and
``data["tables"]`` are the two table files, ``data["defaults"]`` the design
defaults (``defaults.toml``), ``data["scenarios"][name]`` each
scenario file. ``Setup.options`` may override a scenario's ``inches_per_cell``,
``combat``, ``turn_limit``, ``catch_within``, ``escape_after`` and its fixed
``wind_direction`` / ``wind_speed``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mailbot.core.dice import Dice
from mailbot.core.game import Setup
from mailbot.errors import GameError
from mailbot.games.saltntar.geometry import Cell, Grid, find_grid
from mailbot.games.saltntar.state import CHASE, CHASER, OPENING, QUARRY, RACE, Course, Ship, State, Wind
from mailbot.games.saltntar.tables import Rules, find_row

INITIAL_RULE = "Salt'n'Tar: Initial Wind strength and direction"
# Ship names are single words so that an order line needs no quoting.
SHIP_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_'-]*$")
_OPTION_KEYS = ("inches_per_cell", "combat", "turn_limit", "catch_within", "escape_after")


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise GameError(f"Salt'n'Tar scenario: {where} must be a table")
    return value


def scenario_data(scenario: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    scenarios = _table(data.get("scenarios", {}), "scenarios")
    key = scenario.strip().lower().removesuffix(".toml")
    for name, value in scenarios.items():
        if name.lower() == key:
            return _table(value, name)
    raise GameError(f"no Salt'n'Tar scenario {scenario!r}; known: {', '.join(scenarios)}")


def scenario_seats(scenario: Mapping[str, Any]) -> tuple[str, ...]:
    """``seats`` if given, else the seats of the ships in order of first appearance."""
    listed = scenario.get("seats")
    if listed is None:
        listed = [str(_table(ship, "a ship").get("seat", "")) for ship in scenario.get("ships", ())]
    return tuple(dict.fromkeys(str(seat) for seat in listed))


def _cell(value: Any, where: str) -> Cell:
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise GameError(f"Salt'n'Tar scenario: {where} must be [x, y], not {value!r}")
    return (value[0], value[1])


def _finish(scenario: Mapping[str, Any], grid: Grid) -> tuple[Cell, ...]:
    finish = _table(scenario.get("finish", {}), "finish")
    cells = [_cell(cell, "a finish cell") for cell in finish.get("cells", ())]
    if "from" in finish or "to" in finish:
        start, end = _cell(finish.get("from"), "finish.from"), _cell(finish.get("to"), "finish.to")
        cells.extend(grid.line(start, end))
    return tuple(dict.fromkeys(cells))


def _settings(scenario: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    chase = _table(scenario.get("chase", {}), "chase")
    merged: dict[str, Any] = {"inches_per_cell": 3, "combat": False, "turn_limit": 0}
    merged |= {"catch_within": 3, "escape_after": 0}
    merged |= {key: scenario[key] for key in _OPTION_KEYS if key in scenario}
    merged |= {key: chase[key] for key in ("catch_within", "escape_after") if key in chase}
    merged |= {key: options[key] for key in _OPTION_KEYS if key in options}
    for key in ("inches_per_cell", "turn_limit", "catch_within", "escape_after"):
        if not isinstance(merged[key], int) or isinstance(merged[key], bool) or merged[key] < 0:
            raise GameError(f"Salt'n'Tar: {key} must be a whole number >= 0, not {merged[key]!r}")
    if not isinstance(merged["combat"], bool):
        raise GameError(f"Salt'n'Tar: combat must be true or false, not {merged['combat']!r}")
    if merged["inches_per_cell"] < 1:
        raise GameError("Salt'n'Tar: inches_per_cell must be at least 1")
    return merged


def make_course(name: str, scenario: Mapping[str, Any], options: Mapping[str, Any]) -> Course:
    kind = str(scenario.get("kind", RACE))
    if kind not in (RACE, CHASE):
        raise GameError(f"Salt'n'Tar scenario {name}: kind must be race or chase, not {kind!r}")
    grid = find_grid(str(scenario.get("grid", "square")))
    settings = _settings(scenario, options)
    course = Course(
        title=str(scenario.get("title", name)),
        kind=kind,
        grid=grid.kind,
        combat=bool(settings["combat"]),
        finish=_finish(scenario, grid) if kind == RACE else (),
        **{key: settings[key] for key in ("inches_per_cell", "turn_limit", "catch_within", "escape_after")},
    )
    if kind == RACE and not course.finish:
        raise GameError(f"Salt'n'Tar scenario {name}: a race needs a finish line")
    if kind == CHASE and course.escape_after < 1:
        raise GameError(f"Salt'n'Tar scenario {name}: a chase needs escape_after (turns)")
    return course


def _ship(entry: Mapping[str, Any], course: Course, rules: Rules) -> Ship:
    name = str(entry.get("name", ""))
    if not SHIP_NAME.match(name):
        raise GameError(f"Salt'n'Tar scenario: ship name {name!r} must be one word")
    kind = rules.ship_type(str(entry.get("type", ""))).key
    heading = course.board.point_named(str(entry.get("heading", 1)))
    if heading is None:
        raise GameError(f"Salt'n'Tar scenario: ship {name} heading {entry.get('heading')!r} is no point")
    role = str(entry.get("role", ""))
    if course.kind == CHASE and role not in (CHASER, QUARRY):
        raise GameError(f"Salt'n'Tar scenario: ship {name} needs role chaser or quarry")
    cell = _cell(entry.get("at"), f"ship {name}.at")
    masts = rules.ship_type(kind).masts
    return Ship(name, str(entry.get("seat", "")), kind, cell, heading, masts, role=role)


def _ships(scenario: Mapping[str, Any], course: Course, rules: Rules) -> list[Ship]:
    ships = [_ship(_table(entry, "a ship"), course, rules) for entry in scenario.get("ships", ())]
    names = [ship.name.lower() for ship in ships]
    if len(set(names)) != len(names) or not ships:
        raise GameError("Salt'n'Tar scenario: ships need distinct names (and there must be some)")
    if course.kind == CHASE and {ship.role for ship in ships} != {CHASER, QUARRY}:
        raise GameError("Salt'n'Tar scenario: a chase needs a chaser and a quarry")
    return ships


def _set_wind(scenario: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[Any, Any]:
    """The first wind's direction and speed as the GM's options, else the scenario, set them
    (None: rolled)."""
    fixed = _table(scenario.get("wind", {}), "wind")
    direction = options.get("wind_direction", fixed.get("direction"))
    return direction, options.get("wind_speed", fixed.get("speed"))


def wind_is_set(scenario: Mapping[str, Any], options: Mapping[str, Any]) -> bool:
    """Whether the GM or the scenario set any part of the first wind: then turn 1 sails with it
    (``SaltNTarGame.new_game``)."""
    return any(part is not None for part in _set_wind(scenario, options))


def _first_speed(speed: object, rules: Rules) -> int:
    """A set first Wind Speed lies on the Initial Wind Speed table (1 to 3 in seed 001): Calm (0)
    and Gale (4+) come only "by way of a cumulation of luck rolls", in play."""
    speeds = [row.speed for row in rules.initial_speed] or [1, 3]
    low, high = min(speeds), max(speeds)
    if isinstance(speed, bool) or not isinstance(speed, int) or not low <= speed <= high:
        raise GameError(f"Salt'n'Tar: the first wind speed is a whole number {low}..{high}, not {speed!r}")
    return speed


def initial_wind(
    scenario: Mapping[str, Any], options: Mapping[str, Any], grid: Grid, rules: Rules, dice: Dice
) -> Wind:
    """Seed 001: "the initial Wind Direction may be diced for with a d6 or d8" (d6 on hexes)."""
    direction, speed = _set_wind(scenario, options)
    notes = []
    if direction is None:
        direction = dice.roll("wind/initial/direction", grid.points, rule=INITIAL_RULE).total
        notes.append(f"initial direction rolled d{grid.points}: {direction}")
    if speed is None:
        roll = dice.roll("wind/initial/speed", 6, rule=INITIAL_RULE)
        speed = find_row(rules.initial_speed, roll.total, "initial wind speed").speed
        notes.append(f"initial speed rolled 1d6: {roll.total} -> Wind Speed {speed}")
    speed = _first_speed(speed, rules)
    point = grid.point_named(str(direction))
    if point is None:
        points = ", ".join(f"{n} {name}" for n, name in enumerate(grid.names, start=1))
        raise GameError(f"wind direction {direction!r} is not a point of the {grid.kind} grid: {points}")
    return Wind(point, speed, "; ".join(notes))


def build_state(setup: Setup, dice: Dice) -> State:
    scenario = scenario_data(setup.scenario, setup.data)
    rules = Rules.from_data(
        _table(setup.data.get("ships"), "ships"),
        _table(setup.data.get("tables"), "tables"),
        _table(setup.data.get("defaults", {}), "defaults"),
    )
    course = make_course(setup.scenario, scenario, setup.options)
    seats = scenario_seats(scenario)
    if set(setup.seats) != set(seats):
        raise GameError(f"Salt'n'Tar scenario {setup.scenario} has seats {seats}, not {setup.seats}")
    ships = _ships(scenario, course, rules)
    if {ship.seat for ship in ships} != set(seats):
        raise GameError(f"Salt'n'Tar scenario {setup.scenario}: every seat needs ships, every ship a seat")
    wind = initial_wind(scenario, setup.options, course.board, rules, dice)
    if "strain_recovery" in setup.options:
        rules = rules.with_recovery(str(setup.options["strain_recovery"]))
    state = State(setup.scenario, seats, course, rules, turn=1, wind=wind, ships=ships)
    return replace(state, phase=OPENING if course.combat else "")
