# SPDX-License-Identifier: GPL-3.0-or-later
"""Who sees what: observation without a die roll (seed 003, 7.5, 7.9.5, 7.9.6, 7.12, 14.13.2).

The moderator holds the truth; this module turns it into :class:`Spotting`s,
the referee's record of "this observer saw these units at this condition".
A spotting still carries the true units (the referee needs them to compose
the report); only :mod:`reports` decides what of them a side is told, and
only the composed report enters the side's :mod:`knowledge`.

Units are seen through :class:`Target`, a snapshot that keeps what an
observer could ever learn and drops the rest on purpose: ship names are not
in it (names are never reported, 7.12.2 and 15.1), nor are plane names.
:func:`tf_target` and :func:`af_target` build it from :mod:`units` (the package's top level).

Observation tables are data (``mailbot/games/flattop/data/tables/observation*.toml``):
pure code gets the parsed mappings.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex, HexMap, Terrain, distance, neighbours
from mailbot.games.flattop.map.scenario import Coastwatchers, Island
from mailbot.games.flattop.map.weather import Sky
from mailbot.games.flattop.observation.knowledge import PLANES, SHIPS
from mailbot.games.flattop.units import (
    AirFormation,
    Altitude,
    Base,
    Ship,
    ShipCategory,
    Side,
    TaskForce,
)

TF = "TF"
AF = "AF"
# A ship's visible condition (seed 003, 15 Limited Intelligence 3): the same words serve the
# Condition 3 report (7.12.3) and the precise makeup of an air attack (LI 1, combat/intel.py).
INTACT = "intact"
SMOKING = "smoking"  # "Damage less than half of ship's damage factor: Ship is seen smoking"
BURNING = "burning and listing heavily"  # "at least half of DF, but ship not crippled"
DEAD_IN_WATER = "dead in the water"  # "Crippled: ... Ship is dead in water and is reported as such."
IN_TOW = "in tow"  # 7.12.3 names it; the towing rules say how a ship comes to be towed
# LI 4 shows a ship "crippled" only while "delayed in sinking": one that sinks at once is seen to sink.
SUNK = "seen to sink"


@dataclass(frozen=True)
class ShipView:
    """A ship as observation can know it: its report class and visible condition (7.12.3)."""

    category: ShipCategory
    state: str = INTACT  # INTACT | SMOKING | BURNING | DEAD_IN_WATER | IN_TOW | SUNK


@dataclass(frozen=True)
class PlaneView:
    factors: int
    armed: bool
    altitude: Altitude


@dataclass(frozen=True)
class Target:
    """One enemy TF or AF as the referee sees it; ``ref`` never reaches a side's knowledge."""

    ref: str
    side: Side
    kind: str  # TF | AF
    hex: Hex
    ships: tuple[ShipView, ...] = ()
    planes: tuple[PlaneView, ...] = ()
    radar: bool = False
    # Seed 003, 27.4: "A sub on the surface is subject to normal detection in its own hex only. It is
    # not visible from adjacent hexes." (set by hour.sub_phase when submarines are in play)
    own_hex_only: bool = False

    @property
    def report_kind(self) -> str:
        return SHIPS if self.kind == TF else PLANES

    @property
    def size(self) -> int:
        """Ships or air factors for the 7.3 size modifiers; submarines do not count (27.4)."""
        if self.kind == TF:
            return sum(1 for s in self.ships if s.category is not ShipCategory.SUBMARINE)
        return sum(p.factors for p in self.planes)

    @property
    def altitudes(self) -> frozenset[Altitude]:
        return frozenset(p.altitude for p in self.planes)


def ship_state(ship: Ship, in_tow: bool = False, *, stopped: bool = False) -> str:
    """The ship's condition in seed 003's words (15 Limited Intelligence 3, 4; 21.8.1).

    "Damage less than half of ship's damage factor: Ship is seen smoking. Damage at least half of
    DF, but ship not crippled: Ship is burning and/or listing heavily. Crippled: No change. Ship is
    dead in water and is reported as such." LI 4: "A ship that is officially destroyed but is
    delayed in sinking is reported to be crippled", so ``destroyed`` (hits >= DF, still afloat) is
    dead in the water too. ``stopped``: the caller found that two half-speed restrictions stop her
    (21.8.1: "Such a ship is reported as "dead in the water""; see
    ``combat.damage.reported_dead_in_water``, which needs the turn).
    """
    # A towed ship is usually crippled too; "in tow" says more, so it wins.
    if in_tow:
        return IN_TOW
    if ship.sunk:
        return SUNK
    if stopped or ship.crippled or ship.destroyed:
        return DEAD_IN_WATER
    if ship.hits <= 0:
        return INTACT
    # "less than half": compare 2 x hits with DF so an odd DF needs no rounding rule.
    return SMOKING if 2 * ship.hits < ship.damage else BURNING


