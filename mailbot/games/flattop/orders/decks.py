# SPDX-License-Identifier: GPL-3.0-or-later
"""What a deck or a base can do this turn: its Launch and Readying Factors, the planes it may
land, a deck closed by hits or grounded by a critical hit (standard 8.9, 21.2.3, 21.5), and
the carrier's turn into the wind when a launch passes its Minimum LF (standard 6.10 and the
[RW] variant). Read by the order checks and by the hour that runs the launches."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mailbot.games.flattop.map import movement
from mailbot.games.flattop.map.hexes import Direction, Hex, direction, distance, step
from mailbot.games.flattop.map.scenario import Scenario
from mailbot.games.flattop.orders.types import (
    Load,
    load_of,
)
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Base,
    Handling,
    LaunchType,
    PlaneCategory,
    Ship,
    ShipType,
    TaskForce,
)


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


def count(stacks: tuple[AirFactors, ...], plane: str, load: Load | None = None) -> int:
    return sum(s.count for s in stacks if s.plane == plane and load in (None, load_of(s)))


#: Standard 21.2.3; and a critical hit that stops flight operations (damage.toml's table).
RULE_DECK = 'standard 21.2.3: "Planes may not land or take off from a plane-carrying ship with an LF of zero"'
RULE_GROUNDED = "a critical hit: no flight operations this turn (damage.toml, a design default)"


def grounded(unit: Ship | Base, turn: int) -> bool:
    """A critical hit closed the flight deck or runway for ``turn`` (damage.toml criticals)."""
    return turn in unit.no_flight_ops_turns


def deck_open(unit: Ship | Base, turn: int) -> bool:
    """Planes may land here this turn: a ship with an LF above zero (standard 21.2.3) not grounded
    by a critical hit; a base not grounded (21.5 bars only take-offs at an LF of zero or less)."""
    return not grounded(unit, turn) and (isinstance(unit, Base) or (unit.launch > 0 and not unit.destroyed))


def launch_factor(unit: TaskForce | Base, kind: LaunchType, turn: int | None = None) -> int:
    """Reference A.5.4: minimum LF, normal LF, or twice the normal LF for a maximum launch; with
    ``turn``, without the ships (or the base) a critical hit grounds that turn."""
    ships: tuple[Ship | Base, ...] = (unit,) if isinstance(unit, Base) else unit.plane_ships
    if turn is not None:
        ships = tuple(s for s in ships if not grounded(s, turn))
    if kind is LaunchType.MINIMUM:
        return sum(s.launch_min for s in ships)
    return sum(s.launch for s in ships) * (2 if kind is LaunchType.MAXIMUM else 1)


def readying_factor(unit: TaskForce | Base) -> int:
    if isinstance(unit, Base):
        return unit.readying
    return sum(s.readying for s in unit.plane_ships)


_BASE_HANDLES = {
    Handling.LP: {PlaneCategory.LAND, PlaneCategory.CARRIER},
    Handling.SP: {PlaneCategory.SEA, PlaneCategory.FLOAT},
    Handling.BOTH: set(PlaneCategory),
}


def may_land(unit: TaskForce | Base, categories: set[PlaneCategory]) -> bool:
    """Standard 8.9: carriers take carrier planes, other plane-carrying ships float planes (12.7.3);
    LP bases land and carrier planes, SP bases sea and float planes."""
    if isinstance(unit, Base):
        return categories <= _BASE_HANDLES[unit.handling]
    handled = {c for ship in unit.plane_ships for c in ship.handles}
    return bool(categories) and categories <= handled


CARRIERS = (ShipType.CV, ShipType.CVL)

#: Standard 6.10 (reference A.4): "a CV or CVL must move one hex into the wind in any turn in
#: which the Air Factors taking off and landing together exceed its Minimum LF".
RULE_6_10 = "standard 6.10"
#: The game option ``launch_wind = variant`` (reference A.4, [RW]): "if more than the minimum LF
#: is used, the ship may move only 0 or 1 hex, and that hex must be into the wind".
RULE_6_10_VARIANT = "variant 6.10 (reference A.4, [RW]): 0 or 1 hex, into the wind"
#: the option's values: the standard rule, or the [RW] variant
LAUNCH_WIND = ("standard", "variant")


def into_the_wind(
    tf: TaskForce,
    leg: tuple[Hex, ...],
    load: int,
    scenario: Scenario,
    winds: Mapping[int, Direction],
    *,
    variant: bool = False,
) -> tuple[Hex, ...] | None:
    """The leg ``tf`` must steam this turn instead of ``leg`` when ``load`` (factors taking off
    and landing) exceeds its CVs' and CVLs' Minimum LF; None when the plotted leg stands.

    Standard 6.10: a leg that takes no step into the wind becomes the one hex into the wind (kept
    as plotted where that hex is barred to ships). The variant (``variant``): the TF "may move
    only 0 or 1 hex, and that hex must be into the wind": a leg that holds, or moves just that
    hex, stands; one that starts into the wind is cut to that hex; any other holds (0 hexes, the
    least movement the variant allows: a design default, the variant does not say)."""
    minimum = sum(s.launch_min for s in tf.afloat if s.type in CARRIERS)
    sectors = scenario.map.layout.sectors_of(tf.hex)
    wind = winds.get(sectors[0].numeral) if sectors else None
    if not minimum or load <= minimum or wind is None:
        return None
    there = step(tf.hex, wind.opposite)
    open_sea = scenario.map.on_board(there) and movement.step_problem(scenario, tf.hex, there) is None
    if variant:
        if leg in ((), (there,)):
            return None
        return (there,) if leg[0] == there and open_sea else ()
    steps = zip((tf.hex, *leg), leg, strict=False)
    if any(distance(a, b) == 1 and direction(a, b) is wind.opposite for a, b in steps):
        return None
    return (there,) if open_sea else None
