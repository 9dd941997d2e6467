# SPDX-License-Identifier: GPL-3.0-or-later
"""Search by e-mail (seed 003, 7 "General Rule" and 7.3).

A searching AF flies the path its owner e-mailed. In its starting hex and
every hex it enters, for every enemy TF or AF in sighting range not found
yet, the moderator rolls 2d6 once, plus once per extra MP spent there (7.3);
the seed's modifiers add up; a natural 2 always succeeds. A target once found
stays found and its condition rises as the searcher closes: in 7.3's example
the ships found at two hexes get Condition 2 one hex closer, with no new roll.
The chart's lost body is data (``search.toml``, :class:`SearchTable`).

Orders may react to what THIS searcher finds (:class:`Reaction`); the only
reaction to another searcher is 7's join rule (:attr:`SearchOrder.join`).
A non-searching AF conforming to a searcher from a rendezvous hex takes
:func:`rendezvous_path`; all other non-search movement comes before any
search (7) and is not this module's business.

Each target has its own dice (:func:`search_label`: turn, searcher, the
target's referee id), so nothing about one unit, seen or not, shifts the dice
of another, and unreported details (names, damage, a TF's makeup) never change
a unit's own rolls: only what the rules roll on does (range, size, altitude,
clouds). The label is in the referee's dice log, opened when the game ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex, distance, line, neighbours
from mailbot.games.flattop.observation.knowledge import SHIPS
from mailbot.games.flattop.observation.observe import (
    AF,
    TF,
    PlaneView,
    Spotting,
    Target,
    Visibility,
    group,
    range_table,
)
from mailbot.games.flattop.units import Altitude, Side

RULE = "seed 003, 7.3 search chart"


# --- the chart -------------------------------------------------------------------


@dataclass(frozen=True)
class SearchTable:
    """The 7.3 chart as data: a sighting when ``2d6 + modifiers <= target number``."""

    targets: Mapping[tuple[str, str, str], Mapping[int, int]]  # (day|night, observer, tf|af) -> range -> n
    conditions: Mapping[str, Mapping[int, int]]  # day|night -> range -> condition
    size: tuple[tuple[int, int], ...]  # (largest size, modifier), smallest first
    both_clouded: int
    different_altitude: int
    low_searcher_tf_range: int
    low_searcher_tf: int
    natural_success: int = 2
    natural_failure: int | None = 12
    storm_blocks: bool = True
    default: bool = True

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SearchTable:
        """Check and index the parsed ``search.toml``; a malformed table is a config bug."""
        try:
            return cls._parse(data, data["modifiers"], data.get("rules", {}))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GameError(f"search table: {exc!r}") from exc

    @classmethod
    def _parse(cls, data: Mapping[str, Any], mods: Any, rules: Any) -> SearchTable:
        targets = {
            (time, observer, kind): range_table(row, f"targets.{time}.{observer}.{kind}")
            for time, observers in data["targets"].items()
            for observer, kinds in observers.items()
            for kind, row in kinds.items()
        }
        failure = rules.get("natural_failure", 12)
        return cls(
            targets=targets,
            conditions={time: range_table(row, time) for time, row in data["conditions"].items()},
            size=tuple(sorted((int(top), int(mod)) for top, mod in mods["size"])),
            both_clouded=int(mods["both_clouded"]),
            different_altitude=int(mods["different_altitude"]),
            low_searcher_tf_range=int(mods["low_searcher_tf"]["range"]),
            low_searcher_tf=int(mods["low_searcher_tf"]["modifier"]),
            natural_success=int(rules.get("natural_success", 2)),
            natural_failure=None if failure in (None, 0, False) else int(failure),
            storm_blocks=bool(rules.get("storm_blocks", True)),
            default=bool(data.get("default", True)),
        )

    def target_number(self, time: str, observer: str, kind: str, rng: int) -> int | None:
        """None: out of sighting range (no roll at all)."""
        return self.targets.get((time, observer, kind.lower()), {}).get(rng)

    def condition(self, time: str, rng: int) -> int:
        return self.conditions.get(time, {}).get(rng, 0)

    def size_modifier(self, size: int) -> int:
        return next((mod for top, mod in self.size if size <= top), 0)


def modifiers(
    table: SearchTable, target: Target, *, altitude: Altitude, rng: int, clouds: bool
) -> dict[str, int]:
    """Seed 003, 7.3: "Modifiers are cumulative"; each one named as it is printed."""
    mods = {"size": table.size_modifier(target.size)}
    mods["clouds in both hexes"] = table.both_clouded if clouds else 0
    different = target.kind == AF and altitude not in target.altitudes
    mods["different altitudes"] = table.different_altitude if different else 0
    low = target.kind == TF and altitude is Altitude.LOW and rng == table.low_searcher_tf_range
    mods["low AF, TF two hexes away"] = table.low_searcher_tf if low else 0
    return {name: value for name, value in mods.items() if value}


def spotted(table: SearchTable, roll: Roll, number: int) -> bool:
    natural = sum(roll.faces)
    if natural == table.natural_success:  # "a 'natural' roll of 2 is always successful"
        return True
    if natural == table.natural_failure:
        return False
    return roll.total <= number


# --- orders ----------------------------------------------------------------------


class Action(StrEnum):
    CONTINUE = "continue"  # "the path is not to be deviated from"
    CLOSE = "close"  # "move close enough to receive a Condition 2 report, then back off"
    ATTACK = "attack"  # an armed searcher "searching for, and attacking if found"


@dataclass(frozen=True)
class Reaction:
    """A conditional instruction on what this searcher itself finds (7, General Rule)."""

    on: str  # SHIPS | PLANES
    action: Action
    condition: int = 2  # CLOSE: until the contact is seen at this condition
    back_off: int | None = None  # CLOSE: then withdraw to this range "if he has MPs left"
    altitude: Altitude | None = None  # ATTACK: enter the target hex at this altitude (14.11)


@dataclass(frozen=True)
class Leg:
    """One hex of an e-mailed path; ``extra``: MP spent there for extra rolls (7.3)."""

    hex: Hex
    altitude: Altitude | None = None  # change on entering; climbing costs 1 MP (14.11)
    extra: int = 0


@dataclass(frozen=True)
class SearchOrder:
    key: str  # the owner's designation, e.g. "AF3"
    side: Side
    start: Hex
    altitude: Altitude
    legs: tuple[Leg, ...]
    mp: int
    factors: int = 1  # what another searcher looks for under the join rule
    armed: bool = False
    observer: str = "af"  # the search-table row
    reactions: tuple[Reaction, ...] = ()
    join: str | None = None  # 7: join this friendly AF if it is found attacking a TF


@dataclass(frozen=True)
class Attempt:
    """One search roll, for the referee's log (the roll itself is in the dice log too)."""

    step: int
    searcher_hex: Hex
    target: str
    roll: Roll
    number: int
    success: bool


