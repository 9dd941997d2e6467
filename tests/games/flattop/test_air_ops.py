# SPDX-License-Identifier: GPL-3.0-or-later
"""Air operations by mail: arming, launch types, the Readying Factor, non-search flights,
rendezvous (seed 003, 7), float planes (12.7.3) and night landings (14.10.1)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import ProblemKind
from mailbot.games.flattop.air.interception import InterceptionTable, combat_possible
from mailbot.games.flattop.air.landing import Landing, LandingTable, roll_landing
from mailbot.games.flattop.hour import air_ops
from mailbot.games.flattop.map.hexes import Hex, neighbours
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Altitude,
    Armament,
    Handling,
    LaunchType,
    Ship,
    ShipType,
    Side,
    TaskForce,
)

from .conftest import load_tables
from .play import GAME, game_data, new, parse, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def yorktown(state: FlatTopState) -> Ship:
    tf = next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)
    return next(s for s in tf.ships if s.name == "Yorktown")


def with_yorktown(state: FlatTopState, boxes: AirBoxes) -> FlatTopState:
    def fix(tf: TaskForce) -> TaskForce:
        ships = tuple(replace(s, boxes=boxes) if s.name == "Yorktown" else s for s in tf.ships)
        return replace(tf, ships=ships)

    tfs = tuple(fix(t) if t.side is Side.ALLIED and t.number == 1 else t for t in state.task_forces)
    return replace(state, task_forces=tfs)


def af(state: FlatTopState, side: Side, number: int) -> AirFormation:
    return next(a for a in state.own_air(side) if a.number == number)


def stacks(box: tuple[AirFactors, ...], plane: str) -> list[tuple[int, Armament | None]]:
    return [(s.count, s.armament) for s in box if s.plane == plane]


def texts(outcome_events: Any, side: Side) -> str:
    return "\n".join(e.text for e in outcome_events if side.value in e.audience)


def refusal(state: FlatTopState, *lines: str) -> tuple[ProblemKind, str]:
    parsed = parse(state, "allied", *lines)
    assert parsed.problems, parsed.normalised
    problem = parsed.problems[-1]
    return problem.kind, problem.reason


# --- readying and arming (reference A.5.4) -------------------------------------------


def test_ready_arms_the_factors_and_echoes_the_load(data: dict[str, Any]) -> None:
    state = new(data)
    assert parse(state, "allied", "rdy tf1 2 devastator torp").normalised == (
        "READY TF1 2 Devastator TORPEDO",
    )
    after = play(state, {"allied": ["ready tf1 2 devastator torpedo"]}).state
    assert stacks(yorktown(after).boxes.ready, "Devastator") == [(2, Armament.TORPEDO)]
    assert stacks(yorktown(after).boxes.readying, "Devastator") == []


def test_a_load_the_plane_cannot_carry_is_refused(data: dict[str, Any]) -> None:
    kind, reason = refusal(new(data), "ready tf1 1 wildcat torpedo")
    assert kind is ProblemKind.ILLEGAL and reason == "Wildcat cannot be armed TORPEDO (it carries GP or AP)"


def test_unready_disarms_and_returns_factors_to_the_readying_box(data: dict[str, Any]) -> None:
    state = new(data)
    assert parse(state, "allied", "unready tf1 2 dauntless gp").normalised == ("UNREADY TF1 2 Dauntless GP",)
    after = play(state, {"allied": ["unready tf1 2 dauntless gp"]}).state
    assert stacks(yorktown(after).boxes.ready, "Dauntless") == [(4, Armament.GP)]
    assert stacks(yorktown(after).boxes.readying, "Dauntless") == [(2, None)]


def test_readying_launching_and_unreadying_share_the_readying_factor(data: dict[str, Any]) -> None:
    state = new(data)  # Yorktown: Readying Factor 9
    fits = ["ready tf1 2 devastator", "unready tf1 4 dauntless", "search af1 from tf1 3 wildcat path v-e25"]
    assert parse(state, "allied", *fits).problems == ()
    kind, reason = refusal(state, *fits, "unready tf1 1 wildcat")
    assert kind is ProblemKind.ILLEGAL and "Readying Factor" in reason and "9" in reason


def test_just_landed_moves_to_readying_with_the_readying_factor_left(data: dict[str, Any]) -> None:
    state = new(data)
    full = AirBoxes(just_landed=(AirFactors("Wildcat", 10, True),), ready=yorktown(state).boxes.ready)
    state = with_yorktown(state, full)
    after = play(state, {"allied": ["search af1 from tf1 3 wildcat path v-e25", "unready tf1 2 dauntless"]})
    boxes = yorktown(after.state).boxes  # 9 - 3 launched - 2 unreadied = 4 moves left
    assert stacks(boxes.just_landed, "Wildcat") == [(6, None)]
    assert stacks(boxes.readying, "Wildcat") == [(4, None)]


# --- launches: load and type (reference A.5.4, standard 14.8) ---------------------------


def test_a_launch_must_name_the_load_when_the_ready_box_holds_several(data: dict[str, Any]) -> None:
    state = new(data)
    boxes = yorktown(state).boxes
    state = with_yorktown(state, replace(boxes, ready=(*boxes.ready, AirFactors("Dauntless", 2, True))))
    kind, reason = refusal(state, "search af1 from tf1 1 dauntless path v-e25")
    assert kind is ProblemKind.AMBIGUOUS and "GP or UNARMED" in reason
    order = "SEARCH AF1 FROM TF1 1 Dauntless UNARMED PATH V-E25"
    assert parse(state, "allied", order.lower()).normalised == (order,)
    after = play(state, {"allied": [order]}).state
    assert [(s.count, s.armament) for s in af(after, Side.ALLIED, 1).stacks] == [(1, None)]
    assert stacks(yorktown(after).boxes.ready, "Dauntless") == [(6, Armament.GP), (1, None)]


def test_the_launch_type_sets_the_limit_and_the_take_off_turn_movement(data: dict[str, Any]) -> None:
    state = new(data)  # Yorktown LF 11/3; Wildcat MF 8
    # Four factors exceed the minimum LF: TF1 turns into the wind (NE: to V-D26) before the
    # new AF takes off (standard 6.10), so the path starts next to V-D26.
    path4 = "v-d25 v-d24 v-d23 i-d22"
    assert refusal(state, "fly af1 from tf1 4 wildcat")[1] == (
        "TF1 may launch 3 air factors a turn (minimum launch)"
    )
    assert parse(state, "allied", f"search af1 from tf1 4 wildcat normal path {path4}").problems == ()
    kind, reason = refusal(state, f"search af1 from tf1 4 wildcat normal path {path4} i-d21")
    assert kind is ProblemKind.ILLEGAL and "not enough MP" in reason and "(4 MP)" in reason
    assert refusal(state, "search af1 from tf1 1 wildcat max path v-e25")[1].endswith("(0 MP)")


def test_all_launches_from_one_place_share_one_type(data: dict[str, Any]) -> None:
    kind, reason = refusal(
        new(data), "search af1 from tf1 1 wildcat path v-e25", "fly af2 from tf1 1 dauntless normal"
    )
    assert (
        kind is ProblemKind.AMBIGUOUS
        and reason == "TF1 launches once a turn: line 1 made it a minimum launch"
    )


def test_a_maximum_launch_stays_in_its_hex_and_moves_fully_the_next_turn(data: dict[str, Any]) -> None:
    state = new(data)
    assert parse(state, "allied", "fly af1 from tf1 4 wildcat max").normalised == (
        "FLY AF1 FROM TF1 4 Wildcat MAXIMUM",
    )
    launched = play(state, {"allied": ["fly af1 from tf1 4 wildcat max"]}).state
    formation = af(launched, Side.ALLIED, 1)
    assert formation.launch is LaunchType.MAXIMUM and formation.hex == yorktown_hex(launched)
    assert air_ops.mf(launched, formation) == 8  # the next turn: the full MF
    assert air_ops.mf(replace(launched, turn=formation.takeoff_turn), formation) == 0


def yorktown_hex(state: FlatTopState) -> Any:
    return next(t.hex for t in state.own_tfs(Side.ALLIED) if t.number == 1)


# --- non-search movement and rendezvous (seed 003, 7) --------------------------------------


def test_fly_moves_without_searching(data: dict[str, Any]) -> None:
    state = new(data)
    outcome = play(state, {"allied": ["fly af1 from tf1 1 wildcat path v-e25 v-e24"]})
    formation = af(outcome.state, Side.ALLIED, 1)
    assert state.scenario.map.hex_id(formation.hex) == "V-E24" and not formation.searching
    assert "AF1 flew V-E26 V-E25 V-E24, 6 MP left" in texts(outcome.events, Side.ALLIED)
    assert not any(e.kind == "ft.search.roll" and "AF1" in e.text for e in outcome.events)


SEARCH_AF1 = "search af1 from tf1 1 wildcat path v-e25 v-e24 v-e23 i-e22"


def test_rendezvous_7_a_non_searcher_conforms_to_the_searcher_from_the_rendezvous_hex(
    data: dict[str, Any],
) -> None:
    """Seed 003, 7: "an armed strike searching for the enemy can be joined along its path by
    another (non-searching) armed AF as long as a specific rendezvous hex is listed, and that
    the movement of the non-searching AF is stated to conform to that of the searcher for the
    remainder of the move." """
    state = new(data)
    fly = "fly af2 from tf1 2 dauntless gp path v-e25 rendezvous v-e25 with af1"
    assert parse(state, "allied", SEARCH_AF1, fly).normalised[1] == (
        "FLY AF2 FROM TF1 2 Dauntless GP PATH V-E25 RENDEZVOUS V-E25 WITH AF1"
    )
    outcome = play(state, {"allied": [SEARCH_AF1, fly]})
    name = state.scenario.map.hex_id
    searcher = af(outcome.state, Side.ALLIED, 1)
    assert name(searcher.hex) == "I-E22"
    told = texts(outcome.events, Side.ALLIED)
    assert "AF2 met AF1 at V-E25 and followed it to V-E24 V-E23 I-E22" in told
    # Joined, they are one AF (air.merge): AF2's Dauntless fly on in AF1.
    assert "AF2 joined AF1 at I-E22: one AF of 3 factors" in told
    assert {(s.plane, s.count) for s in searcher.stacks} == {("Wildcat", 1), ("Dauntless", 2)}
    assert all(a.number != 2 for a in outcome.state.own_air(Side.ALLIED))


