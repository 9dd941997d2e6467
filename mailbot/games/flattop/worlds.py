# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top worlds for the differential harness (``mailbot.testing.differential``).

A base state is a small game already under way (``test-small``, clear skies),
in which one side holds contacts or has planes aloft. From it Hypothesis
draws, for one observing side S:

- a twin world that differs only in what S has not observed: the other
  side's TFs and AFs that S's observers did not cover last turn (``seen``,
  seed 003, 11.2) are moved; any extra TF may appear in a hex of interest
  (where S saw ships, where S's units are); every enemy TF is renumbered
  (numbers are never reported, 7.12.2, so a renumbering is unobservable;
  the referee's ``seen`` record follows it); the enemy's DECEPTION policy
  and its own knowledge are redrawn;
- the other side's letters in each world, drawn independently (FLY and
  SEARCH flights, many of them through S's hexes, fighter sweeps, flights that
  join an AF aloft at a rendezvous, INTERCEPT, PLOT, ...);
- S's letters, the same in both worlds (SHADOW a contact, INTERCEPT,
  SEARCH, PLOT, LAND, HOLD), and the dice seed.

The draws lean toward the situations where a leak would show, without leaving any out: the
seat that holds a probe observes three times in four; three letters in four lead with a probe
(SHADOW, INTERCEPT); the twin most often holds one or two extra unseen TFs (numbered below and
above the others), three times in four in the hex where the side saw ships; the enemy's flights
over the side's own hexes are drawn as often as all its other flights, and half the time the
enemy launches nothing (a flight the side sees ends the comparison before a probe's answer
counts); the dice seed hashes the whole example, so the rolls vary as much as the rest.

What S has observed (:func:`observed`): its knowledge (every report it
holds) and the contacts the enemy forces on it (an interception of one of
its AFs). The harness stops comparing once these differ between the worlds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from hypothesis import strategies as st

from mailbot.core.dice import DiceStream
from mailbot.core.game import Event, Line, Setup
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.map.hexes import Hex, Terrain, line, neighbours
from mailbot.games.flattop.observation.knowledge import SHIPS, Knowledge, dump
from mailbot.games.flattop.observation.observe import tf_target
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Side, TaskForce
from mailbot.registry import default_registry
from mailbot.testing import differential
from mailbot.testing.contract import package_data
from mailbot.testing.differential import World

GAME = FlatTopGame()
PACKAGE = default_registry().find("flattop")
SEATS = ("allied", "japanese")
#: events by which the enemy forces a contact on the side (it is attacked, not told a secret):
#: an interception, and a fight of fighters where planes of both sides met (``combat.sweep``)
CONTACT_KINDS = frozenset({"ft.intercepted", "ft.fighters"})


def observed(state: FlatTopState, events: Sequence[Event], seat: str) -> object:
    """What the side has legitimately learnt of the enemy: its knowledge and forced contacts."""
    knowledge = json.dumps(dump(state.side(Side(seat)).knowledge), sort_keys=True)
    contacts = [e.text for e in events if e.visible_to(seat) and e.kind in CONTACT_KINDS]
    return knowledge, contacts


# --- base states ---------------------------------------------------------------------


@cache
def _data() -> dict[str, Any]:
    tree = package_data(PACKAGE)
    return {"tables": tree["tables"], "scenarios": {"test-small": tree["scenarios"]["test-small"]}}


def _new() -> FlatTopState:
    setup = Setup("test-small", SEATS, data=_data())
    state = GAME.new_game(setup, dice=DiceStream(b"differential base".ljust(32, b"."), "", "setup"))
    return replace(state, weather=replace(state.weather, clouds=()))


def _play(state: FlatTopState, orders: dict[str, list[str]]) -> FlatTopState:
    step = GAME.step(state)
    assert step is not None
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    dice = DiceStream(b"differential base".ljust(32, b"."), "base", step.key)
    return GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=dice).state


def _hex(state: FlatTopState, name: str) -> Hex:
    h = state.scenario.map.parse(name)
    assert h is not None
    return h


@cache
def searched() -> FlatTopState:
    """Turn 3 (0700): an Allied Wildcat AF1 has searched over the Japanese TF1 at I-G17."""
    state = _new()
    path = "V-E25 V-E24 V-F23 I-F22 I-F21 I-F20 I-G20 I-G19"
    state = _play(state, {"allied": [f"search af1 from tf1 2 wildcat path {path}"]})
    return _play(state, {"allied": ["search af1 path I-G18 I-G17+2"]})


