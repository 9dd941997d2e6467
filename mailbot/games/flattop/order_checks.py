# SPDX-License-Identifier: GPL-3.0-or-later
"""Checking orders against what the ordering side itself knows, and nothing more.

:class:`Own` is built from the side's own units, its own knowledge and the
public board (map, clouds, the clock). Because the checks see nothing else,
a refusal cannot depend on an enemy fact: "you have no TF3" reads the same
whether or not the enemy has a TF3 (design/flattop.md: reports come from the
side's knowledge only; orders are answered the same way).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from mailbot.core.game import ProblemKind
from mailbot.games.flattop import movement
from mailbot.games.flattop.hexes import Hex, distance
from mailbot.games.flattop.knowledge import SHIPS, Knowledge
from mailbot.games.flattop.movement import MovementRules, PlaneStep, formation_movement
from mailbot.games.flattop.order_types import FtOrder, Land, Launch, Plot, Ready, Search, SetDeception, Shadow
from mailbot.games.flattop.scenario import GameTime, Scenario
from mailbot.games.flattop.search import Action, Leg
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Altitude,
    Base,
    Handling,
    PlaneCategory,
    PlaneType,
    Side,
    TaskForce,
)

MAX_AF = 35  # standard 14: AFs are numbered 1-35 per side


class OrderError(Exception):
    def __init__(self, kind: ProblemKind, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


def illegal(reason: str) -> OrderError:
    return OrderError(ProblemKind.ILLEGAL, reason)


def place_key(name: str) -> str:
    return name.replace(" ", "-").upper()


def base_word(base: Base) -> str:
    """A base as orders write it: spaces become hyphens (``Port-Moresby``)."""
    return base.name.replace(" ", "-")


@dataclass
class Own:
    """One side's view for reading orders; the letter's running totals are kept here too."""

    side: Side
    scenario: Scenario
    rules: MovementRules
    planes: Mapping[str, PlaneType]
    tfs: Mapping[int, TaskForce]
    bases: Mapping[str, Base]  # by place_key
    air: Mapping[int, AirFormation]
    knowledge: Knowledge
    storms: frozenset[Hex]
    time: GameTime
    turn: int
    used: dict[tuple[str, str], int] = field(default_factory=dict)

    def hex(self, word: str) -> Hex:
        h = self.scenario.map.parse(word)
        if h is None:
            raise OrderError(ProblemKind.INVALID, f"{word!r} is not a hex on this map (e.g. V-F24)")
        return h

    def tf(self, number: int) -> TaskForce:
        if number not in self.tfs:
            raise illegal(f"you have no task force TF{number}")
        return self.tfs[number]

    def aloft(self, number: int) -> AirFormation:
        af = self.air.get(number)
        if af is None:
            raise illegal(f"you have no AF{number} in the air")
        if af.hex is None:
            raise illegal(f"AF{number} is off the map")
        return af

    def place(self, word: str) -> tuple[str, Hex, AirBoxes, TaskForce | Base]:
        """A base or TF of this side: its order name, hex, summed air boxes and the unit."""
        if word.startswith("TF") and word[2:].isdigit() and int(word[2:]) in self.tfs:
            tf = self.tfs[int(word[2:])]
            return f"TF{tf.number}", tf.hex, sum_boxes(s.boxes for s in tf.carriers), tf
        base = self.bases.get(place_key(word))
        if base is None:
            raise illegal(f"no base or task force of yours is called {word}")
        if base.hex is None:
            raise illegal(f"{base_word(base)} is off the board: its flights are not supported yet")
        return base_word(base), base.hex, base.boxes, base

    def plane(self, word: str) -> PlaneType:
        found = next((p for name, p in self.planes.items() if name.upper() == word.upper()), None)
        if found is None or found.side is not self.side:
            raise illegal(f"{word!r} is not a plane type of your side")
        return found

    def claim(self, order: FtOrder, taken: dict[str, int], line: int) -> None:
        """One order per unit per letter; launches and readying within the letter's totals."""
        key = _unit_key(order)
        if key and key in taken:
            raise OrderError(ProblemKind.AMBIGUOUS, f"{key} already has an order on line {taken[key]}")
        budget = self._budget(order)
        for spend_key, (amount, limit, why) in budget.items():
            if self.used.get(spend_key, 0) + amount > limit:
                raise illegal(why)
        for spend_key, (amount, _, _) in budget.items():
            self.used[spend_key] = self.used.get(spend_key, 0) + amount
        if key:
            taken[key] = line

    def _budget(self, order: FtOrder) -> dict[tuple[str, str], tuple[int, int, str]]:
        if isinstance(order, Search) and order.launch is not None:
            name, _, boxes, unit = self.place(order.launch.place)
            n, plane = order.launch.count, order.launch.plane
            have, lf = count(boxes.ready, plane), launch_min(unit)
            return {
                (name, "launch"): (n, lf, f"{name} may launch {lf} air factors a turn (minimum launch)"),
                (name, f"ready {plane}"): (n, have, f"{name} has only {have} {plane} in its Ready box"),
            }
        if isinstance(order, Ready):
            name, _, boxes, unit = self.place(order.place)
            rf, have = readying_factor(unit), count(boxes.readying, order.plane)
            return {
                (name, "readying"): (order.count, rf, f"{name} may ready {rf} air factors a turn"),
                (name, f"readying {order.plane}"): (
                    order.count,
                    have,
                    f"{name} has only {have} {order.plane} in its Readying box",
                ),
            }
        return {}


