# SPDX-License-Identifier: GPL-3.0-or-later
"""Scenario loading, the shipped scenarios, and the units' JSON round trip.

The coastwatcher lists are seed 003, 7.9.5; the New Guinea hexes seed 003, 7.9.6.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex, Terrain, distance, neighbours, parse_hex_id
from mailbot.games.flattop.map.scenario import (
    GameTime,
    Scenario,
    load_scenario,
    plane_types,
    require_scenario,
)
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Altitude,
    Armament,
    Base,
    Handling,
    PlaneCategory,
    Ship,
    ShipCategory,
    ShipType,
    Side,
    TaskForce,
    dump,
    load,
)
from tests.games.flattop.conftest import load_scenario_data

SEED_7_9_5 = {
    "coral-sea": {
        "allied": "Espiritu Santo, Ndeni, San Cristobal, Malaita, Guadalcanal, New Georgia, Furgusson",
        "japanese": "Rendova, Kolombomgara, Treasury",
        "both": "New Guinea, Bougainville, New Britain, New Ireland",
    },
    "eastern-solomons": {
        "allied": "San Cristobal, Malaita, Florida, Furgusson",
        "japanese": "Rendova, Kolombangara, Treasury, Choiseul, Vella Lavella",
        "both": "New Guinea, Guadalcanal, Bougainville, Santa Isabel, New Britain, New Ireland, New Georgia",
    },
}


def h(text: str) -> Hex:
    found = parse_hex_id(text)
    assert found is not None, text
    return found


def problems_of(data: dict[str, Any], tables: dict[str, Any]) -> list[str]:
    return [str(p) for p in load_scenario(data, tables).problems]


# --- the shipped scenarios ------------------------------------------------------------


@pytest.mark.parametrize("name", ["test-small", "coral-sea-demo"])
def test_shipped_scenarios_load_without_problems(name: str, ft_tables: dict[str, Any]) -> None:
    loaded = load_scenario(load_scenario_data(name), ft_tables)
    assert loaded.problems == ()
    assert loaded.scenario is not None
    assert loaded.scenario.approximate  # neither is the printed board


def test_small_scenario_contents(small: Scenario) -> None:
    assert [s.numeral for s in small.map.layout.sectors] == [1, 5]
    assert small.start == GameTime(1, 5)
    assert small.end == GameTime(2, 24)
    assert small.is_night(GameTime(1, 5)) and not small.is_night(GameTime(1, 6))
    assert small.hexside(h("I-B22"), h("I-B21")) == "mountain"
    assert small.hexside(h("I-B22"), h("I-C22")) is None
    assert small.entry_hexes[0].hex == h("V-A28")
    australia = small.base("australia")
    assert australia is not None and australia.off_board and australia.entry == ("1A", "2A")
    assert small.unloading == frozenset({h("V-B24")})
    assert small.island("papua") is small.island("New Guinea")
    assert [i.name for i in small.island_of(h("V-G27"))] == ["Tulagi"]
    assert small.options == {"example": True}


def test_small_scenario_multi_turn_plot(small: Scenario) -> None:
    tf = next(t for t in small.task_forces if t.number == 11)
    assert tf.plot == ((h("V-H26"),), (), (h("V-G27"),))


def test_ship_factors_come_from_the_ships_table(small: Scenario) -> None:
    yorktown = small.task_forces[0].ships[0]
    # reference A.14: Yorktown MC 30, LF 11/3 (confirmed by a rulebook example), Readying 9.
    assert (yorktown.type, yorktown.capacity, yorktown.launch, yorktown.launch_min) == (
        ShipType.CV,
        30,
        11,
        3,
    )
    assert yorktown.readying == 9 and yorktown.radar
    assert yorktown.boxes.ready[1] == AirFactors("Dauntless", 6, True, Armament.GP)
    # Japanese heavy cruisers carry torpedoes; every DD has Torpedo Factor 1 (reference A.5.2).
    japanese = next(t for t in small.task_forces if t.side is Side.JAPANESE)
    assert [s.torpedo for s in japanese.ships] == [0, 2, 1]


def test_scenario_keys_override_table_factors(ft_tables: dict[str, Any]) -> None:
    data = load_scenario_data("test-small")
    data["task_forces"][0]["ships"][1]["gunnery"] = 9
    scenario = require_scenario(data, ft_tables)
    assert scenario.task_forces[0].ships[1].gunnery == 9


def test_seed_003_7_9_6_new_guinea_hexes_in_the_small_map(small: Scenario) -> None:
    _check_7_9_6_terrain(small)


def test_seed_003_7_9_6_new_guinea_hexes_in_the_demo_map(demo: Scenario) -> None:
    _check_7_9_6_terrain(demo)


def _check_7_9_6_terrain(scenario: Scenario) -> None:
    """seed 003, 7.9.6: "an AF over hex I-F20 can be seen at Condition 1 only by the Japanese;
    an AF over hex I-F22 can be sen at Condition 1 by only the Allies; an AF in I-G20 can be
    seen by both players at Condition 2 in a clear day turn; and an AF in V-F24 can be seen by
    the Allies only at Condition 2 in a clear day turn." So I-F20 is inland in the Japanese
    zone, I-G20 next to its coast, I-F22 inland outside it, V-F24 on the Allied coast."""
    board, zone = scenario.map, scenario.coastwatchers.japanese_zone
    guinea = scenario.island("New Guinea")
    assert guinea is not None

    def next_to_coast(x: Hex) -> bool:
        return any(board.terrain_of(n) is Terrain.PARTIAL for n in neighbours(x))

    for text in ("I-F20", "I-F22", "I-G20", "V-F24"):
        assert h(text) in guinea.hexes
    assert board.terrain_of(h("I-F20")) is Terrain.LAND and not next_to_coast(h("I-F20"))
    assert board.terrain_of(h("I-G20")) is Terrain.LAND and next_to_coast(h("I-G20"))
    assert board.terrain_of(h("I-F22")) is Terrain.LAND and not next_to_coast(h("I-F22"))
    assert board.terrain_of(h("V-F24")) is Terrain.PARTIAL
    assert {h("I-F20"), h("I-G20")} <= zone
    assert h("I-F22") not in zone and h("V-F24") not in zone
    assert scenario.coastwatchers.zone_island == "New Guinea"


def test_demo_scenario_contents(demo: Scenario) -> None:
    assert demo.map.layout.sectors[0].cols == 20
    tfs = {(t.side, t.number): t for t in demo.task_forces}
    assert len(tfs[Side.ALLIED, 1].ships) == 15  # the Allied limit (reference A.5.1)
    assert len(tfs[Side.JAPANESE, 10].ships) == 10  # the Japanese limit
    assert [s.name for s in tfs[Side.JAPANESE, 1].carriers] == ["Shokaku", "Zuikaku"]
    for base in demo.bases:
        assert base.off_board or demo.map.terrain_of(base.hex) is not Terrain.SEA  # type: ignore[arg-type]
    for name in ("Rabaul", "Port Moresby", "Tulagi", "Deboyne", "Shortland", "Lae", "Gasmata", "Kavieng"):
        assert demo.base(name) is not None, name
    for name in (
        "Bougainville",
        "Guadalcanal",
        "Florida",
        "Rossel",
        "Deboyne",
        "Misima",
        "Tagula",
        "Espiritu Santo",
    ):
        assert demo.island(name) is not None, name


def test_demo_distances_follow_real_geography(demo: Scenario) -> None:
    # About 20 nm a hex; great-circle distances: Rabaul-Port Moresby about 430 nm,
    # Rabaul-Tulagi about 560 nm, Port Moresby-Tulagi about 780 nm.
    def apart(a: str, b: str) -> int:
        first, second = demo.base(a), demo.base(b)
        assert first is not None and second is not None and first.hex and second.hex
        return distance(first.hex, second.hex)

    assert 20 <= apart("Rabaul", "Port Moresby") <= 25
    assert 27 <= apart("Rabaul", "Tulagi") <= 32
    assert 38 <= apart("Port Moresby", "Tulagi") <= 44


def test_demo_coastwatchers_are_the_coral_sea_list(demo: Scenario) -> None:
    seed = SEED_7_9_5["coral-sea"]
    both = {n.strip() for n in seed["both"].split(",")}
    assert {"New Guinea", "Bougainville", "New Britain", "New Ireland"} == both
    # Seed spellings are aliases of the map's islands ("Furgusson", "Kolombomgara").
    assert "Fergusson" in demo.coastwatchers.allied and "Kolombangara" in demo.coastwatchers.japanese
    assert both <= demo.coastwatchers.allied & demo.coastwatchers.japanese
    assert len(demo.coastwatchers.allied) == 7 + 4 and len(demo.coastwatchers.japanese) == 3 + 4


@pytest.mark.parametrize("listed", ["coral-sea", "eastern-solomons", "santa-cruz", "guadalcanal"])
def test_every_seed_list_fits_the_demo_map(listed: str, ft_tables: dict[str, Any]) -> None:
    data = load_scenario_data("coral-sea-demo")
    data["coastwatchers"]["list"] = listed
    assert problems_of(data, ft_tables) == []


@pytest.mark.parametrize("listed", ["coral-sea", "eastern-solomons"])
def test_coastwatcher_table_copies_seed_003_7_9_5(listed: str, ft_tables: dict[str, Any]) -> None:
    table = ft_tables["coastwatchers"][listed]
    for key, text in SEED_7_9_5[listed].items():
        assert table[key] == [name.strip() for name in text.split(",")]


def test_coastwatcher_table_derives_the_later_lists() -> None:
    """seed 003, 7.9.5: "SANTA CRUZ: Same as Eastern Solomons except Vella Lavella is now 'Both.'
    GUADALCANAL: Same as Santa Cruz except that Russell Island is now 'Allied.'\""""
    from tests.games.flattop.conftest import load_tables

    lists = load_tables()["coastwatchers"]
    es, sc, gc = lists["eastern-solomons"], lists["santa-cruz"], lists["guadalcanal"]
    assert set(sc["japanese"]) == set(es["japanese"]) - {"Vella Lavella"}
    assert set(sc["both"]) == set(es["both"]) | {"Vella Lavella"}
    assert sc["allied"] == es["allied"]
    assert set(gc["allied"]) == set(sc["allied"]) | {"Russell Island"}
    assert (gc["japanese"], gc["both"]) == (sc["japanese"], sc["both"])


# --- validation ------------------------------------------------------------------------


def _small() -> dict[str, Any]:
    return copy.deepcopy(load_scenario_data("test-small"))


BROKEN = [
    (
        "bad hex id",
        lambda d: d["task_forces"][0].update(hex="V-Z99"),
        "task_forces[0].hex: 'V-Z99' is not a hex ID",
    ),
    (
        "TF on land",
        lambda d: d["task_forces"][0].update(hex="I-F20"),
        "task_forces[0].hex: I-F20 is all land",
    ),
    (
        "carrier in TF 10+",
        lambda d: d["task_forces"][0].update(number=12),
        "plane-carrying ships may only be in TFs 1-9",
    ),
    (
        "too many ships",
        lambda d: d["task_forces"][2]["ships"].extend({"name": f"DD{i}", "type": "DD"} for i in range(8)),
        "a japanese TF holds 1 to 10 ships, not 11",
    ),
    (
        "unknown ship type",
        lambda d: d["task_forces"][0]["ships"][1].update(type="XX"),
        "'XX' is not one of CV",
    ),
    (
        "unknown class",
        lambda d: d["task_forces"][0]["ships"][1].update(**{"class": "Iowa"}),
        "no class 'Iowa'",
    ),
    (
        "float planes on an Allied BB",
        lambda d: d["task_forces"][0]["ships"].append(
            {"name": "Washington", "air": {"ready": [{"plane": "Wildcat", "count": 1}]}}
        ),
        "Wildcat (carrier plane) cannot be handled here",
    ),
    (
        "unknown plane",
        lambda d: d["bases"][0]["air"]["ready"].append({"plane": "Spitfire", "count": 1}),
        "no plane type 'Spitfire'",
    ),
    (
        "wrong side's plane",
        lambda d: d["bases"][0]["air"]["ready"].append({"plane": "Wildcat", "count": 1}),
        "Wildcat is a allied plane",
    ),
    (
        "plane not handled",
        lambda d: d["bases"][0]["air"]["ready"].append({"plane": "Mavis", "count": 1}),
        "Mavis (sea plane) cannot be handled here (standard 8.9)",
    ),
    (
        "over capacity",
        lambda d: d["task_forces"][0]["ships"][0]["air"]["ready"].append({"plane": "Wildcat", "count": 20}),
        "32 air factors exceed the maximum capacity 30",
    ),
    ("off-board base without entry", lambda d: d["bases"][2].pop("entry"), "needs entry hexes"),
    ("base at sea", lambda d: d["bases"][0].update(hex="I-A17"), "bases[0].hex: I-A17 is all sea"),
    (
        "unknown coastwatcher island",
        lambda d: d["coastwatchers"]["allied"].append("Atlantis"),
        "no island 'Atlantis' on this map",
    ),
    ("unknown list", lambda d: d["coastwatchers"].update(list="midway"), "'midway' is not a list"),
    ("bad time", lambda d: d["time"].update(start="D1 2500"), "time.start: 'D1 2500' is not a turn"),
    ("end before start", lambda d: d["time"].update(end="D1 0400"), "time.end: comes before the start"),
    (
        "missing directional hex",
        lambda d: d["map"]["sectors"][1].pop("directional"),
        "section V needs a directional",
    ),
    (
        "directional off its section",
        lambda d: d["map"]["sectors"][0].update(directional="V-D26"),
        "not on section I",
    ),
    ("bad wind", lambda d: d["map"]["sectors"][0].update(wind="E"), "'E' is not a direction"),
    (
        "duplicate ship",
        lambda d: d["task_forces"][1]["ships"][1].update(name="Hammann"),
        "'Hammann' appears twice",
    ),
    (
        "hexside not adjacent",
        lambda d: d["map"]["hexsides"][0].update(between=["I-B21", "I-B23"]),
        "must name two adjacent hexes",
    ),
    (
        "bad hexside kind",
        lambda d: d["map"]["hexsides"][0].update(kind="river"),
        "'river' is not one of reef",
    ),
    (
        "land and partial",
        lambda d: d["islands"][1].update(land=["V-G27"]),
        "V-G27 is both land and partial land",
    ),
    ("bad clouds", lambda d: d["weather"].update(clouds="fog"), "weather.clouds: must be one of"),
    (
        "entry for a base on the map",
        lambda d: d["entry_hexes"][0].update(base="Lae"),
        "not an off-board base",
    ),
    ("negative factor", lambda d: d["bases"][0].update(aa=-1), "bases[0].aa: must be a whole number >= 0"),
    ("bad section label", lambda d: d["map"]["sectors"][0].update(first="17A"), "is not a label like 'A1'"),
    ("bad layout", lambda d: d["map"].update(layout="hex"), "map.layout: must be 'standard' or 'custom'"),
    ("missing id", lambda d: d.pop("id"), "scenario.id: is missing"),
    ("bad arm", lambda d: d["bases"][0]["air"]["ready"][0].update(arm="nuke"), "'nuke' is not one of GP"),
]


@pytest.mark.parametrize(
    ("change", "expected"), [(c, e) for _, c, e in BROKEN], ids=[n for n, _, _ in BROKEN]
)
def test_problems_are_reported_with_where_they_are(
    change: Any, expected: str, ft_tables: dict[str, Any]
) -> None:
    data = _small()
    change(data)
    found = problems_of(data, ft_tables)
    assert any(expected in p for p in found), found
    assert load_scenario(data, ft_tables).scenario is None


def test_require_scenario_lists_every_problem(ft_tables: dict[str, Any]) -> None:
    data = _small()
    data["task_forces"][0]["hex"] = "I-F20"
    data["bases"][0]["aa"] = "many"
    with pytest.raises(GameError, match=r"(?s)'test-small' has problems:.*bases\[0\]\.aa.*all land"):
        require_scenario(data, ft_tables)


def test_garbage_does_not_raise(ft_tables: dict[str, Any]) -> None:
    found = problems_of(
        {"map": 3, "islands": "x", "bases": [1], "time": [], "coastwatchers": {"both": 5}}, ft_tables
    )
    assert "map: must be a table" in found
    assert "islands: must be an array of tables" in found
    assert "bases[0]: must be a table" in found
    assert load_scenario({}, {}).scenario is None


def test_plane_table(ft_tables: dict[str, Any]) -> None:
    planes = plane_types(ft_tables["planes"])
    # Confirmed by rulebook examples (reference A.14): Zero 9, Wildcat 9, B-17 8 air-to-air; P-40 RF 5.
    assert (planes["Zero"].air_to_air, planes["Wildcat"].air_to_air, planes["B-17"].air_to_air) == (9, 9, 8)
    assert planes["P-40"].range == 5 and planes["P-40"].default
    assert planes["Val"].roles == ("bomber",) and planes["Pete"].roles == ("interceptor", "escort")
    assert planes["Catalina"].category is PlaneCategory.SEA
    with pytest.raises(GameError, match="'Zero' is malformed"):
        plane_types({"planes": {"Zero": {"side": "axis"}}})


def test_game_time() -> None:
    assert GameTime(1, 24).next() == GameTime(2, 1)
    assert GameTime(1, 5).plus(20) == GameTime(2, 1)
    assert GameTime(2, 3).turns_since(GameTime(1, 22)) == 5
    assert GameTime(1, 8).label == "D1 0800"
    assert GameTime(1, 24) < GameTime(2, 1)


# --- units ---------------------------------------------------------------------------------


def test_every_unit_of_the_demo_round_trips_through_json(demo: Scenario) -> None:
    for tf in demo.task_forces:
        assert load(TaskForce, json.loads(json.dumps(dump(tf)))) == tf
    for base in demo.bases:
        assert load(Base, json.loads(json.dumps(dump(base)))) == base


def test_air_formation_and_damaged_ship_round_trip() -> None:
    af = AirFormation(
        7,
        Side.JAPANESE,
        Hex(3, 4),
        (AirFactors("Zero", 4, True, None, Altitude.HIGH),),
        "Shokaku",
        3,
        True,
        1,
    )
    assert load(AirFormation, json.loads(json.dumps(dump(af)))) == af
    off_map = AirFormation(8, Side.ALLIED, None, (AirFactors("B-17", 6),), "Australia", 1)
    assert load(AirFormation, dump(off_map)) == off_map
    ship = Ship("Lexington", ShipType.CV, 2, 6, 0, 2, 8, hits=7, anchored=True, boxes=AirBoxes(ready=()))
    assert load(Ship, dump(ship)) == ship


def test_load_rejects_malformed_data() -> None:
    with pytest.raises(GameError, match="unknown field"):
        load(AirFactors, {"plane": "Zero", "count": 1, "colour": "red"})
    with pytest.raises(GameError, match=r"AirFactors\.count: expected"):
        load(AirFactors, {"plane": "Zero", "count": "1"})
    with pytest.raises(GameError, match=r"AirFactors\.count: expected"):
        load(AirFactors, {"plane": "Zero", "count": True})
    with pytest.raises(GameError, match="expected a list"):
        load(AirBoxes, {"ready": "Zero"})


def test_ship_states() -> None:
    ca = Ship("Astoria", ShipType.CA, 8, 4, 0, 2, 6)
    assert not ca.crippled and not ca.sunk
    assert Ship("x", ShipType.CA, 8, 4, 0, 2, 6, hits=5).crippled  # Damage Factor - 1
    assert Ship("x", ShipType.CA, 8, 4, 0, 2, 6, hits=6).sunk
    assert not Ship("x", ShipType.DD, 3, 1, 1, 2, 2, hits=1).crippled  # Damage Factor < 3
    assert ShipType.CL.category is ShipCategory.CAPITAL and ShipType.AP.category is ShipCategory.SMALL
    assert ShipType.CVL.category is ShipCategory.CARRIER and ShipType.SS.category is ShipCategory.SUBMARINE
    assert ShipType.AV.carries_planes and not ShipType.BB.carries_planes
    assert Side.ALLIED.opponent is Side.JAPANESE and Handling("LP+SP") is Handling.BOTH
