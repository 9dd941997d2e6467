# SPDX-License-Identifier: GPL-3.0-or-later
"""Arrival schedules: forces that enter a scenario after its start (reference B.13, A.5.1, A.5.5).

Reference B.13 asks each scenario for "OB per side: ships with their factors,
TF assignment and start hex; bases with factors and planes by box". A force
that historically sailed or flew in during the battle has a start *turn* as
well: the scenario file writes ``arrives = "D2 0600"`` on the task force (with
``from_off_map = true`` when it comes from beyond the map edge, its ``hex`` then
an edge hex) or in a base's ``[[bases.arrivals]]`` table (air factors joining
the base's boxes). :func:`mailbot.games.flattop.map.scenario.load_scenario`
keeps them out of the starting order of battle, in :attr:`Scenario.arrivals`.

The contract for the turn sequence (resolve.py):

- An arrival "at ``D2 0600``" is in play for the whole of the D2 0600 turn: its
  owner sees it in the report that asks for that turn's orders and may give it
  orders. So the resolver calls :func:`arrivals_due` with the *next* turn's
  time when the clock advances (the Time Record phase, standard 5 step 10),
  then :func:`place_arrivals` on the state's task forces and bases.
- Each arrival is the owner's news only: an arriving TF is hidden like any
  other (standard 7.1) until observed.
- Nothing here rolls dice, reads a clock or a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from mailbot.games.flattop.map.scenario import AirArrival, Arrival, ForceArrival, GameTime, Scenario
from mailbot.games.flattop.units import AirBoxes, AirFactors, Base, Side, TaskForce

_CARRIER_NUMBERS = range(1, 10)  # plane-carrying ships only in TFs 1-9 (reference A.5.1)
_BOXES = ("just_landed", "readying", "ready", "dispersed")


def arrivals_due(scenario: Scenario, time: GameTime) -> tuple[Arrival, ...]:
    """The arrivals that enter play at the start of ``time``, in the scenario's schedule order.

    Exactly the turn: each arrival is due once. An arrival time never equals the
    scenario's start (the reader refuses it), so the first call comes with turn 2's time.
    """
    return tuple(a for a in scenario.arrivals if a.time == time)


def pending(scenario: Scenario, time: GameTime, side: Side | None = None) -> tuple[Arrival, ...]:
    """The arrivals still to come after ``time`` (of ``side`` if given), e.g. for "nothing left" checks."""
    return tuple(a for a in scenario.arrivals if a.time > time and (side is None or a.side is side))


@dataclass(frozen=True)
class Placed:
    """The units after the arrivals of one turn, and what became of each arrival."""

    task_forces: tuple[TaskForce, ...]
    bases: tuple[Base, ...]
    entered: tuple[ForceArrival, ...] = ()  # as placed: a TF number may differ from the file's
    landed: tuple[AirArrival, ...] = ()  # the factors that reached their base
    turned_away: tuple[AirArrival, ...] = ()  # the factors that found no room (MC) or no base of theirs


def place_arrivals(task_forces: Sequence[TaskForce], bases: Sequence[Base], due: Iterable[Arrival]) -> Placed:
    """Add ``due`` (from :func:`arrivals_due`) to the units in play.

    A TF whose number its side already uses (a SPLIT made it) takes the lowest free
    number of its kind: 1-9 for a TF with a plane-carrier (reference A.5.1), 10 and
    up otherwise. Air factors join their base's boxes up to its Maximum Capacity;
    what does not fit, or whose base is gone or in enemy hands, is turned away.
    """
    placed = Placed(tuple(task_forces), tuple(bases))
    for arrival in due:
        placed = _enter(placed, arrival) if isinstance(arrival, ForceArrival) else _land(placed, arrival)
    return placed


def _enter(placed: Placed, arrival: ForceArrival) -> Placed:
    tf = arrival.task_force
    used = {t.number for t in placed.task_forces if t.side is tf.side}
    if tf.number in used:
        tf = replace(tf, number=_free_number(used, carrier=bool(tf.plane_ships)))
    entered = replace(arrival, task_force=tf)
    return replace(placed, task_forces=(*placed.task_forces, tf), entered=(*placed.entered, entered))


def _free_number(used: set[int], *, carrier: bool) -> int:
    """The lowest free TF number of the right band; past 9 carriers the lowest free number at all."""
    band = (
        _CARRIER_NUMBERS if carrier else range(_CARRIER_NUMBERS.stop, _CARRIER_NUMBERS.stop + len(used) + 1)
    )
    free = [n for n in band if n not in used]
    return free[0] if free else min(n for n in range(1, len(used) + 2) if n not in used)


def _land(placed: Placed, arrival: AirArrival) -> Placed:
    index = next(
        (
            i
            for i, b in enumerate(placed.bases)
            if b.name.casefold() == arrival.base.casefold() and b.side is arrival.side
        ),
        None,
    )
    if index is None:
        return replace(placed, turned_away=(*placed.turned_away, arrival))
    base = placed.bases[index]
    room = None if base.capacity is None else max(0, base.capacity - base.boxes.total)
    fits, rest = _split(arrival.boxes, room)
    bases = list(placed.bases)
    bases[index] = replace(base, boxes=_join(base.boxes, fits))
    landed = (*placed.landed, replace(arrival, boxes=fits)) if fits.total else placed.landed
    away = (*placed.turned_away, replace(arrival, boxes=rest)) if rest.total else placed.turned_away
    return replace(placed, bases=tuple(bases), landed=landed, turned_away=away)


def _split(boxes: AirBoxes, room: int | None) -> tuple[AirBoxes, AirBoxes]:
    """The factors that fit in ``room`` (None: unlimited), box by box in file order, and the rest."""
    if room is None:
        return boxes, AirBoxes()
    fits: dict[str, list[AirFactors]] = {box: [] for box in _BOXES}
    rest: dict[str, list[AirFactors]] = {box: [] for box in _BOXES}
    for box in _BOXES:
        for stack in getattr(boxes, box):
            taken = min(room, stack.count)
            room -= taken
            if taken:
                fits[box].append(replace(stack, count=taken))
            if stack.count > taken:
                rest[box].append(replace(stack, count=stack.count - taken))
    return AirBoxes(**{k: tuple(v) for k, v in fits.items()}), AirBoxes(
        **{k: tuple(v) for k, v in rest.items()}
    )


def _join(boxes: AirBoxes, more: AirBoxes) -> AirBoxes:
    """Stacks appended box by box, as landings append to Just Landed (air/operations.py)."""
    return AirBoxes(**{box: (*getattr(boxes, box), *getattr(more, box)) for box in _BOXES})
