# SPDX-License-Identifier: GPL-3.0-or-later
"""Air operations on the state: readying, launching, landing and the range check.

A small subset of standard 8 and 14, enough for search by e-mail (scope of
"Flat Top I"): ``READY`` moves factors from the Readying to the Ready box
within the Readying Factor; a launch takes Ready factors into a new AF in the
base's or TF's hex (minimum launch, standard 14.8: full MF); an AF that reaches
its base or carrier lands in the Just Landed box, which is emptied into the
Readying box at the end of the turn (a simplification of the box cycle).
An AF still aloft at the end of its last turn of range is lost (8.5.5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mailbot.games.flattop.hexes import Hex, line
from mailbot.games.flattop.movement import PlaneStep, formation_movement, plane_path, range_left
from mailbot.games.flattop.order_checks import place_key
from mailbot.games.flattop.order_types import Launch, Ready
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, AirFactors, AirFormation, Altitude, Base, Side, TaskForce
from mailbot.games.flattop.weather import storm_hexes

BoxName = str  # "just_landed" | "readying" | "ready"


def take(
    stacks: tuple[AirFactors, ...], plane: str, n: int
) -> tuple[tuple[AirFactors, ...], tuple[AirFactors, ...]]:
    """Remove ``n`` factors of ``plane`` from ``stacks``: (what is left, what was taken)."""
    left: list[AirFactors] = []
    taken: list[AirFactors] = []
    for stack in stacks:
        k = min(n, stack.count) if stack.plane == plane else 0
        n -= k
        if k:
            taken.append(replace(stack, count=k))
        if stack.count - k:
            left.append(replace(stack, count=stack.count - k))
    return tuple(left), tuple(taken)


def _move_boxes(
    boxes: AirBoxes, plane: str, n: int, source: BoxName, target: BoxName
) -> tuple[AirBoxes, int]:
    left, taken = take(getattr(boxes, source), plane, n)
    moved = sum(s.count for s in taken)
    return replace(boxes, **{source: left, target: (*getattr(boxes, target), *taken)}), moved


def _taking(
    stacks_out: list[AirFactors], plane: str, n: int, source: BoxName
) -> Callable[[AirBoxes], AirBoxes]:
    """A box update that removes up to ``n`` (shared across carriers) into ``stacks_out``."""

    def update(boxes: AirBoxes) -> AirBoxes:
        wanted = n - sum(s.count for s in stacks_out)
        left, taken = take(getattr(boxes, source), plane, wanted)
        stacks_out.extend(taken)
        return replace(boxes, **{source: left})

    return update


def _update_place(
    state: FlatTopState, side: Side, place: str, update: Callable[[AirBoxes], AirBoxes]
) -> FlatTopState:
    """Apply ``update`` to the boxes of a base, or to each carrier of a TF in turn."""
    if place.startswith("TF") and place[2:].isdigit():
        number = int(place[2:])

        def tf_update(tf: TaskForce) -> TaskForce:
            ships = tuple(replace(s, boxes=update(s.boxes)) if s in tf.carriers else s for s in tf.ships)
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
    def update(boxes: AirBoxes) -> AirBoxes:
        return _move_boxes(boxes, order.plane, order.count, "readying", "ready")[0]

    # A TF readies across its carriers; the letter's total was checked in parsing.
    moved: list[AirFactors] = []
    if order.place.startswith("TF"):
        update_tf = _taking(moved, order.plane, order.count, "readying")
        state = _update_place(state, side, order.place, update_tf)
        return _update_place(state, side, order.place, _adding(moved, "ready", once=True))
    return _update_place(state, side, order.place, update)


def _adding(stacks: list[AirFactors], box: BoxName, *, once: bool) -> Callable[[AirBoxes], AirBoxes]:
    done = [False]

    def update(boxes: AirBoxes) -> AirBoxes:
        if once and done[0]:
            return boxes
        done[0] = True
        return replace(boxes, **{box: (*getattr(boxes, box), *stacks)})

    return update


def launch(
    state: FlatTopState, side: Side, af: int, order: Launch
) -> tuple[FlatTopState, AirFormation | None]:
    """A new AF from the Ready box, in the place's hex, Low (planes take off low)."""
    h = place_hex(state, side, order.place)
    stacks: list[AirFactors] = []
    state = _update_place(state, side, order.place, _taking(stacks, order.plane, order.count, "ready"))
    if h is None or not stacks:
        return state, None
    low = tuple(replace(s, altitude=Altitude.LOW) for s in stacks)
    formation = AirFormation(af, side, h, low, order.place, state.turn, searching=True)
    return replace(state, air=(*state.air, formation)), formation