def _unit_key(order: FtOrder) -> str:
    if isinstance(order, Plot):
        return f"TF{order.tf}"
    if isinstance(order, Search | Land | Shadow):
        return f"AF{order.af}"
    return "DECEPTION" if isinstance(order, SetDeception) else ""


def sum_boxes(boxes: Iterable[AirBoxes]) -> AirBoxes:
    total = AirBoxes()
    for b in boxes:
        total = AirBoxes(
            total.just_landed + b.just_landed,
            total.readying + b.readying,
            total.ready + b.ready,
            total.dispersed + b.dispersed,
        )
    return total


def count(stacks: tuple[AirFactors, ...], plane: str) -> int:
    return sum(s.count for s in stacks if s.plane == plane)


def launch_min(unit: TaskForce | Base) -> int:
    if isinstance(unit, Base):
        return unit.launch_min
    return sum(s.launch_min for s in unit.carriers)


def readying_factor(unit: TaskForce | Base) -> int:
    if isinstance(unit, Base):
        return unit.readying
    return sum(s.readying for s in unit.carriers)


_BASE_HANDLES = {
    Handling.LP: {PlaneCategory.LAND, PlaneCategory.CARRIER},
    Handling.SP: {PlaneCategory.SEA, PlaneCategory.FLOAT},
    Handling.BOTH: set(PlaneCategory),
}


def may_land(unit: TaskForce | Base, categories: set[PlaneCategory]) -> bool:
    """Standard 8.9: carriers take carrier planes; LP bases land and carrier planes, SP sea and float."""
    if isinstance(unit, Base):
        return categories <= _BASE_HANDLES[unit.handling]
    return bool(unit.carriers) and categories <= {PlaneCategory.CARRIER}


# --- the checks -------------------------------------------------------------------


def check_plot(own: Own, order: Plot) -> Plot:
    tf = own.tf(order.tf)
    problems = movement.check_plot(tf, order.legs, own.scenario, own.time, own.rules)
    if problems:
        raise illegal("; ".join(problems))
    return order


def check_launch(own: Own, af: int, launch: Launch) -> Launch:
    if not 1 <= af <= MAX_AF:
        raise illegal(f"AFs are numbered 1 to {MAX_AF}")
    if af in own.air:
        raise illegal(f"AF{af} is in the air already: leave out FROM to fly it on")
    name, _, boxes, _ = own.place(launch.place)
    plane = own.plane(launch.plane).name
    if count(boxes.ready, plane) < launch.count:
        raise illegal(f"{name} has only {count(boxes.ready, plane)} {plane} in its Ready box")
    return Launch(name, launch.count, plane)


