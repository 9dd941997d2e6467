# SPDX-License-Identifier: GPL-3.0-or-later
"""A scenario from a digitised board (``map/board_import.py``), and back.

Flattop.md, "Map and scenarios": "A group that digitises its own board replaces only data."
The CSV format is documented in docs/flattop-scenarios.md and the module docstring.
"""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.map.board_import import COLUMNS, board_csv, board_to_scenario, to_toml
from mailbot.games.flattop.map.hexes import Hex, Terrain
from mailbot.games.flattop.map.scenario import Scenario, require_scenario
from tests.games.flattop.conftest import load_scenario_data

# Test-small's layout: section I is 8 columns x rows 17-23, section V rows 23-28.
LAYOUT = {
    "layout": "custom",
    "sectors": [
        {"numeral": "I", "west": 0, "north": 16, "cols": 8, "rows": 7, "first": "A17"},
        {"numeral": "V", "west": 0, "north": 22, "cols": 8, "rows": 6, "first": "A23"},
    ],
}
BOARD = """\
# A corner of a board, digitised by hand.
hex,terrain,island,hexsides,directional,entry,base,unloading,zone
I-D17,sea,,,SE,,,,
I-B18,partial,New Guinea,,,,Lae,,japanese
I-B21,land,New Guinea,S:mountain,,,,,
I-B22,land,New Guinea,,,,,,

V-A23,land,New Guinea,,,,,,
I-A23,land,New Guinea,,,,,,
V-B24,partial,New Guinea,,,,Port Moresby,yes,
V-D26,,,,NE,,,,
V-G27,partial,Tulagi;Florida,S:reef,,,,,
V-G28,sea,,N:reef,,,,,
V-A28,sea,,,,1A,,,
"""


def meta(**extra: Any) -> dict[str, Any]:
    base = {"side": "allied", "handling": "LP", "capacity": "unlimited", "launch": 8, "launch_min": 4}
    return {
        "id": "digitised",
        "title": "A digitised corner",
        "approximate": False,
        "time": {"start": "D1 0500", "end": "D1 2400"},
        "map": LAYOUT,
        "coastwatchers": {"allied": ["Tulagi"], "both": ["New Guinea"]},
        "bases": [
            {"name": "Lae", **base, "side": "japanese", "readying": 5},
            {"name": "Port Moresby", **base, "readying": 8},
            {"name": "Australia", **base, "readying": 10, "air": {"ready": [{"plane": "B-17", "count": 2}]}},
        ],
        "task_forces": [
            {"number": 1, "side": "allied", "hex": "V-E26", "ships": [{"name": "Sims", "type": "DD"}]},
            {"number": 1, "side": "japanese", "hex": "I-G17", "ships": [{"name": "Ushio", "type": "DD"}]},
        ],
        "entry_bases": {"A": "Australia"},
        "aliases": {"Tulagi": ["Tulagi Island"]},
    } | extra


def h(scenario: Scenario, text: str) -> Hex:
    found = scenario.map.parse(text)
    assert found is not None, text
    return found


