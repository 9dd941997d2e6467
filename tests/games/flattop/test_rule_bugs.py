# SPDX-License-Identifier: GPL-3.0-or-later
"""The rule bugs a referee's audit found in play (issue 15), one named test each, quoting the rule."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from mailbot.core.dice import FixedDice
from mailbot.core.game import Outcome
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.map.hexes import distance, line
from mailbot.games.flattop.map.weather import Cloud, storm_hexes
from mailbot.games.flattop.observation.reports import ReportRules
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Armament, Ship, ShipType, Side, TaskForce

from .conftest import CONFIG, load_tables
from .play import GAME, game_data, new, parse, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def told(events: Any, side: Side) -> str:
    return "\n".join(e.text for e in events if e.visible_to(side.value))


def hx(state: FlatTopState, name: str) -> Any:
    h = state.scenario.map.parse(name)
    assert h is not None
    return h


def aloft(state: FlatTopState, side: Side, number: int, where: str, *stacks: AirFactors) -> FlatTopState:
    """An AF already aloft (taken off last turn)."""
    formation = AirFormation(number, side, hx(state, where), stacks, "TF1", state.turn - 1)
    return replace(state, air=(*state.air, formation))


def resolve(
    state: FlatTopState, orders: dict[str, list[str]], by_label: dict[str, list[int]] | None = None
) -> Outcome[FlatTopState]:
    """One turn on dice of 1 (a natural 2 on 2d6 always sees, seed 003, 7.3) unless named."""
    parsed = {seat: parse(state, seat, *texts) for seat, texts in orders.items()}
    for seat, p in parsed.items():
        assert p.problems == (), (seat, p.problems)
    dice = FixedDice([1] * 600, by_label=by_label or {})
    return GAME.resolve(state, {seat: p.orders for seat, p in parsed.items()}, dice=dice)


def af_of(state: FlatTopState, side: Side, number: int) -> AirFormation:
    return next(a for a in state.own_air(side) if a.number == number)


# --- new AFs take off after TF movement (reference A.7) ------------------------------


def test_a_new_af_takes_off_from_the_hex_its_tf_has_moved_to(data: dict[str, Any]) -> None:
    """Reference A.7 (standard 14), the sequence of a player's plane movement: "4. Take off and
    move new on-map AFs", in the Plane Movement phase, after TF movement (standard 5): a TF that
    plots V-E27 launches from V-E27, so the path starts next to it."""
    state = play(new(data), {}).state  # 0600, day
    outcome = resolve(state, {"allied": ["fly af1 from tf1 1 wildcat path v-e28", "plot tf1 v-e27"]})
    assert "AF1 flew V-E27 V-E28" in told(outcome.events, Side.ALLIED)
    assert af_of(outcome.state, Side.ALLIED, 1).hex == hx(state, "V-E28")


# --- segments in initiative order (seed 003, 7 and 14) --------------------------------


def test_air_movement_goes_segment_by_segment_in_initiative_order(data: dict[str, Any]) -> None:
    """Seed 003, 14: "Air movement in a given player's segment is considered to be simultaneous";
    7: "Searches (and all other air movement) are considered to take place simultaneously in a
    given player's segment." The Allies have the initiative (13's catch-up), so their searcher
    flies its segment before the Japanese AF6 leaves V-E25 in the Japanese segment."""
    state = play(new(data), {}).state
    state = aloft(state, Side.JAPANESE, 6, "V-E25", AirFactors("Zero", 2, True))
    outcome = resolve(
        state,
        {
            "allied": ["search af1 from tf1 1 wildcat path v-e25"],
            "japanese": ["fly af6 path v-e24 v-e23 i-e22 i-e21"],
        },
    )
    assert "Initiative: allied" in told(outcome.events, Side.ALLIED)
    spotted = [e.text for e in outcome.events if e.kind == "ft.spotting"]
    assert "allied: AF1 sees planes at V-E25 (C3): japanese AF6" in spotted
    assert af_of(outcome.state, Side.JAPANESE, 6).hex == hx(state, "I-E21")


# --- interception (standard 14.13) -----------------------------------------------------


def test_each_side_has_its_own_one_interception_per_af_a_turn(data: dict[str, Any]) -> None:
    """Reference A.7 (standard 14.13): "One attempt per hex per turn per player." AF numbers are
    per side (standard 14: "numbered 1-35 per side"): the Japanese AF5's attempt must not use up
    the Allied AF5's."""
    state = play(new(data), {}).state
    tfs = tuple(
        replace(t, hex=hx(state, "V-D25")) if t.side is Side.JAPANESE else t for t in state.task_forces
    )
    state = replace(state, task_forces=tfs)
    state = aloft(state, Side.JAPANESE, 5, "V-E25", AirFactors("Zero", 2, True))
    state = aloft(state, Side.JAPANESE, 6, "V-E24", AirFactors("Zero", 1, True))
    state = aloft(state, Side.ALLIED, 5, "V-E25", AirFactors("Wildcat", 2, True))
    outcome = resolve(
        state,
        {
            "allied": ["fly af1 from tf1 1 wildcat path v-e25 v-e24", "intercept af5"],
            "japanese": ["fly af6 path v-e25 v-e26", "intercept af5"],
        },
    )
    rolls = [e.text for e in outcome.events if e.kind == "ft.intercept.roll"]
    assert len(rolls) == 2, rolls
    assert any(r.startswith("japanese AF5 vs allied AF1") for r in rolls)
    assert any(r.startswith("allied AF5 vs japanese AF6") for r in rolls)


