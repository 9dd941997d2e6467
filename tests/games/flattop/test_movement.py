# SPDX-License-Identifier: GPL-3.0-or-later
"""TF movement and plane movement primitives (standard 12 and 14; seed 003, 7.3 and 14.11).

Hexes are on the small test map (``test-small.toml``): New Guinea fills rows 18-24,
a mountain hexside lies between I-B21 and I-B22, a reef between V-G27 and V-G28.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Direction, Hex, parse_hex_id, step
from mailbot.games.flattop.map.movement import (
    Launch,
    MovementRules,
    PlanePath,
    PlaneStep,
    Speed,
    TfMove,
    check_plot,
    formation_movement,
    launch_movement,
    move_task_force,
    move_task_forces,
    moved_into_wind,
    movement_rules,
    must_land_by,
    plane_path,
    range_left,
    ship_speed,
    tf_allowance,
)
from mailbot.games.flattop.map.scenario import GameTime, Scenario, plane_types
from mailbot.games.flattop.units import (
    AirFactors,
    AirFormation,
    Altitude,
    PlaneType,
    Ship,
    ShipType,
    Side,
    TaskForce,
)

HIGH, LOW = Altitude.HIGH, Altitude.LOW
NOON = GameTime(1, 12)


def h(text: str) -> Hex:
    found = parse_hex_id(text)
    assert found is not None, text
    return found


def hexes(*texts: str) -> tuple[Hex, ...]:
    return tuple(h(t) for t in texts)


@pytest.fixture(scope="module")
def rules(ft_tables: dict[str, Any]) -> MovementRules:
    return movement_rules(ft_tables["movement"])


@pytest.fixture(scope="module")
def planes(ft_tables: dict[str, Any]) -> dict[str, PlaneType]:
    return plane_types(ft_tables["planes"])


def ship(name: str = "Astoria", mf: int = 2, damage: int = 6, **more: Any) -> Ship:
    return Ship(name, ShipType.CA, 8, 4, 0, mf, damage, **more)


def tf(at: str, *legs: tuple[str, ...], ships: tuple[Ship, ...] = (ship(),)) -> TaskForce:
    return TaskForce(1, Side.ALLIED, h(at), ships, tuple(hexes(*leg) for leg in legs))


# --- speed ---------------------------------------------------------------------------------


def test_a_tf_moves_at_its_slowest_ship(rules: MovementRules) -> None:
    # reference A.5.1: "A TF's MF is that of its slowest ship."
    force = tf("V-E26", ships=(ship(), ship("Neosho", mf=1)))
    assert tf_allowance(force, NOON, rules) == 1


@pytest.mark.parametrize(
    ("mf", "hits", "speed"),
    [
        (2, 0, Speed(2)),
        (2, 2, Speed(2)),
        (2, 3, Speed(1)),
        (3, 3, Speed(1)),
        (1, 3, Speed(1, alternate=True)),
    ],
)
def test_damage_halves_speed(mf: int, hits: int, speed: Speed, rules: MovementRules) -> None:
    # reference A.12: at half its Damage Factor or more a ship's MF is halved; MF 1 moves every other turn.
    assert ship_speed(ship(mf=mf, hits=hits), rules) == speed


def test_crippled_and_sunk_ships_do_not_move(rules: MovementRules) -> None:
    assert ship_speed(ship(hits=5), rules) == Speed(0)  # crippled: Damage Factor - 1
    assert ship_speed(ship(hits=6), rules) == Speed(0)
    # A sunk ship no longer holds its TF back.
    assert tf_allowance(tf("V-E26", ships=(ship(), ship("Sunk", mf=1, hits=6))), NOON, rules) == 2
    assert tf_allowance(tf("V-E26", ships=(ship(hits=6),)), NOON, rules) == 0


def test_a_slowed_mf_1_ship_moves_on_even_hours(rules: MovementRules) -> None:
    # movement.toml slow_moves_on = "even_hour": a design default for "on odd or even turns".
    force = tf("V-E26", ships=(ship(mf=1, hits=3),))
    assert [tf_allowance(force, GameTime(1, hour), rules) for hour in (11, 12, 13, 14)] == [0, 1, 0, 1]
    odd = dataclasses.replace(rules, slow_moves_on="odd_hour")
    assert tf_allowance(force, GameTime(1, 11), odd) == 1


def test_an_anchored_ship_holds_its_tf(rules: MovementRules) -> None:
    force = tf("V-E26", ships=(ship(), ship("Chicago", anchored=True)))
    assert tf_allowance(force, NOON, rules) == 0


# --- plots ---------------------------------------------------------------------------------


def test_plots_may_cover_several_turns(small: Scenario, rules: MovementRules) -> None:
    force = tf("V-E26", ("V-E27", "V-F27"), (), ("V-G27",))
    assert check_plot(force, force.plot, small, NOON, rules) == []
    moved, move = move_task_force(force, small, NOON, rules)
    assert move.path == hexes("V-E26", "V-E27", "V-F27")
    assert moved.hex == h("V-F27") and moved.plot == ((), hexes("V-G27"))
    moved, move = move_task_force(moved, small, NOON.next(), rules)
    assert move.path == hexes("V-F27") and moved.plot == (hexes("V-G27"),)
    moved, _ = move_task_force(moved, small, NOON.plus(2), rules)
    assert moved.hex == h("V-G27") and moved.plot == ()


def test_plot_problems(small: Scenario, rules: MovementRules) -> None:
    force = tf("V-E26", ("V-E27", "V-E28", "V-F27"), ("V-H25",))
    assert check_plot(force, force.plot, small, NOON, rules) == [
        "D1 1200: 3 hexes plotted, TF 1 may move 2",
        "D1 1300: V-H25 is not next to V-F27",
    ]
    ashore = tf("I-A17", ("I-A18", "I-A19"))
    assert check_plot(ashore, ashore.plot, small, NOON, rules) == ["D1 1200: I-A19 is all land"]
    reef = tf("V-G28", ("V-G27",))
    assert check_plot(reef, reef.plot, small, NOON, rules) == [
        "D1 1200: a reef hexside lies between V-G28 and V-G27"
    ]


def test_a_tf_stops_at_land_and_its_plot_is_cancelled(small: Scenario, rules: MovementRules) -> None:
    force = tf("I-A17", ("I-A18", "I-A19"), ("I-A18",))
    moved, move = move_task_force(force, small, NOON, rules)
    assert move.path == hexes("I-A17", "I-A18") and move.stopped == "I-A19 is all land"
    assert moved.plot == ()  # movement.toml cut_short_cancels_plot


def test_a_tf_that_starts_in_a_storm_does_not_move(small: Scenario, rules: MovementRules) -> None:
    # reference A.4 (standard 6.8): "A TF that starts its turn in a storm has MF 0."
    force = tf("V-E26", ("V-E27",))
    moved, move = move_task_force(force, small, NOON, rules, storms={h("V-E26")})
    assert moved.hex == h("V-E26") and move.stopped == "not enough movement"


def test_a_tf_that_enters_a_storm_stops(small: Scenario, rules: MovementRules) -> None:
    # reference A.4: "A TF that enters a storm must stop."
    force = tf("V-E26", ("V-E27", "V-F27"), ("V-G27",))
    moved, move = move_task_force(force, small, NOON, rules, storms={h("V-E27")})
    assert move.path == hexes("V-E26", "V-E27") and move.stopped == "entered a storm at V-E27"
    assert moved.plot == ()
    # A storm in the last hex of the leg stops nothing that was still to come.
    moved, move = move_task_force(force, small, NOON, rules, storms={h("V-F27")})
    assert moved.hex == h("V-F27") and move.stopped == "" and moved.plot == (hexes("V-G27"),)


def test_a_tf_that_leaves_the_board_leaves_the_game(small: Scenario, rules: MovementRules) -> None:
    # reference A.5.1: "TFs may leave the map edge but then leave the game for good."
    outside = step(h("V-A26"), Direction.SW)
    force = TaskForce(3, Side.JAPANESE, h("V-A26"), (ship(),), ((outside,),))
    stay = tf("V-E26", ("V-E27",))
    kept, moves, facts = move_task_forces([force, stay], small, NOON, rules)
    assert [t.number for t in kept] == [1]
    assert moves[0].left_board and not moves[1].left_board
    assert facts[0].text.endswith("; left the board")
    assert facts[1].text == "allied TF 1: V-E26 V-E27"
    assert facts[1].data["path"] == [[4, 25], [4, 26]]


def test_a_tf_without_a_plot_holds(small: Scenario, rules: MovementRules) -> None:
    kept, moves, facts = move_task_forces([tf("V-E26")], small, NOON, rules)
    assert kept[0].hex == h("V-E26") and moves[0].path == hexes("V-E26") and facts == ()


def test_moving_into_the_wind() -> None:
    # standard 6.10: a carrier launching above its minimum LF moves one hex into the wind.
    # The wind marker points where clouds drift, so into the wind is against the arrow.
    move = TfMove("allied", 1, (Hex(4, 4), Hex(4, 3)))  # one hex north
    assert moved_into_wind(move, Direction.S)
    assert not moved_into_wind(move, Direction.N)
    assert not moved_into_wind(TfMove("allied", 1, (Hex(4, 4),)), Direction.S)


# --- planes ---------------------------------------------------------------------------------


def fly(
    small: Scenario,
    rules: MovementRules,
    start: str,
    altitude: Altitude,
    *steps: str,
    mp: int = 10,
    **kw: Any,
) -> PlanePath:
    path = [PlaneStep(h(s.split("@")[0]), HIGH if s.endswith("@HIGH") else LOW) for s in steps]
    return plane_path(h(start), altitude, path, mp, scenario=small, rules=rules, **kw)


def test_seed_003_14_11_climbing_costs_one_extra_mp(small: Scenario, rules: MovementRules) -> None:
    """seed 003, 14.11: "Going from low to high altitude costs one extra MP in the hex in which
    it occurs." """
    flown = fly(small, rules, "V-E26", LOW, "V-E27", "V-F27@HIGH", "V-G27@HIGH", "V-G28")
    assert [leg.cost for leg in flown.legs] == [1, 2, 1, 1]  # descending is free
    assert flown.spent == 5 and flown.problem == ""
    assert flown.legs[1].climbed and flown.spent_in(h("V-F27")) == 2
    in_place = fly(small, rules, "V-E26", LOW, "V-E26@HIGH")
    assert in_place.spent == 1 and in_place.legs[0].climbed


