# SPDX-License-Identifier: GPL-3.0-or-later
"""No leaks: what a side has not observed cannot change what it knows (design/flattop.md).

Seed 003's design notes: "The heart and soul of "E-mail Flat Top" is the
increased limit on intelligence." The property: take a random true situation,
let the Allied side observe it (a search flight, a TF with or without radar,
coastwatchers), then change only facts the Allies did not observe:

- everything about enemy units that no Allied observer saw or rolled for
  (their makeup, their TF/AF numbers, even whether they exist);
- of units rolled for but missed: everything but what the roll depends on
  (hex, size, altitude);
- of units seen: their ship names always; their damage below Condition 3
  (7.12.3); ship classes and armament at Condition 1 (7.12.1);
- the order in which the referee lists units.

The Allied knowledge, and the report model built from it, must then be
byte-identical (JSON with sorted keys).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mailbot.core.dice import DiceStream
from mailbot.games.flattop.map.hexes import STANDARD_LAYOUT, Hex, HexMap, Terrain, neighbours
from mailbot.games.flattop.map.scenario import Coastwatchers, Island
from mailbot.games.flattop.observation.knowledge import Knowledge, dump, load
from mailbot.games.flattop.observation.observe import (
    Spotting,
    Target,
    Visibility,
    Watcher,
    af_target,
    coastwatcher_net,
    coastwatcher_observation,
    radar_observation,
    surface_observation,
    tf_target,
)
from mailbot.games.flattop.observation.reports import Deception, ReportRules, record_all, report_model
from mailbot.games.flattop.observation.search import (
    Action,
    Leg,
    Reaction,
    SearchOrder,
    SearchTable,
    resolve_searches,
)
from mailbot.games.flattop.units import (
    AirFactors,
    AirFormation,
    Altitude,
    Armament,
    Ship,
    ShipType,
    Side,
    TaskForce,
)

TABLES = Path(__file__).resolve().parents[3] / "mailbot" / "games" / "flattop" / "data" / "tables"


def _table(name: str) -> dict[str, Any]:
    return tomllib.loads((TABLES / name).read_text("utf-8"))


OBSERVATION, COASTWATCHERS = _table("observation.toml"), _table("observation-coastwatchers.toml")
TABLE = SearchTable.from_mapping(_table("search.toml"))
J, A = Side.JAPANESE, Side.ALLIED
SIZE = 10  # the situation lives in hexes (0..9, 0..9) of section I
SURFACE_TYPES = [t for t in ShipType if t is not ShipType.SS]  # a sub would change the 7.3 size (27.4)
ISLAND = Island("Malaita", frozenset({Hex(3, 3), Hex(3, 4), Hex(4, 3)}))
ISLAND_MAP = HexMap(
    STANDARD_LAYOUT, {Hex(3, 3): Terrain.PARTIAL, Hex(3, 4): Terrain.LAND, Hex(4, 3): Terrain.PARTIAL}
)
CW_NET = coastwatcher_net(A, ISLAND_MAP, [ISLAND], Coastwatchers(allied=frozenset({"Malaita"})))

hexes = st.builds(Hex, st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))
names = st.text("qxzQXZ", min_size=3, max_size=6)  # letters no report word or hex ID uses
altitudes = st.sampled_from(list(Altitude))


@st.composite
def ships(draw: st.DrawFn) -> Ship:
    damage = draw(st.integers(1, 8))
    kind = draw(st.sampled_from(SURFACE_TYPES))
    return Ship(draw(names), kind, 3, 3, 0, 3, damage, hits=draw(st.integers(0, damage - 1)))


def stacks() -> st.SearchStrategy[AirFactors]:
    armament = st.one_of(st.none(), st.sampled_from(list(Armament)))
    return st.builds(AirFactors, st.just("Val"), st.integers(1, 8), armament=armament, altitude=altitudes)


@dataclass(frozen=True)
class World:
    """The referee's truth: Japanese TFs and AFs (the Allied observers are fixed per example)."""

    tfs: tuple[TaskForce, ...]
    afs: tuple[AirFormation, ...]

    def targets(self) -> list[Target]:
        return [*(tf_target(tf) for tf in self.tfs), *(af_target(af) for af in self.afs)]