def test_a_cap_launched_this_turn_may_intercept_in_the_same_letter(data: dict[str, Any]) -> None:
    """Reference A.5.4: factors placed in an AF box "must take off that turn, though they need
    not leave the hex" (14.6): a CAP launched now is aloft for the movement phase, so its
    INTERCEPT (standard 14.13) may be in the same letter, before or after the launch line."""
    state = new(data)
    parsed = parse(state, "allied", "intercept af5", "fly af5 from tf1 2 wildcat")
    assert parsed.problems == ()
    assert parsed.normalised == ("INTERCEPT AF5", "FLY AF5 FROM TF1 2 Wildcat")
    (problem,) = parse(state, "allied", "fly af6 from tf1 2 dauntless", "intercept af6").problems
    assert problem.reason == "AF6 has no unarmed fighters to intercept with (standard 14.13)"
    (problem,) = parse(state, "allied", "intercept af7").problems
    assert problem.reason == "you have no AF7 in the air"


def test_a_cap_launched_this_turn_makes_its_interception_attempt(data: dict[str, Any]) -> None:
    """Standard 14.13 with seed 003, 14.13.2: the new CAP over the Allied TF1 (V-E26) tries to
    intercept the Japanese AF6 flying through, seen by TF1 itself (7.5)."""
    state = play(new(data), {}).state
    state = aloft(state, Side.JAPANESE, 6, "V-E25", AirFactors("Zero", 1, True))
    outcome = resolve(
        state,
        {"allied": ["fly af5 from tf1 2 wildcat", "intercept af5"], "japanese": ["fly af6 path v-e26 v-e27"]},
        {"ft.intercept.t2.allied.AF5": [6]},
    )
    assert "AF5 intercepted an enemy AF at V-E26" in told(outcome.events, Side.ALLIED)


# --- wording ---------------------------------------------------------------------------------


def test_an_interception_names_the_hex(data: dict[str, Any]) -> None:
    state = play(new(data), {}).state
    state = aloft(state, Side.JAPANESE, 6, "V-E25", AirFactors("Zero", 1, True))
    outcome = resolve(
        state,
        {"allied": ["fly af5 from tf1 2 wildcat", "intercept af5"], "japanese": ["fly af6 path v-e26 v-e27"]},
        {"ft.intercept.t2.allied.AF5": [6]},
    )
    lines = [e.text for e in outcome.events if e.kind == "ft.intercept"]
    assert lines == ["AF5 intercepted an enemy AF at V-E26"]