def test_rendezvous_7_is_missed_when_the_searcher_does_not_pass_the_hex(data: dict[str, Any]) -> None:
    state = new(data)
    name = state.scenario.map.hex_id
    aside = next(h for h in neighbours(yorktown_hex(state)) if name(h) not in ("V-E25", "V-E24"))
    fly = f"fly af2 from tf1 2 dauntless path {name(aside)} rendezvous {name(aside)} with af1"
    outcome = play(state, {"allied": [SEARCH_AF1, fly]})
    assert af(outcome.state, Side.ALLIED, 2).hex == aside
    assert f"AF2 missed its rendezvous with AF1 at {name(aside)}" in texts(outcome.events, Side.ALLIED)


def test_a_rendezvous_needs_an_af_in_flight_and_the_path_end(data: dict[str, Any]) -> None:
    """Seed 003, 7: the leader must fly this turn on a path of its own, known to the moderator."""
    state = new(data)
    kind, reason = refusal(state, "fly af2 from tf1 1 wildcat path v-e25 rendezvous v-e25 with af9")
    assert kind is ProblemKind.ILLEGAL and "AF9 is not aloft and this letter launches no AF9" in reason
    chain = "fly af3 from tf1 1 dauntless path v-e25 rendezvous v-e25 with af2"
    fly = "fly af2 from tf1 1 wildcat path v-e25 rendezvous v-e25 with af1"
    kind, reason = refusal(state, SEARCH_AF1, fly, chain)
    assert kind is ProblemKind.ILLEGAL and "AF2 itself follows another AF" in reason
    kind, reason = refusal(
        state, SEARCH_AF1, "fly af2 from tf1 1 dauntless path v-e25 v-e24 rendezvous v-e25 with af1"
    )
    assert kind is ProblemKind.ILLEGAL and "where its PATH ends" in reason