def test_a_digitised_board_becomes_a_scenario_the_game_loads(ft_tables: dict[str, Any]) -> None:
    """Standard 12.5: "Hexes have terrain types sea, partial-land and all-land. Hexsides can be
    all-land, reef, or mountain"; reference A.3: off-board bases' planes "enter and leave through
    Entry Hexes whose label includes a delay in turns, e.g. "5N" and "1A"". All of it from the CSV."""
    text = board_to_scenario(BOARD, meta())
    scenario = require_scenario(tomllib.loads(text), ft_tables)
    assert not scenario.approximate
    assert scenario.map.terrain_of(h(scenario, "I-B21")) is Terrain.LAND
    assert scenario.map.terrain_of(h(scenario, "V-B24")) is Terrain.PARTIAL
    assert scenario.map.terrain_of(h(scenario, "V-C25")) is Terrain.SEA  # not listed: sea
    assert scenario.hexside(h(scenario, "I-B21"), h(scenario, "I-B22")) == "mountain"
    assert scenario.hexside(h(scenario, "V-G27"), h(scenario, "V-G28")) == "reef"  # given from both sides
    assert [(s.numeral, scenario.map.hex_id(s.directional), s.wind.name) for s in scenario.sectors] == [
        (1, "I-D17", "SE"),
        (5, "V-D26", "NE"),
    ]
    (entry,) = scenario.entry_hexes
    assert (entry.label, entry.base, entry.delay, scenario.map.hex_id(entry.hex)) == (
        "1A",
        "Australia",
        1,
        "V-A28",
    )
    australia = scenario.base("Australia")
    assert australia is not None and australia.off_board and australia.entry == ("1A",)
    moresby = scenario.base("Port Moresby")
    assert moresby is not None and moresby.hex == h(scenario, "V-B24")
    assert scenario.unloading == frozenset({h(scenario, "V-B24")})
    assert scenario.coastwatchers.japanese_zone == frozenset({h(scenario, "I-B18")})
    assert scenario.island("Tulagi Island") is scenario.island("Tulagi")
    # A hex of two islands belongs to both; a shared half hex listed twice is one hex.
    assert [i.name for i in scenario.island_of(h(scenario, "V-G27"))] == ["Tulagi", "Florida"]
    guinea = scenario.island("New Guinea")
    assert guinea is not None and h(scenario, "V-A23") in guinea.hexes
    assert len([x for x in guinea.hexes if x == h(scenario, "I-A23")]) == 1


def test_the_output_is_readable_toml(ft_tables: dict[str, Any]) -> None:
    text = board_to_scenario(BOARD, meta())
    assert text.startswith('id = "digitised"\n')
    assert "[[bases]]" in text and "[[islands]]" in text and "[[map.hexsides]]" in text
    assert 'ready = [{ plane = "B-17", count = 2 }]' in text
    assert all(len(line) <= 110 for line in text.splitlines())


def test_every_mistake_is_listed_with_its_line() -> None:
    board = BOARD + "\n".join(
        (
            "V-Z99,sea,,,,,,,",  # 15: not a hex of this layout
            "V-C25,swamp,,,,,,,",  # 16: no such terrain
            "V-D25,land,,,,,,,",  # 17: land without an island
            "V-E25,sea,,up:reef,,,,,",  # 18: not a direction
            "V-H28,sea,,SE:reef,,,,,",  # 19: off the board
            "V-G28,sea,,N:mountain,,,,,",  # 20: V-G27/V-G28 was a reef
            "V-E27,sea,,,,9Q,,,",  # 21: no base for Q
            "V-F27,sea,,,,,Henderson,,",  # 22: a base meta does not list
            "V-F26,sea,,,,,,maybe,",  # 23: not yes or no
            "V-F25,sea,,,,,,,allied",  # 24: no Allied zone in 7.9.6
            "V-E28,sea,,,W,,,,",  # 25: not a direction
            "V-E26,sea,,,S,,,,",  # 26: a second directional hex on section V
        )
    )
    with pytest.raises(GameError) as error:
        board_to_scenario(board, meta(colour="blue"))
    message = str(error.value)
    for expected in (
        "meta: unknown key 'colour'",
        "line 15 (V-Z99): is not a hex ID",
        "line 16 (V-C25): terrain 'swamp'",
        "line 17 (V-D25): a land hex needs its island's name",
        "line 18 (V-E25): hexside 'up:reef'",
        "line 19 (V-H28): hexside 'SE:reef' leads off the board",
        "line 20 (V-G28): hexside 'N:mountain' disagrees",
        "entry hex 9Q: meta entry_bases names no base",
        "the board shows base 'Henderson'",
        "line 23 (V-F26): unloading 'maybe'",
        "line 24 (V-F25): zone 'allied'",
        "line 25 (V-E28): directional 'W'",
        "section V needs exactly one directional hex, not 2",
    ):
        assert expected in message, expected