def tf_target(tf: TaskForce, *, in_tow: Collection[str] = (), stopped: Collection[str] = ()) -> Target:
    """Snapshot of a TF; ``in_tow`` names its towed ships (units has no towing state yet), ``stopped``
    those the caller found stopped by 21.8.1 (``combat.damage.reported_dead_in_water``, which needs
    the turn)."""
    ships = tuple(
        ShipView(s.type.category, ship_state(s, s.name in in_tow, stopped=s.name in stopped))
        for s in tf.afloat
    )
    return Target(
        ref=f"{tf.side.value} TF{tf.number}",
        side=tf.side,
        kind=TF,
        hex=tf.hex,
        ships=ships,
        radar=any(s.radar for s in tf.afloat),
    )


def af_target(af: AirFormation) -> Target:
    if af.hex is None:
        raise GameError(f"AF{af.number} is off the map and cannot be observed")
    planes = tuple(PlaneView(s.count, s.armament is not None, s.altitude) for s in af.stacks)
    return Target(ref=f"{af.side.value} AF{af.number}", side=af.side, kind=AF, hex=af.hex, planes=planes)


@dataclass(frozen=True)
class Visibility:
    """The weather as observation needs it: night or day, cloud and storm hexes."""

    night: bool = False
    clouds: frozenset[Hex] = frozenset()
    storms: frozenset[Hex] = frozenset()

    @classmethod
    def from_coverage(cls, coverage: Mapping[Hex, int], *, night: bool) -> Visibility:
        """From :meth:`map.weather.Weather.coverage`: one marker makes cloud, two a storm (standard 6.5)."""
        clouds = frozenset(h for h, n in coverage.items() if n >= 1)
        return cls(night, clouds, frozenset(h for h, n in coverage.items() if n >= 2))

    def weather(self, h: Hex) -> Sky:
        if h in self.storms:
            return Sky.STORM
        return Sky.CLOUD if h in self.clouds else Sky.CLEAR

    def cloudy(self, h: Hex) -> bool:
        # A storm is where clouds overlap (standard 6): it is a cloud hex as well.
        return h in self.clouds or h in self.storms

    @property
    def time(self) -> str:
        return "night" if self.night else "day"


@dataclass(frozen=True)
class Spotting:
    """Referee record: an observer saw these units of one kind in one hex at this condition."""

    observer_key: str
    observer_kind: str
    hex: Hex
    kind: str
    condition: int
    targets: tuple[Target, ...]
    observer_high: bool = False  # 7.12.2 item 3: +1 to the misreport roll
    radar: bool = False


def group(
    observer_key: str,
    observer_kind: str,
    seen: Iterable[tuple[Target, int]],
    *,
    observer_high: bool = False,
    radar: bool = False,
) -> tuple[Spotting, ...]:
    """One spotting per hex and kind (7.12.2: reports are per hex, never per unit)."""
    best: dict[tuple[Hex, str], int] = {}
    units: dict[tuple[Hex, str], list[Target]] = {}
    for target, condition in seen:
        key = (target.hex, target.report_kind)
        best[key] = max(best.get(key, 0), condition)
        units.setdefault(key, []).append(target)
    return tuple(
        Spotting(
            observer_key, observer_kind, h, kind, best[h, kind], tuple(units[h, kind]), observer_high, radar
        )
        for h, kind in sorted(best)
    )


# --- TFs and bases: standard observation tables with 7.5 and 7.12 ----------------


def range_table(data: Mapping[str, Any], where: str) -> dict[int, int]:
    """``{"0": 3, "1": 2}`` (TOML keys are text) -> ``{0: 3, 1: 2}``."""
    try:
        return {int(k): int(v) for k, v in data.items()}
    except (TypeError, ValueError) as exc:
        raise GameError(f"observation table {where}: {exc}") from exc


def table_condition(table: Mapping[str, Any], path: tuple[str, ...], rng: int) -> int:
    """The condition at ``rng`` from the nested table at ``path``; 0 if nothing is seen."""
    node: Any = table
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return 0
        node = node[part]
    return range_table(node, ".".join(path)).get(rng, 0) if isinstance(node, Mapping) else 0


@dataclass(frozen=True)
class Watcher:
    """A TF or base that observes (standard 7.5, 7.9); ``blind`` after a '-' shadow result (11.7)."""

    key: str
    kind: str  # "TF" | "BASE"
    side: Side
    hex: Hex
    radar: bool = False
    blind: bool = False


