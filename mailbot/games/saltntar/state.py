# SPDX-License-Identifier: GPL-3.0-or-later
"""The state of one Salt'n'Tar game and its JSON form.

Distances are kept as exact fractions of a tabletop inch: reefing halves a
speed (seed 001, "Reef: reduce speed by half"), so half inches occur, and a
float would make a replayed turn depend on rounding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from mailbot.errors import GameError
from mailbot.games.saltntar.geometry import Cell, Grid, find_grid
from mailbot.games.saltntar.tables import Rules, ShipType

RACE = "race"
CHASE = "chase"
CHASER = "chaser"
QUARRY = "quarry"

# The parts of a naval-combat turn, one step each (seed 001, "Game Turn in Naval Combat").
OPENING = "orders"  # luck, Strain Rolls, initiative, first half move
FIRE = "fire"  # missile attacks and spells, second half move
CLOSE = "close"  # ramming, boarding, other actions, results, maneuvers
COMBAT_PHASES = (OPENING, FIRE, CLOSE)

# Rig states: sails set, reefed (half speed) or furled (adrift).
SET = "set"
REEFED = "reefed"
FURLED = "furled"


@dataclass(frozen=True)
class Course:
    """What a scenario fixes for the whole game."""

    title: str
    kind: str  # RACE or CHASE
    grid: str
    inches_per_cell: int = 3
    combat: bool = False  # naval-combat turns: two half moves
    finish: tuple[Cell, ...] = ()  # race: the finish line's cells
    catch_within: int = 3  # chase: inches between chaser and quarry that make a catch
    escape_after: int = 0  # chase: the quarry escapes after this many turns
    turn_limit: int = 0  # race: 0 = no limit

    @property
    def board(self) -> Grid:
        return find_grid(self.grid)


@dataclass
class Wind:
    direction: int  # the point the wind blows FROM
    speed: int  # the overall Wind Speed
    note: str = ""  # how this turn's wind came about, for the report


@dataclass
class Ship:
    name: str
    seat: str
    kind: str  # a ShipType key
    cell: Cell
    heading: int
    masts: int
    progress: Fraction = Fraction(0)  # inches sailed towards the next cell ...
    progress_way: int = 0  # ... along this point (0: none yet); see moves.py
    strain: int = 0
    speed_loss: int = 0  # inches, from the Strain table ("ongoing")
    crew: int = 100  # per cent of the active crew
    rig: str = SET
    anchored: bool = False
    maneuver: str = ""  # in progress: unreef, set-sail, anchor or weigh
    maneuver_left: int = 0  # game turns until it is done
    sinks_after: int | None = None  # the last turn she stays afloat
    sunk: bool = False
    role: str = ""  # chase: CHASER or QUARRY
    # This turn only (reset when a turn opens):
    luck: int = 0  # her own Wind Speed change from the Luck Roll
    turned: int = 0  # heading changes made (naval combat: a second one marks Strain)
    second: int = 0  # naval combat: the change ordered ahead for the second half move
    strain_start: int = 0  # her Strain when the turn opened (for the recovery rule)

    @property
    def afloat(self) -> bool:
        return not self.sunk


@dataclass
class State:
    scenario: str
    seats: tuple[str, ...]
    course: Course
    rules: Rules
    turn: int
    wind: Wind
    ships: list[Ship] = field(default_factory=list)
    finished: bool = False
    result: str = ""
    winners: tuple[str, ...] = ()
    #: naval combat: the open part of the turn (COMBAT_PHASES); "" in racing turns
    phase: str = ""
    #: naval combat: this turn's sides, highest initiative first
    initiative: tuple[str, ...] = ()

    @property
    def grid(self) -> Grid:
        return self.course.board

    def ship(self, name: str) -> Ship:
        for ship in self.ships:
            if ship.name == name:
                return ship
        raise GameError(f"no ship called {name!r}")

    def ship_type(self, ship: Ship) -> ShipType:
        return self.rules.ship_type(ship.kind)

    def fleet(self, seat: str) -> list[Ship]:
        """The seat's ships still afloat."""
        return [ship for ship in self.ships if ship.seat == seat and ship.afloat]


