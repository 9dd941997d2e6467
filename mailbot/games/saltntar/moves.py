# SPDX-License-Identifier: GPL-3.0-or-later
"""Step 4 of the game turn: every ship moves, possibly changing direction.

Grid movement, where the seed (written for open tables) is silent: a ship
moves ``speed`` inches along its direction of travel; every
``inches_per_cell`` inches take her one cell on, and what is left over is
carried to the next turn as inches *along that direction* (``progress_way``),
a design default (``data/defaults.toml``, ``progress``) that keeps the grid
true to the tabletop: inches are ground made one way. Moving the opposite way
first takes those inches off (the seed's Luffing/Backing BN is "(backwards)",
and a drift downwind is the same: backwards and drift *subtract*), and only
what is left goes on; moving any other way starts afresh at 0 (an earlier
heading's inches never count toward a new heading). So 1'' backwards then
2 1/2'' forwards is 1 1/2'' forwards, no cell; 4'' backwards (one cell and
1'') then 5'' the other way is one cell back and 1'' on, not 6''.
Ships move simultaneously: each cell entry gets
a time within the turn (0 < t <= 1, the share of her move done), so who
crossed the finish line first, or whether a chaser closed in mid-move, is
decided by time, not by the order ships are listed. Ships may share a cell:
collisions and ramming belong to the combat system (seed 001, step 8).

Turning (seed 001): "ships may normally change direction by one point per
turn. Changing direction by two points per turn is dangerous and causes
Strain." The change is made before the move. In naval-combat turns each half
move may change one point, and "Any ship that does a second change of
direction must mark 1 Strain!" Strain so marked is rolled for next turn,
because this turn's Strain Rolls (step 3) come before the move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from mailbot.core.game import Event
from mailbot.games.saltntar.geometry import Cell
from mailbot.games.saltntar.movement import Motion, forced_heading, inches, motion
from mailbot.games.saltntar.state import CHASER, QUARRY, Ship, State


@dataclass
class Track:
    """A ship's cells this turn: ``stops`` are (time, cell entered), in time order."""

    ship: str
    start: Cell
    stops: list[tuple[Fraction, Cell]] = field(default_factory=list)

    def at(self, time: Fraction) -> Cell:
        cell = self.start
        for when, entered in self.stops:
            if when > time:
                break
            cell = entered
        return cell


@dataclass(frozen=True)
class Leg:
    """One (half) move: the heading change before it, when it starts and its share of the turn."""

    change: int
    start: Fraction
    share: Fraction


def carried(state: State, ship: Ship, direction: int) -> Fraction:
    """The inches she has made towards the next cell along ``direction``: her own inches
    if she made them this way, minus them if she made them the opposite way (they are
    taken off first), 0 if she made them any other way (see the module docstring)."""
    if not ship.progress or ship.progress_way == direction:
        return ship.progress
    if ship.progress_way == state.grid.opposite(direction):
        return -ship.progress
    return Fraction(0)


def _advance(state: State, ship: Ship, way: Motion, leg: Leg, track: Track) -> tuple[int, str]:
    """Sail the leg's share of the turn's speed, logging the time of each cell entered.

    Returns the cells entered and how the inches carried over were counted."""
    distance = way.speed * leg.share
    if not distance:
        return 0, ""
    per_cell = state.course.inches_per_cell
    before, cells = carried(state, ship, way.direction), 0
    note = _carried_note(state, ship, way.direction, before)
    total = before + distance
    while total >= per_cell:
        total -= per_cell
        cells += 1
        ship.cell = state.grid.step(ship.cell, way.direction)
        done = (cells * per_cell - before) / distance
        track.stops.append((leg.start + done * leg.share, ship.cell))
    if total < 0:  # still short of undoing the inches made the other way
        ship.progress = -total
    else:
        ship.progress, ship.progress_way = total, (way.direction if total else 0)
    return cells, note


def _carried_note(state: State, ship: Ship, direction: int, before: Fraction) -> str:
    if not ship.progress or before > 0:
        return ""
    made = f"{inches(ship.progress)}'' made {state.grid.short(ship.progress_way)}"
    why = state.rules.cite("progress")
    if before < 0:
        return f"the {made} come off first ({why})"
    return f"the {made} do not count {state.grid.short(direction)} ({why})"


def _diagonal(state: State, direction: int) -> str:
    """Square grids only: a diagonal cell costs as much as a straight one (a design default)."""
    dx, dy = state.grid.steps[direction - 1]
    return f" ({state.rules.cite('diagonal')})" if not state.grid.hexagonal and dx and dy else ""


def _steer(state: State, ship: Ship, change: int, ws: int) -> tuple[str, int]:
    """Apply one heading change; returns what happened and the change actually made."""
    forced = forced_heading(state, ship, ws)
    if forced is not None:
        lapsed = f" (turn {change:+d} lapses)" if change else ""
        was, ship.heading = ship.heading, forced
        return (f"swung downwind{lapsed}; " if was != forced or change else ""), 0
    if change == 0 or ship.anchored:
        return "", 0
    ship.heading = state.grid.rotate(ship.heading, change)
    return f"turns {change:+d} to {state.grid.short(ship.heading)}; ", change


