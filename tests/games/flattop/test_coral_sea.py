# SPDX-License-Identifier: GPL-3.0-or-later
"""The complete Coral Sea scenario (``coral-sea.toml``) and arrival schedules (``map/arrivals.py``).

The scenario loads through the path the game uses (``Setup.data`` -> ``new_game``), its
coastwatchers are seed 003, 7.9.5's Coral Sea list, its ``[victory]`` table is read, and its
reinforcements enter at their turns. Until resolve.py calls :func:`arrivals_due` itself,
:func:`advance` below does what the resolver is asked to do: when the clock moves to the
next hour, place that hour's arrivals.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from mailbot.games.flattop.map.arrivals import arrivals_due, pending, place_arrivals
from mailbot.games.flattop.map.hexes import Hex, Terrain, distance, parse_hex_id
from mailbot.games.flattop.map.scenario import (
    AirArrival,
    ForceArrival,
    GameTime,
    Scenario,
    load_scenario,
    require_scenario,
)
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, AirFactors, ShipType, Side
from mailbot.games.flattop.victory import VictoryRules
from tests.games.flattop.conftest import load_scenario_data
from tests.games.flattop.play import GAME, game_data, new, parse, play

# Seed 003, 7.9.5, the Coral Sea list as printed (island spellings the seed's own).
SEED_7_9_5_CORAL_SEA = {
    "allied": (
        "Espiritu Santo",
        "Ndeni",
        "San Cristobal",
        "Malaita",
        "Guadalcanal",
        "New Georgia",
        "Furgusson",
    ),
    "japanese": ("Rendova", "Kolombomgara", "Treasury"),
    "both": ("New Guinea", "Bougainville", "New Britain", "New Ireland"),
}
HOLD = {"allied": ["hold"], "japanese": ["hold"]}


def h(text: str) -> Hex:
    found = parse_hex_id(text)
    assert found is not None, text
    return found


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    """``Setup.data`` as the edge builds it, with the new scenario beside the shipped two."""
    tree = game_data()
    tree["scenarios"]["coral-sea"] = load_scenario_data("coral-sea")
    return tree


@pytest.fixture(scope="module")
def coral(ft_tables: dict[str, Any]) -> Scenario:
    return require_scenario(load_scenario_data("coral-sea"), ft_tables)


def advance(state: FlatTopState, orders: dict[str, list[str]] | None = None) -> FlatTopState:
    """One turn, then the arrivals of the hour the clock moved to (the resolver's job, see arrivals.py)."""
    before = {b.name: b.boxes.total for b in state.bases}
    outcome = play(state, orders or HOLD)
    assert not outcome.finished
    st = outcome.state
    due = arrivals_due(st.scenario, st.time)
    ships = {s.name for tf in st.task_forces for s in tf.ships}
    placed_by_resolver = any(
        isinstance(a, ForceArrival) and a.task_force.ships[0].name in ships for a in due
    ) or any(isinstance(a, AirArrival) and st.scenario.base(a.base) and _grew(st, before, a) for a in due)
    if due and not placed_by_resolver:
        placed = place_arrivals(st.task_forces, st.bases, due)
        st = replace(st, task_forces=placed.task_forces, bases=placed.bases)
    return st


def _grew(st: FlatTopState, before: dict[str, int], arrival: AirArrival) -> bool:
    base = next(b for b in st.bases if b.name == arrival.base)
    return base.boxes.total >= before[arrival.base] + arrival.boxes.total


# --- the scenario as data -------------------------------------------------------------


def test_coral_sea_loads_through_the_game(data: dict[str, Any]) -> None:
    """Issue 17: "Ship at least one complete scenario ... whose data a group can edit": it loads
    the way every game does, from ``Setup.data``, on an approximate map that says so."""
    assert GAME.seats("coral-sea", data) == ("allied", "japanese")
    state = new(data, "coral-sea", clear=False)
    assert state.time == GameTime(1, 5) and state.scenario.end == GameTime(5, 24)
    assert state.scenario.approximate and "approximate" in state.scenario.title
    assert state.scenario.clouds == "front"
    # Forces that arrive later are not on the board at the start.
    names = {s.name for tf in state.task_forces for s in tf.ships}
    assert "Yorktown" in names and "Shokaku" in names
    assert not {"Australia", "Yubari", "Asakasan Maru"} & names


def test_seed_003_7_9_5_coral_sea_coastwatchers(coral: Scenario) -> None:
    """Seed 003, 7.9.5: "In a given scenario, coastwatchers are only present on islands that they
    actually occupied at the time. ... CORAL SEA- Allied only: Espiritu Santo, Ndeni, San
    Cristobal, Malaita, Guadalcanal, New Georgia, Furgusson / Japanese only: Rendova,
    Kolombomgara, Treasury / Both: New Guinea, Bougainville, New Britain, New Ireland"."""

    def islands(names: tuple[str, ...]) -> set[str]:
        found = {coral.island(n) for n in names}
        assert None not in found, names
        return {i.name for i in found if i is not None}

    both = islands(SEED_7_9_5_CORAL_SEA["both"])
    assert coral.coastwatchers.allied == islands(SEED_7_9_5_CORAL_SEA["allied"]) | both
    assert coral.coastwatchers.japanese == islands(SEED_7_9_5_CORAL_SEA["japanese"]) | both
    assert "Fergusson" in coral.coastwatchers.allied and "Kolombangara" in coral.coastwatchers.japanese


def test_seed_003_7_9_6_new_guinea_zone(coral: Scenario) -> None:
    """Seed 003, 7.9.6: "an AF over hex I-F20 can be seen at Condition 1 only by the Japanese; an
    AF over hex I-F22 can be sen at Condition 1 by only the Allies": I-F20 lies in the Japanese
    zone of New Guinea, I-F22 outside it."""
    guinea = coral.island("New Guinea")
    assert guinea is not None and {h("I-F20"), h("I-F22")} <= guinea.hexes
    assert h("I-F20") in coral.coastwatchers.japanese_zone
    assert h("I-F22") not in coral.coastwatchers.japanese_zone


def test_victory_table_is_read(data: dict[str, Any]) -> None:
    """Reference A.13: "if, at the end of a 2400 turn, the VP difference is at least the scenario's
    Automatic Victory Level, the game ends"; seed 003: "For each turn that Henderson or Rabaul
    STARTS at 0 LF or below, score 4 points." Port Moresby, the objective, scores like them."""
    rules = VictoryRules.from_mapping(data["tables"]["victory"], data["scenarios"]["coral-sea"])
    assert rules.automatic_level is not None and rules.automatic_level.value == 60
    assert rules.base_value("Port Moresby").value == 4 and rules.base_value("Rabaul").value == 4
    assert rules.base_value("Lae").value == 2
    (award,) = rules.unloaded
    assert (award.place, award.side, award.points.value) == ("Port Moresby", Side.JAPANESE, 1)


def test_port_moresby_is_the_unloading_hex(coral: Scenario) -> None:
    """Reference A.5.1: transports unload "only in hexes named by the scenario"."""
    moresby = coral.base("Port Moresby")
    assert moresby is not None and coral.unloading == frozenset({moresby.hex})


def test_order_of_battle(coral: Scenario) -> None:
    """Reference A.5.1: "A TF holds at most 15 ships (Allied) or 10 ships (Japanese)" and
    "Plane-carrying ships may only be in TFs 1-9"; the historical carriers with their air groups."""
    tfs = [*coral.task_forces, *(a.task_force for a in coral.arrivals if isinstance(a, ForceArrival))]
    for tf in tfs:
        assert len(tf.ships) <= (15 if tf.side is Side.ALLIED else 10)
        assert tf.number <= 9 or not tf.plane_ships
    carriers = {s.name: s for tf in tfs for s in tf.carriers}
    assert set(carriers) == {"Yorktown", "Lexington", "Shokaku", "Zuikaku", "Shoho"}
    assert carriers["Shoho"].type is ShipType.CVL
    planes = {name: {f.plane for f in (*s.boxes.ready, *s.boxes.readying)} for name, s in carriers.items()}
    assert planes["Yorktown"] == planes["Lexington"] == {"Wildcat", "Dauntless", "Devastator"}
    assert planes["Shokaku"] == planes["Zuikaku"] == {"Zero", "Val", "Kate"}
    transports = [s for tf in tfs for s in tf.ships if s.type is ShipType.AP]
    assert len(transports) == 11  # the Port Moresby Invasion Force's transports
    for name in ("Rabaul", "Lae", "Tulagi", "Port Moresby", "Deboyne", "Australia", "Truk"):
        assert coral.base(name) is not None, name
    lae = coral.base("Lae")
    assert lae is not None and all(not f.carrier_plane for f in lae.boxes.ready)  # land-based Zeros


def test_units_sit_where_history_put_them(coral: Scenario) -> None:
    """About 20 nm a hex (reference A.1): Yorktown 100 nm south of Guadalcanal on the morning of
    4 May (11.2 S, 158.8 E: some 150 nm from Tulagi), Takagi's carriers some 350 nm north of Tulagi."""
    tulagi = coral.base("Tulagi")
    assert tulagi is not None and tulagi.hex is not None
    tf = {(t.side, t.number): t for t in coral.task_forces}
    assert 6 <= distance(tf[Side.ALLIED, 1].hex, tulagi.hex) <= 9
    assert 15 <= distance(tf[Side.JAPANESE, 1].hex, tulagi.hex) <= 20
    for t in coral.task_forces:
        assert coral.map.terrain_of(t.hex) is not Terrain.LAND


# --- arrival schedules --------------------------------------------------------------------


def test_arrivals_are_due_exactly_at_their_times(coral: Scenario) -> None:
    """Reference B.13: a scenario gives "OB per side: ships ... TF assignment and start hex"; a
    force that joins later has a start turn: it is due at that turn and no other."""
    assert arrivals_due(coral, GameTime(1, 11)) == ()
    (crace,) = arrivals_due(coral, GameTime(1, 12))
    assert isinstance(crace, ForceArrival) and crace.from_off_map
    assert crace.task_force.hex == h("VII-M45") and crace.side is Side.ALLIED
    convoy = arrivals_due(coral, GameTime(1, 16))
    assert [a.task_force.number for a in convoy if isinstance(a, ForceArrival)] == [10, 11]
    (mavis,) = arrivals_due(coral, GameTime(2, 8))
    assert isinstance(mavis, AirArrival) and mavis.base == "Tulagi"
    assert mavis.boxes.ready == (AirFactors("Mavis", 2),)
    assert len(pending(coral, GameTime(1, 12))) == 4
    assert len(pending(coral, GameTime(1, 12), Side.ALLIED)) == 0


def test_a_hold_game_runs_and_forces_enter_at_their_hours(data: dict[str, Any]) -> None:
    """Played through the plugin with HOLD orders: Crace's TF enters at D1 1200 and can be given
    orders that very turn; the invasion convoy enters at Rabaul at D1 1600."""
    state = new(data, "coral-sea", clear=False)
    while state.time < GameTime(1, 12):
        assert not [tf for tf in state.own_tfs(Side.ALLIED) if tf.number == 10]
        state = advance(state)
    (crace,) = [tf for tf in state.own_tfs(Side.ALLIED) if tf.number == 10]
    assert crace.hex == h("VII-M45") and crace.hidden
    assert parse(state, "allied", "plot tf10 VII-M44").problems == ()
    state = advance(state, {"allied": ["plot tf10 VII-M44"], "japanese": ["hold"]})
    assert next(tf for tf in state.own_tfs(Side.ALLIED) if tf.number == 10).hex == h("VII-M44")
    while state.time < GameTime(1, 16):
        state = advance(state)
    rabaul = state.scenario.base("Rabaul")
    assert rabaul is not None
    convoy = [tf for tf in state.own_tfs(Side.JAPANESE) if tf.number in (10, 11)]
    assert len(convoy) == 2 and all(tf.hex == rabaul.hex for tf in convoy)
    state = advance(state)
    assert state.time == GameTime(1, 17) and not state.score.finished


def test_an_arriving_tf_is_the_owners_news_only(data: dict[str, Any]) -> None:
    """Seed 003, Limited Intelligence: a side learns of enemy units only by observing them; an
    arriving TF is hidden (standard 7.1) like any other."""
    state = new(data, "coral-sea", clear=False)
    due = arrivals_due(state.scenario, GameTime(1, 12))
    placed = place_arrivals(state.task_forces, state.bases, due)
    state = replace(state, task_forces=placed.task_forces, bases=placed.bases)
    japanese = GAME.view(state, (), "japanese")
    assert "Chicago" not in str(japanese) and "Hobart" not in str(japanese)


def test_air_arrival_joins_its_base_and_what_does_not_fit_is_turned_away(coral: Scenario) -> None:
    """Reference A.5.4: "MC: the most Air Factors that may be present": planes flying in join the
    base's boxes only as far as its Maximum Capacity allows."""
    (pete,) = arrivals_due(coral, GameTime(3, 10))
    assert isinstance(pete, AirArrival) and pete.base == "Deboyne"
    placed = place_arrivals(coral.task_forces, coral.bases, (pete,))
    deboyne = next(b for b in placed.bases if b.name == "Deboyne")
    assert deboyne.boxes.ready == (AirFactors("Pete", 2),) and placed.turned_away == ()
    crowded = tuple(
        replace(b, boxes=AirBoxes(ready=(AirFactors("Pete", 5),))) if b.name == "Deboyne" else b
        for b in coral.bases
    )  # capacity 6: one factor fits
    placed = place_arrivals(coral.task_forces, crowded, (pete,))
    deboyne = next(b for b in placed.bases if b.name == "Deboyne")
    assert deboyne.boxes.total == 6
    assert [a.boxes.total for a in placed.landed] == [1] and [a.boxes.total for a in placed.turned_away] == [
        1
    ]


def test_air_arrival_for_a_base_in_enemy_hands_is_turned_away(coral: Scenario) -> None:
    (mavis,) = arrivals_due(coral, GameTime(2, 8))
    taken = tuple(replace(b, side=Side.ALLIED) if b.name == "Tulagi" else b for b in coral.bases)
    placed = place_arrivals(coral.task_forces, taken, (mavis,))
    assert placed.turned_away == (mavis,) and placed.bases == taken


def test_an_arriving_tf_whose_number_is_taken_gets_the_lowest_free_one(coral: Scenario) -> None:
    """Reference A.5.1: "Plane-carrying ships may only be in TFs 1-9. TFs 10+ are for forces
    without plane-carriers": a renumbered TF keeps to its band."""
    (crace,) = arrivals_due(coral, GameTime(1, 12))
    assert isinstance(crace, ForceArrival)
    split = replace(coral.task_forces[0], number=10)  # a SPLIT already made an Allied TF10
    placed = place_arrivals((*coral.task_forces, split), coral.bases, (crace,))
    assert placed.entered[0].task_force.number == 12  # 10 and 11 are in use
    carrier = replace(crace, task_force=replace(coral.task_forces[0], ships=coral.task_forces[0].ships[:1]))
    placed = place_arrivals(coral.task_forces, coral.bases, (carrier,))
    assert placed.entered[0].task_force.number == 3  # Allied TFs 1 and 2 exist


# --- reading arrivals ------------------------------------------------------------------------


def problems(data: dict[str, Any], tables: dict[str, Any]) -> list[str]:
    return [str(p) for p in load_scenario(data, tables).problems]


def test_every_existing_scenario_still_loads_without_arrivals(ft_tables: dict[str, Any]) -> None:
    for name in ("test-small", "coral-sea-demo"):
        assert require_scenario(load_scenario_data(name), ft_tables).arrivals == ()


def test_arrival_fields_are_checked(ft_tables: dict[str, Any]) -> None:
    data = copy.deepcopy(load_scenario_data("test-small"))
    data["task_forces"][1] |= {"arrives": "D1 0500"}  # the start itself
    data["task_forces"][2] |= {"from_off_map": True}  # without arrives
    data["bases"][0]["arrivals"] = [
        {"arrives": "D9 0100", "ready": [{"plane": "Zero", "count": 1}]},  # after the end
        {"arrives": "tomorrow", "ready": [{"plane": "Zero", "count": 1}]},
        {"arrives": "D1 0600", "hangar": [{"plane": "Zero", "count": 1}]},  # no such box
        {"arrives": "D1 0600", "ready": [{"plane": "Wildcat", "count": 1}]},  # an Allied plane
    ]
    found = problems(data, ft_tables)
    assert any(p.startswith("task_forces[1].arrives") and "after the start" in p for p in found)
    assert any(p.startswith("task_forces[2].from_off_map") for p in found)
    assert any(p.startswith("bases[0].arrivals[0].arrives") for p in found)
    assert any(p.startswith("bases[0].arrivals[1].arrives") and "'tomorrow'" in p for p in found)
    assert any(p.startswith("bases[0].arrivals[2]") and "hangar" in p for p in found)
    assert any(p.startswith("bases[0].arrivals[3]") and "allied plane" in p for p in found)


def test_an_off_map_arrival_enters_on_the_edge(ft_tables: dict[str, Any]) -> None:
    data = copy.deepcopy(load_scenario_data("test-small"))
    data["task_forces"][1] |= {"arrives": "D1 0900", "from_off_map": True}  # V-H25: the east edge
    assert problems(data, ft_tables) == []
    data["task_forces"][1]["hex"] = "V-E26"
    assert any("is not on the map edge" in p for p in problems(data, ft_tables))


def test_air_arrivals_count_against_the_capacity(ft_tables: dict[str, Any]) -> None:
    data = copy.deepcopy(load_scenario_data("coral-sea"))
    deboyne = next(b for b in data["bases"] if b["name"] == "Deboyne")
    deboyne["arrivals"].append({"arrives": "D4 0600", "ready": [{"plane": "Pete", "count": 5}]})
    assert any(p.startswith(f"bases[{data['bases'].index(deboyne)}].arrivals") and "capacity 6" in p
               for p in problems(data, ft_tables))  # fmt: skip


def test_an_arriving_ship_name_must_be_unique(ft_tables: dict[str, Any]) -> None:
    data = copy.deepcopy(load_scenario_data("coral-sea"))
    late = next(tf for tf in data["task_forces"] if tf.get("arrives") and tf["side"] == "allied")
    late["ships"][0]["name"] = "Yorktown"
    late["ships"][0]["type"] = "CA"
    assert any("'Yorktown' appears twice" in p for p in problems(data, ft_tables))