@pytest.mark.parametrize("kind", ["txt", "html"])
def test_the_approximate_map_label_is_printed_once(data: dict[str, Any], kind: str) -> None:
    """design/flattop.md: the demo map is "clearly labelled as approximate", once: its title in
    coral-sea-demo.toml already says so."""
    env = Environment(
        loader=FileSystemLoader(str(CONFIG.parent)),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html", "html.j2"]),
    )
    for scenario in ("coral-sea-demo", "test-small"):
        state = new(data, scenario)
        text = env.get_template(f"templates/report.{kind}.j2").render(r=GAME.view(state, (), "allied"))
        assert text.count("approximate map") == 1, scenario


# --- shadowing (standard 11, seed 003 11.2, 11.3, 11.11) ------------------------------------


def over_the_japanese_tf() -> FlatTopState:
    """Turn 3 (0700, clear): the Allied AF1 (two Wildcats) saw the Japanese TF1 at I-G17 last
    turn; the Allied TF11 waits next door at I-H17, where it sees planes over I-G17 (7.5)."""
    state = fw.searched()
    state = replace(state, weather=replace(state.weather, clouds=()))
    tfs = tuple(
        replace(t, hex=hx(state, "I-H17"), plot=()) if t.side is Side.ALLIED and t.number == 11 else t
        for t in state.task_forces
    )
    return aloft(replace(state, task_forces=tfs), Side.JAPANESE, 6, "I-F17", AirFactors("Zero", 1, True))


@pytest.mark.parametrize(("face", "attempts"), [(6, 0), (5, 1)])
def test_a_shadower_drawing_the_dash_may_not_move_or_observe_so_it_does_not_intercept(
    face: int, attempts: int
) -> None:
    """Reference A.8.8 (standard 11, 11.7): the Shadowing Table's "—: the shadower may not move
    or observe at all this turn". AF1, one hex from its contact (Condition 2, so no 11.11
    modifier), draws it with a 6, so its INTERCEPT waits; on a plain failure (5) it may still
    try against the Japanese AF6 passing through I-F17, seen there by the Allied TF11 (7.5)."""
    state = with_allied_tf(over_the_japanese_tf(), 11, "I-E17")
    state = replace(
        state,
        air=tuple(
            replace(a, hex=hx(state, "I-F17")) if a.side is Side.ALLIED else a
            for a in state.air
            if a.number != 6
        ),
    )
    state = aloft(state, Side.JAPANESE, 6, "I-F18", AirFactors("Zero", 1, True))
    outcome = resolve(
        state,
        {"allied": ["shadow af1 i-g17", "intercept af1"], "japanese": ["fly af6 path i-f17 i-g17"]},
        {"ft.shadow.t3.allied.AF1": [face], "ft.intercept.t3.allied.AF1": [6]},
    )
    assert len([e for e in outcome.events if e.kind == "ft.intercept.roll"]) == attempts
    if face == 6:
        assert "Shadowing by AF1: failure: may not move or observe this turn" in told(
            outcome.events, Side.ALLIED
        )


def with_allied_tf(state: FlatTopState, number: int, where: str, **ship_changes: Any) -> FlatTopState:
    def fix(tf: TaskForce) -> TaskForce:
        ships = tuple(replace(s, **ship_changes) for s in tf.ships)
        return replace(tf, hex=hx(state, where), plot=(), ships=ships)

    tfs = tuple(fix(t) if t.side is Side.ALLIED and t.number == number else t for t in state.task_forces)
    return replace(state, task_forces=tfs)


def shadow_roll(outcome: Outcome[FlatTopState]) -> str:
    (roll,) = [e.text for e in outcome.events if e.kind == "ft.shadow.roll"]
    return roll