def flight_start(own: Own, order: Search) -> tuple[Hex, Altitude, int, bool, set[PlaneCategory]]:
    """Start hex, altitude, MP, armed, plane categories of the AF a SEARCH flies."""
    if order.launch is None:
        af = own.aloft(order.af)
        assert af.hex is not None  # own.aloft refuses off-map AFs
        armed = any(s.armament is not None for s in af.stacks)
        categories = {own.planes[s.plane].category for s in af.stacks}
        return af.hex, af.stacks[0].altitude, formation_movement(af, own.planes), armed, categories
    _, h, boxes, _ = own.place(order.launch.place)
    plane = own.planes[order.launch.plane]
    armed = any(s.armament is not None for s in boxes.ready if s.plane == plane.name)
    return h, Altitude.LOW, plane.movement, armed, {plane.category}


def path_steps(start_altitude: Altitude, legs: tuple[Leg, ...]) -> list[PlaneStep]:
    """The legs as movement.py steps: a hex, then one step in place per extra MP (seed 003, 7.3)."""
    steps, altitude = [], start_altitude
    for leg in legs:
        altitude = leg.altitude or altitude
        steps.append(PlaneStep(leg.hex, altitude))
        steps.extend(PlaneStep(leg.hex, altitude) for _ in range(leg.extra))
    return steps


def check_flight(own: Own, order: Search) -> Search:
    start, altitude, mp, armed, categories = flight_start(own, order)
    flown = movement.plane_path(
        start, altitude, path_steps(altitude, order.legs), mp,
        scenario=own.scenario, rules=own.rules, storms=own.storms,
        armed_takeoff=armed and order.launch is not None,
    )  # fmt: skip
    if flown.problem:
        raise illegal(f"AF{order.af}: {flown.problem}")
    if any(not own.scenario.map.on_board(leg.hex) for leg in order.legs):
        raise illegal(f"AF{order.af}: the path leaves the board")
    if any(r.action is Action.ATTACK for r in order.reactions) and not armed:
        raise illegal(f"AF{order.af} carries no bombs or torpedoes: it cannot ATTACK")
    if order.join == order.af:
        raise illegal(f"AF{order.af} cannot join itself")
    if order.back is None:
        return order
    name, _, _, unit = own.place(order.back)
    if not may_land(unit, categories):
        raise illegal(f"AF{order.af} cannot land at {name} (standard 8.9)")
    return replace(order, back=name)


def check_land(own: Own, order: Land) -> Land:
    af = own.aloft(order.af)
    name, _, _, unit = own.place(order.place)
    if not may_land(unit, {own.planes[s.plane].category for s in af.stacks}):
        raise illegal(f"AF{order.af} cannot land at {name} (standard 8.9)")
    return Land(order.af, name)


def check_shadow(own: Own, order: Shadow) -> Shadow:
    af = own.aloft(order.af)
    hex_name = own.scenario.map.hex_id(order.hex)
    if not own.knowledge.saw(own.turn - 1, hex_name, SHIPS):
        raise illegal(f"you hold no ships contact in {hex_name} from last turn (seed 003, 11.2)")
    assert af.hex is not None
    if distance(af.hex, order.hex) > formation_movement(af, own.planes):
        raise illegal(f"{hex_name} is beyond AF{order.af}'s reach this turn")
    return order


def check_ready(own: Own, order: Ready) -> Ready:
    name, _, boxes, unit = own.place(order.place)
    plane = own.plane(order.plane).name
    if isinstance(unit, TaskForce) and not unit.carriers:
        raise illegal(f"{name} has no plane-carriers")
    if count(boxes.readying, plane) < order.count:
        raise illegal(f"{name} has only {count(boxes.readying, plane)} {plane} in its Readying box")
    return Ready(name, order.count, plane)