@st.composite
def worlds(draw: st.DrawFn) -> World:
    tf_numbers = draw(st.lists(st.integers(1, 30), max_size=5, unique=True))
    af_numbers = draw(st.lists(st.integers(1, 35), max_size=4, unique=True))
    tfs = tuple(
        TaskForce(n, J, draw(hexes), tuple(draw(st.lists(ships(), min_size=1, max_size=6))))
        for n in tf_numbers
    )
    afs = tuple(
        AirFormation(n, J, draw(hexes), tuple(draw(st.lists(stacks(), min_size=1, max_size=3))), "Rabaul", 1)
        for n in af_numbers
    )
    return World(tfs, afs)


@dataclass(frozen=True)
class Observers:
    search: SearchOrder
    watcher: Watcher
    sky: Visibility


@st.composite
def observers(draw: st.DrawFn) -> Observers:
    start = draw(hexes)
    legs, here = [], start
    for _ in range(draw(st.integers(0, 6))):
        here = draw(st.sampled_from(neighbours(here)))
        legs.append(Leg(here, draw(st.one_of(st.none(), altitudes)), draw(st.integers(0, 2))))
    reactions = draw(
        st.lists(
            st.builds(Reaction, st.sampled_from(["ships", "planes"]), st.sampled_from(list(Action)),
                      st.integers(1, 3), st.one_of(st.none(), st.integers(1, 2))),
            max_size=2,
        )
    )  # fmt: skip
    search = SearchOrder("AF3", A, start, draw(altitudes), tuple(legs), draw(st.integers(0, 10)),
                         reactions=tuple(reactions))  # fmt: skip
    watcher = Watcher("TF2", "TF", A, draw(hexes), radar=draw(st.booleans()))
    sky = Visibility(
        draw(st.booleans()),
        frozenset(draw(st.lists(hexes, max_size=8))),
        frozenset(draw(st.lists(hexes, max_size=2))),
    )
    return Observers(search, watcher, sky)


@dataclass(frozen=True)
class Observed:
    knowledge: Knowledge
    seen: dict[str, int]  # ref -> best condition over every spotting
    rolled: frozenset[str]  # refs some search roll was made for


def observe(world: World, obs: Observers) -> Observed:
    targets = world.targets()
    dice = DiceStream(b"no-leak" * 4, "digest", "T5.air")
    (flight,) = resolve_searches([obs.search], targets, sky=obs.sky, table=TABLE, dice=dice, turn=5)
    spottings: list[Spotting] = [
        *flight.spottings(targets),
        *surface_observation(obs.watcher, targets, obs.sky, OBSERVATION),
        *radar_observation(obs.watcher, targets, OBSERVATION),
        *coastwatcher_observation(CW_NET, targets, obs.sky, COASTWATCHERS),
    ]
    knowledge = record_all(
        Knowledge("allied"), spottings, turn=5, dice=dice, policies={J: Deception.RANDOM}, rules=ReportRules()
    )
    seen: dict[str, int] = {}
    for s in spottings:
        for t in s.targets:
            seen[t.ref] = max(seen.get(t.ref, 0), s.condition)
    return Observed(knowledge, seen, frozenset(a.target for a in flight.attempts))


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


# --- changing what was not observed ---------------------------------------------------

Draw = Callable[[st.SearchStrategy[Any]], Any]


def _reship(draw: Draw, ship: Ship, *, classes: bool) -> Ship:
    """Same ship as far as a search roll goes; new name, damage and (if allowed) class."""
    kind = draw(st.sampled_from(SURFACE_TYPES)) if classes else ship.type
    return replace(ship, name=draw(names), type=kind, hits=draw(st.integers(0, ship.damage - 1)))