def land(state: FlatTopState, af: AirFormation, place: str) -> tuple[FlatTopState, bool]:
    """Into the Just Landed box if there is room (carriers: their MC; bases: capacity)."""
    unit = find_place(state, af.side, place)
    if unit is None or unit.hex != af.hex or free_capacity(unit) < af.factors:
        return state, False
    stacks = tuple(replace(s, altitude=Altitude.LOW) for s in af.stacks)
    if isinstance(unit, Base):
        state = _update_place(state, af.side, place, _adding(list(stacks), "just_landed", once=False))
    else:
        state = _land_on_carriers(state, unit, stacks)
    return replace(state, air=tuple(a for a in state.air if a is not af)), True


def free_capacity(unit: TaskForce | Base) -> int:
    if isinstance(unit, Base):
        return 10**6 if unit.capacity is None else unit.capacity - unit.boxes.total
    return sum(max(s.capacity - s.boxes.total, 0) for s in unit.carriers)


def _land_on_carriers(state: FlatTopState, tf: TaskForce, stacks: tuple[AirFactors, ...]) -> FlatTopState:
    pending = list(stacks)
    ships = []
    for ship in tf.ships:
        room = max(ship.capacity - ship.boxes.total, 0) if ship in tf.carriers else 0
        here: list[AirFactors] = []
        while pending and room:
            stack = pending.pop(0)
            k = min(room, stack.count)
            here.append(replace(stack, count=k))
            room -= k
            if stack.count > k:
                pending.insert(0, replace(stack, count=stack.count - k))
        boxes = replace(ship.boxes, just_landed=(*ship.boxes.just_landed, *here))
        ships.append(replace(ship, boxes=boxes) if here else ship)
    new_tf = replace(tf, ships=tuple(ships))
    return replace(state, task_forces=tuple(new_tf if t is tf else t for t in state.task_forces))


def fly_toward(state: FlatTopState, af: AirFormation, goal: Hex, mp: int) -> tuple[AirFormation, str]:
    """Fly the straight line toward ``goal`` as far as ``mp`` and the rules allow (movement.py)."""
    assert af.hex is not None
    altitude = af.stacks[0].altitude
    steps = [PlaneStep(h, altitude) for h in line(af.hex, goal)[1:]]
    storms = _storms(state)
    flown = plane_path(
        af.hex, altitude, steps, mp, scenario=state.scenario, rules=state.rules.movement, storms=storms
    )
    end = flown.legs[-1].hex if flown.legs else af.hex
    return replace(af, hex=end, searching=False), flown.problem


def _storms(state: FlatTopState) -> frozenset[Hex]:
    return storm_hexes(state.weather, state.rules.weather)


def mf(state: FlatTopState, af: AirFormation) -> int:
    return formation_movement(af, state.rules.planes)


def out_of_range(state: FlatTopState, af: AirFormation) -> bool:
    """Standard 8.5.5: this turn is the AF's last; still aloft at its end, it is lost."""
    return range_left(af, state.rules.planes, state.scenario.start, state.time) <= 1


def empty_just_landed(state: FlatTopState) -> FlatTopState:
    """End of turn: Just Landed -> Readying (this version's simplified box cycle)."""

    def shift(boxes: AirBoxes) -> AirBoxes:
        if not boxes.just_landed:
            return boxes
        return replace(boxes, just_landed=(), readying=(*boxes.readying, *boxes.just_landed))

    tfs = tuple(
        replace(t, ships=tuple(replace(s, boxes=shift(s.boxes)) for s in t.ships)) for t in state.task_forces
    )
    bases = tuple(replace(b, boxes=shift(b.boxes)) for b in state.bases)
    return replace(state, task_forces=tfs, bases=bases)
