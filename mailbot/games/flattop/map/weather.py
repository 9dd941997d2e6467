# SPDX-License-Identifier: GPL-3.0-or-later
"""Wind and clouds (standard rules 6, reference A.4; seed 003, 6.3 and 6.4.1).

Each board section has a wind marker and a Directional hex. Clouds are
placed around a Directional hex (seed 003, 6.3: "a 1d6 is rolled for
direction and a 1d8 for distance from center"), drift one hex in their
section's wind direction on even turns, and a cloud that enters a hex shared
by two sections is relocated (seed 003, 6.4.1: "in the even numbered turn
following its arrival in that hex"). A marker covers its hex and those within
2; where two overlap there is a storm.

Everything here is pure: state and dice in, new state and facts out. The
tables are ``mailbot/games/flattop/data/tables/weather.toml`` (:func:`weather_rules`).
The wind marker points where the clouds drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import (
    Direction,
    Hex,
    Layout,
    Sector,
    distance,
    hex_id,
    roman,
    step,
    within,
)
from mailbot.games.flattop.map.scenario import GameTime, Scenario
from mailbot.games.flattop.tabledata import parsed
from mailbot.games.flattop.units import Fact

RULE_PLACE = "seed 003, 6.3 cloud placement"
RULE_RELOCATE = "standard 6.4 Cloud Movement Table (seed 003, 6.4.1 timing)"
RULE_WIND = "standard 6.2 Wind Direction Change Table"


class Sky(StrEnum):
    CLEAR = "clear"
    CLOUD = "cloud"
    STORM = "storm"


@dataclass(frozen=True)
class Wind:
    sector: int
    direction: Direction


@dataclass(frozen=True)
class Cloud:
    """A cloud marker; ``sector`` is the section whose wind drives it."""

    number: int
    hex: Hex
    sector: int
    pending: bool = False  # in a shared hex, waiting for the next even turn (seed 003, 6.4.1)


@dataclass(frozen=True)
class Weather:
    winds: tuple[Wind, ...]
    clouds: tuple[Cloud, ...] = ()

    def wind(self, sector: int) -> Direction:
        return next(w.direction for w in self.winds if w.sector == sector)

    @property
    def centres(self) -> tuple[Hex, ...]:
        """Where the markers stand: all that decides the cover (:func:`coverage_of`)."""
        return tuple(c.hex for c in self.clouds)

    def coverage(self, radius: int) -> Mapping[Hex, int]:
        """How many markers cover each covered hex (standard 6.5); read-only, shared."""
        return coverage_of(self.centres, radius)


# The cover is asked for many times an hour (observation, search, flight, the reports) and
# changes only when a marker moves; kept by the markers' places, it is counted once.
COVERS_KEPT = 32


@lru_cache(maxsize=COVERS_KEPT)
def coverage_of(centres: tuple[Hex, ...], radius: int) -> Mapping[Hex, int]:
    """How many of the markers at ``centres`` cover each hex within ``radius`` of one."""
    counts: dict[Hex, int] = {}
    for centre in centres:
        for h in within(centre, radius):
            counts[h] = counts.get(h, 0) + 1
    return MappingProxyType(counts)


@dataclass(frozen=True)
class WeatherRules:
    """``weather.toml`` (see that file for which values are seed, standard or default)."""

    direction_die: int = 6
    distance_die: int = 8
    scattered_per_sector: int = 4
    front_directions: tuple[Direction, Direction] = (Direction.NE, Direction.SW)
    front_offset: int = 5
    cloud_radius: int = 2
    storm_overlap: int = 2
    wind_check_hours: frozenset[int] = frozenset({6, 12, 18, 24})
    wind_change: Mapping[int, int] = field(
        default_factory=lambda: {5: 1, 6: -1}
    )  # d6 face -> points clockwise
    cloud_turns: str = "even_hour"  # or "even_turn"
    relocation: str = "next_even_turn"  # or "immediate" (standard 6.4)
    relocation_die: int = 6

    def change_for(self, face: int) -> int:
        """Points clockwise for a Wind Direction Change Table roll (faces not listed: no change)."""
        return self.wind_change.get(face, 0)


def weather_rules(table: Mapping[str, Any]) -> WeatherRules:
    """Parse ``weather.toml``; a malformed table is a GameError (it ships with the code)."""
    return parsed("weather.toml", _read, table)


def _read(table: Mapping[str, Any]) -> WeatherRules:
    place, size, wind = table["placement"], table["size"], table["wind"]
    move, relocate = table["movement"], table["relocation"]
    first, second = (Direction(int(d)) for d in place["front_directions"])
    return WeatherRules(
        direction_die=int(place["direction_die"]),
        distance_die=int(place["distance_die"]),
        scattered_per_sector=int(place["scattered_per_sector"]),
        front_directions=(first, second),
        front_offset=int(place["front_offset"]),
        cloud_radius=int(size["cloud_radius"]),
        storm_overlap=int(size["storm_overlap"]),
        wind_check_hours=frozenset(int(h) for h in wind["check_hours"]),
        wind_change={int(face): int(turn) for face, turn in wind["change"].items()},
        cloud_turns=_one_of(move["cloud_turns"], ("even_hour", "even_turn")),
        relocation=_one_of(move["relocation"], ("next_even_turn", "immediate")),
        relocation_die=int(relocate["die"]),
    )


def _one_of(value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{value!r} is not one of {allowed}")
    return str(value)


@dataclass(frozen=True)
class _Turn:
    """What one weather step works with."""

    scenario: Scenario
    rules: WeatherRules
    dice: Dice

    @property
    def layout(self) -> Layout:
        return self.scenario.map.layout

    def name(self, h: Hex) -> str:
        return hex_id(h, self.layout)


# --- placement (seed 003, 6.3) ----------------------------------------------------


def walk(layout: Layout, start: Hex, toward: Direction, count: int) -> Hex:
    """``count`` steps from ``start``; a walk that would leave the board stops at its edge (weather.toml)."""
    h = start
    for _ in range(count):
        following = step(h, toward)
        if not layout.on_board(following):
            break
        h = following
    return h


def _roll_offset(turn: _Turn, label: str) -> tuple[Direction, int]:
    """Seed 003, 6.3: "a 1d6 is rolled for direction and a 1d8 for distance from center"."""
    direction = turn.dice.roll(f"{label}/direction", turn.rules.direction_die, rule=RULE_PLACE)
    distance = turn.dice.roll(f"{label}/distance", turn.rules.distance_die, rule=RULE_PLACE)
    # A d6 direction is the hex direction itself; another die size wraps around.
    return Direction((direction.total - 1) % 6 + 1), distance.total


def _place(turn: _Turn, number: int, sector: int, center: Hex) -> tuple[Cloud, Fact]:
    toward, count = _roll_offset(turn, f"weather/cloud{number}")
    h = walk(turn.layout, center, toward, count)
    cloud = Cloud(number, h, sector, pending=_pending_on_arrival(turn, h))
    text = f"cloud {number} placed at {turn.name(h)} ({count} {toward.name} of {turn.name(center)})"
    return cloud, Fact("cloud-placed", text, {"cloud": number, "hex": h.as_list(), "pending": cloud.pending})


def _pending_on_arrival(turn: _Turn, h: Hex) -> bool:
    # A placement onto a shared hex counts as an arrival there (this project's reading of 6.4.1).
    return turn.rules.relocation == "next_even_turn" and turn.layout.is_shared(h)


def initial_weather(scenario: Scenario, rules: WeatherRules, dice: Dice) -> tuple[Weather, tuple[Fact, ...]]:
    """Winds from the printed arrows; clouds per the scenario's setup (standard 6.3)."""
    turn = _Turn(scenario, rules, dice)
    winds = tuple(Wind(s.numeral, s.wind) for s in scenario.sectors)
    if scenario.clouds == "front":
        clouds, facts = _fronts(turn)
    elif scenario.clouds == "scattered":
        clouds, facts = _scattered(turn)
    else:
        clouds, facts = (), ()
    return Weather(winds, clouds), facts