# --- float planes (seed 003, 12.7.3) ---------------------------------------------------


def with_tone(state: FlatTopState) -> FlatTopState:
    """A Japanese TF2 in open sea with a CAV carrying one Jake (a float plane)."""
    tone = Ship(
        "Tone", ShipType.CAV, 8, 4, 0, 2, 6, capacity=2, launch=1, launch_min=1, readying=1,
        boxes=AirBoxes(ready=(AirFactors("Jake", 1),)),
    )  # fmt: skip
    tf2 = TaskForce(2, Side.JAPANESE, state.scenario.map.parse("V-C27"), (tone,))  # type: ignore[arg-type]
    return replace(state, task_forces=(*state.task_forces, tf2))


def test_12_7_3_float_planes_launch_on_the_move_but_are_recovered_only_when_stopped(
    data: dict[str, Any],
) -> None:
    """Seed 003, 12.7.3: "BBs, CAVs & AVs do not have to stop to launch float planes. They have
    to stop in a hex for 1 turn to recover them." """
    state = with_tone(new(data))
    one = play(state, {"japanese": ["plot tf2 v-c28", "search af1 from tf2 1 jake path v-c27"]}).state
    assert af(one, Side.JAPANESE, 1).stacks[0].plane == "Jake"  # launched although TF2 moved
    (problem,) = parse(one, "japanese", "land af1 tf1").problems  # TF1 has only a carrier
    assert problem.reason == "AF1 cannot land at TF1 (standard 8.9)"
    moving = play(one, {"japanese": ["plot tf2 v-c27", "land af1 tf2"]})
    assert any(a.number == 1 for a in moving.state.own_air(Side.JAPANESE))
    assert "float planes are recovered only by a ship stopped a turn (12.7.3)" in texts(
        moving.events, Side.JAPANESE
    )
    stopped = play(moving.state, {"japanese": ["land af1 tf2"]})
    assert not any(a.number == 1 for a in stopped.state.own_air(Side.JAPANESE))
    tone = next(s for t in stopped.state.own_tfs(Side.JAPANESE) if t.number == 2 for s in t.ships)
    assert stacks(tone.boxes.just_landed, "Jake") == [(1, None)]