@dataclass(frozen=True)
class Update:
    """A contact (hex and kind) seen at a better condition at this step of the flight."""

    step: int
    hex: Hex
    kind: str
    condition: int
    high: bool  # the searcher's altitude then (7.12.2 item 3)


@dataclass(frozen=True)
class SearchOutcome:
    key: str
    path: tuple[Hex, ...]  # the starting hex and every hex entered
    altitude: Altitude
    mp_left: int
    found: Mapping[str, int]  # enemy unit ref -> best condition
    attempts: tuple[Attempt, ...]
    updates: tuple[Update, ...]
    attack_hex: Hex | None = None
    joined: bool = False

    def spottings(self, targets: Iterable[Target]) -> tuple[Spotting, ...]:
        """What the searcher saw, one spotting per contact, for :mod:`reports`."""
        high = {(u.hex, u.kind): u.high for u in self.updates}
        seen = [(t, self.found[t.ref]) for t in targets if t.ref in self.found]
        spots = group(self.key, AF, seen)
        return tuple(replace(s, observer_high=high.get((s.hex, s.kind), False)) for s in spots)


# --- flying the path -------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    table: SearchTable
    sky: Visibility
    targets: tuple[Target, ...]
    dice: Dice
    turn: int


def _target_order(t: Target) -> tuple[Any, ...]:
    # Only the referee's log shows this order: the dice do not depend on it.
    return (t.hex, t.kind != TF, t.ref)


