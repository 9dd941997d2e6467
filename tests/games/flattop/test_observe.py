# SPDX-License-Identifier: GPL-3.0-or-later
"""Observation without a roll: seed 003, 7.5, 7.9.5, 7.9.6, 7.12 and 14.13.2."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.games.flattop.map.hexes import STANDARD_LAYOUT, Hex, HexMap, Terrain, hex_id, parse_hex_id
from mailbot.games.flattop.map.scenario import Coastwatchers, Island, Scenario
from mailbot.games.flattop.map.weather import Sky as WeatherSky
from mailbot.games.flattop.observation.knowledge import PLANES, SHIPS
from mailbot.games.flattop.observation.observe import (
    AF,
    TF,
    CoastwatcherNet,
    PlaneView,
    ShipView,
    Target,
    Visibility,
    Watcher,
    coastwatcher_net,
    coastwatcher_observation,
    interception_modifier,
    interception_reveal,
    radar_observation,
    surface_observation,
)
from mailbot.games.flattop.observation.reports import Deception, ReportRules, compose
from mailbot.games.flattop.units import Altitude, Base, Handling, ShipCategory, Side

TABLES = Path(__file__).resolve().parents[3] / "mailbot" / "games" / "flattop" / "data" / "tables"


def load(name: str) -> dict[str, Any]:
    return tomllib.loads((TABLES / name).read_text("utf-8"))


OBSERVATION = load("observation.toml")
COASTWATCHERS = load("observation-coastwatchers.toml")
J, A = Side.JAPANESE, Side.ALLIED
HIGH, LOW = Altitude.HIGH, Altitude.LOW


def h(text: str) -> Hex:
    parsed = parse_hex_id(text)
    assert parsed is not None, text
    return parsed


def enemy_tf(at: str, ships: int = 4) -> Target:
    return Target(f"TF@{at}", J, TF, h(at), ships=(ShipView(ShipCategory.SMALL),) * ships)


def enemy_af(at: str, *altitudes: Altitude) -> Target:
    planes = tuple(PlaneView(3, False, a) for a in altitudes)
    return Target(f"AF@{at}", J, AF, h(at), planes=planes)


WATCHER = Watcher("TF2", "TF", A, h("V-K30"))
CLEAR_DAY = Visibility()


def seen(
    targets: list[Target], sky: Visibility = CLEAR_DAY, watcher: Watcher = WATCHER
) -> dict[tuple[str, str], int]:
    found = surface_observation(watcher, targets, sky, OBSERVATION)
    return {(hex_id(s.hex), s.kind): s.condition for s in found}


def test_7_5_a_tf_always_observes_enemy_tfs_within_one_hex() -> None:
    """Seed 003, 7.5: "A TF may always observe enemy TF's within one hex of its location"."""
    for sky in (
        Visibility(),
        Visibility(night=True),
        Visibility(clouds=frozenset({h("V-K29")})),
        Visibility(storms=frozenset({h("V-K29")})),
    ):
        assert seen([enemy_tf("V-K29")], sky).get(("V-K29", SHIPS), 0) >= 1


def test_7_5_no_ships_or_low_aircraft_at_two_hexes() -> None:
    """Seed 003, 7.5: "But TF's may not observe enemy ships or low-altitude aircraft at two hexes
    away, only high-altitude aircraft." """
    assert seen([enemy_tf("V-K28"), enemy_af("V-K28", LOW)]) == {}
    assert seen([enemy_af("V-K28", HIGH)]) == {("V-K28", PLANES): 1}
    (mixed,) = surface_observation(WATCHER, [enemy_af("V-K28", HIGH, LOW)], Visibility(), OBSERVATION)
    assert [p.altitude for t in mixed.targets for p in t.planes] == [HIGH]  # the low part stays unseen


def test_7_12_condition_3_in_the_same_hex() -> None:
    """Seed 003, 7.12: "Bases or TFs that are radar-equipped are at Condition 3 in regards to any
    enemy air formations in the same hex in clear weather, and with regards to any enemy TF's in the
    same hex in any daytime weather (except storms), just like non-radar bases & TF's." """
    here = "V-K30"
    cloud, storm = Visibility(clouds=frozenset({h(here)})), Visibility(storms=frozenset({h(here)}))
    for watcher in (WATCHER, Watcher("TF3", "TF", A, h(here), radar=True)):
        assert seen([enemy_af(here, LOW)], Visibility(), watcher)[here, PLANES] == 3
        assert seen([enemy_af(here, LOW)], Visibility(night=True), watcher)[here, PLANES] == 3
        assert seen([enemy_af(here, LOW)], cloud, watcher)[here, PLANES] < 3
        assert seen([enemy_tf(here)], cloud, watcher)[here, SHIPS] == 3
        assert seen([enemy_tf(here)], storm, watcher)[here, SHIPS] < 3


