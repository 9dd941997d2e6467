# SPDX-License-Identifier: GPL-3.0-or-later
"""The weather of a report: a short summary near the side's own units, the full list for the appendix.

Clouds and winds are on the map board for both players (standard 6), so the weather is public;
what a player needs first is the part that touches his own units: how many storm hexes lie
within :data:`WEATHER_RADIUS` of his TFs, bases and AFs aloft, the nearest one, and which of his
units sit under a cloud or in a storm. Every cloud marker and storm hex still goes to the
letter's appendix and to the map (``view_map``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mailbot.games.flattop.map.hexes import Hex, distance, roman
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

#: Weather this close to an own unit is what the side meets this hour: the planes' MF runs 4 to
#: 12 hexes an hour (tables/planes.toml, most carrier planes 6-10), so a search or strike
#: launched now flies through the storms within about 10 hexes of its carrier or base, and a
#: TF's plot for the next hours stays well inside that.
WEATHER_RADIUS = 10


@dataclass(frozen=True)
class Unit:
    """An own unit on the board, as the summary names it."""

    name: str
    hex: Hex


def own_units(state: FlatTopState, sides: Sequence[Side]) -> list[Unit]:
    """The TFs, on-board bases and AFs aloft of ``sides`` (side-prefixed when there are several)."""
    units: list[Unit] = []
    for side in sides:
        prefix = f"{side.value} " if len(sides) > 1 else ""
        units += [Unit(f"{prefix}TF{tf.number}", tf.hex) for tf in state.own_tfs(side)]
        units += [Unit(prefix + b.name, b.hex) for b in state.own_bases(side) if b.hex is not None]
        units += [Unit(f"{prefix}AF{af.number}", af.hex) for af in state.own_air(side) if af.hex is not None]
    return units


def weather_view(state: FlatTopState, sides: Sequence[Side]) -> dict[str, Any]:
    """The public weather, the summary near ``sides``' units, and the full lists."""
    name, rules = state.scenario.map.hex_id, state.rules.weather
    # A storm off the board touches nobody; a marker off it may still cover hexes on it.
    storms = frozenset(h for h in storm_hexes(state.weather, rules) if state.scenario.map.on_board(h))
    units = own_units(state, sides)
    whose = "your units" if len(sides) == 1 else "the units shown"
    return {
        "night": state.scenario.is_night(state.time),
        "winds": [f"{roman(w.sector)} {w.direction.name}" for w in state.weather.winds],
        # Markers, not every covered hex: each covers its hex and those within the cloud radius.
        "clouds": sorted({name(c.hex) for c in state.weather.clouds}),
        "cloud_radius": rules.cloud_radius,
        "storms": sorted(name(h) for h in storms),
        "radius": WEATHER_RADIUS,
        "summary": [_storm_line(state, storms, units, whose), _cloud_line(state, units, whose)],
    }


def _storm_line(state: FlatTopState, storms: frozenset[Hex], units: Sequence[Unit], whose: str) -> str:
    if not storms:
        return "Storm hexes: none on the board."
    head = f"Storm hexes: {len(storms)} on the board"
    # Each storm hex against each unit (a few hundred by a few dozen an hour): the hex ids are
    # written only for the nearest pairs, where the tie between them is broken as it reads.
    pairs = [(distance(u.hex, s), u.name, s) for s in storms for u in units]
    near = {storm for d, _, storm in pairs if d <= WEATHER_RADIUS}
    if not near:
        return f"{head}, none within {WEATHER_RADIUS} hexes of {whose}."
    closest = min(d for d, _, _ in pairs)
    hex_id = state.scenario.map.hex_id
    d, unit, where = min((d, unit, hex_id(storm)) for d, unit, storm in pairs if d == closest)
    nearest = f"{unit} is in one ({where})" if d == 0 else f"the nearest is {where}, {d} hexes from {unit}"
    return f"{head}, {len(near)} within {WEATHER_RADIUS} hexes of {whose}; {nearest}."


def _cloud_line(state: FlatTopState, units: Sequence[Unit], whose: str) -> str:
    rules = state.rules.weather
    markers = [c.hex for c in state.weather.clouds]
    close = [m for m in markers if any(distance(u.hex, m) <= WEATHER_RADIUS for u in units)]
    coverage = state.weather.coverage(rules.cloud_radius)
    clouded = [u.name for u in units if 0 < coverage.get(u.hex, 0) < rules.storm_overlap]
    stormy = [u.name for u in units if coverage.get(u.hex, 0) >= rules.storm_overlap]
    line = (
        f"Cloud markers: {len(markers)} on the board, {len(close)} within {WEATHER_RADIUS} hexes"
        f" of {whose} (each covers {rules.cloud_radius} hexes around)"
    )
    under = [f"under cloud: {', '.join(clouded)}"] if clouded else []
    under += [f"in a storm: {', '.join(stormy)}"] if stormy else []
    return f"{line}; {'; '.join(under) if under else f'none of {whose} is under cloud'}."