def _change_tf(draw: Draw, tf: TaskForce, ref: str, obs: Observed, used: set[int]) -> TaskForce | None:
    condition, rolled = obs.seen.get(ref, 0), ref in obs.rolled
    if condition == 3:
        return replace(tf, ships=tuple(replace(s, name=draw(names)) for s in tf.ships))
    if condition == 1 and not rolled:  # seen without a roll: even its size is not known (7.12.1)
        return replace(tf, ships=tuple(draw(st.lists(ships(), min_size=1, max_size=6))))
    if condition or rolled:
        return replace(tf, ships=tuple(_reship(draw, s, classes=condition < 2) for s in tf.ships))
    if draw(st.booleans()):
        return None  # an unseen TF may as well not exist
    number = draw(st.integers(31, 60).filter(lambda n: n not in used))
    used.add(number)
    return replace(tf, number=number, ships=tuple(draw(st.lists(ships(), min_size=1, max_size=6))))


def _rearm(draw: Draw, stack: AirFactors, *, count: bool) -> AirFactors:
    armament = draw(st.one_of(st.none(), st.sampled_from(list(Armament))))
    return replace(stack, armament=armament, count=draw(st.integers(1, 8)) if count else stack.count)


def _change_af(draw: Draw, af: AirFormation, ref: str, obs: Observed) -> AirFormation | None:
    condition, rolled = obs.seen.get(ref, 0), ref in obs.rolled
    if condition >= 2:
        return af  # Condition 2 tells the armed/unarmed classes and the total; nothing else to hide
    if condition or rolled:  # the altitude band is told at Condition 1; armament and size are not
        return replace(af, stacks=tuple(_rearm(draw, s, count=not rolled) for s in af.stacks))
    if draw(st.booleans()):
        return None
    return replace(af, stacks=tuple(draw(st.lists(stacks(), min_size=1, max_size=3))))


def unobserved_change(draw: Draw, world: World, obs: Observed) -> World:
    used = {tf.number for tf in world.tfs}
    tfs = [_change_tf(draw, tf, tf_target(tf).ref, obs, used) for tf in world.tfs]
    afs = [_change_af(draw, af, af_target(af).ref, obs) for af in world.afs]
    kept_tfs = [tf for tf in tfs if tf is not None]
    kept_afs = [af for af in afs if af is not None]
    return World(tuple(draw(st.permutations(kept_tfs))), tuple(draw(st.permutations(kept_afs))))


def _dark(obs: Observed, refs: Sequence[str]) -> bool:
    return all(ref not in obs.seen and ref not in obs.rolled for ref in refs)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(world=worlds(), obs=observers(), data=st.data())
def test_knowledge_does_not_depend_on_unobserved_facts(
    world: World, obs: Observers, data: st.DataObject
) -> None:
    """design/flattop.md: "Players see the results they are entitled to"; reports are "rendered
    only from that knowledge". Same observations, different unobserved truth: same knowledge."""
    before = observe(world, obs)
    other = unobserved_change(data.draw, world, before)
    after = observe(other, obs)
    # The premise: what was dark stays dark (a changed unit must not wander into view).
    new_refs = [t.ref for t in other.targets() if t.ref not in before.seen and t.ref not in before.rolled]
    assume(_dark(after, new_refs))
    assert after.seen == before.seen
    assert canonical(dump(after.knowledge)) == canonical(dump(before.knowledge))
    assert load(json.loads(canonical(dump(after.knowledge)))) == after.knowledge
    assert canonical(report_model(after.knowledge)) == canonical(report_model(before.knowledge))


@settings(max_examples=60, deadline=None)
@given(world=worlds(), obs=observers())
def test_no_ship_name_or_unit_number_reaches_the_knowledge(world: World, obs: Observers) -> None:
    """Seed 003, 15 item 1: "ship types and numbers of each type, plus visible damage, but never
    ship names"; 7.12.2: "No determination of numbers of AF's or TF's". Names are never reported."""
    text = canonical(dump(observe(world, obs).knowledge))
    assert not any(ship.name in text for tf in world.tfs for ship in tf.ships)
    assert not any(target.ref in text for target in world.targets())  # e.g. "japanese TF3"