def test_11_11_an_af_shadowing_at_condition_3_has_minus_one() -> None:
    """Seed 003, 11.11 "Revised shadowing modifiers": "-1 if shadower is at Condition 3". AF1
    is over the Japanese TF1 (I-G17) in a clear day hour: the search chart's range 0 gives it
    Condition 3."""
    outcome = resolve(
        over_the_japanese_tf(), {"allied": ["shadow af1 i-g17"]}, {"ft.shadow.t3.allied.AF1": [5]}
    )
    assert "-1 shadower at Condition 3 = 4" in shadow_roll(outcome)
    assert "Shadowing by AF1: success" in told(outcome.events, Side.ALLIED)


def test_tfs_and_submarines_may_be_ordered_to_shadow() -> None:
    """Reference A.8.8 (standard 11): "Planes and ships may shadow TFs only"; seed 003, 27.3:
    "Submarines may attempt to shadow one TF or one submarine in its own hex" (a TF observes
    ships within one hex, 7.5)."""
    state = over_the_japanese_tf()
    assert parse(state, "allied", "shadow tf11 i-g17").normalised == ("SHADOW TF11 I-G17",)
    (problem,) = parse(state, "allied", "shadow tf11 i-g17", "plot tf11 hold").problems
    assert problem.kind.value == "ambiguous"
    far = with_allied_tf(state, 11, "I-E17")
    (problem,) = parse(far, "allied", "shadow tf11 i-g17").problems
    assert problem.reason == "TF11 shadows only a contact within one hex (seed 003, 7.5 and 27.3)"
    sub = Ship("S-42", ShipType.SS, 0, 0, 4, 1, 1)
    subs = replace(
        state, task_forces=(*state.task_forces, TaskForce(12, Side.ALLIED, hx(state, "I-H17"), (sub,)))
    )
    (problem,) = parse(subs, "allied", "shadow tf12 i-g17").problems
    assert problem.reason == "TF12 shadows only a contact in its own hex (seed 003, 7.5 and 27.3)"
    subs = replace(
        subs, task_forces=(*state.task_forces, TaskForce(12, Side.ALLIED, hx(state, "I-G17"), (sub,)))
    )
    outcome = resolve(subs, {"allied": ["shadow tf12 i-g17"]}, {"ft.shadow.t3.allied.TF12": [3]})
    assert "+1 submarine" in shadow_roll(outcome)


def test_11_11_a_radar_tf_at_condition_3_shadows_with_both_modifiers() -> None:
    """Seed 003, 11.11: "-1 if shadowing TF has radar", "-1 if shadower is at Condition 3" (a TF
    sees ships in its own hex by day at Condition 3, 7.12)."""
    state = with_allied_tf(over_the_japanese_tf(), 11, "I-G17", radar=True)
    outcome = resolve(state, {"allied": ["shadow tf11 i-g17"]}, {"ft.shadow.t3.allied.TF11": [6]})
    roll = shadow_roll(outcome)
    assert (
        "-1 shadowing TF has radar" in roll
        and "-1 shadower at Condition 3" in roll
        and roll.endswith("= 4 (standard 11 Shadowing Table; seed 003, 11.11)")
    )


def test_a_shadowing_tf_follows_its_target_after_it_moves() -> None:
    """Reference A.8.8: "the shadowed TF moves as plotted, then the shadower moves ... If it loses
    contact, it must move straight toward the TF"; "Units that moved in the Shadowing Phase do not
    move again this turn". TF11 shadows from one hex away and closes to one hex again."""
    state = over_the_japanese_tf()
    west = ((hx(state, "I-F17"),),)
    tfs = tuple(replace(t, plot=west) if t.side is Side.JAPANESE else t for t in state.task_forces)
    state = replace(state, task_forces=tfs)
    outcome = resolve(state, {"allied": ["shadow tf11 i-g17"]}, {"ft.shadow.t3.allied.TF11": [1]})
    assert "Shadowing by TF11: success" in told(outcome.events, Side.ALLIED)
    mine = next(t for t in outcome.state.own_tfs(Side.ALLIED) if t.number == 11)
    theirs = next(t for t in outcome.state.task_forces if t.side is Side.JAPANESE)
    assert theirs.hex == hx(state, "I-F17")
    assert distance(mine.hex, theirs.hex) == 1
    assert f"TF11 shadows its contact and is now at {outcome.state.scenario.map.hex_id(mine.hex)}" in told(
        outcome.events, Side.ALLIED
    )