def test_seed_003_7_3_extra_mp_in_a_hex_for_extra_search_rolls(small: Scenario, rules: MovementRules) -> None:
    """seed 003, 7.3: "Searchers may also expend additional MP in a given hex for additional
    rolls. Each additional MP gives the searcher one additional attempt per potential sighting." """
    flown = fly(small, rules, "V-E26", HIGH, "V-E27@HIGH", "V-E27@HIGH", "V-E27@HIGH", "V-E28@HIGH")
    assert flown.spent == 4
    assert [leg.lingered for leg in flown.legs] == [False, True, True, False]
    assert flown.spent_in(h("V-E27")) == 2  # two extra attempts there
    assert flown.spent_in(h("V-E28")) == 0


def test_mountain_hexsides_need_high_altitude(small: Scenario, rules: MovementRules) -> None:
    # standard 14.15.5: planes must be at High to cross a mountain hexside.
    low = fly(small, rules, "I-B22", LOW, "I-B21@HIGH")
    assert low.legs == () and "needs High altitude" in low.problem
    climbed_first = fly(small, rules, "I-B22", LOW, "I-B22@HIGH", "I-B21@HIGH", "I-B20")
    assert climbed_first.problem == "" and climbed_first.spent == 3


def test_plane_paths_stop_at_the_first_forbidden_step(small: Scenario, rules: MovementRules) -> None:
    assert fly(small, rules, "V-E26", LOW, "V-E28").problem == "V-E28 is not next to V-E26"
    storm = fly(small, rules, "V-E26", LOW, "V-E27", "V-E28", storms={h("V-E28")})
    assert storm.problem == "V-E28 is a storm hex (standard 6.6)" and len(storm.legs) == 1
    short = fly(small, rules, "V-E26", LOW, "V-E27", "V-E28@HIGH", mp=2)
    assert short.problem == "not enough MP to reach V-E28 (2 MP)" and short.spent == 1
    armed = fly(small, rules, "V-E26", LOW, "V-E27@HIGH", armed_takeoff=True)
    assert "may not climb to High on their take-off turn" in armed.problem
    outside = plane_path(
        h("V-A26"), LOW, [PlaneStep(step(h("V-A26"), Direction.SW), LOW)], 5, scenario=small, rules=rules
    )
    assert outside.problem == ""  # an AF may fly off the board, to an off-board base
    beyond = [PlaneStep(step(h("V-A26"), Direction.SW), LOW), PlaneStep(h("V-A26"), LOW)]
    gone = plane_path(h("V-A26"), LOW, beyond, 5, scenario=small, rules=rules)
    assert gone.problem == "the path goes on after leaving the board"