@cache
def zeros() -> FlatTopState:
    """Turn 2 (0600, day): a Japanese AF5 of two unarmed Zeros waits at V-E27, out of sight of
    every Japanese observer, next to the Allied TF1 (V-E26)."""
    state = _play(_new(), {})
    af5 = AirFormation(5, Side.JAPANESE, _hex(state, "V-E27"), (AirFactors("Zero", 2, True),), "TF1", 1)
    return replace(state, air=(*state.air, af5))


BASES = {"searched": searched, "zeros": zeros}
#: (base, observing seat): each base with both seats, three times as often with the seat that
#: holds the probes there (the Allies' contact to SHADOW, the Japanese AF5 to INTERCEPT with)
PAIRS = [("searched", "allied"), ("zeros", "japanese")] * 3 + [("searched", "japanese"), ("zeros", "allied")]


def weighted(*choices: tuple[st.SearchStrategy[Any], int]) -> st.SearchStrategy[Any]:
    """One of the strategies, each as often as its weight (``st.one_of`` drops repeated ones)."""
    return st.sampled_from([s for s, weight in choices for _ in range(weight)]).flatmap(lambda s: s)


# --- hexes of interest ----------------------------------------------------------------


def _name(state: FlatTopState, h: Hex) -> str:
    return state.scenario.map.hex_id(h)


def _sea(state: FlatTopState) -> list[Hex]:
    m = state.scenario.map
    return [
        Hex(c, r)
        for c in range(8)
        for r in range(16, 29)
        if m.on_board(Hex(c, r)) and m.terrain_of(Hex(c, r)) is not Terrain.LAND
    ]


def contact_hexes(state: FlatTopState, side: Side) -> list[Hex]:
    """Where the side saw ships last turn (what SHADOW may name, 11.2)."""
    known = state.side(side).knowledge.of_turn(state.turn - 1)
    return sorted({_hex(state, s.hex) for s in known if s.kind == SHIPS}, key=lambda h: (h.col, h.row))


def unit_hexes(state: FlatTopState, side: Side) -> list[Hex]:
    tfs = [t.hex for t in state.own_tfs(side)]
    afs = [a.hex for a in state.own_air(side) if a.hex is not None]
    return sorted({*tfs, *afs}, key=lambda h: (h.col, h.row))


def interest(state: FlatTopState, side: Side) -> list[Hex]:
    """Hexes where an unseen enemy would matter to ``side``: its contacts and its own units."""
    return sorted({*contact_hexes(state, side), *unit_hexes(state, side)}, key=lambda h: (h.col, h.row))


def _where(state: FlatTopState, side: Side) -> st.SearchStrategy[Hex]:
    """A hex for an unseen enemy unit: most often where the side saw ships or has units."""
    choices = [st.sampled_from(h) for h in (contact_hexes(state, side), unit_hexes(state, side)) if h]
    return st.one_of(*choices, st.sampled_from(_sea(state)))


# --- the twin world: only what the observing side has not seen changes --------------------


def _renumbering(draw: st.DrawFn, state: FlatTopState, other: Side) -> dict[int, int]:
    """New numbers for the enemy TFs (keys 0 and -1: the extra TFs', one below and one above all
    the others: the cases where "the lowest-" or "the highest-numbered TF in the hex" is not the
    one the side saw)."""
    numbers = draw(st.permutations(list(range(2, 10))))
    renumbered = {tf.number: numbers[i] for i, tf in enumerate(state.own_tfs(other))}
    low = draw(st.sampled_from([1, 10]))
    return renumbered | {0: low, -1: 11 - low}


#: how many extra TFs the side never saw the twin world holds: most often one or two, so that a
#: hex the side watches often holds several enemy TFs, only one of them seen
EXTRA_TFS = [2, 1, 2, 1, 2, 0]