def surface_condition(watcher: Watcher, target: Target, sky: Visibility, table: Mapping[str, Any]) -> int:
    rng = distance(watcher.hex, target.hex)
    if rng and target.own_hex_only:
        return 0  # 27.4
    # Seed 003, 7.5: "TF's may not observe enemy ships or low-altitude aircraft
    # at two hexes away, only high-altitude aircraft."
    if rng >= 2 and (target.kind == TF or Altitude.HIGH not in target.altitudes):
        return 0
    if rng >= 2 and target.kind == AF:
        target = _only_high(target)
    path = ("surface", target.report_kind, sky.time, sky.weather(target.hex).value)
    return table_condition(table, path, rng)


def _only_high(target: Target) -> Target:
    high = tuple(p for p in target.planes if p.altitude is Altitude.HIGH)
    return Target(target.ref, target.side, target.kind, target.hex, planes=high)


def surface_observation(
    watcher: Watcher, targets: Iterable[Target], sky: Visibility, table: Mapping[str, Any]
) -> tuple[Spotting, ...]:
    """What a TF or base sees without rolling (7.5; 7.12: Condition 3 in its own hex)."""
    if watcher.blind:
        return ()
    seen = []
    for target in targets:
        if target.side is watcher.side:
            continue
        condition = surface_condition(watcher, target, sky, table)
        if condition:
            far = distance(watcher.hex, target.hex) >= 2 and target.kind == AF
            seen.append((_only_high(target) if far else target, condition))
    return group(watcher.key, watcher.kind, seen)


def radar_observation(
    watcher: Watcher, targets: Iterable[Target], table: Mapping[str, Any]
) -> tuple[Spotting, ...]:
    """Radar sees high AFs only, day or night, through cloud (standard 7.10, reference A.8.5).

    Seed 003, 7.12 makes Condition 3 in the radar's own hex come from ordinary
    observation in clear weather, "just like non-radar bases & TF's"; the
    radar row of the table is therefore separate and merely adds range.
    """
    if not watcher.radar or watcher.blind:
        return ()
    ranges = range_table(table.get("radar", {}).get("high_planes", {}), "radar.high_planes")
    seen = []
    for target in targets:
        if target.side is watcher.side or target.kind != AF or Altitude.HIGH not in target.altitudes:
            continue
        condition = ranges.get(distance(watcher.hex, target.hex), 0)
        if condition:
            seen.append((_only_high(target), condition))
    return group(watcher.key, "RADAR", seen, radar=True)


# --- 14.13.2: the special interception reveal ------------------------------------


def interception_modifier(combat_possible: bool) -> int:
    """Seed 003, 14.13.2: "in a hex where combat cannot usually occur, subtract one from the die roll"."""
    return 0 if combat_possible else -1


def interception_reveal(
    interceptor: Target, intercepted_key: str, *, combat_possible: bool, already_observed: bool
) -> Spotting | None:
    """Seed 003, 14.13.2: "a previously unobserved AF attempting this interception in a
    'non-combat' hex must reveal its presence whether the attempt is successful or not."

    The reveal is made to the intercepted AF's side, as seen by that AF
    (``intercepted_key``); presence is Condition 1, which also tells the
    altitude band (7.12.1). Elsewhere ordinary observation applies.
    """
    if combat_possible or already_observed:
        return None
    return Spotting(intercepted_key, AF, interceptor.hex, PLANES, 1, (interceptor,))


# --- coastwatchers: seed 003, 7.9.5 and 7.9.6 ------------------------------------


@dataclass(frozen=True)
class CoastwatcherNet:
    """The hexes one side's coastwatchers see, worked out once per scenario.

    ``normal``: hex -> island watching it, seen per the 7.9.6 table.
    ``special``: New Guinea all-land hexes where only AFs are seen, always at
    the special condition ("Condition in these hexes is always 1, day or night").
    """

    side: Side
    hexmap: HexMap
    normal: Mapping[Hex, str]
    special: Mapping[Hex, str]


def coastwatcher_net(
    side: Side,
    hexmap: HexMap,
    islands: Iterable[Island],
    coastwatchers: Coastwatchers,
    bases: Iterable[Base] = (),
) -> CoastwatcherNet:
    """Seed 003, 7.9.6: watchers sit "only in coastal (sea/land) hexes of their assigned
    islands" and see "anything in these hexes (except of course enemy bases) and in
    adjacent all-sea and all-land hexes"; New Guinea is the special case."""
    normal, special = watched_hexes(side, hexmap, tuple(islands), coastwatchers)
    enemy_bases = frozenset(b.hex for b in bases if b.side is not side and b.hex is not None)
    return CoastwatcherNet(side, hexmap, _without(normal, enemy_bases), _without(special, enemy_bases))


