# SPDX-License-Identifier: GPL-3.0-or-later
"""Wind and clouds: seed 003, 6.3 and 6.4.1, and the standard weather rules (reference A.4, B.3).

The small test map (``test-small.toml``): section I has rows 17-23, section V rows
23-28, both columns A-H; row 23 is shared by the two sections. Directional hexes
I-D17 (wind SE) and V-D26 (wind NE).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Direction, Hex, parse_hex_id, step
from mailbot.games.flattop.map.scenario import GameTime, Scenario
from mailbot.games.flattop.map.weather import (
    Cloud,
    Sky,
    Weather,
    WeatherRules,
    Wind,
    cloud_hexes,
    initial_weather,
    is_cloud_turn,
    sky,
    storm_hexes,
    walk,
    weather_phase,
    weather_rules,
)
from mailbot.games.flattop.units import dump, load


def h(text: str) -> Hex:
    found = parse_hex_id(text)
    assert found is not None, text
    return found


@pytest.fixture(scope="module")
def rules(ft_tables: dict[str, Any]) -> WeatherRules:
    return weather_rules(ft_tables["weather"])


def calm(*clouds: Cloud) -> Weather:
    """The small map's printed winds: section I SE, section V NE."""
    return Weather((Wind(1, Direction.SE), Wind(5, Direction.NE)), clouds)


# --- seed 003, 6.3 ------------------------------------------------------------------


def test_seed_003_6_3_cloud_placement_rolls_1d6_direction_and_1d8_distance(
    small: Scenario, rules: WeatherRules
) -> None:
    """seed 003, 6.3: "Rather than rolling one die and using that to determine both direction
    and distance, a 1d6 is rolled for direction and a 1d8 for distance from center, thus
    allowing more variation in cloud placement." """
    small_scattered = dataclasses.replace(small, sectors=small.sectors[1:])  # section V only
    faces = {f"weather/cloud{n}/direction": [d] for n, d in zip(range(1, 5), (1, 4, 2, 6), strict=True)}
    faces |= {f"weather/cloud{n}/distance": [k] for n, k in zip(range(1, 5), (2, 1, 3, 1), strict=True)}
    dice = FixedDice(by_label=faces)
    weather, facts = initial_weather(small_scattered, rules, dice)
    center = h("V-D26")
    assert [c.hex for c in weather.clouds] == [
        step(center, Direction.N, 2),
        step(center, Direction.S, 1),
        step(center, Direction.NE, 3),
        step(center, Direction.NW, 1),
    ]
    assert [r.sides for r in dice.log] == [6, 8] * 4
    assert {r.rule for r in dice.log} == {"seed 003, 6.3 cloud placement"}
    assert facts[0].text == "cloud 1 placed at V-D24 (2 N of V-D26)"


def test_seed_003_6_3_distance_may_exceed_six(small: Scenario, rules: WeatherRules) -> None:
    """A 1d8 lets a cloud land 7 or 8 hexes out, beyond a d6's reach (seed 003, 6.3)."""
    wide = dataclasses.replace(small, sectors=small.sectors[:1], clouds="scattered")
    faces = {f"weather/cloud{n}/direction": [4] for n in range(1, 5)}
    faces |= {f"weather/cloud{n}/distance": [k] for n, k in zip(range(1, 5), (5, 6, 7, 8), strict=True)}
    weather, _ = initial_weather(wide, rules, FixedDice(by_label=faces))
    assert [c.hex for c in weather.clouds] == [step(h("I-D17"), Direction.S, k) for k in (5, 6, 7, 8)]
    assert weather.clouds[3].hex == h("V-D25")


def test_placement_stops_at_the_board_edge(small: Scenario) -> None:
    # weather.toml off_board = "stop_at_edge": the rules say nothing; this project's ruling.
    assert walk(small.map.layout, h("I-D17"), Direction.N, 8) == h("I-D17")
    assert walk(small.map.layout, h("I-D18"), Direction.N, 8) == h("I-D17")


def test_scattered_setup_places_four_clouds_per_section(small: Scenario, rules: WeatherRules) -> None:
    # standard 6.3 (reference A.4): 4 markers per section start in the Directional hex.
    faces = {f"weather/cloud{n}/direction": [1] for n in range(1, 9)}
    faces |= {f"weather/cloud{n}/distance": [1] for n in range(1, 9)}
    weather, _ = initial_weather(small, rules, FixedDice(by_label=faces))
    assert [c.sector for c in weather.clouds] == [1] * 4 + [5] * 4
    assert weather.winds == (Wind(1, Direction.SE), Wind(5, Direction.NE))


