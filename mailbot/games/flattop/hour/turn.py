# SPDX-License-Identifier: GPL-3.0-or-later
"""The turn being resolved, shared by :mod:`resolve` and the phases it calls (the ``resolve_*``
modules of ``air`` and ``observation``): the changing state, the events with their audiences,
the spottings, and the helpers those phases share to find and replace an own AF."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from mailbot.core.dice import Dice
from mailbot.core.game import Event
from mailbot.games.flattop.air.landing import roll_landing
from mailbot.games.flattop.hour import air_ops
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.map.hexes import Hex, distance
from mailbot.games.flattop.map.scenario import EntryHex
from mailbot.games.flattop.map.towing import in_tow
from mailbot.games.flattop.map.weather import coverage_of
from mailbot.games.flattop.observation.observe import Spotting, Target, Visibility, af_target, tf_target
from mailbot.games.flattop.orders.decks import may_land
from mailbot.games.flattop.orders.types import FtOrder, Jettison
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Altitude, Base, Fact, Side, TaskForce
from mailbot.games.flattop.victory_scoring import air_lost

REFEREE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Flight:
    """An AF's movement this turn, for special interception (standard 14.13): every hex from
    the start, and its altitude at the end (this version does not track it hex by hex)."""

    side: Side
    number: int
    path: tuple[Hex, ...]
    altitude: Altitude
    lingered: tuple[tuple[Hex, int], ...] = ()  # extra MP spent in a hex of the path (search "+n")

    def mp_in(self, h: Hex) -> int:
        """MP spent in ``h``: one for each time the AF entered it, plus the extra MP spent there."""
        return sum(1 for x in self.path[1:] if x == h) + sum(n for x, n in self.lingered if x == h)


@dataclass
class Turn:
    """The turn being resolved: the state as it changes, the events, the spottings so far."""

    state: FlatTopState
    dice: Dice
    orders: Mapping[Side, Sequence[FtOrder]]
    events: list[Event] = field(default_factory=list)
    spottings: dict[Side, list[Spotting]] = field(default_factory=dict)
    shadows: list[tuple[Side, int, int]] = field(default_factory=list)  # side, its AF, enemy TF number
    tf_shadows: list[tuple[Side, int, int, int]] = field(default_factory=list)  # ..., its TF, ..., range
    moved: dict[Side, set[int]] = field(default_factory=dict)  # TFs that moved this turn (12.7.3)
    flights: list[Flight] = field(default_factory=list)  # the movement segment being resolved
    blind: set[tuple[Side, int]] = field(default_factory=set)  # the Shadowing Table's '-' (11.7)
    blind_told: set[tuple[Side, int]] = field(default_factory=set)
    launched: set[tuple[Side, int]] = field(default_factory=set)  # (side, AF) new this turn
    intercepted: set[tuple[Side, int]] = field(default_factory=set)  # (side, AF) that tried (14.13)
    strikes: list[tuple[Side, int, Hex]] = field(default_factory=list)  # attack declarations (15)
    # 14.13.2 interceptions that succeeded, fought in the Combat Phase: (side, AF, enemy AF, hex)
    interceptions: list[tuple[Side, int, int, Hex]] = field(default_factory=list)
    # fighter sweeps: AFs with fighters and no bombs that ended a FLY ... ATTACK path (combat.sweep)
    sweeps: list[tuple[Side, int]] = field(default_factory=list)

    def tell(self, side: Side, kind: str, text: str, **data: object) -> None:
        self.events.append(Event(f"ft.{kind}", text, frozenset({side.value}), dict(data)))

    def referee(self, kind: str, text: str, **data: object) -> None:
        self.events.append(Event(f"ft.{kind}", text, REFEREE, dict(data)))

    def facts(self, facts: Sequence[Fact]) -> None:
        for fact in facts:
            self.referee(fact.kind, fact.text, **dict(fact.data))

    def of(self, side: Side, kind: type[FtOrder]) -> list[FtOrder]:
        return [o for o in self.orders.get(side, ()) if isinstance(o, kind)]

    def may_act(self, side: Side, af: int) -> bool:
        """False for an AF whose shadowing drew the table's '-': it "may not move or observe at
        all this turn" (standard 11.7, reference A.8.8), so its movement, search, landing and
        interception orders wait; the side hears it once."""
        if (side, af) not in self.blind:
            return True
        if (side, af) not in self.blind_told:
            self.blind_told.add((side, af))
            self.tell(
                side, "blind", f"AF{af} may not move or observe this turn (standard 11.7): its orders wait"
            )
        return False

    def sides(self) -> tuple[Side, ...]:
        return tuple(s.side for s in self.state.sides)

    def sky(self) -> Visibility:
        st = self.state
        return visibility(st.weather.centres, st.rules.weather.cloud_radius, st.scenario.is_night(st.time))

    def targets(self) -> tuple[Target, ...]:
        """Every TF and every AF on the map, as observation may see them (referee snapshot)."""
        towed = in_tow(self.state.tows)  # 7.12.3: "in tow" shows at Condition 3
        tfs = tuple(tf_target(tf, in_tow=towed) for tf in self.state.task_forces)
        return tfs + tuple(af_target(af) for af in self.state.air if af.hex is not None)

    def spot(self, side: Side, spottings: Sequence[Spotting]) -> None:
        self.spottings.setdefault(side, []).extend(spottings)
        for s in spottings:
            refs = ", ".join(t.ref for t in s.targets)
            name = self.state.scenario.map.hex_id(s.hex)
            self.referee(
                "spotting", f"{side}: {s.observer_key} sees {s.kind} at {name} (C{s.condition}): {refs}"
            )


def own_af(turn: Turn, side: Side, number: int) -> AirFormation | None:
    return next((a for a in turn.state.own_air(side) if a.number == number and a.hex is not None), None)


def put(turn: Turn, old: AirFormation, new: AirFormation) -> None:
    turn.state = replace(turn.state, air=tuple(new if a is old else a for a in turn.state.air))


def land_af(
    turn: Turn, side: Side, number: int, place: str, mp: int | None, *, via: str | None = None
) -> None:
    """Fly AF ``number`` toward ``place`` with ``mp`` (None: its full MP) and land if it gets there;
    for an off-board base, toward its entry hex ``via`` (None: the nearest), and off the board."""
    st = turn.state
    formation = next((a for a in st.own_air(side) if a.number == number), None)
    goal = air_ops.place_hex(st, side, place)
    entries = air_ops.base_entries(st, side, place)
    if formation is not None and formation.hex is not None and entries:
        _leave_board(turn, formation, place, [e for e in entries if via in (None, e.label)], mp)
        return
    if formation is None or goal is None or formation.hex is None:
        return
    allowance = air_ops.mf(st, formation) if mp is None else mp
    moved, problem, path = air_ops.fly_toward(st, formation, goal, allowance, landing=True)
    turn.state = replace(st, air=tuple(moved if a is formation else a for a in st.air))
    if moved.hex is not None and moved.hex != formation.hex:
        turn.flights.append(Flight(side, number, path, moved.stacks[0].altitude))
    why = air_ops.cannot_land(turn.state, moved, place, turn.moved.get(side, set()))
    if why:
        where = st.scenario.map.hex_id(moved.hex) if moved.hex else "?"
        because = problem if why == "not there yet" and problem else why
        turn.tell(side, "flying", f"AF{number} is flying to {place}, now at {where} ({because})")
        return
    touch_down(turn, side, moved, place)


def _leave_board(
    turn: Turn, formation: AirFormation, place: str, entries: Sequence[EntryHex], mp: int | None
) -> None:
    """Reference A.3: "B-17s reach Entry Hex 1A at 1400. At 1500 they go to the Australia In-Flight
    box, and they land at 1600": an AF that reaches the entry hex leaves the board there for the
    base's In Flight box and lands at the end of the turn the entry's delay later."""
    st, start = turn.state, formation.hex
    assert start is not None and entries
    entry = min(entries, key=lambda e: (distance(start, e.hex), e.label))
    allowance = air_ops.mf(st, formation) if mp is None else mp
    moved, problem, path = air_ops.fly_toward(st, formation, entry.hex, allowance)
    if moved.hex != start:
        turn.flights.append(Flight(formation.side, formation.number, path, moved.stacks[0].altitude))
    name, side = st.scenario.map.hex_id, formation.side
    if moved.hex != entry.hex:
        put(turn, formation, moved)
        now = name(moved.hex) if moved.hex else "?"
        why = f" ({problem})" if problem else ""
        by = f"entry hex {entry.label} ({name(entry.hex)})"
        turn.tell(side, "flying", f"AF{formation.number} is flying to {place} by {by}, now at {now}{why}")
        return
    lands = st.turn + entry.delay
    put(turn, formation, replace(moved, hex=None, entry=None, home=place, arrives=lands))
    turn.tell(
        side,
        "flying",
        f"AF{formation.number} left the board at entry hex {entry.label} ({name(entry.hex)}) for "
        f"{place}; it lands there at the end of turn {lands} (reference A.3)",
    )


def home_landings(turn: Turn) -> None:
    """End of turn: AFs whose flight to an off-board base is over land there (night and armed
    landings roll as anywhere, 14.10); one whose range ran out on the way is lost (8.5.5)."""
    st = turn.state
    due = [a for a in st.air if a.hex is None and a.home is not None and a.arrives <= st.turn]
    for formation in due:
        assert formation.home is not None
        if air_ops.range_over(turn.state, formation):
            turn.tell(formation.side, "lost", f"AF{formation.number} ran out of fuel on its way to "
                      f"{formation.home} and is lost (standard 8.5.5)")  # fmt: skip
            lost_aloft(turn, formation, "fuel")
        else:
            touch_down(turn, formation.side, formation, formation.home)


def lost_aloft(turn: Turn, formation: AirFormation, where: str) -> None:
    """8.5.5; A.13: the AF could not land in time: gone, each factor lost "unnecessarily" (10 VP),
    unless hits kept it off the deck it had reached (25.4: "This does not apply to Air Factors that
    can reach a hex where landing was possible, but is not when they arrive because of hits scored
    on bases or plane-carrying ships"): then 2 VP a factor."""
    st = turn.state
    closed = closed_by_hits(st, formation)
    because = f"; {closed}: 2 VP a factor, not 10 (standard 25.4)" if closed else ""
    turn.referee("lost", f"{formation.side} AF{formation.number} lost: out of range{because}")
    rules = kit(st).victory
    entries = [
        air_lost(s.plane, s.count, formation.side, st.turn, rules, unnecessary=not closed,
                 where=f"{where}.AF{formation.number}.{i}", cause="fuel")
        for i, s in enumerate(formation.stacks)
    ]  # fmt: skip
    kept = tuple(a for a in st.air if a is not formation)
    turn.state = replace(st, air=kept, score=st.score.scored(entries))


def closed_by_hits(state: FlatTopState, formation: AirFormation) -> str:
    """Why a friendly TF or base in the AF's hex, where its planes could land, takes them on no
    deck this turn because of hits (``air.operations.deck_closed``); "" if none."""
    if formation.hex is None:
        return ""
    categories = {state.rules.planes[s.plane].category for s in formation.stacks}
    places: list[TaskForce | Base] = [
        *(t for t in state.own_tfs(formation.side) if t.hex == formation.hex),
        *(b for b in state.own_bases(formation.side) if b.hex == formation.hex and may_land(b, categories)),
    ]
    return next((why for p in places if (why := air_ops.deck_closed(state, p, categories))), "")


def drop_load(turn: Turn, formation: AirFormation) -> AirFormation:
    """The AF's armed factors drop their bombs or torpedoes (an attack, or JETTISON, standard
    14.14): they land unarmed, and stay bombers until they land (reference A.6)."""
    if all(s.armament is None for s in formation.stacks):
        return formation
    stacks = tuple(
        replace(s, armament=None, expended=True) if s.armament is not None else s for s in formation.stacks
    )
    dropped = replace(formation, stacks=stacks)
    put(turn, formation, dropped)
    return dropped


def jettisoning(turn: Turn, side: Side, number: int) -> bool:
    return any(isinstance(o, Jettison) and o.af == number for o in turn.orders.get(side, ()))


def jettison_aloft(turn: Turn, side: Side) -> None:
    """End of the side's segment: AFs ordered to JETTISON and still aloft and armed drop their load."""
    for order in turn.orders.get(side, ()):
        if not isinstance(order, Jettison):
            continue
        formation = own_af(turn, side, order.af)
        if formation is not None and any(s.armament is not None for s in formation.stacks):
            drop_load(turn, formation)
            where = turn.state.scenario.map.hex_id(formation.hex) if formation.hex else "?"
            turn.tell(side, "jettison", f"AF{order.af} jettisoned its bombs at {where} (standard 14.14)")


def touch_down(turn: Turn, side: Side, formation: AirFormation, place: str) -> None:
    """Night and armed landings roll per factor (14.10, 14.14, seed 003 14.10.1); the rest land.
    An AF ordered to JETTISON drops its load first (14.14: "at any time during plane movement")."""
    if jettisoning(turn, side, formation.number) and any(s.armament is not None for s in formation.stacks):
        formation = drop_load(turn, formation)
        turn.tell(
            side, "jettison", f"AF{formation.number} jettisoned its bombs before landing (standard 14.14)"
        )
    st = turn.state
    where = air_ops.landing_place(st, formation, place)
    label = f"ft.landing.t{st.turn}.{side.value}.AF{formation.number}"
    result = roll_landing(formation.stacks, where, st.rules.landing, turn.dice, label)
    turn.state = air_ops.land(st, formation, place, result.landed)
    for roll in result.rolls:
        turn.referee("landing.roll", f"{side} AF{formation.number} at {place}: {roll.text}")
    lost = f": {result.lost} air factor(s) lost in the landing" if result.lost else ""
    night = " at night" if where.night else ""
    storm = " in a storm (the Night Landing Chart, standard 6.6)" if where.storm else ""
    turn.tell(side, "landed", f"AF{formation.number} landed at {place}{night}{storm}{lost}")
    if result.lost:
        _score_landing(turn, formation, result.landed)


LANDING = "landing"  # the ledger's cause for factors lost landing (``VpEntry.cause``)


def _score_landing(turn: Turn, formation: AirFormation, landed: Sequence[AirFactors]) -> None:
    """Reference A.13: an Air Factor lost "is worth 2 VP to the enemy", one lost landing (14.10,
    14.14) too (the landing was his to fly, not "unnecessary": it had not run out of range)."""
    st = turn.state
    counts: dict[str, int] = {}
    for stack in formation.stacks:
        counts[stack.plane] = counts.get(stack.plane, 0) + stack.count
    for stack in landed:
        counts[stack.plane] -= stack.count
    rules, where = kit(st).victory, f"landing.AF{formation.number}"
    entries = [
        air_lost(plane, n, formation.side, st.turn, rules, where=where, cause=LANDING)
        for plane, n in sorted(counts.items())
        if n > 0
    ]
    turn.state = replace(st, score=st.score.scored(entries))


@lru_cache(maxsize=32)
def visibility(centres: tuple[Hex, ...], radius: int, night: bool) -> Visibility:
    """The sky of the markers at ``centres``: every phase of an hour asks for it, it changes with them."""
    return Visibility.from_coverage(coverage_of(centres, radius), night=night)