# --- JETTISON and spent loads (standard 14.14, reference A.6) ------------------------------


def strike_aloft(data: dict[str, Any]) -> FlatTopState:
    """Turn 3 (0700, day): the Allied AF2, two Dauntless armed GP, aloft next to TF1 (V-E26)."""
    state = play(new(data), {}).state
    return play(state, {"allied": ["fly af2 from tf1 2 dauntless path v-e25"]}).state


def test_jettison_14_14_lets_a_strike_land_unarmed_without_the_landing_roll(data: dict[str, Any]) -> None:
    """Reference A.6 (standard 14.14): "Jettison: bombs may be dropped at any time during plane
    movement. Landing while still armed uses the Night Landing Chart" (by day too, landing.toml
    armed_by_day). JETTISON drops them before touching down: no roll, nothing lost."""
    state = strike_aloft(data)
    armed = resolve(state, {"allied": ["land af2 tf1"]})
    assert [e for e in armed.events if e.kind == "ft.landing.roll"]
    outcome = resolve(state, {"allied": ["land af2 tf1", "jettison af2"]})
    assert [e for e in outcome.events if e.kind == "ft.landing.roll"] == []
    allied = told(outcome.events, Side.ALLIED)
    assert "AF2 jettisoned its bombs before landing (standard 14.14)" in allied
    assert "AF2 landed at TF1" in allied and "lost" not in allied
    tf1 = next(t for t in outcome.state.own_tfs(Side.ALLIED) if t.number == 1)
    landed = [s for ship in tf1.ships for s in ship.boxes.just_landed if s.plane == "Dauntless"]
    assert [(s.count, s.armament, s.expended) for s in landed] == [(2, None, False)]


def test_jettison_is_an_order_in_the_grammar_the_help_and_the_template(data: dict[str, Any]) -> None:
    state = strike_aloft(data)
    assert parse(state, "allied", "jett af2", "land af2 tf1").normalised == ("JETTISON AF2", "LAND AF2 TF1")
    (problem,) = parse(state, "allied", "jettison af9").problems
    assert problem.reason == "you have no AF9 in the air"
    (problem,) = parse(state, "allied", "fly af5 from tf1 1 wildcat", "jettison af5").problems
    assert problem.reason == "AF5 carries no bombs or torpedoes to jettison"
    assert any("JETTISON AF4" in line for line in GAME.order_help(state, "allied"))
    assert "# JETTISON AF2" in GAME.view(state, (), "allied")["template"]


def test_a_jettisoned_fighter_bomber_stays_a_bomber_until_it_lands(data: dict[str, Any]) -> None:
    """Reference A.6: "A factor armed at take-off is a bomber until it lands, even after bombing
    or jettisoning": no interception with it."""
    state = play(new(data), {}).state
    zeros = AirFactors("Zero", 2, True, Armament.GP)
    state = aloft(state, Side.JAPANESE, 5, "I-G17", zeros)
    outcome = resolve(state, {"japanese": ["jettison af5"]})
    (stack,) = af_of(outcome.state, Side.JAPANESE, 5).stacks
    assert (stack.armament, stack.expended) == (None, True)
    assert "AF5 jettisoned its bombs at I-G17 (standard 14.14)" in told(outcome.events, Side.JAPANESE)
    (problem,) = parse(outcome.state, "japanese", "intercept af5").problems
    assert problem.reason == "AF5 has no unarmed fighters to intercept with (standard 14.13)"