def test_11_7_a_blinded_tf_observes_nothing() -> None:
    """Standard 11.7 (the exception named in seed 003, 7.5): a '-' shadowing result stops observation."""
    blind = Watcher("TF2", "TF", A, h("V-K30"), blind=True)
    assert surface_observation(blind, [enemy_tf("V-K30")], Visibility(), OBSERVATION) == ()


def test_7_12_radar_sees_high_aircraft_only() -> None:
    """Seed 003, 7.12 with standard 7.10/7.13: radar sees high AFs out to 3 hexes, never low
    planes or ships; below Condition 3 it says only "planes at high altitude"."""
    radar = Watcher("TF3", "TF", A, h("V-K30"), radar=True)
    targets = [enemy_af("V-K27", HIGH), enemy_af("V-K29", LOW), enemy_tf("V-K30")]
    (spot,) = radar_observation(radar, targets, OBSERVATION)
    assert (spot.hex, spot.condition, spot.observer_kind, spot.radar) == (h("V-K27"), 1, "RADAR", True)
    report = compose(spot, policy=Deception.RANDOM, rules=ReportRules(), dice=FixedDice(), label="x")
    assert (report.radar, report.altitude, report.approx, report.classes) == (True, "high", None, ())
    assert radar_observation(WATCHER, targets, OBSERVATION) == ()  # no radar set, no radar contact


def test_14_13_2_unobserved_interceptor_in_a_non_combat_hex_reveals_itself() -> None:
    """Seed 003, 14.13.2: "If the attempt is made in a hex where combat cannot usually occur,
    subtract one from the die roll. In addition, a previously unobserved AF attempting this
    interception in a "non-combat" hex must reveal its presence whether the attempt is successful
    or not." """
    interceptor = enemy_af("V-K30", HIGH)
    assert interception_modifier(combat_possible=False) == -1
    assert interception_modifier(combat_possible=True) == 0
    spot = interception_reveal(interceptor, "AF7", combat_possible=False, already_observed=False)
    assert spot is not None
    assert (spot.observer_key, spot.hex, spot.kind, spot.condition) == ("AF7", h("V-K30"), PLANES, 1)
    assert interception_reveal(interceptor, "AF7", combat_possible=True, already_observed=False) is None
    assert interception_reveal(interceptor, "AF7", combat_possible=False, already_observed=True) is None


# --- coastwatchers ---------------------------------------------------------------

# A stretch of New Guinea around the four hexes of 7.9.6's example: all-land
# columns C..I, global rows 16..23, with two coastal (sea/land) hexes: I-H19
# inside the Japanese zone (rows up to 20 of section I) and V-F24 outside it.
NG_LAND = frozenset(Hex(c, r) for c in range(2, 9) for r in range(16, 24))
NG_COAST = frozenset({h("I-H19"), h("V-F24")})
NG_ZONE = frozenset(x for x in NG_LAND if x.row <= 19)
NG_MAP = HexMap(STANDARD_LAYOUT, {x: Terrain.PARTIAL if x in NG_COAST else Terrain.LAND for x in NG_LAND})
NEW_GUINEA = Island("New Guinea", NG_LAND)
BOTH = Coastwatchers(frozenset({"New Guinea"}), frozenset({"New Guinea"}), NG_ZONE)


def net(side: Side, bases: tuple[Base, ...] = ()) -> CoastwatcherNet:
    return coastwatcher_net(side, NG_MAP, [NEW_GUINEA], BOTH, bases)


def watched(side: Side, at: str, sky: Visibility = CLEAR_DAY, bases: tuple[Base, ...] = ()) -> int:
    spots = coastwatcher_observation(net(side, bases), [enemy_of(side, at)], sky, COASTWATCHERS)
    return max((s.condition for s in spots), default=0)


def enemy_of(side: Side, at: str) -> Target:
    return Target(f"AF@{at}", side.opponent, AF, h(at), planes=(PlaneView(4, True, LOW),))


def test_7_9_6_coastwatcher_hexes_example() -> None:
    """Seed 003, 7.9.6: "Thus an AF over hex I-F20 can be seen at Condition 1 only by the Japanese;
    an AF over hex I-F22 can be sen at Condition 1 by only the Allies; an AF in I-G20 can be seen by
    both players at Condition 2 in a clear day turn; and an AF in V-F24 can be seen by the Allies
    only at Condition 2 in a clear day turn." """
    seen_by = {at: (watched(J, at), watched(A, at)) for at in ("I-F20", "I-F22", "I-G20", "V-F24")}
    assert seen_by == {"I-F20": (1, 0), "I-F22": (0, 1), "I-G20": (2, 2), "V-F24": (0, 2)}


def test_7_9_6_new_guinea_interior_is_condition_1_day_or_night() -> None:
    """Seed 003, 7.9.6: "the Japanese can see AF's over ANY other all-land hexes. Condition in these
    hexes is always 1, day or night." """
    cloud = Visibility(clouds=frozenset({h("I-F20"), h("I-F22"), h("I-G20")}))
    for sky in (Visibility(night=True), cloud):
        assert (watched(J, "I-F20", sky), watched(A, "I-F22", sky)) == (1, 1)
    assert watched(A, "I-G20", cloud) == 1  # "Condition 2 (Clear) or Condition 1 (Cloud)"