def _scattered(turn: _Turn) -> tuple[tuple[Cloud, ...], tuple[Fact, ...]]:
    placed: list[tuple[Cloud, Fact]] = []
    for info in turn.scenario.sectors:
        for _ in range(turn.rules.scattered_per_sector):
            placed.append(_place(turn, len(placed) + 1, info.numeral, info.directional))
    return tuple(c for c, _ in placed), tuple(f for _, f in placed)


def _fronts(turn: _Turn) -> tuple[tuple[Cloud, ...], tuple[Fact, ...]]:
    clouds: list[Cloud] = []
    facts = []
    for info in turn.scenario.sectors:
        toward, count = _roll_offset(turn, f"weather/front{roman(info.numeral)}")
        first, second = turn.rules.front_directions
        line = (
            info.directional,
            *(step(info.directional, d, turn.rules.front_offset) for d in (first, second)),
        )
        for start in line:
            h = walk(turn.layout, start, toward, count)
            clouds.append(Cloud(len(clouds) + 1, h, info.numeral, _pending_on_arrival(turn, h)))
        text = f"section {roman(info.numeral)}: cloud front shifted {count} {toward.name}"
        facts.append(Fact("cloud-front", text, {"sector": info.numeral}))
    return tuple(clouds), tuple(facts)


# --- the weather phase ------------------------------------------------------------


def is_cloud_turn(time: GameTime, scenario: Scenario, rules: WeatherRules) -> bool:
    """Standard 6.4: clouds move on even-numbered turns (weather.toml says how turns are numbered)."""
    if rules.cloud_turns == "even_turn":
        return (time.turns_since(scenario.start) + 1) % 2 == 0
    return time.hour % 2 == 0