# --- night landings (standard 14.10, seed 003 14.10.1) -------------------------------------

CATALINA = (AirFactors("Catalina", 1),)
TABLE = LandingTable()


def test_the_shipped_landing_table_is_the_one_these_tests_use() -> None:
    shipped = load_tables()["landing"]
    assert LandingTable.from_mapping(shipped) == TABLE
    assert shipped["night_landing"]["default"] is True  # the chart is a design default
    assert shipped["night_landing"]["seaplanes"]["default"] is False  # 14.10.1 is the seed's


def test_14_10_1_seaplanes_add_one_at_a_base_equipped_for_sp_handling() -> None:
    """Seed 003, 14.10.1: "Seaplanes (Catalina, Mavis, Emily) add "1" to their night landing roll
    ... They only receive this benefit if landing at bases equipped for SP handling." """
    at_sp = roll_landing(CATALINA, Landing(night=True, base=Handling.SP), TABLE, FixedDice([1]), "t")
    assert at_sp.lost == 0 and at_sp.rolls[0].total == 2  # 1 + 1 meets the base column's 2
    at_both = roll_landing(CATALINA, Landing(night=True, base=Handling.BOTH), TABLE, FixedDice([1]), "t")
    assert at_both.lost == 0
    at_lp = roll_landing(CATALINA, Landing(night=True, base=Handling.LP), TABLE, FixedDice([1]), "t")
    assert at_lp.lost == 1 and at_lp.landed == ()
    not_a_seaplane = roll_landing(
        (AirFactors("Jake", 1),), Landing(night=True, base=Handling.SP), TABLE, FixedDice([1]), "t"
    )
    assert not_a_seaplane.lost == 1  # a float plane is not one of the seed's seaplanes