@pytest.mark.parametrize(
    ("mf", "launch", "moves"),
    [(10, Launch.MINIMUM, 10), (10, Launch.NORMAL, 5), (7, Launch.NORMAL, 4), (10, Launch.MAXIMUM, 0)],
)
def test_movement_on_the_take_off_turn(mf: int, launch: Launch, moves: int, rules: MovementRules) -> None:
    # standard 14.8: minimum launch full MF, normal half rounded up, maximum none.
    assert launch_movement(mf, launch, rules) == moves
    assert launch_movement(mf, launch, MovementRules()) == moves


def test_landing_deadline_counts_the_take_off_turn() -> None:
    # reference A.5.3: P-40 RF 5 and Beaufighter RF 6 taking off at 0800 land by 1200 and 1300.
    assert must_land_by(GameTime(1, 8), 5) == GameTime(1, 12)
    assert must_land_by(GameTime(1, 8), 6) == GameTime(1, 13)
    assert must_land_by(GameTime(1, 8), 6, rf_spent=1) == GameTime(1, 12)  # standard 15.6
    assert must_land_by(GameTime(1, 22), 5) == GameTime(2, 2)


def test_range_left_and_formation_speed(planes: dict[str, PlaneType]) -> None:
    start = GameTime(1, 5)
    af = AirFormation(
        1, Side.ALLIED, Hex(0, 0), (AirFactors("P-40", 4), AirFactors("B-17", 6)), "Port Moresby", 4
    )
    # Took off on turn 4 = 0800: the P-40s (RF 5) must land by 1200.
    assert range_left(af, planes, start, GameTime(1, 8)) == 5
    assert range_left(af, planes, start, GameTime(1, 12)) == 1
    assert range_left(af, planes, start, GameTime(1, 13)) == 0
    assert formation_movement(af, planes) == 8  # the B-17's MF (standard 14.4)


