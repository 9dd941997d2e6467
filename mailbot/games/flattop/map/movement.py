# SPDX-License-Identifier: GPL-3.0-or-later
"""Task force movement and plane movement primitives (standard 12 and 14).

Task forces move hex by hex along plotted paths. A plot holds one leg per
turn, so a player may plot several turns ahead (``flattop.md``: "TF plots
(may cover several future turns)"); each turn the first leg is executed and
dropped. A TF moves at its slowest ship's MF (reference A.5.1), slowed by
damage (A.12), stopped by storms (A.4) and by land, reef and the board edge.

For planes this module gives the primitives others build on: the MP cost of
each step of an e-mailed path (1 MP a hex, 1 MP to linger for another search
roll, seed 003, 7.3; "Going from low to high altitude costs one extra MP in
the hex in which it occurs", seed 003, 14.11), the movement allowance by
launch type, and the range (landing deadline). Costs come from
``mailbot/games/flattop/data/tables/movement.toml`` (:func:`movement_rules`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mailbot.games.flattop.combat import damage
from mailbot.games.flattop.combat.bht import armed_mf_penalty
from mailbot.games.flattop.map.hexes import Direction, Hex, direction, distance, hex_id
from mailbot.games.flattop.map.scenario import GameTime, Scenario
from mailbot.games.flattop.tabledata import by_name, parsed
from mailbot.games.flattop.units import AirFormation, Altitude, Fact, PlaneType, Ship, TaskForce
from mailbot.games.flattop.units import LaunchType as Launch

_LAUNCH_DEFAULT = {Launch.MINIMUM: "full", Launch.NORMAL: "half_up", Launch.MAXIMUM: "none"}


@dataclass(frozen=True)
class MovementRules:
    """``movement.toml``; see that file for sources and defaults."""

    tf_hex_cost: int = 1
    slow_at_damage_fraction: float = 0.5
    storm_start_stops: bool = True
    storm_entry_stops: bool = True
    slow_moves_on: str = "even_hour"  # or "odd_hour"
    anchored_holds: bool = True
    cut_short_cancels_plot: bool = True
    plane_hex_cost: int = 1
    linger_cost: int = 1
    climb_cost: int = 1
    descend_cost: int = 0
    launch_allowance: Mapping[Launch, str] = field(default_factory=lambda: dict(_LAUNCH_DEFAULT))
    mountain_needs_high: bool = True
    storm_entry_allowed: bool = False
    armed_climb_on_takeoff: bool = False


def movement_rules(table: Mapping[str, Any]) -> MovementRules:
    """Parse ``movement.toml``; a malformed table is a GameError (it ships with the code)."""
    return parsed("movement.toml", _read, table)


def _read(table: Mapping[str, Any]) -> MovementRules:
    tfs, rulings, planes = table["task_forces"], table["task_forces"]["rulings"], table["planes"]
    return by_name(
        MovementRules,
        tfs,
        rulings,
        planes,
        tf_hex_cost=int(tfs["hex_cost"]),
        plane_hex_cost=int(planes["hex_cost"]),
        launch_allowance={kind: str(planes[f"launch_{kind.value}"]) for kind in Launch},
    )


# --- task forces ------------------------------------------------------------------


@dataclass(frozen=True)
class Speed:
    """Hexes a turn; ``alternate``: one hex every other turn (a slowed MF 1 ship, reference A.12)."""

    hexes: int
    alternate: bool = False


def ship_speed(ship: Ship, rules: MovementRules, *, turn: int = 0) -> Speed:
    """Hexes a turn from ``combat.damage.speed`` (reference A.12; seed 003, 21.3, 21.8.1): crippled,
    sinking and doubly restricted ships stop; at half damage (torpedo hits counting two) or under a
    critical hit's half speed the MF is halved. ``turn`` is the state's turn number; the default 0
    precedes every turn, so it sees the lasting damage only, never a critical hit's one-turn slowing.
    """
    pace = damage.speed(ship, turn, slow_at=rules.slow_at_damage_fraction)
    if pace is damage.Speed.STOPPED:
        return Speed(0)
    if pace is damage.Speed.HALF:
        return Speed(1, alternate=True) if ship.movement == 1 else Speed(ship.movement // 2)
    return Speed(ship.movement)


def tf_allowance(tf: TaskForce, time: GameTime, rules: MovementRules, *, turn: int = 0) -> int:
    """Hexes the TF may move this turn: its slowest ship's (reference A.5.1), before weather.
    ``turn``: the game turn of ``time`` (a critical hit's one-turn half speed, seed 003 21.8.1)."""
    if rules.anchored_holds and any(s.anchored for s in tf.afloat):
        return 0
    speeds = [ship_speed(s, rules, turn=turn) for s in tf.afloat]
    if not speeds:
        return 0
    slowest = min(speeds, key=lambda s: (s.hexes, s.alternate))
    if slowest.alternate:
        even = time.hour % 2 == 0
        return 1 if even == (rules.slow_moves_on == "even_hour") else 0
    return slowest.hexes


def _slowed_by(tf: TaskForce, rules: MovementRules, turn: int) -> str:
    """Why the TF is slower than its ships' MF: the first ship her damage slows or stops, or its
    anchor ("" when nothing slows it)."""
    if rules.anchored_holds and any(s.anchored for s in tf.afloat):
        return " (it is anchored)"
    for ship in tf.afloat:
        pace = damage.speed(ship, turn, slow_at=rules.slow_at_damage_fraction)
        if pace is not damage.Speed.FULL:
            word = "at half speed" if pace is damage.Speed.HALF else "dead in the water"
            return f" ({ship.name} is {word} from her damage, {ship.hits}/{ship.damage} hits: reference A.12)"
    return ""


def step_problem(scenario: Scenario, here: Hex, there: Hex) -> str | None:
    """Why a ship may not go from ``here`` to ``there`` (standard 12.5), or None."""
    name = scenario.map.hex_id
    if distance(here, there) != 1:
        return f"{name(there)} is not next to {name(here)}"
    if scenario.map.on_board(there) and not scenario.map.ships_may_enter(there):
        return f"{name(there)} is all land"
    side = scenario.hexside(here, there)
    if side in ("land", "reef"):
        return f"a {side} hexside lies between {name(here)} and {name(there)}"
    return None


def check_plot(
    tf: TaskForce,
    legs: Sequence[Sequence[Hex]],
    scenario: Scenario,
    time: GameTime,
    rules: MovementRules,
    *,
    turn: int = 0,
) -> list[str]:
    """Problems with a plot starting this turn (``turn``, at ``time``; one leg per turn); storms
    are not foreseen."""
    problems, here = [], tf.hex
    for ahead, leg in enumerate(legs):
        when = time.plus(ahead)
        allowance = tf_allowance(tf, when, rules, turn=turn + ahead if turn else 0)
        if len(leg) * rules.tf_hex_cost > allowance:
            slowed = _slowed_by(tf, rules, turn + ahead if turn else 0)
            problems.append(
                f"{when.label}: {len(leg)} hexes plotted, TF {tf.number} may move {allowance}{slowed}"
            )
        for there in leg:
            if not scenario.map.on_board(here):
                problems.append(f"{when.label}: the plot goes on after leaving the board")
                break
            why = step_problem(scenario, here, there)
            if why:
                problems.append(f"{when.label}: {why}")
                break
            here = there
    return problems


@dataclass(frozen=True)
class TfMove:
    """What one TF did in the TF Movement Phase: every hex it passed, in order."""

    side: str
    number: int
    path: tuple[Hex, ...]  # starting hex first
    stopped: str = ""  # why it stopped short of its plot, if it did
    left_board: bool = False  # it left the map and the game (reference A.5.1)

    @property
    def end(self) -> Hex:
        return self.path[-1]


def move_task_force(
    tf: TaskForce,
    scenario: Scenario,
    time: GameTime,
    rules: MovementRules,
    storms: Collection[Hex] = (),
    *,
    turn: int = 0,
) -> tuple[TaskForce, TfMove]:
    """Execute this turn's leg of ``tf.plot``; the TF keeps the later legs unless cut short."""
    leg, later = (tf.plot[0], tf.plot[1:]) if tf.plot else ((), ())
    allowance = tf_allowance(tf, time, rules, turn=turn)
    if rules.storm_start_stops and tf.hex in storms:
        allowance = 0  # standard 6.8: a TF that starts in a storm has MF 0
    hexes = allowance // rules.tf_hex_cost
    path, stopped = _walk_leg(tf.hex, leg, hexes, scenario=scenario, rules=rules, storms=storms)
    left = not scenario.map.on_board(path[-1])
    if stopped and rules.cut_short_cancels_plot:
        later = ()
    move = TfMove(tf.side.value, tf.number, tuple(path), stopped, left)
    return replace(tf, hex=path[-1], plot=later), move


def _walk_leg(
    start: Hex,
    leg: Sequence[Hex],
    hexes: int,
    *,
    scenario: Scenario,
    rules: MovementRules,
    storms: Collection[Hex],
) -> tuple[list[Hex], str]:
    path = [start]
    for index, there in enumerate(leg):
        if index >= hexes:
            return path, "not enough movement"
        why = step_problem(scenario, path[-1], there)
        if why:
            return path, why
        path.append(there)
        if not scenario.map.on_board(there):
            return path, ""  # off the map: gone for good
        if rules.storm_entry_stops and there in storms and index + 1 < len(leg):
            return path, f"entered a storm at {scenario.map.hex_id(there)}"  # standard 6.8
    return path, ""


def move_task_forces(
    tfs: Iterable[TaskForce],
    scenario: Scenario,
    time: GameTime,
    rules: MovementRules,
    storms: Collection[Hex] = (),
    *,
    turn: int = 0,
) -> tuple[tuple[TaskForce, ...], tuple[TfMove, ...], tuple[Fact, ...]]:
    """All TFs move at once (standard 5, phase 5); TFs that left the board are dropped."""
    moved = [move_task_force(tf, scenario, time, rules, storms, turn=turn) for tf in tfs]
    facts = tuple(_move_fact(scenario, m) for _, m in moved if len(m.path) > 1 or m.stopped)
    kept = tuple(tf for tf, m in moved if not m.left_board)
    return kept, tuple(m for _, m in moved), facts


def _move_fact(scenario: Scenario, move: TfMove) -> Fact:
    route = " ".join(hex_id(h, scenario.map.layout) for h in move.path)
    note = f"; stopped: {move.stopped}" if move.stopped else ""
    note += "; left the board" if move.left_board else ""
    text = f"{move.side} TF {move.number}: {route}{note}"
    data = {"side": move.side, "tf": move.number, "path": [h.as_list() for h in move.path]}
    return Fact("tf-moved", text, {**data, "stopped": move.stopped, "left_board": move.left_board})


def moved_into_wind(move: TfMove, wind: Direction) -> bool:
    """Standard 6.10: did the TF move at least one hex into the wind this turn?

    The wind marker points where the clouds drift, so "into the wind" is the opposite direction.
    """
    steps = zip(move.path, move.path[1:], strict=False)
    return any(_step_direction(a, b) is wind.opposite for a, b in steps)


def _step_direction(a: Hex, b: Hex) -> Direction | None:
    return direction(a, b) if distance(a, b) == 1 else None


# --- planes -----------------------------------------------------------------------


def formation_movement(af: AirFormation, planes: Mapping[str, PlaneType]) -> int:
    """An AF moves at its slowest plane's MF (standard 14.4); seed 003, 16.10.4: the armed fighter
    types (standard 16.10's list) "have their MF reduced by 1 when armed"."""
    return min(
        planes[stack.plane].movement - (armed_mf_penalty(stack.plane) if stack.armament is not None else 0)
        for stack in af.stacks
    )


def af_movement(af: AirFormation, planes: Mapping[str, PlaneType], rules: MovementRules, turn: int) -> int:
    """The AF's MP this turn: its MF, cut by its launch type on the take-off turn (standard 14.8)."""
    mf = formation_movement(af, planes)
    return launch_movement(mf, af.launch, rules) if af.takeoff_turn == turn else mf


def launch_movement(mf: int, launch: Launch, rules: MovementRules) -> int:
    """Standard 14.8: minimum launch -> full MF, normal -> half rounded up, maximum -> none."""
    how = (rules.launch_allowance or {}).get(
        launch, {"minimum": "full", "normal": "half_up"}.get(launch, "none")
    )
    return {"full": mf, "half_up": math.ceil(mf / 2), "none": 0}[how]


def must_land_by(takeoff: GameTime, plane_range: int, rf_spent: int = 0) -> GameTime:
    """Standard 8.5.5: count RF turns from the take-off turn, counting it (P-40, RF 5, 0800 -> 1200).

    Combat may spend RF (standard 15.6): each spent RF brings the deadline a turn earlier.
    """
    return takeoff.plus(plane_range - 1 - rf_spent)


def range_left(af: AirFormation, planes: Mapping[str, PlaneType], start: GameTime, now: GameTime) -> int:
    """Turns the AF may still fly, counting this one; 0 or less means it should have landed.

    ``start`` is the scenario's first turn: ``af.takeoff_turn`` counts turns from it (turn 1 = start).
    """
    takeoff = start.plus(af.takeoff_turn - 1)
    deadline = min(must_land_by(takeoff, planes[s.plane].range, af.rf_spent) for s in af.stacks)
    return deadline.turns_since(now) + 1


@dataclass(frozen=True)
class PlaneStep:
    """One step of an ordered path: the hex (the same hex = stay) and the altitude there."""

    hex: Hex
    altitude: Altitude


@dataclass(frozen=True)
class PlaneLeg:
    """A step as flown: its MP cost; ``lingered``: spent an extra MP in the hex (seed 003, 7.3)."""

    hex: Hex
    altitude: Altitude
    cost: int
    climbed: bool = False
    lingered: bool = False


@dataclass(frozen=True)
class PlanePath:
    """The legs flown, MP spent, and why the path stopped early (empty if it did not)."""

    start: Hex
    legs: tuple[PlaneLeg, ...]
    spent: int
    problem: str = ""

    def spent_in(self, h: Hex) -> int:
        """MP spent in a hex after entering it: lingering and climbing (extra search rolls, 7.3)."""
        return sum(leg.cost for leg in self.legs if leg.hex == h and (leg.lingered or leg.climbed))


@dataclass(frozen=True)
class _Flight:
    scenario: Scenario
    rules: MovementRules
    storms: Collection[Hex]
    no_armed_climb: bool


def plane_path(
    start: Hex,
    altitude: Altitude,
    steps: Sequence[PlaneStep],
    mp: int,
    *,
    scenario: Scenario,
    rules: MovementRules,
    storms: Collection[Hex] = (),
    armed_takeoff: bool = False,
) -> PlanePath:
    """Fly ``steps`` from ``start`` with ``mp`` MP; stops at the first step the rules forbid.

    ``armed_takeoff``: armed planes on their take-off turn, which may not climb to High (14.15).
    """
    flight = _Flight(scenario, rules, storms, armed_takeoff and not rules.armed_climb_on_takeoff)
    legs: list[PlaneLeg] = []
    here, spent = start, 0
    for order in steps:
        leg, problem = _fly_step(flight, here, altitude, order)
        if not problem and spent + leg.cost > mp:
            problem = f"not enough MP to reach {scenario.map.hex_id(order.hex)} ({mp} MP)"
        if problem:
            return PlanePath(start, tuple(legs), spent, problem)
        legs.append(leg)
        here, altitude, spent = leg.hex, leg.altitude, spent + leg.cost
        if not scenario.map.on_board(here) and order is not steps[-1]:
            return PlanePath(start, tuple(legs), spent, "the path goes on after leaving the board")
    return PlanePath(start, tuple(legs), spent)


def _fly_step(flight: _Flight, here: Hex, altitude: Altitude, order: PlaneStep) -> tuple[PlaneLeg, str]:
    rules, name = flight.rules, flight.scenario.map.hex_id
    moved = order.hex != here
    climbed = altitude is Altitude.LOW and order.altitude is Altitude.HIGH
    descended = altitude is Altitude.HIGH and order.altitude is Altitude.LOW
    lingered = not moved and not climbed and not descended
    cost = (rules.plane_hex_cost if moved else 0) + (rules.linger_cost if lingered else 0)
    cost += rules.climb_cost if climbed else rules.descend_cost if descended else 0
    leg = PlaneLeg(order.hex, order.altitude, cost, climbed, lingered)
    if moved and distance(here, order.hex) != 1:
        return leg, f"{name(order.hex)} is not next to {name(here)}"
    if moved and order.hex in flight.storms and not rules.storm_entry_allowed:
        return leg, f"{name(order.hex)} is a storm hex (standard 6.6)"
    mountain = flight.scenario.hexside(here, order.hex) == "mountain"
    if moved and mountain and rules.mountain_needs_high and altitude is not Altitude.HIGH:
        return leg, f"crossing the mountains into {name(order.hex)} needs High altitude (standard 14.15.5)"
    if climbed and flight.no_armed_climb:
        return leg, "armed planes may not climb to High on their take-off turn (standard 14.15)"
    return leg, ""
