# SPDX-License-Identifier: GPL-3.0-or-later
"""Air operations on the state: the box cycle, launching, landing and the range check.

Standard 8 and 14 as reference A.5.4 has them, in the order of 8.10: ``READY``
moves factors Readying -> Ready and arms them; launches take Ready factors
into new AFs in the base's or TF's hex (the launch type sets the take-off
turn's MP, 14.8); then Just Landed -> Readying with what is left of the
Readying Factor; last ``UNREADY`` (Ready -> Readying, disarmed). The orders
were kept within the LF and Readying Factor when they were read
(``orders.checks``). An AF that reaches its base or plane-carrying ship lands
in the Just Landed box (:mod:`landing` for the night and armed landing
rolls, 12.7.3 for float planes). An AF still aloft at the end of its last
turn of range is lost (8.5.5).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from mailbot.games.flattop.air.landing import Landing
from mailbot.games.flattop.map.hexes import Hex, line, neighbours
from mailbot.games.flattop.map.movement import PlanePath, PlaneStep, af_movement, plane_path, range_left
from mailbot.games.flattop.map.scenario import EntryHex
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.orders.checks import place_key
from mailbot.games.flattop.orders.decks import RULE_DECK, RULE_GROUNDED, deck_open, grounded, readying_factor
from mailbot.games.flattop.orders.types import Launch, Load, Ready, Unready, load_of
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Altitude,
    Base,
    PlaneCategory,
    Ship,
    Side,
    TaskForce,
)

BoxName = str  # "just_landed" | "readying" | "ready"


def take(
    stacks: tuple[AirFactors, ...], plane: str | None, n: int, load: Load | None = None
) -> tuple[tuple[AirFactors, ...], tuple[AirFactors, ...]]:
    """Remove ``n`` factors of ``plane`` (None: any) carrying ``load`` (None: any) from ``stacks``:
    (what is left, what was taken)."""
    left: list[AirFactors] = []
    taken: list[AirFactors] = []
    for stack in stacks:
        wanted = plane in (None, stack.plane) and load in (None, load_of(stack))
        k = min(n, stack.count) if wanted else 0
        n -= k
        if k:
            taken.append(replace(stack, count=k))
        if stack.count - k:
            left.append(replace(stack, count=stack.count - k))
    return tuple(left), tuple(taken)


def _moving(
    plane: str | None,
    n: int,
    boxes_: tuple[BoxName, BoxName],
    change: Callable[[AirFactors], AirFactors],
    load: Load | None = None,
) -> Callable[[AirBoxes], AirBoxes]:
    """A box update moving up to ``n`` factors (shared across a TF's ships) of ``load`` (None:
    any) between two boxes of the same ship or base, ``change`` applied to what moves."""
    source, target = boxes_
    moved = [0]

    def update(boxes: AirBoxes) -> AirBoxes:
        left, taken = take(getattr(boxes, source), plane, n - moved[0], load)
        moved[0] += sum(s.count for s in taken)
        target_box = (*getattr(boxes, target), *(change(s) for s in taken))
        return replace(boxes, **{source: left, target: target_box})

    return update


def _taking(
    stacks_out: list[AirFactors], plane: str, n: int, source: BoxName, load: Load | None = None
) -> Callable[[AirBoxes], AirBoxes]:
    """A box update that removes up to ``n`` (shared across a TF's ships) into ``stacks_out``."""

    def update(boxes: AirBoxes) -> AirBoxes:
        wanted = n - sum(s.count for s in stacks_out)
        left, taken = take(getattr(boxes, source), plane, wanted, load)
        stacks_out.extend(taken)
        return replace(boxes, **{source: left})

    return update


def _update_place(
    state: FlatTopState,
    side: Side,
    place: str,
    update: Callable[[AirBoxes], AirBoxes],
    only: Callable[[Ship], bool] | None = None,
) -> FlatTopState:
    """Apply ``update`` to the boxes of a base, or to each carrier of a TF in turn (those ``only``
    allows, if given)."""
    if place.startswith("TF") and place[2:].isdigit():
        number = int(place[2:])

        def tf_update(tf: TaskForce) -> TaskForce:
            ships = tuple(
                replace(s, boxes=update(s.boxes)) if s in tf.plane_ships and (only is None or only(s)) else s
                for s in tf.ships
            )
            return replace(tf, ships=ships)

        tfs = tuple(tf_update(t) if t.side is side and t.number == number else t for t in state.task_forces)
        return replace(state, task_forces=tfs)
    bases = tuple(
        replace(b, boxes=update(b.boxes)) if b.side is side and place_key(b.name) == place_key(place) else b
        for b in state.bases
    )
    return replace(state, bases=bases)


def place_hex(state: FlatTopState, side: Side, place: str) -> Hex | None:
    unit = find_place(state, side, place)
    return unit.hex if unit is not None else None


def find_place(state: FlatTopState, side: Side, place: str) -> TaskForce | Base | None:
    if place.startswith("TF") and place[2:].isdigit():
        return next((t for t in state.own_tfs(side) if t.number == int(place[2:])), None)
    return next((b for b in state.own_bases(side) if place_key(b.name) == place_key(place)), None)


def ready(state: FlatTopState, side: Side, order: Ready) -> FlatTopState:
    """Readying -> Ready, armed as ordered (reference A.5.4: arming happens on this move).
    A factor stays on its own ship: a TF's count is taken ship by ship."""

    def arm(stack: AirFactors) -> AirFactors:
        return replace(stack, armament=order.arm)

    return _update_place(
        state, side, order.place, _moving(order.plane, order.count, ("readying", "ready"), arm)
    )


def unready(state: FlatTopState, side: Side, order: Unready) -> FlatTopState:
    """Ready -> Readying, disarmed (the way to change a load, reference A.5.4)."""

    def disarm(stack: AirFactors) -> AirFactors:
        return replace(stack, armament=None)

    update = _moving(order.plane, order.count, ("ready", "readying"), disarm, order.load)
    return _update_place(state, side, order.place, update)


def just_landed_to_readying(state: FlatTopState, side: Side, used: dict[str, int]) -> FlatTopState:
    """Step 3 of 8.10: Just Landed -> Readying with the Readying Factor the orders left over."""
    units: tuple[TaskForce | Base, ...] = (*state.own_tfs(side), *state.own_bases(side))
    for unit in units:
        place = f"TF{unit.number}" if isinstance(unit, TaskForce) else unit.name
        spare = readying_factor(unit) - used.get(place_key(place), 0)
        if spare > 0:
            state = _update_place(
                state, side, place, _moving(None, spare, ("just_landed", "readying"), _same)
            )
    return state


def _same(stack: AirFactors) -> AirFactors:
    return stack


def launch(
    state: FlatTopState, side: Side, af: int, order: Launch, *, searching: bool
) -> tuple[FlatTopState, AirFormation | None]:
    """A new AF from the Ready box, in the place's hex, Low (planes take off low). From an
    off-board base it goes to the In Flight box and appears in the base's entry hex
    (:func:`entry_of`) at the end of its delay."""
    h = place_hex(state, side, order.place)
    entry = entry_of(state, side, order.place, order.via) if h is None else None
    if (h is None and entry is None) or find_place(state, side, order.place) is None:
        return state, None
    stacks: list[AirFactors] = []
    hour = state.turn

    def flying(ship: Ship) -> bool:
        return deck_open(ship, hour)

    for part in order.parts:  # a mixed AF takes each plane name in turn (reference A.5.3)
        taken: list[AirFactors] = []
        update = _taking(taken, part.plane, part.count, "ready", part.load)
        # Standard 21.2.3: nothing takes off from a ship at LF 0 (nor one a critical hit grounds).
        state = _update_place(state, side, order.place, update, only=flying)
        stacks += taken
    if not stacks:
        return state, None
    low = tuple(replace(s, altitude=Altitude.LOW) for s in stacks)
    formation = AirFormation(af, side, h, low, order.place, state.turn, searching, launch=order.kind)
    if entry is not None:
        formation = replace(formation, entry=entry[0], arrives=state.turn + entry[1])
    return replace(state, air=(*state.air, formation)), formation


def entry_of(state: FlatTopState, side: Side, place: str, via: str | None = None) -> tuple[Hex, int] | None:
    """An off-board base's entry hex ``via`` (a label; None: its first) and its delay (reference
    A.3: planes "enter and leave through Entry Hexes whose label includes a delay in turns")."""
    entries = [e for e in base_entries(state, side, place) if via is None or e.label == via]
    return (entries[0].hex, entries[0].delay) if entries else None


def base_entries(state: FlatTopState, side: Side, place: str) -> list[EntryHex]:
    """The entry hexes of ``place`` if it is an off-board base of the side, else none."""
    base = find_place(state, side, place)
    if not isinstance(base, Base) or not base.off_board:
        return []
    return [e for e in state.scenario.entry_hexes if e.label in base.entry and e.base == base.name]


def arrivals(state: FlatTopState) -> tuple[FlatTopState, tuple[AirFormation, ...]]:
    """End of turn: AFs whose In Flight delay is over appear in their entry hex."""
    due = tuple(a for a in state.air if a.hex is None and a.entry is not None and a.arrives <= state.turn)
    air = tuple(replace(a, hex=a.entry, entry=None) if a in due else a for a in state.air)
    return replace(state, air=air), due


def cannot_land(state: FlatTopState, af: AirFormation, place: str, moved: Collection[int]) -> str:
    """Why the AF may not come down at ``place`` now ("" if it may). ``moved``: the side's TFs
    that moved this turn."""
    unit = find_place(state, af.side, place)
    if unit is None or unit.hex != af.hex:
        return "not there yet"
    categories = {state.rules.planes[s.plane].category for s in af.stacks}
    closed = deck_closed(state, unit, categories)
    if closed:
        return closed
    if free_capacity(unit, categories, state.turn) < af.factors:
        return f"{place} has no room for {af.factors} air factors"
    towing = {p.tower for p in state.tows}
    if isinstance(unit, TaskForce) and any(ship.name in towing for ship in unit.plane_ships):
        return f"{place} has a plane-carrying ship towing: tow ships may not recover aircraft (seed 003)"
    floats = PlaneCategory.FLOAT in categories
    if isinstance(unit, TaskForce) and floats and unit.number in moved:
        return f"{place} moved this turn: float planes are recovered only by a ship stopped a turn (12.7.3)"
    return ""


def landing_place(state: FlatTopState, af: AirFormation, place: str) -> Landing:
    """When and where the AF comes down: night, the base's handling, a storm over the place (6.6)."""
    unit = find_place(state, af.side, place)
    night = state.scenario.is_night(state.time)
    storm = unit is not None and unit.hex is not None and unit.hex in _storms(state)
    return Landing(night, unit.handling if isinstance(unit, Base) else None, storm=storm)


def land(state: FlatTopState, af: AirFormation, place: str, stacks: tuple[AirFactors, ...]) -> FlatTopState:
    """The AF leaves the map; ``stacks`` (those that came down safely) go to the Just Landed box."""
    unit = find_place(state, af.side, place)
    low = tuple(replace(s, altitude=Altitude.LOW, expended=False) for s in stacks)
    if isinstance(unit, Base):
        state = _update_place(state, af.side, place, _adding(low))
    elif isinstance(unit, TaskForce):
        state = _land_on_ships(state, unit, low)
    return replace(state, air=tuple(a for a in state.air if a is not af))


def _adding(stacks: tuple[AirFactors, ...]) -> Callable[[AirBoxes], AirBoxes]:
    def update(boxes: AirBoxes) -> AirBoxes:
        return replace(boxes, just_landed=(*boxes.just_landed, *stacks))

    return update


def free_capacity(
    unit: TaskForce | Base, categories: Collection[PlaneCategory] = (), turn: int | None = None
) -> int:
    """Room left (bases: capacity; ships: their MC), on the ships that handle ``categories`` (and,
    with ``turn``, may take planes aboard that turn: ``deck_open``)."""
    if isinstance(unit, Base):
        return 10**6 if unit.capacity is None else unit.capacity - unit.boxes.total
    ships = (
        s
        for s in unit.plane_ships
        if (not categories or set(categories) <= s.handles) and (turn is None or deck_open(s, turn))
    )
    return sum(max(s.capacity - s.boxes.total, 0) for s in ships)


def deck_closed(state: FlatTopState, unit: TaskForce | Base, categories: Collection[PlaneCategory]) -> str:
    """Why hits keep planes of ``categories`` from landing at ``unit`` this turn ("" if they do
    not): a base grounded by a critical hit; a TF whose ships that handle them all have an LF of
    zero (standard 21.2.3) or are grounded, or were sunk."""
    name = unit.name if isinstance(unit, Base) else f"TF{unit.number}"
    if isinstance(unit, Base):
        return f"{name} takes no planes this turn ({RULE_GROUNDED})" if grounded(unit, state.turn) else ""
    handling = [s for s in unit.ships if s.handles and set(categories) <= s.handles]
    if not handling or any(deck_open(s, state.turn) for s in handling):
        return ""
    why = [
        f"{s.name} " + ("sunk" if s.destroyed else "grounded" if grounded(s, state.turn) else "at LF 0")
        for s in handling
    ]
    rule = RULE_GROUNDED if any(grounded(s, state.turn) for s in handling) else RULE_DECK
    return f"{name} can take no planes aboard: {', '.join(why)} ({rule})"


def _land_on_ships(state: FlatTopState, tf: TaskForce, stacks: tuple[AirFactors, ...]) -> FlatTopState:
    """Each stack onto the TF's ships that handle its category and may take planes aboard this turn
    (``deck_open``), in the TF's ship order."""
    open_ships = tuple(s for s in tf.plane_ships if deck_open(s, state.turn))
    pending = list(stacks)
    ships = []
    for ship in tf.ships:
        room = max(ship.capacity - ship.boxes.total, 0) if ship in open_ships else 0
        here: list[AirFactors] = []
        for stack in list(pending):
            if room and state.rules.planes[stack.plane].category in ship.handles:
                k = min(room, stack.count)
                here.append(replace(stack, count=k))
                room -= k
                pending[pending.index(stack)] = replace(stack, count=stack.count - k)
        pending = [s for s in pending if s.count]
        boxes = replace(ship.boxes, just_landed=(*ship.boxes.just_landed, *here))
        ships.append(replace(ship, boxes=boxes) if here else ship)
    new_tf = replace(tf, ships=tuple(ships))
    return replace(state, task_forces=tuple(new_tf if t is tf else t for t in state.task_forces))


def fly_toward(
    state: FlatTopState, af: AirFormation, goal: Hex, mp: int, *, landing: bool = False
) -> tuple[AirFormation, str, tuple[Hex, ...]]:
    """Fly toward ``goal`` as far as ``mp`` and the rules allow (movement.py): the straight line,
    or where it is barred (a storm hex, standard 6.6; a mountain hexside at Low, 14.15.5) the
    shortest way around, so a landing AF does not stop at the first storm with MP left.

    ``landing``: the AF comes down at ``goal``, which it may enter though it is a storm hex
    (standard 6.6: "Planes landing in a Storm hex use the Night Landing Chart")."""
    start = af.hex
    assert start is not None
    altitude = af.stacks[0].altitude
    storms = _storms(state) - {goal} if landing else _storms(state)

    def fly(route: list[Hex]) -> PlanePath:
        steps = [PlaneStep(h, altitude) for h in route]
        return plane_path(
            start, altitude, steps, mp, scenario=state.scenario, rules=state.rules.movement, storms=storms
        )

    flown = fly(line(start, goal)[1:])
    if flown.problem and not flown.problem.startswith("not enough MP"):
        around = _route(state, start, goal, altitude, storms)
        if around:
            flown = fly(around)
    end = flown.legs[-1].hex if flown.legs else start
    hexes = (start, *(leg.hex for leg in flown.legs))
    return replace(af, hex=end, searching=False), flown.problem, hexes


def _route(
    state: FlatTopState, start: Hex, goal: Hex, altitude: Altitude, storms: frozenset[Hex]
) -> list[Hex]:
    """The shortest route (hexes after ``start``) planes at ``altitude`` may fly to ``goal`` over
    the board, breadth first in a fixed neighbour order; [] if there is none."""
    rules, scenario = state.rules.movement, state.scenario
    came: dict[Hex, Hex] = {start: start}
    frontier = [start]
    while frontier and goal not in came:
        nxt: list[Hex] = []
        for here in frontier:
            for there in neighbours(here):
                if there in came or not (scenario.map.on_board(there) or there == goal):
                    continue
                if there in storms and not rules.storm_entry_allowed:
                    continue
                mountain = scenario.hexside(here, there) == "mountain"
                if mountain and rules.mountain_needs_high and altitude is not Altitude.HIGH:
                    continue
                came[there] = here
                nxt.append(there)
        frontier = nxt
    if goal not in came:
        return []
    route = [goal]
    while came[route[-1]] != start:
        route.append(came[route[-1]])
    return route[::-1]


def _storms(state: FlatTopState) -> frozenset[Hex]:
    return storm_hexes(state.weather, state.rules.weather)


def mf(state: FlatTopState, af: AirFormation) -> int:
    return af_movement(af, state.rules.planes, state.rules.movement, state.turn)


def range_over(state: FlatTopState, af: AirFormation) -> bool:
    """Standard 8.5.5: the AF's last turn of range is past (an AF off the board, in flight)."""
    return range_left(af, state.rules.planes, state.scenario.start, state.time) <= 0


def out_of_range(state: FlatTopState, af: AirFormation) -> bool:
    """Standard 8.5.5: this turn is the AF's last; still aloft at its end, it is lost."""
    return range_left(af, state.rules.planes, state.scenario.start, state.time) <= 1