def plain(value: Any) -> Any:
    """A deep copy made of dicts, lists and scalars only (what JSON can hold)."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _fraction(value: Any) -> Fraction:
    return Fraction(str(value))


def dump_ship(ship: Ship) -> dict[str, Any]:
    return {
        "name": ship.name,
        "seat": ship.seat,
        "kind": ship.kind,
        "cell": list(ship.cell),
        "heading": ship.heading,
        "masts": ship.masts,
        "progress": str(ship.progress),
        "progress_way": ship.progress_way,
        "strain": ship.strain,
        "speed_loss": ship.speed_loss,
        "crew": ship.crew,
        "rig": ship.rig,
        "anchored": ship.anchored,
        "maneuver": ship.maneuver,
        "maneuver_left": ship.maneuver_left,
        "sinks_after": ship.sinks_after,
        "sunk": ship.sunk,
        "role": ship.role,
        "luck": ship.luck,
        "turned": ship.turned,
        "second": ship.second,
        "strain_start": ship.strain_start,
    }


def load_ship(data: Mapping[str, Any]) -> Ship:
    x, y = data["cell"]
    sinks_after = data.get("sinks_after")
    return Ship(
        name=str(data["name"]),
        seat=str(data["seat"]),
        kind=str(data["kind"]),
        cell=(int(x), int(y)),
        heading=int(data["heading"]),
        masts=int(data["masts"]),
        progress=_fraction(data.get("progress", 0)),
        # A state saved before progress had a direction: count it along her heading.
        progress_way=int(data.get("progress_way", data["heading"])),
        strain=int(data.get("strain", 0)),
        speed_loss=int(data.get("speed_loss", 0)),
        crew=int(data.get("crew", 100)),
        rig=str(data.get("rig", SET)),
        anchored=bool(data.get("anchored", False)),
        maneuver=str(data.get("maneuver", "")),
        maneuver_left=int(data.get("maneuver_left", 0)),
        sinks_after=None if sinks_after is None else int(sinks_after),
        sunk=bool(data.get("sunk", False)),
        role=str(data.get("role", "")),
        luck=int(data.get("luck", 0)),
        turned=int(data.get("turned", 0)),
        second=int(data.get("second", 0)),
        strain_start=int(data.get("strain_start", 0)),
    )


def dump_course(course: Course) -> dict[str, Any]:
    return {
        "title": course.title,
        "kind": course.kind,
        "grid": course.grid,
        "inches_per_cell": course.inches_per_cell,
        "combat": course.combat,
        "finish": [list(cell) for cell in course.finish],
        "catch_within": course.catch_within,
        "escape_after": course.escape_after,
        "turn_limit": course.turn_limit,
    }


def load_course(data: Mapping[str, Any]) -> Course:
    return Course(
        title=str(data["title"]),
        kind=str(data["kind"]),
        grid=str(data["grid"]),
        inches_per_cell=int(data["inches_per_cell"]),
        combat=bool(data["combat"]),
        finish=tuple((int(x), int(y)) for x, y in data["finish"]),
        catch_within=int(data["catch_within"]),
        escape_after=int(data["escape_after"]),
        turn_limit=int(data["turn_limit"]),
    )


def dump_state(state: State) -> dict[str, Any]:
    """A JSON-serialisable dict; :func:`load_state` reverses it exactly."""
    return {
        "version": 1,
        "scenario": state.scenario,
        "seats": list(state.seats),
        "course": dump_course(state.course),
        "rules": plain(state.rules.raw),
        "turn": state.turn,
        "wind": {"direction": state.wind.direction, "speed": state.wind.speed, "note": state.wind.note},
        "ships": [dump_ship(ship) for ship in state.ships],
        "finished": state.finished,
        "result": state.result,
        "winners": list(state.winners),
        "phase": state.phase,
        "initiative": list(state.initiative),
    }


def load_state(data: Mapping[str, Any]) -> State:
    if data.get("version") != 1:
        raise GameError(f"Salt'n'Tar state version {data.get('version')!r} is not supported")
    wind = data["wind"]
    return State(
        scenario=str(data["scenario"]),
        seats=tuple(str(seat) for seat in data["seats"]),
        course=load_course(data["course"]),
        rules=Rules.from_data(data["rules"]["ships"], data["rules"]["tables"], data["rules"].get("defaults")),
        turn=int(data["turn"]),
        wind=Wind(int(wind["direction"]), int(wind["speed"]), str(wind.get("note", ""))),
        ships=[load_ship(ship) for ship in data["ships"]],
        finished=bool(data["finished"]),
        result=str(data["result"]),
        winners=tuple(str(seat) for seat in data["winners"]),
        phase=str(data.get("phase", "")),
        initiative=tuple(str(seat) for seat in data.get("initiative", ())),
    )