def test_header_and_conflicts() -> None:
    with pytest.raises(GameError, match="unknown column 'colour'"):
        board_to_scenario("hex,terrain,colour\nV-A23,land,red\n", meta())
    with pytest.raises(GameError, match="the column 'terrain' is required"):
        board_to_scenario("hex,island\n", meta())
    with pytest.raises(GameError, match="no header row"):
        board_to_scenario("# nothing\n", meta())
    shared = BOARD + "I-A23,sea,,,,,,,\n"  # the shared hex V-A23 said land
    with pytest.raises(GameError, match="terrain disagrees"):
        board_to_scenario(shared, meta())
    placed_twice = meta()
    placed_twice["bases"][1] = placed_twice["bases"][1] | {"hex": "V-B24"}
    with pytest.raises(GameError, match="'Port Moresby': its hex is on the board and in meta"):
        board_to_scenario(BOARD, placed_twice)
    nowhere = meta(entry_bases={})
    with pytest.raises(GameError, match="'Australia' is on no hex of the board and has no entry hex"):
        board_to_scenario(BOARD, nowhere)


@pytest.mark.parametrize("name", ["test-small", "coral-sea"])
def test_a_scenario_map_round_trips_through_the_csv(name: str, ft_tables: dict[str, Any]) -> None:
    """``board_csv`` writes a scenario's map as the CSV; converting it back with the scenario's other
    data gives the same scenario (islands and entry hexes may come out in another order)."""
    raw = load_scenario_data(name)
    before = require_scenario(raw, ft_tables)
    text = board_csv(before)
    assert text.splitlines()[0] == ",".join(COLUMNS)
    kept = ("id", "title", "approximate", "notes", "special_rules", "time", "victory", "weather", "options")
    card: dict[str, Any] = {key: raw[key] for key in kept if key in raw}
    card |= {
        "task_forces": raw["task_forces"],
        "coastwatchers": {k: v for k, v in raw["coastwatchers"].items() if k != "japanese_zone"},
        "bases": [{k: v for k, v in b.items() if k not in ("hex", "entry")} for b in raw["bases"]],
        "entry_bases": {e["label"].lstrip("0123456789"): e["base"] for e in raw.get("entry_hexes", [])},
        "aliases": {i["name"]: i["aliases"] for i in raw["islands"] if "aliases" in i},
    }
    if raw["map"].get("layout") == "custom":
        card["map"] = {"layout": "custom", "sectors": raw["map"]["sectors"]}
    after = require_scenario(tomllib.loads(board_to_scenario(text, card)), ft_tables)
    assert after.map == before.map and dict(after.hexsides) == dict(before.hexsides)
    assert after.sectors == before.sectors and after.coastwatchers == before.coastwatchers
    assert set(after.entry_hexes) == set(before.entry_hexes) and after.unloading == before.unloading
    assert after.bases == before.bases and after.task_forces == before.task_forces
    assert after.arrivals == before.arrivals
    assert sorted(after.islands, key=lambda i: i.name) == sorted(before.islands, key=lambda i: i.name)


def test_to_toml_reads_back_equal() -> None:
    data = {
        "title": 'Quotes " and \\ and ünïcode\nnew line',
        "approximate": True,
        "ratio": 0.5,
        "whole": 3.0,
        "huge": math.inf,
        "numbers": [1, 2, 3],
        "empty": [],
        "odd key": {"1A": "x", "nested": {"deep": [["V-A1"], []]}},
        "things": [{"name": "a", "air": {"ready": [{"plane": "Zero", "count": 1}]}}, {"name": "b"}],
        "long": [f"V-A{i}" for i in range(30)],
    }
    assert tomllib.loads(to_toml(data)) == data


def test_to_toml_refuses_what_toml_cannot_hold() -> None:
    with pytest.raises(GameError):
        to_toml({"nothing": None})