def search_label(turn: int, order: SearchOrder, target_ref: str) -> str:
    return f"ft.search.t{turn}.{order.side.value}.{order.key}.{target_ref}"


class _Flight:
    """One searcher's flight; mutable while it flies, frozen into a SearchOutcome after."""

    def __init__(self, order: SearchOrder, ctx: _Context, leader: Target | None) -> None:
        self.order, self.ctx, self.leader = order, ctx, leader
        self.hex, self.altitude, self.mp = order.start, order.altitude, order.mp
        self.path, self.plan = [order.start], list(order.legs)
        self.found: dict[str, int] = {}
        self.attempts, self.updates = list[Attempt](), list[Update]()
        self.mode, self.goal, self.turned_at = "path", order.start, order.start
        self.reaction = Reaction(SHIPS, Action.CONTINUE)  # replaced when a reaction starts
        self.attack_altitude: Altitude | None = None
        self.fired: set[str] = set()
        self.attack_hex: Hex | None = None
        self.joined = False  # 7's join rule carried out
        enemies = [t for t in ctx.targets if t.side is not order.side]
        self.candidates = sorted([*enemies, *([leader] if leader else [])], key=_target_order)

    def fly(self) -> SearchOutcome:
        self.observe(0)
        self.react()
        while (leg := self.next_leg()) is not None and (extra := self.enter(leg)) is not None:
            self.observe(extra)
            self.react()
        if self.mode == "attack" and self.hex == self.goal:
            self.attack_hex = self.goal
        found = {ref: c for ref, c in self.found.items() if self.leader is None or ref != self.leader.ref}
        return SearchOutcome(
            self.order.key, tuple(self.path), self.altitude, self.mp, found,
            tuple(self.attempts), tuple(self.updates), self.attack_hex, self.joined,
        )  # fmt: skip

    def enter(self, leg: Leg) -> int | None:
        """Pay for the hex (1 MP, +1 to climb: 14.11) and its extra searches; None: no MP left."""
        altitude = leg.altitude or self.altitude
        climb = 1 if (self.altitude, altitude) == (Altitude.LOW, Altitude.HIGH) else 0
        if self.mp < 1 + climb:
            return None
        extra = min(leg.extra, self.mp - 1 - climb)
        self.mp -= 1 + climb + extra
        self.hex, self.altitude = leg.hex, altitude
        self.path.append(leg.hex)
        return extra

    # -- observation (7.3) --

    def observe(self, extra: int) -> None:
        ctx = self.ctx
        if ctx.table.storm_blocks and self.hex in ctx.sky.storms:
            return  # reference B.4: no search from a storm hex
        for target in self.candidates:
            rng = distance(self.hex, target.hex)
            number = ctx.table.target_number(ctx.sky.time, self.order.observer, target.kind, rng)
            if number is None or (ctx.table.storm_blocks and target.hex in ctx.sky.storms):
                continue
            if rng and target.own_hex_only:  # seed 003, 27.4: a surfaced sub, from its own hex only
                continue
            condition = ctx.table.condition(ctx.sky.time, rng)
            if target.ref in self.found or self.roll(target, rng, number, 1 + extra):
                self.see(target, condition)

    def roll(self, target: Target, rng: int, number: int, attempts: int) -> bool:
        ctx = self.ctx
        clouds = ctx.sky.cloudy(self.hex) and ctx.sky.cloudy(target.hex)
        mods = modifiers(ctx.table, target, altitude=self.altitude, rng=rng, clouds=clouds)
        label = search_label(ctx.turn, self.order, target.ref)
        for _ in range(attempts):
            result = ctx.dice.roll(label, 6, 2, rule=RULE, modifiers=mods)
            success = spotted(ctx.table, result, number)
            step = len(self.path) - 1
            self.attempts.append(Attempt(step, self.hex, target.ref, result, number, success))
            if success:
                return True
        return False

    def see(self, target: Target, condition: int) -> None:
        before = self.contact_condition(target.hex, target.report_kind)
        self.found[target.ref] = max(self.found.get(target.ref, 0), condition)
        after = self.contact_condition(target.hex, target.report_kind)
        if after > before and target is not self.leader:
            high = self.altitude is Altitude.HIGH
            self.updates.append(Update(len(self.path) - 1, target.hex, target.report_kind, after, high))

    def contact_condition(self, h: Hex, kind: str) -> int:
        conditions = [
            self.found[t.ref]
            for t in self.candidates
            if t.ref in self.found and t.hex == h and t.report_kind == kind and t is not self.leader
        ]
        return max(conditions, default=0)

    # -- where next: the e-mailed path or a reaction (7, General Rule) --

    def next_leg(self) -> Leg | None:
        if self.mode == "path":
            return self.plan.pop(0) if self.plan else None
        if self.mode in ("close", "withdraw"):
            return self.closing() if self.mode == "close" else self.withdrawing()
        if self.mode == "attack" and self.hex != self.goal:
            ahead = line(self.hex, self.goal)[1]
            # 14.11: "enter the target hex at the proper attack altitude"
            return Leg(ahead, self.attack_altitude if ahead == self.goal else None)
        return None  # holding, or arrived to attack

    def closing(self) -> Leg | None:
        reaction = self.reaction
        if self.contact_condition(self.goal, reaction.on) < reaction.condition and self.hex != self.goal:
            return Leg(line(self.hex, self.goal)[1])
        if reaction.back_off is not None and distance(self.hex, self.goal) < reaction.back_off:
            self.mode = "withdraw"
            return self.withdrawing()
        self.mode = "hold"
        return None

    def withdrawing(self) -> Leg | None:
        here = distance(self.hex, self.goal)
        if here >= (self.reaction.back_off or 0):
            self.mode = "hold"
            return None
        away = [n for n in neighbours(self.hex) if distance(n, self.goal) > here]
        # Back off the way it came: toward the hex where it turned to close.
        return Leg(min(away, key=lambda n: (distance(n, self.turned_at), n)))

    def react(self) -> None:
        if self.leader is not None and self.mode != "attack" and self.sees_leader_attacking():
            self.start("attack", self.leader.hex, self.reaction, next(iter(self.leader.altitudes)))
            self.joined = True
            return
        if self.mode != "path":
            return  # a reaction under way is not interrupted by another
        for reaction in self.order.reactions:
            contact = None if reaction.on in self.fired else self.nearest_contact(reaction.on)
            if contact is None:
                continue
            self.fired.add(reaction.on)
            if reaction.action is not Action.CONTINUE:
                mode = "close" if reaction.action is Action.CLOSE else "attack"
                self.start(mode, contact, reaction, reaction.altitude)
                return

    def start(self, mode: str, goal: Hex, reaction: Reaction, altitude: Altitude | None) -> None:
        self.mode, self.goal, self.turned_at = mode, goal, self.hex
        self.reaction, self.attack_altitude = reaction, altitude

    def nearest_contact(self, kind: str) -> Hex | None:
        hexes = {
            t.hex
            for t in self.candidates
            if t.ref in self.found and t.report_kind == kind and t is not self.leader
        }
        return min(hexes, key=lambda h: (distance(self.hex, h), h), default=None)

    def sees_leader_attacking(self) -> bool:
        """7: "the second AF must find both the enemy TF and the friendly AF by search die rolls"."""
        leader = self.leader
        if leader is None or leader.ref not in self.found:
            return False
        return any(t.ref in self.found and t.kind == TF and t.hex == leader.hex for t in self.candidates)