def test_7_9_6_coastwatchers_do_not_see_enemy_bases() -> None:
    """Seed 003, 7.9.6: "They see anything in these hexes (except of course enemy bases)"."""
    lae = Base("Lae", J, h("I-G20"), Handling.LP, None, 4, 2, 4, 6)
    assert watched(A, "I-G20", bases=(lae,)) == 0
    assert watched(J, "I-G20", bases=(lae,)) == 2  # his own base does not blind his own watchers


def test_7_9_6_condition_table_matches_the_seed() -> None:
    """Seed 003, 7.9.6: "1. AF over all-land or sea/land hex: Condition 2 (Clear) or Condition 1
    (Cloud) during day turns; Condition 1 at night / 2. AF over all-sea hex: Condition 1 (day only) /
    3. TF in sea/land hex: Condition 2 (day), Condition 1 (night) / 4. TF in all-sea hex: Condition 1
    (day only)" """
    table = COASTWATCHERS["conditions"]
    assert COASTWATCHERS["default"] is False
    for terrain in ("land", "partial"):
        assert table["planes"][terrain] == {"day_clear": 2, "day_cloud": 1, "night": 1}
    assert table["planes"]["sea"] == {"day_clear": 1, "day_cloud": 1}
    assert table["ships"]["partial"] == {"day_clear": 2, "day_cloud": 2, "night": 1}
    assert table["ships"]["sea"] == {"day_clear": 1, "day_cloud": 1}
    assert COASTWATCHERS["new_guinea"]["condition"] == 1


@pytest.mark.parametrize(
    ("terrain", "kind", "sky", "expected"),
    [
        (Terrain.SEA, AF, Visibility(night=True), 0),  # "Condition 1 (day only)"
        (Terrain.SEA, TF, Visibility(), 1),
        (Terrain.PARTIAL, TF, Visibility(night=True), 1),
    ],
)
def test_7_9_6_watchers_see_adjacent_all_sea_hexes(
    terrain: Terrain, kind: str, sky: Visibility, expected: int
) -> None:
    """Seed 003, 7.9.6: coastwatchers see their coastal hexes "and in adjacent all-sea and all-land
    hexes"."""
    coast, sea = h("V-F24"), h("V-F25")
    hexmap = HexMap(STANDARD_LAYOUT, {coast: Terrain.PARTIAL, sea: terrain})
    island = Island("Guadalcanal", frozenset({coast}), aliases=("Guadalcanal",))
    cw = Coastwatchers(allied=frozenset({"Guadalcanal"}))
    where = coast if terrain is Terrain.PARTIAL else sea
    target = enemy_tf("V-F24") if kind == TF else enemy_af("V-F24", LOW)
    target = Target(target.ref, J, kind, where, ships=target.ships, planes=target.planes)
    spots = coastwatcher_observation(coastwatcher_net(A, hexmap, [island], cw), [target], sky, COASTWATCHERS)
    assert max((s.condition for s in spots), default=0) == expected
    assert all(s.observer_key == "CW Guadalcanal" and s.observer_kind == "CW" for s in spots)


def test_visibility_from_cloud_coverage() -> None:
    """Standard 6.5 (reference A.4): a hex under one cloud marker is a cloud hex, under two a storm."""
    sky = Visibility.from_coverage({h("V-K30"): 1, h("V-K31"): 2}, night=True)
    assert (sky.weather(h("V-K30")), sky.weather(h("V-K31")), sky.weather(h("V-K32"))) == (
        WeatherSky.CLOUD,
        WeatherSky.STORM,
        WeatherSky.CLEAR,
    )
    assert sky.cloudy(h("V-K31")) and sky.time == "night"


def test_7_9_6_coastwatcher_hexes_example_on_the_test_scenario(small: Scenario) -> None:
    """Seed 003, 7.9.6 on ``test-small.toml``, the map drawn for this example: "an AF over hex I-F20
    can be seen at Condition 1 only by the Japanese; an AF over hex I-F22 can be sen at Condition 1
    by only the Allies; an AF in I-G20 can be seen by both players at Condition 2 in a clear day
    turn; and an AF in V-F24 can be seen by the Allies only at Condition 2 in a clear day turn." """

    def sees(side: Side, at: str) -> int:
        cw = coastwatcher_net(side, small.map, small.islands, small.coastwatchers, small.bases)
        spots = coastwatcher_observation(cw, [enemy_of(side, at)], Visibility(), COASTWATCHERS)
        return max((s.condition for s in spots), default=0)

    seen_by = {at: (sees(J, at), sees(A, at)) for at in ("I-F20", "I-F22", "I-G20", "V-F24")}
    assert seen_by == {"I-F20": (1, 0), "I-F22": (0, 1), "I-G20": (2, 2), "V-F24": (0, 2)}