def test_an_attack_spends_the_strikes_load(data: dict[str, Any]) -> None:
    """Reference A.6: "Each armed factor attacks once per sortie": a strike that has attacked
    no longer carries its bombs home to an armed landing (14.14). The attack waits for the
    attacker's choice sub-step (seed 003, 15 LI 1); his silence attacks by the default priority."""
    state = play(new(data), {}).state
    tfs = tuple(
        replace(t, hex=hx(state, "V-E24")) if t.side is Side.JAPANESE else t for t in state.task_forces
    )
    state = replace(state, task_forces=tfs)
    outcome = resolve(state, {"allied": ["search af2 from tf1 2 dauntless path v-e25 v-e24 if ships attack"]})
    assert "AF2 reached V-E24 to attack" in told(outcome.events, Side.ALLIED)
    step = GAME.step(outcome.state)
    assert step is not None and step.key == "T2.strike" and step.owing == frozenset({"allied"})
    assert all(s.armament is not None for s in af_of(outcome.state, Side.ALLIED, 2).stacks)
    struck = resolve(outcome.state, {"allied": list(GAME.default_orders(outcome.state, "allied"))})
    assert all(s.armament is None for s in af_of(struck.state, Side.ALLIED, 2).stacks)


# --- LAND around storms (standard 6.6) -------------------------------------------------------


def test_land_flies_around_a_storm_hex_instead_of_stopping_before_it(data: dict[str, Any]) -> None:
    """Reference A.4 (standard 6.6): "Planes may not enter a Storm hex." The straight line from
    V-A26 to TF1 (V-E26) crosses the storm at V-C26 (two overlapping cloud markers, 6.5); the
    Wildcats have MP to spare, so LAND takes them around it and they land."""
    state = play(play(new(data), {}).state, {}).state  # 0700: clouds do not drift this hour
    clouds = (Cloud(1, hx(state, "V-C24"), 5), Cloud(2, hx(state, "V-C28"), 5))
    state = replace(state, weather=replace(state.weather, clouds=clouds))
    assert storm_hexes(state.weather, state.rules.weather) == {hx(state, "V-C26")}
    assert hx(state, "V-C26") in line(hx(state, "V-A26"), hx(state, "V-E26"))
    state = aloft(state, Side.ALLIED, 2, "V-A26", AirFactors("Wildcat", 2, True))
    outcome = resolve(state, {"allied": ["land af2 tf1"]})
    assert "AF2 landed at TF1" in told(outcome.events, Side.ALLIED)
    assert not any(a.number == 2 for a in outcome.state.own_air(Side.ALLIED))


# --- 7.12.2's numbers come from the shipped observation.toml -----------------------------------


def test_7_12_2_the_game_reads_the_seeds_numbers_from_the_shipped_observation_table(
    data: dict[str, Any],
) -> None:
    """Seed 003, 7.12.2: 'The "error" range is 10-12. Dice roll modifier: +1 if the searcher is at
    high altitude'; "within a range of +/- 2"; "the approximate number of planes/ships ... (+/- 50%)".
    The shipped file holds exactly these, and a game takes them from the file it is given."""
    shipped = load_tables()["observation"]["reports"]
    printed = (
        shipped["error_min"],
        shipped["high_searcher"],
        shipped["swap_limit"],
        Fraction(shipped["spread"]),
    )
    assert printed == (10, 1, 2, Fraction(1, 2))
    rules = new(data).rules.reports
    assert rules == ReportRules.from_mapping(load_tables()["observation"])
    assert (rules.error_min, rules.high_searcher, rules.swap_limit, rules.spread) == printed
    changed = deepcopy(data)
    changed["tables"]["observation"]["reports"] |= {"error_min": 11, "high_searcher": 2, "spread": "0.25"}
    other = new(changed).rules.reports
    assert (other.error_min, other.high_searcher, other.spread) == (11, 2, Fraction(1, 4))


# --- launch into the wind (standard 6.10) ------------------------------------------------------


def tf1(state: FlatTopState) -> TaskForce:
    return next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)