def _part(state: State, ship: Ship, ws: int, leg: Leg, track: Track) -> tuple[str, int, Motion]:
    """One (half) move: steer, then sail."""
    steering, made = _steer(state, ship, leg.change, ws)
    way = motion(state, ship, ws)
    cells, carried_note = _advance(state, ship, way, leg, track)
    where = f"{cells} cell(s) {state.grid.short(way.direction)}" if cells else "no full cell"
    where += _diagonal(state, way.direction) if cells else ""
    where = f"{carried_note}; {where}" if carried_note else where
    return f"{steering}{way.why}; {where}", made, way


def _move_text(state: State, ship: Ship, notes: Sequence[str], turning_strain: bool) -> str:
    halves = ("first half: ", "second half: ") if len(notes) == 2 else ("",)
    text = "; ".join(f"{half}{note}" for half, note in zip(halves, notes, strict=True))
    if turning_strain:
        text += f"; two points of turning: mark 1 Strain ({state.rules.cite('strain_next_turn')})"
    text = f"{ship.name}: {text}. Now at {ship.cell}, heading {state.grid.short(ship.heading)}"
    return text + _progress_text(state, ship)


def _progress_text(state: State, ship: Ship) -> str:
    if not ship.progress:
        return "."
    return f", {inches(ship.progress)}'' towards the next cell {state.grid.short(ship.progress_way)}."


def move_ship(state: State, ship: Ship, changes: Sequence[int], ws: int) -> tuple[Track, Event]:
    """Move one ship a whole turn (two half moves in naval-combat turns)."""
    parts = 2 if state.course.combat else 1
    share = Fraction(1, parts)
    track = Track(ship.name, ship.cell)
    legs = [
        _part(state, ship, ws, Leg(change, index * share, share), track)
        for index, change in enumerate((*changes, 0, 0)[:parts])
    ]
    turning_strain = sum(abs(turned) for _, turned, _ in legs) >= 2
    strain = max(way.strain for _, _, way in legs) + int(turning_strain)
    ship.strain += strain
    ways = [{"mode": way.mode, "speed": str(way.speed), "direction": way.direction} for _, _, way in legs]
    data = {"ship": ship.name, "cell": list(ship.cell), "heading": ship.heading, "strain_marked": strain}
    text = _move_text(state, ship, [note for note, _, _ in legs], turning_strain)
    return track, Event("move", text, data=data | {"ways": ways})


def move_half(state: State, ship: Ship, change: int, ws: int, half: int) -> tuple[Track, Event]:
    """One half move of a naval-combat turn (``half`` 0 or 1), one point of turning at most.

    "Any ship that does a second change of direction must mark 1 Strain!" A
    gale's Strain ("mark 1 Strain every round") is marked once a turn, in the
    first half.
    """
    share = Fraction(1, 2)
    track = Track(ship.name, ship.cell)
    note, made, way = _part(state, ship, ws, Leg(change, half * share, share), track)
    second_change = bool(made) and ship.turned > 0
    ship.turned += int(bool(made))
    strain = (way.strain if half == 0 else 0) + int(second_change)
    ship.strain += strain
    text = f"{('first', 'second')[half]} half: {note}"
    if second_change:
        text += f"; a second change of direction: mark 1 Strain ({state.rules.cite('strain_next_turn')})"
    text = f"{ship.name}: {text}. Now at {ship.cell}, heading {state.grid.short(ship.heading)}"
    text += _progress_text(state, ship)
    ways = [{"mode": way.mode, "speed": str(way.speed), "direction": way.direction}]
    data = {"ship": ship.name, "cell": list(ship.cell), "heading": ship.heading, "strain_marked": strain}
    return track, Event("move", text, data=data | {"ways": ways, "half": half + 1})


def move_all(
    state: State, turns: Mapping[str, Sequence[int]], winds: Mapping[str, int]
) -> tuple[list[Track], list[Event]]:
    """Move every ship afloat; ``winds`` is each ship's Wind Speed this turn."""
    tracks, events = [], []
    for ship in state.ships:
        if ship.afloat:
            track, event = move_ship(state, ship, turns.get(ship.name, ()), winds[ship.name])
            tracks.append(track)
            events.append(event)
    return tracks, events


def finish_times(state: State, tracks: Sequence[Track]) -> dict[str, Fraction]:
    """When in the turn each ship first entered a finish-line cell."""
    line = set(state.course.finish)
    times = {}
    for track in tracks:
        crossed = [when for when, cell in track.stops if cell in line]
        if crossed:
            times[track.ship] = crossed[0]
    return times


def _pair_within(
    state: State, when: Fraction, chasers: list[Track], quarries: list[Track]
) -> tuple[str, str] | None:
    reach, per_cell = state.course.catch_within, state.course.inches_per_cell
    for chaser in chasers:
        for quarry in quarries:
            if state.grid.distance(chaser.at(when), quarry.at(when)) * per_cell <= reach:
                return chaser.ship, quarry.ship
    return None


def first_catch(state: State, tracks: Sequence[Track]) -> tuple[Fraction, str, str] | None:
    """The earliest moment in the turn a chaser is within ``catch_within`` inches of a quarry."""
    chasers = [track for track in tracks if state.ship(track.ship).role == CHASER]
    quarries = [track for track in tracks if state.ship(track.ship).role == QUARRY]
    moments = sorted({Fraction(0)} | {when for track in tracks for when, _ in track.stops})
    for when in moments:
        pair = _pair_within(state, when, chasers, quarries)
        if pair is not None:
            return when, pair[0], pair[1]
    return None