# The watched hexes follow from the scenario alone (board, islands, watchers), yet were worked
# out again for each side every hour: kept per scenario, only the enemy bases are taken out each time.
@lru_cache(maxsize=16)
def watched_hexes(
    side: Side, hexmap: HexMap, islands: tuple[Island, ...], coastwatchers: Coastwatchers
) -> tuple[Mapping[Hex, str], Mapping[Hex, str]]:
    """(normal, special) of :class:`CoastwatcherNet` before enemy bases are taken out; read-only."""
    names = coastwatchers.islands(side)
    watched = [i for i in islands if any(i.answers_to(n) for n in names)]
    normal: dict[Hex, str] = {}
    special: dict[Hex, str] = {}
    for island in sorted(watched, key=lambda i: i.name):
        for post in sorted(_posts(side, island, hexmap, coastwatchers)):
            for h in (post, *(n for n in neighbours(post) if hexmap.terrain_of(n) is not Terrain.PARTIAL)):
                normal.setdefault(h, island.name)
        if island.answers_to(coastwatchers.zone_island):
            for h in sorted(_interior(side, island, hexmap, coastwatchers.japanese_zone)):
                special.setdefault(h, island.name)
    return MappingProxyType(normal), MappingProxyType(special)


def _posts(side: Side, island: Island, hexmap: HexMap, cw: Coastwatchers) -> set[Hex]:
    posts = {h for h in island.hexes if hexmap.terrain_of(h) is Terrain.PARTIAL}
    # Japanese watchers on New Guinea sit only inside their zone: 7.9.6's example
    # has V-F24 seen "by the Allies only". Allied ones watch the whole coast
    # ("Allied CW's in the Japanese zone follow the basic condition").
    if side is Side.JAPANESE and island.answers_to(cw.zone_island):
        posts &= cw.japanese_zone
    return posts


def _interior(side: Side, island: Island, hexmap: HexMap, zone: frozenset[Hex]) -> set[Hex]:
    """New Guinea: the Japanese see AFs over any all-land hex in their zone, the Allies over
    any outside it ("over the rest of New Guinea (but not in the Japanese zone)")."""
    land = {h for h in island.hexes if hexmap.terrain_of(h) is Terrain.LAND}
    inside = side is Side.JAPANESE
    return {h for h in land if (h in zone) is inside}


def _without(hexes: Mapping[Hex, str], excluded: frozenset[Hex]) -> Mapping[Hex, str]:
    if not any(h in hexes for h in excluded):  # the usual case: no enemy base is watched
        return hexes
    return MappingProxyType({h: name for h, name in hexes.items() if h not in excluded})


def coastwatcher_condition(
    kind: str, terrain: Terrain, weather: Sky, night: bool, table: Mapping[str, Any]
) -> int:
    """The 7.9.6 table: e.g. "AF over all-land or sea/land hex: Condition 2 (Clear) or
    Condition 1 (Cloud) during day turns; Condition 1 at night". A storm counts as cloud."""
    row = table.get("conditions", {}).get(kind, {}).get(terrain.value, {})
    column = "night" if night else ("day_clear" if weather is Sky.CLEAR else "day_cloud")
    return int(row.get(column, 0))


def coastwatcher_observation(
    net: CoastwatcherNet, targets: Iterable[Target], sky: Visibility, table: Mapping[str, Any]
) -> tuple[Spotting, ...]:
    """What one side's coastwatchers see this turn; the observer key is ``CW <island>``."""
    special = int(table.get("new_guinea", {}).get("condition", 1))
    seen: dict[str, list[tuple[Target, int]]] = {}
    for target in targets:
        if target.side is net.side or target.own_hex_only:  # 27.4: seen from its own hex only
            continue
        island, condition = net.normal.get(target.hex), 0
        if island is not None:
            terrain = net.hexmap.terrain_of(target.hex)
            weather = sky.weather(target.hex)
            condition = coastwatcher_condition(target.report_kind, terrain, weather, sky.night, table)
        if target.kind == AF and target.hex in net.special and special > condition:
            island, condition = net.special[target.hex], special
        if island is not None and condition:
            seen.setdefault(island, []).append((target, condition))
    return tuple(s for island in sorted(seen) for s in group(f"CW {island}", "CW", seen[island]))