# --- all searches of a segment ---------------------------------------------------


def sequence(orders: Sequence[SearchOrder]) -> tuple[SearchOrder, ...]:
    """Leaders fly before the searchers told to join them (7); a join that names no
    searcher, or a ring of joins, simply never finds its leader attacking."""
    keys = {o.key for o in orders}
    placed: list[SearchOrder] = []
    remaining = list(orders)
    while remaining:
        ready = [o for o in remaining if o.join not in keys or o.join in {p.key for p in placed}]
        if not ready:
            placed.extend(remaining)
            break
        placed.extend(ready)
        remaining = [o for o in remaining if o not in ready]
    return tuple(placed)


def air_movement_order(
    non_search: Sequence[str], orders: Sequence[SearchOrder], followers: Mapping[str, str]
) -> tuple[str, ...]:
    """Seed 003, 7: "all non-searching movement is conducted before all search movement",
    except a non-searcher conforming to a searcher from a rendezvous hex (``followers``:
    AF -> searcher), which moves right after its searcher; one naming no searcher moves first."""
    searchers = {o.key for o in orders}
    first = [k for k in non_search if followers.get(k) not in searchers]
    after = [[o.key, *(k for k in non_search if followers.get(k) == o.key)] for o in sequence(orders)]
    return (*first, *(k for group_ in after for k in group_))