def test_night_landing_rolls_per_factor_and_day_landings_roll_only_when_armed() -> None:
    three = (AirFactors("Dauntless", 3, True),)
    night = roll_landing(three, Landing(night=True, base=None), TABLE, FixedDice([2, 3, 6]), "t")
    assert night.lost == 1 and night.landed == (AirFactors("Dauntless", 2, True),)  # carrier: 3 or more
    assert roll_landing(three, Landing(night=False, base=None), TABLE, FixedDice([]), "t").lost == 0
    armed = (AirFactors("Dauntless", 1, True, Armament.GP),)
    by_day = roll_landing(armed, Landing(night=False, base=None), TABLE, FixedDice([2]), "t")
    assert by_day.lost == 1 and by_day.rolls[0].modifiers == {}
    at_night = roll_landing(armed, Landing(night=True, base=None), TABLE, FixedDice([3]), "t")
    assert at_night.lost == 1 and at_night.rolls[0].total == 2  # armed at night: -1


def test_a_catalina_landing_at_night_rolls_with_the_seaplane_bonus_in_a_game(data: dict[str, Any]) -> None:
    state = new(data)  # turn 1 is 0500, a night hour; Port Moresby handles LP+SP
    assert state.scenario.is_night(state.time)
    outcome = play(
        state, {"allied": ["search af1 from port-moresby 1 catalina path v-b25 return port-moresby"]}
    )
    rolls = [e.text for e in outcome.events if e.kind == "ft.landing.roll"]
    assert len(rolls) == 1 and "+1 seaplane at an SP base (14.10.1)" in rolls[0]
    assert not any(a.number == 1 for a in outcome.state.own_air(Side.ALLIED))
    assert "AF1 landed at Port-Moresby at night" in texts(outcome.events, Side.ALLIED)


# --- special interception (standard 14.13, seed 003 14.13.2) ------------------------------


def zeros_at(state: FlatTopState, where: str) -> FlatTopState:
    """A Japanese AF5 of two unarmed Zeros, Low, already aloft."""
    h = state.scenario.map.parse(where)
    assert h is not None
    af5 = AirFormation(5, Side.JAPANESE, h, (AirFactors("Zero", 2, True),), "TF1", state.turn)
    return replace(state, air=(*state.air, af5))


def japanese_tf_at(state: FlatTopState, where: str) -> FlatTopState:
    h = state.scenario.map.parse(where)
    assert h is not None
    tfs = tuple(replace(t, hex=h) if t.side is Side.JAPANESE else t for t in state.task_forces)
    return replace(state, task_forces=tfs)


def intercept_turn(data: dict[str, Any], face: int) -> Any:
    """Turn 2 (0600, day): the Allied AF1 flies through V-E25, where Japanese AF5 waits; the
    Japanese TF1 next door in V-D25 observes it passing (7.5), so AF5 may try (14.13)."""
    state = japanese_tf_at(zeros_at(play(new(data), {}).state, "V-E25"), "V-D25")
    allied = parse(state, "allied", "fly af1 from tf1 1 wildcat path v-e25 v-e24").orders
    japanese = parse(state, "japanese", "intercept af5").orders
    dice = FixedDice([1] * 400, by_label={f"ft.intercept.t{state.turn}.japanese.AF5": [face]})
    return GAME.resolve(state, {"allied": allied, "japanese": japanese}, dice=dice)