def test_movement_table(rules: MovementRules) -> None:
    assert (rules.plane_hex_cost, rules.climb_cost, rules.linger_cost, rules.descend_cost) == (1, 1, 1, 0)
    assert rules.mountain_needs_high and not rules.storm_entry_allowed
    with pytest.raises(GameError, match=r"movement\.toml is malformed"):
        movement_rules({"task_forces": {}})


def test_16_10_4_armed_fighters_lose_one_mf() -> None:
    """Seed 003, 16.10.4 (Addition): "These same plane types have their MF reduced by 1 when armed."
    (the armed Wildcat, P-38, P-39, P-40, Beaufighter, Zero and Rufe of standard 16.10)."""
    from mailbot.games.flattop.map.movement import formation_movement
    from mailbot.games.flattop.map.scenario import plane_types
    from mailbot.games.flattop.units import AirFactors, AirFormation, Armament, Side

    from .conftest import load_tables

    planes = plane_types(load_tables()["planes"])
    unarmed = AirFormation(1, Side.JAPANESE, None, (AirFactors("Zero", 2),), "TF1", 1)
    armed = AirFormation(2, Side.JAPANESE, None, (AirFactors("Zero", 2, armament=Armament.GP),), "TF1", 1)
    bomber = AirFormation(3, Side.JAPANESE, None, (AirFactors("Val", 2, armament=Armament.AP),), "TF1", 1)
    assert formation_movement(armed, planes) == formation_movement(unarmed, planes) - 1
    assert formation_movement(bomber, planes) == planes["Val"].movement