def test_cloud_front_lies_ne_sw_and_shifts_as_one(small: Scenario, rules: WeatherRules) -> None:
    # standard 6.3: 3 markers on directions 2 and 5 through the Directional hex, outer two 5 away.
    front = dataclasses.replace(small, sectors=small.sectors[1:], clouds="front")
    dice = FixedDice(by_label={"weather/frontV/direction": [4], "weather/frontV/distance": [1]})
    weather, facts = initial_weather(front, rules, dice)
    center = h("V-D26")
    expected = [center, step(center, Direction.NE, 5), step(center, Direction.SW, 5)]
    assert [c.hex for c in weather.clouds] == [walk(small.map.layout, x, Direction.S, 1) for x in expected]
    assert facts[0].text == "section V: cloud front shifted 1 S"


def test_no_clouds(small: Scenario, rules: WeatherRules) -> None:
    weather, facts = initial_weather(dataclasses.replace(small, clouds="none"), rules, FixedDice())
    assert weather.clouds == () and facts == ()


# --- seed 003, 6.4.1 ----------------------------------------------------------------


def test_seed_003_6_4_1_relocation_waits_for_the_next_even_turn(small: Scenario, rules: WeatherRules) -> None:
    """seed 003, 6.4.1: "A cloud which moves into a hex shared by two board sections is
    relocated in the even numbered turn following its arrival in that hex." """
    weather = calm(Cloud(1, h("I-D22"), sector=1))
    # 0800 (even): the cloud drifts SE with section I's wind into the shared hex I-E23 = V-E23.
    weather, facts = weather_phase(weather, small, rules, GameTime(1, 8), FixedDice())
    assert weather.clouds == (Cloud(1, h("V-E23"), 1, pending=True),)
    assert small.map.is_shared(h("V-E23"))
    assert facts[0].text == "cloud 1 moved SE to V-E23 (shared hex: relocated on the next even turn)"
    # 0900 (odd): clouds do not move; it stays in the shared hex.
    weather, facts = weather_phase(weather, small, rules, GameTime(1, 9), FixedDice())
    assert weather.clouds[0].hex == h("V-E23") and facts == ()
    # 1000 (even): relocated, not moved: the Cloud Movement Table picks the section
    # (5: the southern one, V), then 6.3 places it from V's Directional hex.
    dice = FixedDice(
        by_label={
            "weather/cloud1/section": [5],
            "weather/cloud1/direction": [3],
            "weather/cloud1/distance": [2],
        }
    )
    weather, facts = weather_phase(weather, small, rules, GameTime(1, 10), dice)
    assert weather.clouds == (Cloud(1, step(h("V-D26"), Direction.SE, 2), 5),)
    assert facts[0].kind == "cloud-relocated"
    assert facts[0].text.startswith("cloud 1 relocated from V-E23 to section V: cloud 1 placed at V-F27")
    assert dice.leftover() == {}


def test_standard_6_4_relocates_at_once(small: Scenario, rules: WeatherRules) -> None:
    # Without the house rule (weather.toml relocation = "immediate") the cloud goes at once.
    standard = dataclasses.replace(rules, relocation="immediate")
    dice = FixedDice(
        by_label={
            "weather/cloud1/section": [2],
            "weather/cloud1/direction": [4],
            "weather/cloud1/distance": [1],
        }
    )
    weather, _ = weather_phase(calm(Cloud(1, h("I-D22"), 1)), small, standard, GameTime(1, 8), dice)
    assert weather.clouds == (Cloud(1, h("I-D18"), 1),)  # section I (roll 2), 1 hex S of I-D17


@pytest.mark.parametrize(("face", "section"), [(1, 1), (3, 1), (4, 5), (6, 5)])
def test_cloud_movement_table_default(face: int, section: int, small: Scenario, rules: WeatherRules) -> None:
    # reference B.3 (design default): 1-3 the northern section, 4-6 the southern one.
    dice = FixedDice(
        by_label={
            "weather/cloud1/section": [face],
            "weather/cloud1/direction": [1],
            "weather/cloud1/distance": [1],
        }
    )
    pending = calm(Cloud(1, h("V-E23"), 1, pending=True))
    weather, _ = weather_phase(pending, small, rules, GameTime(1, 10), dice)
    assert weather.clouds[0].sector == section


def test_a_placement_onto_a_shared_hex_counts_as_an_arrival(small: Scenario, rules: WeatherRules) -> None:
    dice = FixedDice(
        by_label={
            "weather/cloud1/section": [1],
            "weather/cloud1/direction": [4],
            "weather/cloud1/distance": [6],
        }
    )
    weather, _ = weather_phase(calm(Cloud(1, h("V-E23"), 1, True)), small, rules, GameTime(1, 10), dice)
    assert weather.clouds == (Cloud(1, h("V-D23"), 1, pending=True),)