def test_14_13_2_a_failed_interception_in_a_non_combat_hex_reveals_the_interceptor(
    data: dict[str, Any],
) -> None:
    """Seed 003, 14.13.2: "This type (only) of Special Interception is allowed in any hex on the
    map. If the attempt is made in a hex where combat cannot usually occur, subtract one from the
    die roll. In addition, a previously unobserved AF attempting this interception in a
    "non-combat" hex must reveal its presence whether the attempt is successful or not." """
    outcome = intercept_turn(data, face=4)  # 4 - 1 = 3: short of 4
    (roll,) = [e.text for e in outcome.events if e.kind == "ft.intercept.roll"]
    assert "-1 non-combat hex (14.13.2) = 3" in roll
    assert "AF5 failed to intercept an enemy AF at V-E25" in texts(outcome.events, Side.JAPANESE)
    assert "intercept" not in texts(outcome.events, Side.ALLIED)
    assert any(e.text.startswith("allied: AF1 sees planes at V-E25 (C1)") for e in outcome.events)
    assert any(c.hex == "V-E25" for c in outcome.state.side(Side.ALLIED).knowledge.of_turn(2))


def test_a_successful_interception_is_told_to_both_sides(data: dict[str, Any]) -> None:
    outcome = intercept_turn(data, face=6)
    assert "AF5 intercepted an enemy AF" in texts(outcome.events, Side.JAPANESE)
    assert "AF1 was intercepted at V-E25" in texts(outcome.events, Side.ALLIED)


def test_only_unarmed_fighters_intercept(data: dict[str, Any]) -> None:
    state = zeros_at(new(data), "V-E25")
    assert parse(state, "japanese", "int af5").normalised == ("INTERCEPT AF5",)
    (problem,) = parse(state, "japanese", "intercept af9").problems
    assert problem.reason == "you have no AF9 in the air"
    armed = replace(
        state, air=tuple(replace(a, stacks=(AirFactors("Val", 2, True, Armament.AP),)) for a in state.air)
    )
    (problem,) = parse(armed, "japanese", "intercept af5").problems
    assert problem.reason == "AF5 has no unarmed fighters to intercept with (standard 14.13)"


def test_combat_can_usually_occur_at_units_and_high_near_own_radar() -> None:
    table = InterceptionTable()
    here, near, far = Hex(3, 3), Hex(3, 5), Hex(3, 9)
    assert combat_possible(here, Altitude.LOW, units=[here], radars=[], table=table)
    assert combat_possible(near, Altitude.HIGH, units=[], radars=[here], table=table)
    assert not combat_possible(near, Altitude.LOW, units=[], radars=[here], table=table)
    assert not combat_possible(far, Altitude.HIGH, units=[], radars=[here], table=table)
    assert InterceptionTable.from_mapping(load_tables()["interception"]) == table


def test_6_10_a_path_refused_after_the_turn_into_the_wind_names_the_rule(data: dict[str, Any]) -> None:
    """Standard 6.10 (reference A.4): a CV or CVL "must move one hex into the wind in any turn in
    which it launches or recovers more than its Minimum Launch Factor" (issue 36, error 7: the
    refusal said only "V-F26 is not next to V-D26")."""
    state = new(data)  # Yorktown LF 11/3: four factors turn TF1 NE into the wind, to V-D26
    kind, reason = refusal(state, "search af1 from tf1 4 wildcat normal path v-f26")
    assert kind is ProblemKind.ILLEGAL and "is not next to V-D26" in reason
    assert reason.endswith(
        "TF1 turns into the wind to V-D26 first and the AF takes off there: standard 6.10)"
    )
    _, small = refusal(state, "search af1 from tf1 3 wildcat path v-a1")  # no turn: no note
    assert "6.10" not in small
