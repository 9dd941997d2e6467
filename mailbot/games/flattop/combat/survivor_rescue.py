# SPDX-License-Identifier: GPL-3.0-or-later
"""Picking survivors up, offloading cripples, landing them and their points (seed 003, Survivors).

The seed: "Only CA's, CAV's, CL's, DD's and empty AP/APD's can pick up survivors. CA/CAV's can pick
up 4 factors, CL/AP/APD's 3 and DD's 2. ... Ships that load survivors are considered to be anchored
if attacked in that turn. ... Survivors may also be taken from crippled ships. Each cripple can
offload one factor per turn to another ship in its TF. The rescue ship is considered as anchored for
that turn. ... Only one factor per turn may be offloaded, regardless of how many eligible rescue
ships are in the TF. Each survivor factor rescued that is still carried (or has been unloaded on
friendly territory) at game's end is worth 2 VP if the same nationality as the player who rescued
them, 1 VP if of the opposite nationality." The survivors in the water, the state kept and the
table are :mod:`.survivors`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.combat.survivors import (
    PER_CRIPPLE,
    Aboard,
    Cargo,
    Landed,
    Stranded,
    Survivors,
    SurvivorTable,
    cripple_roll,
)
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import Ship, Side, TaskForce
from mailbot.games.flattop.victory import VictoryRules, VpEntry
from mailbot.games.flattop.victory_scoring import survivors_rescued

# --- picking them up ----------------------------------------------------------------------------


def rescue_capacity(ship: Ship, *, table: SurvivorTable, empty: bool = True) -> int:
    """Survivor factors this ship may hold (0: she cannot pick any up); ``empty``: an AP/APD's troops
    are all ashore (only "empty AP/APD's" rescue)."""
    if ship.type in table.empty_only and not empty:
        return 0
    return table.capacity.get(ship.type, 0)


@dataclass(frozen=True)
class Rescuer:
    """A ship that may pick survivors up: where she is, and her :class:`Aboard` record."""

    ship: Ship
    hex: Hex
    aboard: Aboard

    def __post_init__(self) -> None:
        if self.aboard.ship != self.ship.name:
            raise GameError(f"the record of {self.aboard.ship} was given for {self.ship.name}")


def rescuers_of(task_forces: Iterable[TaskForce], aboard: Iterable[Aboard]) -> tuple[Rescuer, ...]:
    """Every ship afloat in these TFs with her record; a ship without one carries nothing and, if a
    transport, is empty."""
    records = {a.ship: a for a in aboard}
    return tuple(
        Rescuer(ship, tf.hex, records.get(ship.name, Aboard(ship.name, tf.side)))
        for tf in task_forces
        for ship in tf.afloat
    )


@dataclass(frozen=True)
class RescueRequest:
    """An order: ``ship`` picks up survivors in her hex: ``factors`` (None: all she has room for), of
    ``nationality`` (None: any, her own side's first)."""

    ship: str
    factors: int | None = None
    nationality: Side | None = None


@dataclass(frozen=True)
class Pickup:
    """Factors moved to ``rescuer`` from ``source`` (a group's sunk ship, or a cripple); referee-level."""

    rescuer: str
    source: str
    nationality: Side
    factors: int


@dataclass(frozen=True)
class RescueResult:
    """The groups still in the water, the rescuers' records, what could not be done (for the
    ordering player), the ships anchored for this turn's attacks, and each pickup."""

    groups: tuple[Survivors, ...]
    rescuers: tuple[Aboard, ...]
    problems: tuple[str, ...]
    anchored: frozenset[str]
    pickups: tuple[Pickup, ...]


def room(rescuer: Rescuer, table: SurvivorTable) -> int:
    """Factors she may still take aboard."""
    empty = rescuer.aboard.cargo is Cargo.EMPTY
    return max(0, rescue_capacity(rescuer.ship, table=table, empty=empty) - rescuer.aboard.factors)


def _cannot(rescuer: Rescuer, table: SurvivorTable) -> str:
    ship = rescuer.ship
    if ship.destroyed:
        return f"{ship.name} is sinking and picks up no one"
    if rescue_capacity(ship, table=table, empty=rescuer.aboard.cargo is Cargo.EMPTY) <= 0:
        why = " with troops aboard" if ship.type in table.empty_only else ""
        return f"{ship.type} {ship.name} cannot pick up survivors{why}"
    if room(rescuer, table) <= 0:
        return f"{ship.name} has no room for more survivors"
    return ""


def rescue(
    groups: Sequence[Survivors],
    rescuers: Sequence[Rescuer],
    requests: Sequence[RescueRequest],
    *,
    turn: int,
    table: SurvivorTable,
) -> RescueResult:
    """Serve ``requests`` in the order given (the caller's order, e.g. by initiative).

    A ship picks up only visible groups in her own hex, within her capacity; her own side's
    survivors first, then those sunk earliest (they decay first). Ships that load are anchored.
    """
    water = list(groups)
    ships = {r.ship.name: r for r in rescuers}
    problems: list[str] = []
    pickups: list[Pickup] = []
    for request in requests:
        rescuer = ships.get(request.ship)
        if rescuer is None:
            problems.append(f"{request.ship}: no such ship afloat to pick up survivors")
            continue
        why = _cannot(rescuer, table)
        if why:
            problems.append(why)
            continue
        taken, water = _pick(rescuer, request, water, turn, table)
        pickups += taken
        for pickup in taken:
            rescuer = replace(rescuer, aboard=rescuer.aboard.plus(pickup.nationality, pickup.factors))
        ships[request.ship] = rescuer
        problems += _shortfall(request, rescuer, sum(p.factors for p in taken), table)
    loaded = frozenset(p.rescuer for p in pickups) if table.load_anchors else frozenset()
    aboard = tuple(ships[r.ship.name].aboard for r in rescuers)
    return RescueResult(tuple(water), aboard, tuple(problems), loaded, tuple(pickups))


def _pick(
    rescuer: Rescuer, request: RescueRequest, water: list[Survivors], turn: int, table: SurvivorTable
) -> tuple[list[Pickup], list[Survivors]]:
    want = room(rescuer, table) if request.factors is None else min(request.factors, room(rescuer, table))
    side = rescuer.aboard.side

    def wanted(group: Survivors) -> bool:
        nation = request.nationality
        seen = turn >= group.visible_from and group.hex == rescuer.hex
        return seen and group.factors > 0 and (nation is None or group.nationality is nation)

    order = sorted(
        (i for i, g in enumerate(water) if wanted(g)),
        key=lambda i: (water[i].nationality is not side, water[i].sunk_turn, water[i].ship),
    )
    taken: list[Pickup] = []
    after = list(water)
    for index in order:
        group = water[index]
        count = min(want, group.factors)
        if count <= 0:
            break
        want -= count
        taken.append(Pickup(rescuer.ship.name, group.ship, group.nationality, count))
        after[index] = replace(group, factors=group.factors - count)
    return taken, [g for g in after if g.factors > 0]


def _shortfall(request: RescueRequest, rescuer: Rescuer, got: int, table: SurvivorTable) -> list[str]:
    name = rescuer.ship.name
    if got == 0:
        return [f"{name} found no survivors to pick up in her hex"]
    if request.factors is not None and got < request.factors:
        full = " (she is full)" if room(rescuer, table) == 0 else ""
        return [f"{name} picked up {got} of the {request.factors} survivor factors ordered{full}"]
    return []


# --- crippled ships -----------------------------------------------------------------------------


@dataclass(frozen=True)
class OffloadRequest:
    """An order: ``cripple`` passes a survivor factor to ``rescuer``, another ship of her TF."""

    cripple: str
    rescuer: str


@dataclass(frozen=True)
class OffloadResult:
    stranded: tuple[Stranded, ...]  # every record given, updated, plus the ones rolled now
    rescuers: tuple[Aboard, ...]  # the records of the TF's ships afloat
    problems: tuple[str, ...]
    anchored: frozenset[str]  # "The rescue ship is considered as anchored for that turn."
    rolls: tuple[Roll, ...]
    pickups: tuple[Pickup, ...]


@dataclass
class _Offload:
    """Working state of one :func:`crippled_offload` call (local, never stored)."""

    tf: TaskForce
    stranded: dict[str, Stranded]
    rescuers: dict[str, Rescuer]
    problems: list[str]
    rolls: list[Roll]
    pickups: list[Pickup]


def crippled_offload(
    tf: TaskForce,
    stranded: Sequence[Stranded],
    aboard: Sequence[Aboard],
    requests: Sequence[OffloadRequest],
    *,
    turn: int,
    dice: Dice,
    label: str,
    table: SurvivorTable,
) -> OffloadResult:
    """Survivors taken off crippled (not sinking) ships of ``tf``, one factor a turn each.

    A cripple's survivors are rolled once, at her first offload (+1 to the die); the record keeps
    what is left. ``[offload.rulings] limit_per`` says whether the one factor a turn is per cripple
    or for the whole TF. Requests are served in the order given.
    """
    work = _Offload(
        tf,
        {s.ship: s for s in stranded},
        {r.ship.name: r for r in rescuers_of((tf,), aboard)},
        [],
        [],
        [],
    )
    for request in requests:
        why = _offload_one(work, request, turn=turn, dice=dice, label=label, table=table)
        if why:
            work.problems.append(why)
    anchored = frozenset(p.rescuer for p in work.pickups) if table.offload_anchors else frozenset()
    return OffloadResult(
        tuple(work.stranded.values()),
        tuple(r.aboard for r in work.rescuers.values()),
        tuple(work.problems),
        anchored,
        tuple(work.rolls),
        tuple(work.pickups),
    )


def _offload_one(
    work: _Offload, request: OffloadRequest, *, turn: int, dice: Dice, label: str, table: SurvivorTable
) -> str:
    """Carry out one request; the reason it cannot be done, or ""."""
    cripple = work.rescuers.get(request.cripple)
    rescuer = work.rescuers.get(request.rescuer)
    if cripple is None or rescuer is None or cripple is rescuer:
        return (
            f"{request.cripple} -> {request.rescuer}: two different ships of TF {work.tf.number} are needed"
        )
    if not cripple.ship.crippled or cripple.ship.destroyed:
        return f"{cripple.ship.name} is not a crippled ship afloat: nothing to offload"
    if _offloaded_this_turn(work, cripple.ship.name, turn, table):
        return f"{cripple.ship.name}: only one survivor factor a turn may be offloaded"
    why = _cannot(rescuer, table)
    if why:
        return why
    pool = work.stranded.get(cripple.ship.name)
    if pool is None:
        loaded = cripple.aboard.cargo is Cargo.FULL
        factors, roll = cripple_roll(cripple.ship, dice=dice, label=label, table=table, loaded=loaded)
        work.rolls += [roll] if roll is not None else []
        pool = Stranded(cripple.ship.name, work.tf.side, factors)
    if pool.factors <= 0:
        work.stranded[pool.ship] = pool
        return f"{cripple.ship.name} has no survivors to offload"
    count = min(table.offload_per_turn, pool.factors, room(rescuer, table))
    work.stranded[pool.ship] = replace(
        pool, factors=pool.factors - count, offloaded=pool.offloaded + count, last_turn=turn
    )
    work.rescuers[rescuer.ship.name] = replace(rescuer, aboard=rescuer.aboard.plus(pool.nationality, count))
    work.pickups.append(Pickup(rescuer.ship.name, pool.ship, pool.nationality, count))
    return ""


def _offloaded_this_turn(work: _Offload, cripple: str, turn: int, table: SurvivorTable) -> bool:
    if table.offload_limit == PER_CRIPPLE:
        pools = [work.stranded[cripple]] if cripple in work.stranded else []
    else:
        pools = [work.stranded[name] for name in work.rescuers if name in work.stranded]
    return any(pool.last_turn == turn for pool in pools)


# --- ashore, and the points ---------------------------------------------------------------------


def land(aboard: Aboard, place: str) -> tuple[Aboard, tuple[Landed, ...]]:
    """Every survivor aboard put ashore at ``place`` (the caller checks that it is friendly territory)."""
    landed = tuple(Landed(aboard.side, c.nationality, c.factors, place) for c in aboard.survivors)
    return replace(aboard, survivors=()), landed


def survivor_points(
    aboard: Iterable[Aboard], landed: Iterable[Landed], turn: int, rules: VictoryRules
) -> tuple[VpEntry, ...]:
    """The game's end: each factor "still carried (or has been unloaded on friendly territory)" scores
    its rescuer 2 VP if of the same nationality, 1 if not (``victory_scoring.survivors_rescued``).

    ``aboard``: the records of ships still afloat (survivors aboard a ship that sank went down with
    her). Landings at one place are added up, so that each scores once.
    """
    entries = [
        survivors_rescued(a.side, c.nationality, c.factors, turn, rules, where=a.ship)
        for a in aboard
        for c in a.survivors
    ]
    ashore: dict[tuple[Side, Side, str], int] = {}
    for item in landed:
        key = (item.side, item.nationality, item.place)
        ashore[key] = ashore.get(key, 0) + item.factors
    entries += [
        survivors_rescued(side, nation, factors, turn, rules, where=f"landed at {place}")
        for (side, nation, place), factors in ashore.items()
    ]
    return tuple(entry for entry in entries if entry is not None)
