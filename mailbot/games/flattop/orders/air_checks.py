# SPDX-License-Identifier: GPL-3.0-or-later
"""The checks of the orders that fly no path: SHADOW (seed 003, 11; standard 11.4), READY and
UNREADY (standard 8), INTERCEPT (standard 14.13) and JETTISON (14.14), against the side's own
units and knowledge (:class:`.checks.Own`)."""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.map.hexes import distance
from mailbot.games.flattop.map.movement import formation_movement
from mailbot.games.flattop.observation.knowledge import SHIPS
from mailbot.games.flattop.orders.checks import Own, armament_of, illegal, is_interceptor, is_submarine
from mailbot.games.flattop.orders.decks import (
    count,
)
from mailbot.games.flattop.orders.types import (
    Intercept,
    Jettison,
    Ready,
    Shadow,
    Unready,
    load_word,
)
from mailbot.games.flattop.units import (
    AirFactors,
    TaskForce,
)


def check_shadow(own: Own, order: Shadow) -> Shadow:
    hex_name = own.scenario.map.hex_id(order.hex)
    if not own.knowledge.saw(own.turn - 1, hex_name, SHIPS):
        raise illegal(f"you hold no ships contact in {hex_name} from last turn (seed 003, 11.2)")
    if order.by == "TF":
        return _check_tf_shadow(own, order, hex_name)
    af = own.aloft(order.af)
    assert af.hex is not None
    if distance(af.hex, order.hex) > formation_movement(af, own.planes):
        raise illegal(f"{hex_name} is beyond AF{order.af}'s reach this turn")
    return order


def _check_tf_shadow(own: Own, order: Shadow, hex_name: str) -> Shadow:
    """A TF shadows what it observes: ships within one hex (seed 003, 7.5; reference A.8.8:
    "must observe the TF at the start of the phase"); a submarine "one TF or one submarine in
    its own hex" (27.3)."""
    tf = own.tf(order.af)
    reach = 0 if is_submarine(tf) else 1
    if distance(tf.hex, order.hex) > reach:
        where = "in its own hex" if reach == 0 else "within one hex"
        raise illegal(f"TF{order.af} shadows only a contact {where} (seed 003, 7.5 and 27.3)")
    return order


def check_ready(own: Own, order: Ready) -> Ready:
    name, _, boxes, unit = own.place(order.place)
    plane = own.plane(order.plane)
    if isinstance(unit, TaskForce) and not unit.plane_ships:
        raise illegal(f"{name} has no plane-carrying ships")
    if order.arm is not None and order.arm not in plane.loads:
        can = " or ".join(load_word(load) for load in plane.loads) or "nothing"
        raise illegal(f"{plane.name} cannot be armed {load_word(order.arm)} (it carries {can})")
    if count(boxes.readying, plane.name) < order.count:
        raise illegal(f"{name} has only {count(boxes.readying, plane.name)} {plane.name} in its Readying box")
    return replace(order, place=name, plane=plane.name)


def check_unready(own: Own, order: Unready) -> Unready:
    name, _, boxes, _ = own.place(order.place)
    plane = own.plane(order.plane).name
    if count(boxes.ready, plane, order.load) < order.count:
        what = plane if order.load is None else f"{plane} {load_word(order.load)}"
        raise illegal(f"{name} has only {count(boxes.ready, plane, order.load)} {what} in its Ready box")
    return replace(order, place=name, plane=plane)


def check_intercept(own: Own, order: Intercept) -> Intercept:
    """Standard 14.13 (reference A.7): only interceptors, unarmed fighter-capable factors, intercept.
    An AF launched by this letter (a CAP taking off now) may intercept in its first turn."""
    launch = own.launched.get(order.af)
    if launch is not None and order.af not in own.air:
        stacks: tuple[AirFactors, ...] = tuple(
            AirFactors(p.plane, p.count, armament=armament_of(own, p)) for p in launch.parts
        )
    else:
        stacks = own.aloft(order.af).stacks
    if not any(is_interceptor(s, own.planes) for s in stacks):
        raise illegal(f"AF{order.af} has no unarmed fighters to intercept with (standard 14.13)")
    return order


def check_jettison(own: Own, order: Jettison) -> Jettison:
    """Standard 14.14: an AF aloft, or launched by this letter, that carries bombs or torpedoes."""
    launch = own.launched.get(order.af)
    if launch is not None and order.af not in own.air:
        armed = any(armament_of(own, p) is not None for p in launch.parts)
    else:
        armed = any(s.armament is not None for s in own.aloft(order.af).stacks)
    if not armed:
        raise illegal(f"AF{order.af} carries no bombs or torpedoes to jettison")
    return order