@st.composite
def unseen_changes(draw: st.DrawFn, state: FlatTopState, seat: str) -> FlatTopState:
    """``state`` with only facts ``seat`` has not observed changed (module docstring)."""
    side = Side(seat)
    other = side.opponent
    seen = state.side(side).seen
    new_number = _renumbering(draw, state, other)
    where = _where(state, side)
    tfs: list[TaskForce] = []
    for tf in state.task_forces:
        if tf.side is side:
            tfs.append(tf)
            continue
        moved = tf if tf_target(tf).ref in seen or not draw(st.booleans()) else replace(tf, hex=draw(where))
        tfs.append(replace(moved, number=new_number[tf.number]))
    ships = next(t.ships for t in state.own_tfs(other))[-1:]
    near = contact_hexes(state, side)  # an unseen TF next to a seen one: the adversarial case
    # three times in four where the side saw ships, when it saw any
    place = weighted((st.sampled_from(near), 3), (where, 1)) if near else where
    for key in (0, -1)[: draw(st.sampled_from(EXTRA_TFS))]:
        tfs.append(TaskForce(new_number[key], other, draw(place), ships))
    renamed = {f"{other.value} TF{old}": f"{other.value} TF{new}" for old, new in new_number.items()}
    air = tuple(_unseen_af(draw, af, seen, where, new_number) if af.side is other else af for af in state.air)
    changed = replace(state, task_forces=tuple(tfs), air=air)
    mine = changed.side(side)
    changed = changed.with_side(replace(mine, seen=frozenset(renamed.get(r, r) for r in mine.seen)))
    theirs = changed.side(other)
    policy = draw(st.sampled_from(list(Deception)))
    knowledge = theirs.knowledge if draw(st.booleans()) else Knowledge(other.value)
    return changed.with_side(replace(theirs, deception=policy, knowledge=knowledge))


def _unseen_af(
    draw: st.DrawFn,
    af: AirFormation,
    seen: frozenset[str],
    where: st.SearchStrategy[Hex],
    numbers: dict[int, int],
) -> AirFormation:
    origin = af.origin
    if origin.startswith("TF") and origin[2:].isdigit() and int(origin[2:]) in numbers:
        origin = f"TF{numbers[int(origin[2:])]}"
    if f"{af.side.value} AF{af.number}" in seen or af.hex is None or not draw(st.booleans()):
        return replace(af, origin=origin)
    return replace(af, origin=origin, hex=draw(where))


# --- letters --------------------------------------------------------------------------


def _path(state: FlatTopState, start: Hex, goal: Hex, extra: Hex | None) -> str | None:
    hexes = line(start, goal)[1:4]
    if extra is not None and hexes:
        hexes.append(extra)
    return " ".join(_name(state, h) for h in hexes) or None


def _launch_places(state: FlatTopState, side: Side) -> list[tuple[str, Hex, str]]:
    """(place, hex, plane) for every plane type in a Ready box of the side's TFs and on-board bases."""
    places: list[tuple[str, Hex, str]] = []
    for tf in state.own_tfs(side):
        for ship in tf.plane_ships:
            places += [(f"TF{tf.number}", tf.hex, s.plane) for s in ship.boxes.ready]
    for base in state.own_bases(side):
        if base.hex is not None:
            places += [(base.name.replace(" ", "-"), base.hex, s.plane) for s in base.boxes.ready]
    return sorted(set(places), key=lambda p: (p[0], p[2]))


def _flights(state: FlatTopState, side: Side, goals: list[Hex]) -> list[str]:
    """FLY and SEARCH launches toward ``goals`` (the other side's hexes of interest)."""
    used = {a.number for a in state.own_air(side)}
    free = [n for n in range(1, 36) if n not in used][:2]
    lines = []
    for (place, h, plane), goal in ((p, g) for p in _launch_places(state, side) for g in goals):
        for extra in (None, *neighbours(goal)[:2]):
            path = _path(state, h, goal, extra)
            if path:
                lines.append(f"FLY AF{free[0]} FROM {place} 1 {plane} PATH {path}")
                lines.append(f"SEARCH AF{free[1]} FROM {place} 1 {plane} PATH {path}")
                if "interceptor" in state.rules.planes[plane].roles and extra is None:
                    # a fighter sweep (combat.sweep): it fights the planes where its path ends
                    lines.append(f"FLY AF{free[0]} FROM {place} 1 {plane} UNARMED PATH {path} ATTACK")
                if extra is None:  # seed 003, 7: join an AF aloft where the path ends (air.merge)
                    meet = path.split()[-1]
                    lines += [
                        f"FLY AF{free[0]} FROM {place} 1 {plane} PATH {path} RENDEZVOUS {meet} WITH AF{n}"
                        for n in sorted(used)
                    ]
    return lines


def _aloft(state: FlatTopState, side: Side, goals: list[Hex]) -> list[str]:
    lines = []
    for af in state.own_air(side):
        if af.hex is None:
            continue
        lines += [f"SHADOW AF{af.number} {_name(state, h)}" for h in contact_hexes(state, side)]
        lines += [f"INTERCEPT AF{af.number}"]
    return lines