def test_6_10_a_carrier_launching_more_than_its_minimum_lf_turns_into_the_wind(data: dict[str, Any]) -> None:
    """Reference A.4 (standard 6.10): "a CV or CVL must move one hex into the wind in any turn in
    which the Air Factors taking off and landing together exceed its Minimum LF". Yorktown's
    minimum LF is 3 (ships.toml); section V's wind marker points NE (test-small.toml), so into the
    wind is SW: TF1 moves from V-E26 to V-D26, and the new AF takes off there (reference A.7)."""
    state = play(new(data), {}).state  # 0600
    assert state.weather.wind(5).name == "NE"
    outcome = resolve(state, {"allied": ["fly af1 from tf1 4 wildcat normal"]})
    assert tf1(outcome.state).hex == hx(state, "V-D26")
    assert af_of(outcome.state, Side.ALLIED, 1).hex == hx(state, "V-D26")
    assert "it turns one hex into the wind, to V-D26, this turn (standard 6.10)" in told(
        outcome.events, Side.ALLIED
    )


def test_6_10_no_turn_within_the_minimum_lf_or_when_plotted_into_the_wind(data: dict[str, Any]) -> None:
    state = play(new(data), {}).state  # 0600
    within = resolve(state, {"allied": ["fly af1 from tf1 3 wildcat"]})
    assert tf1(within.state).hex == hx(state, "V-E26")
    plotted = resolve(state, {"allied": ["plot tf1 v-d26 v-c26", "fly af1 from tf1 4 wildcat normal"]})
    assert tf1(plotted.state).hex == hx(state, "V-C26")
    assert "into the wind" not in told(plotted.events, Side.ALLIED)


def test_6_10_landings_count_with_take_offs(data: dict[str, Any]) -> None:
    """Standard 6.10: "taking off and landing together": 2 Wildcats landing and 2 taking off
    exceed Yorktown's minimum LF of 3."""
    state = aloft(play(new(data), {}).state, Side.ALLIED, 2, "V-E26", AirFactors("Wildcat", 2, True))
    alone = resolve(state, {"allied": ["land af2 tf1"]})
    assert tf1(alone.state).hex == hx(state, "V-E26")
    both = resolve(state, {"allied": ["land af2 tf1", "fly af1 from tf1 2 wildcat"]})
    assert tf1(both.state).hex == hx(state, "V-D26")


# --- off-board bases (reference A.3) -----------------------------------------------------------


def test_an_off_board_base_launches_through_its_entry_hex(data: dict[str, Any]) -> None:
    """Reference A.3: "Off-board bases: Allied New Caledonia and Australia; Japanese Truk and
    Kavieng. Their planes enter and leave through Entry Hexes whose label includes a delay in
    turns". Australia's entry hex 1A is V-A28 with a delay of 1 (test-small.toml): B-17s taking
    off at 0600 are in the In Flight box for a turn and appear at V-A28 at the end of 0700."""
    state = play(new(data), {}).state
    assert parse(state, "allied", "fly af7 from australia 4 b-17").normalised == (
        "FLY AF7 FROM Australia 4 B-17",
    )
    (problem,) = parse(state, "allied", "search af7 from australia 4 b-17 path v-a27").problems
    assert problem.reason.startswith("AF7 from Australia flies off the board to entry hex 1A (V-A28)")
    outcome = resolve(state, {"allied": ["fly af7 from australia 4 b-17"]})
    assert "it appears at V-A28 at the end of turn 3" in told(outcome.events, Side.ALLIED)
    assert af_of(outcome.state, Side.ALLIED, 7).hex is None
    australia = next(b for b in outcome.state.own_bases(Side.ALLIED) if b.name == "Australia")
    assert australia.boxes.ready == ()
    later = resolve(outcome.state, {})
    assert "AF7 from Australia arrives at V-A28" in told(later.events, Side.ALLIED)
    assert af_of(later.state, Side.ALLIED, 7).hex == hx(state, "V-A28")
    assert parse(later.state, "allied", "fly af7 path v-a27").problems == ()