def test_a_cloud_blown_off_the_board_is_relocated_in_its_own_section(
    small: Scenario, rules: WeatherRules
) -> None:
    # weather.toml off_board = "relocate" (this project's ruling); one section: no table roll.
    dice = FixedDice(by_label={"weather/cloud1/direction": [4], "weather/cloud1/distance": [2]})
    weather, facts = weather_phase(calm(Cloud(1, h("V-H26"), 5)), small, rules, GameTime(1, 10), dice)
    assert weather.clouds == (Cloud(1, h("V-D28"), 5),)
    assert facts[0].kind == "cloud-relocated"


# --- wind and turn timing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "wind"), [(1, Direction.SE), (4, Direction.SE), (5, Direction.S), (6, Direction.NE)]
)
def test_wind_change_on_wind_check_turns(
    face: int, wind: Direction, small: Scenario, rules: WeatherRules
) -> None:
    # standard 6.2: checked on 0600, 1200, 1800, 2400; table values per reference B.3 (default).
    dice = FixedDice(by_label={"weather/wind/I": [face], "weather/wind/V": [1]})
    weather, facts = weather_phase(calm(), small, rules, GameTime(1, 6), dice)
    assert weather.wind(1) is wind
    assert weather.wind(5) is Direction.NE
    assert facts[0].text == f"section I: wind SE -> {wind.name} (d6 {face})"


def test_no_wind_check_off_the_hour(small: Scenario, rules: WeatherRules) -> None:
    weather, facts = weather_phase(calm(), small, rules, GameTime(1, 7), FixedDice())
    assert weather == calm() and facts == ()


def test_no_weather_phase_on_the_first_turn(small: Scenario, rules: WeatherRules) -> None:
    # reference A.2: "There is no Weather Phase on turn 1."
    start = dataclasses.replace(small, start=GameTime(1, 6))
    weather = calm(Cloud(1, h("I-D20"), 1))
    assert weather_phase(weather, start, rules, GameTime(1, 6), FixedDice()) == (weather, ())


def test_clouds_move_on_even_turns(small: Scenario, rules: WeatherRules) -> None:
    assert [is_cloud_turn(GameTime(1, hour), small, rules) for hour in (5, 6, 7, 24)] == [
        False,
        True,
        False,
        True,
    ]
    by_count = dataclasses.replace(rules, cloud_turns="even_turn")  # turn 1 = 0500
    assert [is_cloud_turn(GameTime(1, hour), small, by_count) for hour in (5, 6, 7)] == [False, True, False]


# --- what the sky looks like --------------------------------------------------------------


def test_cloud_cover_and_storms(rules: WeatherRules) -> None:
    # standard 6.5: a marker covers radius 2; where two overlap the hex is a storm.
    weather = calm(Cloud(1, Hex(10, 10), 1), Cloud(2, Hex(10, 14), 1))
    assert sky(weather, Hex(10, 10), rules) is Sky.CLOUD
    assert sky(weather, Hex(10, 12), rules) is Sky.STORM
    assert sky(weather, Hex(10, 17), rules) is Sky.CLEAR
    assert storm_hexes(weather, rules) == {Hex(10, 12)}
    assert len(cloud_hexes(weather, rules)) == 2 * 19 - 1


def test_weather_round_trips_through_json() -> None:
    weather = calm(Cloud(1, Hex(3, 4), 5, pending=True))
    assert load(Weather, json.loads(json.dumps(dump(weather)))) == weather


def test_weather_table(rules: WeatherRules) -> None:
    assert (rules.direction_die, rules.distance_die) == (6, 8)  # seed 003, 6.3
    assert rules.relocation == "next_even_turn"  # seed 003, 6.4.1
    assert rules.wind_check_hours == {6, 12, 18, 24}
    assert [rules.change_for(face) for face in range(1, 7)] == [0, 0, 0, 0, 1, -1]
    assert WeatherRules().change_for(5) == 1
    with pytest.raises(GameError, match=r"weather\.toml is malformed"):
        weather_rules({"placement": {}})
    broken = {"placement": {}, "size": {}, "wind": {}, "movement": {"cloud_turns": "odd"}, "relocation": {}}
    with pytest.raises(GameError, match=r"weather\.toml is malformed"):
        weather_rules(broken)


def test_two_days_of_demo_weather_keep_every_cloud_on_the_board(demo: Scenario, rules: WeatherRules) -> None:
    weather, facts = initial_weather(demo, rules, DiceStream(b"s" * 32, "0" * 64, "setup"))
    assert len(weather.clouds) == 4 * 8 and len(facts) == 32
    time = demo.start
    for _ in range(48):
        time = time.next()
        weather, _ = weather_phase(weather, demo, rules, time, DiceStream(b"s" * 32, "0" * 64, time.label))
        assert len(weather.clouds) == 32
        for cloud in weather.clouds:
            assert demo.map.on_board(cloud.hex)
            assert not cloud.pending or demo.map.is_shared(cloud.hex)