def _aloft_moves(state: FlatTopState, side: Side, goals: list[Hex]) -> list[str]:
    lines = []
    for af in state.own_air(side):
        if af.hex is not None:
            lines += [f"LAND AF{af.number} {af.origin}"]
            lines += [f"SEARCH AF{af.number} PATH {p}" for g in goals if (p := _path(state, af.hex, g, None))]
    return lines


def _plots(state: FlatTopState, side: Side) -> list[str]:
    return [
        f"PLOT TF{tf.number} {_name(state, h)}" for tf in state.own_tfs(side) for h in neighbours(tf.hex)[:3]
    ]


def letter_lines(state: FlatTopState, side: Side) -> tuple[list[str], list[str]]:
    """(the lines that probe the enemy: SHADOW, INTERCEPT, flights toward him; the rest)."""
    goals = interest(state, side.opponent)[:3] or contact_hexes(state, side)
    probes = _aloft(state, side, goals)
    rest = ["HOLD", *_aloft_moves(state, side, goals), *_plots(state, side)]
    rest += _flights(state, side, goals or interest(state, side)[:2])
    return probes, rest


def letters(state: FlatTopState, side: Side, turns: int) -> st.SearchStrategy[list[list[str]]]:
    """Letters of 1 to 3 lines, any mix of probes and the rest; where the side holds probes, three
    letters in four lead with one (a probe whose answer could depend on an unseen unit)."""
    probes, rest = letter_lines(state, side)
    one = st.one_of(st.sampled_from(probes), st.sampled_from(rest)) if probes else st.sampled_from(rest)
    letter = st.lists(one, min_size=1, max_size=3)
    if probes:
        led = st.tuples(st.sampled_from(probes), st.lists(one, max_size=2)).map(lambda t: [t[0], *t[1]])
        letter = weighted((led, 3), (letter, 1))
    return st.lists(letter, min_size=turns, max_size=turns)


def enemy_letters(
    state: FlatTopState, enemy: Side, turns: int, *, quiet: bool = False
) -> st.SearchStrategy[list[list[str]]]:
    """The other side's letters: flights toward the observing side's hexes, and the rest; a quiet
    enemy launches nothing (its flights near the side are seen, which ends many comparisons
    before a probe's answer is compared)."""
    goals = interest(state, enemy.opponent)
    lines = ["HOLD", *_plots(state, enemy), *(f"DECEPTION {p.value.upper()}" for p in Deception)]
    lines += [f"INTERCEPT AF{a.number}" for a in state.own_air(enemy)]
    flights = [] if quiet else _flights(state, enemy, goals)
    # flights over the side's own hexes (where its interceptors wait) as often as all others
    names = {_name(state, h) for h in unit_hexes(state, enemy.opponent)}
    over = [f for f in flights if names & set(f.split(" PATH ")[-1].split())]
    kinds = [st.sampled_from(group) for group in (over, flights, lines) if group]
    return st.lists(st.lists(st.one_of(*kinds), min_size=1, max_size=2), min_size=turns, max_size=turns)


# --- one example -------------------------------------------------------------------------


class Example(differential.Example):
    def __repr__(self) -> str:  # what Hypothesis prints for a falsifying example (not the states)
        others = [dict(w) for w in self.first.others], [dict(w) for w in self.second.others]
        return f"Example(seat={self.seat!r}, letters={self.letters!r}, enemy letters={others!r})"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


@st.composite
def examples(draw: st.DrawFn, turns: int = 2) -> Example:
    name, seat = draw(st.sampled_from(PAIRS))
    base = BASES[name]()
    enemy = Side(seat).opponent
    twin = draw(unseen_changes(base, seat))
    own = draw(letters(base, Side(seat), turns))
    quiet = draw(st.sampled_from([False, True]))  # in both worlds: what the side would notice
    theirs = tuple(draw(enemy_letters(s, enemy, turns, quiet=quiet)) for s in (base, twin))
    first = World(base, [{enemy.value: lines} for lines in theirs[0]])
    second = World(twin, [{enemy.value: lines} for lines in theirs[1]])
    return Example(seat, first, second, own, dice_seed(draw, [name, seat, own, *theirs]))


def dice_seed(draw: st.DrawFn, drawn: object) -> bytes:
    """The dice seed: a drawn number hashed with the rest of the example. Hypothesis draws small
    and simple numbers far more often than others (a third of the examples got the same seed, so
    the same rolls), while the rest of the example varies; hashing it in spreads the dice as
    evenly as in play, where the rolls are keyed by the orders too."""
    number = draw(st.integers(0, 2**16))
    return hashlib.sha256(json.dumps([number, drawn]).encode()).digest()
