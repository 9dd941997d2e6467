# SPDX-License-Identifier: GPL-3.0-or-later
"""What Flat Top keeps instead of working it out again: the same answers, shared safely.

Each kept value is a pure function of immutable inputs (the scenario's data, the cloud
markers' places, a hex): these tests compare it with the plain computation and check that
what is handed out cannot be changed by its taker.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import replace
from enum import Enum
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop import units
from mailbot.games.flattop.hour.turn import visibility
from mailbot.games.flattop.map.hexes import (
    Hex,
    HexMap,
    Terrain,
    distance,
    hex_id,
    ring,
    standard_layout,
    within,
)
from mailbot.games.flattop.map.weather import cloud_hexes, coverage_of, storm_hexes
from mailbot.games.flattop.observation.observe import Visibility, coastwatcher_net
from mailbot.games.flattop.state import FlatTopState, build_rules, dump_state, load_state
from mailbot.games.flattop.units import Side

from .play import game_data, new, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


@pytest.fixture(scope="module")
def cloudy(data: dict[str, Any]) -> FlatTopState:
    """The Coral Sea demo two hours in, with its clouds."""
    state = new(data, "coral-sea-demo", clear=False)
    for _ in range(2):
        state = play(state, {"allied": ["hold"], "japanese": ["hold"]}).state
    assert state.weather.clouds
    return state


# --- the rules -----------------------------------------------------------------------------------


def test_the_same_scenario_data_is_parsed_once(data: dict[str, Any]) -> None:
    scenario, tables = data["scenarios"]["test-small"], data["tables"]
    rules = build_rules(scenario, tables)
    assert build_rules(copy.deepcopy(scenario), json.loads(json.dumps(tables))) is rules


def test_other_data_gives_other_rules(data: dict[str, Any]) -> None:
    scenario, tables = data["scenarios"]["test-small"], copy.deepcopy(data["tables"])
    before = build_rules(scenario, tables)
    tables["weather"]["size"]["cloud_radius"] = before.weather.cloud_radius + 1
    after = build_rules(scenario, tables)
    assert after is not before and after.weather.cloud_radius == before.weather.cloud_radius + 1


def test_broken_data_is_an_error_every_time(data: dict[str, Any]) -> None:
    tables = {k: v for k, v in data["tables"].items() if k != "landing"}
    for _ in range(2):
        with pytest.raises(GameError, match="landing"):
            build_rules(data["scenarios"]["test-small"], tables)


def test_loaded_states_share_their_rules_and_equal_the_saved_state(cloudy: FlatTopState) -> None:
    saved = json.loads(json.dumps(dump_state(cloudy)))
    first, second = load_state(saved), load_state(copy.deepcopy(saved))
    assert first == second == cloudy
    assert first.rules is second.rules


# --- the weather ---------------------------------------------------------------------------------


def brute_coverage(centres: list[Hex], radius: int) -> dict[Hex, int]:
    near = {h for c in centres for h in within(c, radius)}
    return {h: sum(1 for c in centres if distance(c, h) <= radius) for h in near}


def test_cloud_cover_counts_every_marker_within_the_radius(cloudy: FlatTopState) -> None:
    rules = cloudy.rules.weather
    centres = [c.hex for c in cloudy.weather.clouds]
    expected = brute_coverage(centres, rules.cloud_radius)
    assert dict(cloudy.weather.coverage(rules.cloud_radius)) == expected
    assert cloud_hexes(cloudy.weather, rules) == frozenset(expected)
    assert storm_hexes(cloudy.weather, rules) == frozenset(
        h for h, n in expected.items() if n >= rules.storm_overlap
    )


def test_the_kept_cover_cannot_be_changed_by_a_reader(cloudy: FlatTopState) -> None:
    cover = cloudy.weather.coverage(cloudy.rules.weather.cloud_radius)
    some = next(iter(cover))
    with pytest.raises(TypeError):
        cover[some] = 99  # type: ignore[index]
    assert coverage_of(cloudy.weather.centres, cloudy.rules.weather.cloud_radius) is cover


def test_the_sky_of_the_hour_is_the_sky_of_its_markers(cloudy: FlatTopState) -> None:
    radius = cloudy.rules.weather.cloud_radius
    sky = visibility(cloudy.weather.centres, radius, True)
    assert sky == Visibility.from_coverage(brute_coverage(list(cloudy.weather.centres), radius), night=True)
    assert visibility(cloudy.weather.centres, radius, False).night is False


def test_a_disc_is_its_rings_nearest_first() -> None:
    centre = Hex(7, 12)
    for radius in range(4):
        expected = [h for r in range(radius + 1) for h in ring(centre, r)]
        assert list(within(centre, radius)) == expected
        assert list(within(centre, radius)) == expected  # a fresh iterator each time
    assert list(within(centre, -1)) == []


# --- the board -----------------------------------------------------------------------------------


def plain_hex_id(layout: Any, h: Hex) -> str:
    owners = [s for s in layout.sectors if s.contains(h)]
    if not owners:
        return f"?{h.col},{h.row}"
    return max(owners, key=lambda s: (s.north, s.west)).label(h)


def test_hex_ids_and_sections_are_those_of_the_sections() -> None:
    layout = standard_layout()
    hexes = [*layout.hexes(), Hex(-1, 0), Hex(0, -3), Hex(500, 2)]
    for _ in range(2):  # worked out, then remembered
        for h in hexes:
            assert hex_id(h, layout) == plain_hex_id(layout, h)
            assert layout.on_board(h) == any(s.contains(h) for s in layout.sectors)
            assert layout.sectors_of(h) == tuple(s for s in layout.sectors if s.contains(h))


def test_what_a_board_remembers_changes_neither_its_equality_nor_its_hash() -> None:
    used, fresh = standard_layout(), standard_layout()
    used.sectors_of(Hex(3, 3))
    assert used == fresh and hash(used) == hash(fresh)
    sea = HexMap(fresh, {Hex(1, 1): Terrain.LAND})
    assert sea == HexMap(used, {Hex(1, 1): Terrain.LAND})
    assert hash(sea) == hash(HexMap(used, {Hex(1, 1): Terrain.LAND}))
    assert sea != HexMap(used, {Hex(1, 1): Terrain.PARTIAL})


def test_coastwatchers_never_see_an_enemy_base_hex_and_the_kept_net_stays_whole(cloudy: FlatTopState) -> None:
    scenario = cloudy.scenario
    side = Side.ALLIED
    net = coastwatcher_net(side, scenario.map, scenario.islands, scenario.coastwatchers)
    assert net.normal, "the demo scenario has Allied coastwatchers"
    watched = sorted(net.normal)[0]
    enemy = replace(next(b for b in scenario.bases if b.side is Side.JAPANESE), hex=watched)
    without = coastwatcher_net(side, scenario.map, scenario.islands, scenario.coastwatchers, [enemy])
    assert watched not in without.normal
    again = coastwatcher_net(side, scenario.map, scenario.islands, scenario.coastwatchers)
    assert watched in again.normal and dict(again.normal) == dict(net.normal)


# --- saving --------------------------------------------------------------------------------------


def reference_dump(value: Any) -> Any:
    """The generic dump as it was written before it was made fast: the specification."""
    if isinstance(value, Hex):
        return value.as_list()
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value) if f.init]
        return {name: reference_dump(getattr(value, name)) for name in names}
    if isinstance(value, tuple | list | frozenset):
        return [reference_dump(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): reference_dump(item) for key, item in value.items()}
    return value


def test_dumping_a_played_state_gives_what_the_generic_dump_gave(cloudy: FlatTopState) -> None:
    later = play(cloudy, {"allied": ["hold"], "japanese": ["hold"]}).state
    for field in dataclasses.fields(later):
        if field.name in ("config", "rules", "sides"):
            continue
        value = getattr(later, field.name)
        assert json.dumps(units.dump(value)) == json.dumps(reference_dump(value)), field.name