def weather_phase(
    weather: Weather, scenario: Scenario, rules: WeatherRules, time: GameTime, dice: Dice
) -> tuple[Weather, tuple[Fact, ...]]:
    """Wind check, then cloud movement; nothing on the scenario's first turn (reference A.2)."""
    if time == scenario.start:
        return weather, ()
    turn = _Turn(scenario, rules, dice)
    facts: list[Fact] = []
    if time.hour in rules.wind_check_hours:
        weather = replace(weather, winds=tuple(_check_wind(turn, w, facts) for w in weather.winds))
    if is_cloud_turn(time, scenario, rules):
        weather = replace(weather, clouds=tuple(_move_cloud(turn, weather, c, facts) for c in weather.clouds))
    return weather, tuple(facts)


def _check_wind(turn: _Turn, wind: Wind, facts: list[Fact]) -> Wind:
    roll = turn.dice.d6(f"weather/wind/{roman(wind.sector)}", rule=RULE_WIND)
    changed = Wind(wind.sector, wind.direction.rotate(turn.rules.change_for(roll.total)))
    old, new = wind.direction.name, changed.direction.name
    text = f"section {roman(wind.sector)}: wind {old} -> {new} (d6 {roll.total})"
    facts.append(Fact("wind", text, {"sector": wind.sector, "direction": changed.direction.value}))
    return changed


def _move_cloud(turn: _Turn, weather: Weather, cloud: Cloud, facts: list[Fact]) -> Cloud:
    if cloud.pending:  # seed 003, 6.4.1: relocated on the even turn after it arrived
        return _relocate(turn, cloud, facts)
    toward = weather.wind(cloud.sector)
    h = step(cloud.hex, toward)
    if not turn.layout.on_board(h):  # blown off the board: relocated at once (weather.toml)
        return _relocate(turn, cloud, facts)
    if turn.layout.is_shared(h) and turn.rules.relocation == "immediate":
        return _relocate(turn, replace(cloud, hex=h), facts)
    moved = Cloud(cloud.number, h, cloud.sector, pending=_pending_on_arrival(turn, h))
    waiting = " (shared hex: relocated on the next even turn)" if moved.pending else ""
    text = f"cloud {cloud.number} moved {toward.name} to {turn.name(h)}{waiting}"
    facts.append(
        Fact("cloud-moved", text, {"cloud": cloud.number, "hex": h.as_list(), "pending": moved.pending})
    )
    return moved


def _relocation_sector(turn: _Turn, cloud: Cloud) -> int:
    """The Cloud Movement Table: among the sections sharing the hex, north then west first."""
    owners = sorted(turn.layout.sectors_of(cloud.hex), key=lambda s: (s.north, s.west))
    if len(owners) < 2:
        return owners[0].numeral if owners else cloud.sector
    die = turn.rules.relocation_die
    face = turn.dice.roll(f"weather/cloud{cloud.number}/section", die, rule=RULE_RELOCATE).total
    return _pick(owners, face, die).numeral


def _pick(owners: list[Sector], face: int, die: int) -> Sector:
    return owners[(face - 1) * len(owners) // die]


def _relocate(turn: _Turn, cloud: Cloud, facts: list[Fact]) -> Cloud:
    sector = _relocation_sector(turn, cloud)
    info = turn.scenario.sector(sector)
    if info is None:
        raise GameError(f"section {roman(sector)} has no directional hex")
    placed, fact = _place(turn, cloud.number, sector, info.directional)
    text = (
        f"cloud {cloud.number} relocated from {turn.name(cloud.hex)} to section {roman(sector)}: {fact.text}"
    )
    facts.append(Fact("cloud-relocated", text, {**fact.data, "from": cloud.hex.as_list(), "sector": sector}))
    return placed


# --- what the sky looks like ------------------------------------------------------


def sky(weather: Weather, h: Hex, rules: WeatherRules) -> Sky:
    """Clear, cloud (covered by one marker) or storm (two or more overlap), standard 6.5."""
    count = sum(1 for c in weather.clouds if _covers(c.hex, h, rules.cloud_radius))
    if count >= rules.storm_overlap:
        return Sky.STORM
    return Sky.CLOUD if count else Sky.CLEAR


def _covers(center: Hex, h: Hex, radius: int) -> bool:
    return distance(center, h) <= radius


def cloud_hexes(weather: Weather, rules: WeatherRules) -> frozenset[Hex]:
    """Hexes under any cloud, storms included."""
    return _covered(weather.centres, rules.cloud_radius, 1)


def storm_hexes(weather: Weather, rules: WeatherRules) -> frozenset[Hex]:
    """Hexes where markers overlap (standard 6.5)."""
    return _covered(weather.centres, rules.cloud_radius, rules.storm_overlap)


@lru_cache(maxsize=COVERS_KEPT)
def _covered(centres: tuple[Hex, ...], radius: int, markers: int) -> frozenset[Hex]:
    """The hexes covered by at least ``markers`` markers."""
    return frozenset(h for h, n in coverage_of(centres, radius).items() if n >= markers)