def resolve_searches(
    orders: Sequence[SearchOrder],
    targets: Iterable[Target],
    *,
    sky: Visibility,
    table: SearchTable,
    dice: Dice,
    turn: int,
) -> tuple[SearchOutcome, ...]:
    """Fly every search of one side's segment; outcomes in the order given."""
    ctx = _Context(table, sky, tuple(targets), dice, turn)
    by_key = {o.key: o for o in orders}
    done: dict[str, SearchOutcome] = {}
    for order in sequence(orders):
        leader = _leader_target(order, by_key, done, ctx)
        done[order.key] = _Flight(order, ctx, leader).fly()
    return tuple(done[o.key] for o in orders)


def _leader_target(
    order: SearchOrder, by_key: Mapping[str, SearchOrder], done: Mapping[str, SearchOutcome], ctx: _Context
) -> Target | None:
    """The friendly AF to look for under 7's join rule: only one seen attacking a TF."""
    if order.join is None or order.join not in done:
        return None
    leader, flown = by_key[order.join], done[order.join]
    h = flown.attack_hex
    # "The TF and AF must be in the same hex for this search objective to be allowable."
    if h is None or leader.side is not order.side:
        return None
    if not any(t.kind == TF and t.side is not order.side and t.hex == h for t in ctx.targets):
        return None
    planes = (PlaneView(leader.factors, leader.armed, flown.altitude),)
    return Target(ref=f"friendly {leader.key}", side=order.side, kind=AF, hex=h, planes=planes)


def rendezvous_path(
    own: Sequence[Hex], rendezvous: Hex, leader_path: Sequence[Hex], mp: int
) -> tuple[Hex, ...]:
    """7: a non-searching AF flies ``own`` (start to "a specific rendezvous hex"), then
    conforms "to that of the searcher for the remainder of the move": the leader's
    actual path (a searcher's reactions included), as far as its MP go. If the leader
    never passed the rendezvous hex, the connection is missed and it stays there."""
    if not own or own[-1] != rendezvous or rendezvous not in leader_path:
        return tuple(own)
    after = tuple(leader_path)[list(leader_path).index(rendezvous) + 1 :]
    budget = max(mp - (len(own) - 1), 0)
    return (*own, *after[:budget])
