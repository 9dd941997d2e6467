# SPDX-License-Identifier: GPL-3.0-or-later
"""What issue 36 left open, one named test each, quoting the rule, played through the engine with
both sides' letters: the 6.10 variant as a game option, one shadower per target (standard 11.4),
storm landings (standard 6.6) and how their losses score (25.4), and Expanded Ship Function 7
(ships replenish at a friendly harbour, a design default) with the optional rules seed 003 names
but whose text was not found said plainly in the rules help.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.core.game import Outcome, ProblemKind, Setup
from mailbot.core.options import OptionProblem
from mailbot.errors import GameError
from mailbot.games.flattop.combat.surface import Firing, Firings
from mailbot.games.flattop.map.weather import Cloud, storm_hexes
from mailbot.games.flattop.state import FlatTopState, dump_state, load_state
from mailbot.games.flattop.units import AirFactors, AirFormation, Side, TaskForce
from mailbot.games.flattop.view import order_help, rules_help

from .play import GAME, SEED, game_data, new, parse, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def told(outcome: Outcome[FlatTopState], side: Side) -> str:
    return "\n".join(e.text for e in outcome.events if e.visible_to(side.value))


def hx(state: FlatTopState, name: str) -> Any:
    h = state.scenario.map.parse(name)
    assert h is not None
    return h


def resolve(
    state: FlatTopState, orders: dict[str, list[str]], by_label: dict[str, list[int]] | None = None
) -> Any:
    """One turn with both sides' letters, every line accepted, on dice of 1 unless named."""
    parsed = {seat: parse(state, seat, *texts) for seat, texts in orders.items()}
    for seat, p in parsed.items():
        assert p.problems == (), (seat, p.problems)
    dice = FixedDice([1] * 600, by_label=by_label or {})
    return GAME.resolve(state, {seat: p.orders for seat, p in parsed.items()}, dice=dice)


def tf(state: FlatTopState, side: Side, number: int) -> TaskForce:
    return next(t for t in state.own_tfs(side) if t.number == number)


def af(state: FlatTopState, side: Side, number: int) -> AirFormation:
    return next(a for a in state.own_air(side) if a.number == number)


# --- 6.10: launching into the wind, and its [RW] variant as a game option -------------------------


def variant(data: dict[str, Any]) -> FlatTopState:
    """test-small at 0600 (day) with the GM's option launch_wind = variant."""
    setup = Setup("test-small", ("allied", "japanese"), {"launch_wind": "variant"}, data)
    state = GAME.new_game(setup, dice=DiceStream(SEED, "", "setup"))
    state = replace(state, weather=replace(state.weather, clouds=()))
    return play(state, {}).state


def test_6_10_variant_is_a_game_option_the_gm_sets_at_game_create(data: dict[str, Any]) -> None:
    """Reference A.4, [RW] variant of standard 6.10: "if more than the minimum LF is used, the ship
    may move only 0 or 1 hex, and that hex must be into the wind". A GM chooses it with `game
    create --option launch_wind=variant`; the standard rule is the default; the choice is kept in
    the saved game."""
    option = next(o for o in GAME.options if o.name == "launch_wind")
    assert (option.default, option.choices) == ("standard", ("standard", "variant"))
    assert option.read("variant") == "variant"
    refused = option.read("sideways")
    assert isinstance(refused, OptionProblem) and "standard, variant" in refused.reason
    assert new(data).options.launch_wind == "standard"
    state = variant(data)
    assert state.options.launch_wind == "variant"
    assert load_state(dump_state(state)).options.launch_wind == "variant"
    with pytest.raises(GameError, match="launch_wind"):
        GAME.new_game(
            Setup("test-small", ("allied", "japanese"), {"launch_wind": "x"}, data),
            dice=DiceStream(SEED, "", "setup"),
        )


def test_6_10_variant_a_carrier_past_its_minimum_lf_moves_only_the_one_hex_into_the_wind(
    data: dict[str, Any],
) -> None:
    """[RW] 6.10: "the ship may move only 0 or 1 hex, and that hex must be into the wind".
    Yorktown (minimum LF 3) launches 4 Wildcats; TF1 is plotted V-D26 V-C26, its first hex into the
    wind (section V's marker points NE): it steams V-D26 only, and the AF takes off there."""
    state = variant(data)
    outcome = resolve(
        state,
        {"allied": ["plot tf1 v-d26 v-c26", "fly af1 from tf1 4 wildcat normal"], "japanese": ["HOLD"]},
    )
    assert tf(outcome.state, Side.ALLIED, 1).hex == hx(state, "V-D26")
    assert af(outcome.state, Side.ALLIED, 1).hex == hx(state, "V-D26")
    text = told(outcome, Side.ALLIED)
    assert (
        "TF1 launches or lands more than its carriers' minimum LF: it may move only 0 or 1 hex, and "
        "that hex must be into the wind; plotted V-D26 V-C26, it moves only the one hex into the "
        "wind, to V-D26 this turn (variant 6.10 (reference A.4, [RW]): 0 or 1 hex, into the wind)"
    ) in text
    assert "wind" not in told(outcome, Side.JAPANESE)


def test_6_10_variant_a_plot_away_from_the_wind_holds_where_the_standard_rule_turns_the_tf(
    data: dict[str, Any],
) -> None:
    """Standard 6.10 turns a carrier launching past its minimum LF "one hex into the wind"; the
    variant lets it move 0 hexes: TF1 plotted V-F26 (downwind) holds at V-E26 (the least the
    variant allows, a design default said to the owner), and its new AF starts there."""
    letters = {"allied": ["plot tf1 v-f26", "fly af1 from tf1 4 wildcat normal"], "japanese": ["HOLD"]}
    held = resolve(variant(data), letters)
    assert tf(held.state, Side.ALLIED, 1).hex == hx(held.state, "V-E26")
    assert af(held.state, Side.ALLIED, 1).hex == hx(held.state, "V-E26")
    assert "its plot does not start into the wind, so it holds at V-E26 (a design default)" in told(
        held, Side.ALLIED
    )
    standard = resolve(play(new(data), {}).state, letters)
    assert tf(standard.state, Side.ALLIED, 1).hex == hx(held.state, "V-D26")


def test_6_10_variant_holding_or_moving_the_hex_into_the_wind_stands(data: dict[str, Any]) -> None:
    """[RW] 6.10: "0 or 1 hex, and that hex must be into the wind": holding is allowed (the standard
    rule would move TF1 to V-D26), so is V-D26 alone; within the minimum LF any plot stands."""
    state = variant(data)
    hold = resolve(state, {"allied": ["fly af1 from tf1 4 wildcat normal"], "japanese": ["HOLD"]})
    assert tf(hold.state, Side.ALLIED, 1).hex == hx(state, "V-E26")
    assert "wind" not in told(hold, Side.ALLIED)
    one = resolve(state, {"allied": ["plot tf1 v-d26", "fly af1 from tf1 4 wildcat normal"], "japanese": []})
    assert tf(one.state, Side.ALLIED, 1).hex == hx(state, "V-D26")
    within = resolve(
        state, {"allied": ["plot tf1 v-f26 v-g26", "fly af1 from tf1 3 wildcat"], "japanese": []}
    )
    assert tf(within.state, Side.ALLIED, 1).hex == hx(state, "V-G26")


def test_6_10_variant_the_order_check_starts_a_new_afs_path_where_the_tf_holds(data: dict[str, Any]) -> None:
    """The letter is checked against the variant too: with no plot, TF1 holds at V-E26 while it
    launches 4 factors, so a path into V-F26 is good (the standard rule, turning TF1 to V-D26,
    refuses it); plotted downwind to V-F26, TF1 holds too, so a path starting next to V-F26 is
    refused, naming the variant."""
    state = variant(data)
    assert parse(state, "allied", "search af1 from tf1 4 wildcat normal path v-f26").problems == ()
    letter = ("plot tf1 v-f26", "search af1 from tf1 4 wildcat normal path v-g26")
    (problem,) = parse(state, "allied", *letter).problems
    assert problem.kind is ProblemKind.ILLEGAL
    assert problem.reason == (
        "AF1: V-G26 is not next to V-E26 (launching more than its carriers' Minimum Launch Factor, "
        "TF1 may move only 0 or 1 hex, into the wind: it holds at V-E26 and the AF takes off there: "
        "variant 6.10 (reference A.4, [RW]): 0 or 1 hex, into the wind)"
    )
    standard = play(new(data), {}).state
    (refused,) = parse(standard, "allied", "search af1 from tf1 4 wildcat normal path v-f26").problems
    assert "standard 6.10" in refused.reason


def test_6_10_the_rules_help_names_the_launch_rule_in_force(data: dict[str, Any]) -> None:
    standard = "\n".join(order_help(new(data), "allied"))
    assert "6.10 (game option launch_wind): standard" in standard
    assert "6.10 (game option launch_wind): variant" in "\n".join(order_help(variant(data), "allied"))


# --- standard 11.4: one shadower per target TF per turn -----------------------------------------------


def contact(data: dict[str, Any]) -> FlatTopState:
    """0700: the Allied AF1 has searched over the Japanese TF1 at I-G17 (a ships contact), and the
    Allied AF2 (2 Wildcats) is aloft at I-G19, two hexes off."""
    from mailbot.games.flattop import worlds as fw

    state = fw.searched()
    two = AirFormation(
        2, Side.ALLIED, hx(state, "I-G19"), (AirFactors("Wildcat", 2, True),), "TF1", state.turn - 1
    )
    return replace(state, air=(*state.air, two))


def test_11_4_a_second_shadower_of_the_same_contact_is_refused_quoting_the_rule(data: dict[str, Any]) -> None:
    """Standard 11.4: "Only one unit (one Air Formation or one TF) may attempt to shadow each TF
    each turn." The side names its target by the contact's hex (7.12.2: it is never told how many
    TFs are there), so the second SHADOW of I-G17 is refused, and only the first is rolled."""
    state = contact(data)
    parsed = parse(state, "allied", "shadow af1 i-g17", "shadow af2 i-g17")
    (problem,) = parsed.problems
    assert (problem.line, problem.kind) == (2, ProblemKind.ILLEGAL)
    assert problem.reason == (
        'AF1 already shadows the contact in I-G17 (line 1): standard 11.4, "Only one unit (one Air '
        'Formation or one TF) may attempt to shadow each TF each turn"'
    )
    assert parse(state, "allied", "shadow af2 i-g17").problems == ()
    outcome = resolve(state, {"allied": ["shadow af1 i-g17"], "japanese": ["HOLD"]})
    results = [e for e in outcome.events if e.kind == "ft.shadow.result"]
    assert [e.data["shadower"] for e in results] == ["AF1"]


# --- standard 6.6: landing in a storm hex; 25.4: how the losses score ----------------------------------


def stormy(data: dict[str, Any], *, night: bool = False) -> FlatTopState:
    """Two cloud markers overlapping on TF1 at V-E26 (a storm, standard 6.5), the Allied AF2 (2
    Wildcats) one hex off at V-E25; 0700, or 1900 (night) with ``night``."""
    state = play(play(new(data), {}).state, {}).state
    if night:
        state = replace(state, turn=state.turn + 12)  # 1900: clouds drift on even turns only
    clouds = (Cloud(1, hx(state, "V-E24"), 5), Cloud(2, hx(state, "V-E28"), 5))
    state = replace(state, weather=replace(state.weather, clouds=clouds))
    assert storm_hexes(state.weather, state.rules.weather) == {hx(state, "V-E26")}
    wildcats = AirFormation(2, Side.ALLIED, hx(state, "V-E25"), (AirFactors("Wildcat", 2, True),), "TF1", -1)
    return replace(state, air=(*state.air, wildcats))


def landing_label(state: FlatTopState, factor: int) -> str:
    return f"ft.landing.t{state.turn}.allied.AF2/0.Wildcat/{factor}"


def test_6_6_planes_land_in_a_storm_hex_by_the_night_landing_chart(data: dict[str, Any]) -> None:
    """Standard 6.6: "Planes may not enter a Storm hex ... Planes landing in a Storm hex use the
    Night Landing Chart". AF2 flies into the storm over its carrier to land (it may enter no other
    storm hex) and each factor rolls the chart by day: a 3 lands on a carrier, a 1 is lost."""
    state = stormy(data)
    outcome = resolve(
        state,
        {"allied": ["land af2 tf1"], "japanese": ["HOLD"]},
        {landing_label(state, 1): [3], landing_label(state, 2): [1]},
    )
    assert not any(a.number == 2 for a in outcome.state.own_air(Side.ALLIED))
    assert (
        "AF2 landed at TF1 in a storm (the Night Landing Chart, standard 6.6): "
        "1 air factor(s) lost in the landing"
    ) in told(outcome, Side.ALLIED)
    yorktown = tf(outcome.state, Side.ALLIED, 1).ships[0]
    assert sum(s.count for s in yorktown.boxes.just_landed if s.plane == "Wildcat") == 1
    (problem,) = parse(state, "allied", "fly af2 path v-e26 v-e27").problems
    assert "V-E26 is a storm hex (standard 6.6)" in problem.reason


def test_6_6_a_storm_landing_at_night_takes_the_plus_1_modifier_against_the_roll(
    data: dict[str, Any],
) -> None:
    """Standard 6.6: "(if it is a night turn, there is a +1 modifier)": on this chart, oriented
    high-is-good for seed 003, 14.10.1, that counts against the roll (landing.toml), as 14.14's
    armed landing at night does: a 3, enough by day, is a 2 and the factor is lost."""
    state = stormy(data, night=True)
    assert state.scenario.is_night(state.time)
    outcome = resolve(
        state,
        {"allied": ["land af2 tf1"], "japanese": ["HOLD"]},
        {landing_label(state, 1): [3], landing_label(state, 2): [4]},
    )
    assert "2 air factor(s) lost" not in told(outcome, Side.ALLIED)
    assert "at night in a storm (the Night Landing Chart, standard 6.6): 1 air factor(s) lost" in told(
        outcome, Side.ALLIED
    )
    rolls = [e.text for e in outcome.events if e.kind == "ft.landing.roll"]
    assert rolls and all("storm at night (6.6)" in r for r in rolls), rolls


def test_25_4_a_factor_lost_landing_in_a_storm_scores_2_vp_not_10(data: dict[str, Any]) -> None:
    """Standard 25.4 (reference A.13): "eliminated Air Factors are worth 2 Victory Points each";
    10 "only applies to Air Factors unable to land safely by the turn of landing due to player
    error or choice". An earlier reading kept AF2 off its carrier under the storm and scored both
    factors 10 VP each for fuel; by 6.6 they land by the chart, and each one lost scores 2 VP."""
    state = stormy(data)
    outcome = resolve(
        state,
        {"allied": ["land af2 tf1"], "japanese": ["HOLD"]},
        {landing_label(state, 1): [1], landing_label(state, 2): [1]},
    )
    entries = [e for e in outcome.state.score.ledger if e.owner is Side.ALLIED]
    assert [(e.side, e.points, e.cause) for e in entries] == [(Side.JAPANESE, 4, "landing")]


def test_25_4_an_af_its_owner_flies_past_its_range_still_scores_10_vp_a_factor(data: dict[str, Any]) -> None:
    """25.4: 10 VP for factors "unable to land safely by the turn of landing due to player error or
    choice": AF2, on its last turn of range, ordered nowhere, is lost for fuel."""
    state = stormy(data)
    state = replace(state, air=tuple(replace(a, takeoff_turn=-20) if a.number == 2 else a for a in state.air))
    outcome = resolve(state, {"allied": ["HOLD"], "japanese": ["HOLD"]})
    entries = [e for e in outcome.state.score.ledger if e.owner is Side.ALLIED]
    assert [(e.side, e.points, e.cause) for e in entries] == [(Side.JAPANESE, 20, "fuel")]


# --- Expanded Ship Function 7: ships replenish at a friendly harbour (a design default) ----------------


def at_port_moresby(data: dict[str, Any]) -> FlatTopState:
    """0600: the Allied TF1 at V-C24, next to Port Moresby (LP+SP, V-B24), after a battle: Astoria
    has 6 of her Ammunition Factors left, Hammann has fired twice (19.8) and spent her torpedoes."""
    state = play(new(data), {}).state
    first = tf(state, Side.ALLIED, 1)
    ships = tuple(
        replace(s, ammo=6)
        if s.name == "Astoria"
        else replace(s, torpedoes_fired=True)
        if s.name == "Hammann"
        else s
        for s in first.ships
    )
    moved = replace(first, hex=hx(state, "V-C24"), ships=ships, plot=())
    firings = Firings((Firing("Hammann", "T1.surface.a"), Firing("Hammann", "T1.surface.b")))
    tfs = tuple(moved if t is first else t for t in state.task_forces)
    return replace(state, task_forces=tfs, firings=firings)


def test_expanded_ship_function_7_ships_replenish_after_an_hour_at_anchor_in_a_friendly_harbour(
    data: dict[str, Any],
) -> None:
    """Seed 003 plays "Expanded Ship Functions (All except 1 & 4 ...)" and 27.9.2 names rule 7:
    ordnance "is reloaded at eligible bases like gunnery and torpedo supplies (per Expanded Ship
    Function rule #7.)"; 19.8: "DD's and APD's can fire twice before requiring replenishing". The
    rule's text was not found: supply.toml's design default is an hour anchored at a friendly base
    handling sea planes. TF1 sails into Port Moresby, anchors, and replenishes the hour after."""
    state = at_port_moresby(data)
    ships = {s.name: s for s in state.rules.scenario.task_forces[0].ships}
    sailed = resolve(state, {"allied": ["plot tf1 v-b24"], "japanese": ["HOLD"]})
    assert tf(sailed.state, Side.ALLIED, 1).hex == hx(state, "V-B24")
    assert "replenished" not in told(sailed, Side.ALLIED)
    anchored = resolve(sailed.state, {"allied": ["anchor tf1"], "japanese": ["HOLD"]})
    assert "replenished" not in told(anchored, Side.ALLIED)  # anchored this hour: not a whole hour yet
    refit = resolve(anchored.state, {"allied": ["HOLD"], "japanese": ["HOLD"]})
    after = {s.name: s for s in tf(refit.state, Side.ALLIED, 1).ships}
    assert after["Astoria"].ammo == ships["Astoria"].ammo > 6
    assert not after["Hammann"].torpedoes_fired
    assert refit.state.firings.count("Hammann") == 0
    text = told(refit, Side.ALLIED)
    assert (
        f"TF1 replenished at Port Moresby: Astoria (ammunition 6 -> {ships['Astoria'].ammo}); Hammann "
        "(torpedoes, 2 firing(s) made good (19.8)) (Expanded Ship Function 7, a design default "
        "(supply.toml): its text was not found)"
    ) in text
    assert "replenished" not in told(refit, Side.JAPANESE)


def test_expanded_ship_function_7_no_replenishing_at_sea_under_way_or_at_a_base_without_a_harbour(
    data: dict[str, Any],
) -> None:
    """The same ships anchored in a coastal hex with no base, or at Port Moresby but not anchored
    (under way), take nothing aboard; a base handling land planes only (LP) is no harbour."""
    state = at_port_moresby(data)
    first = tf(state, Side.ALLIED, 1)
    anchored = replace(first, ships=tuple(replace(s, anchored=True) for s in first.ships))
    coast = replace(anchored, hex=hx(state, "V-C24"))
    under_way = replace(first, hex=hx(state, "V-B24"))
    for unit in (coast, under_way):
        there = replace(state, task_forces=tuple(unit if t is first else t for t in state.task_forces))
        outcome = resolve(there, {"allied": ["HOLD"], "japanese": ["HOLD"]})
        assert "replenished" not in told(outcome, Side.ALLIED)
        assert {s.name: s.ammo for s in tf(outcome.state, Side.ALLIED, 1).ships}["Astoria"] == 6
    in_port = replace(anchored, hex=hx(state, "V-B24"))
    moresby = next(b for b in state.bases if b.name == "Port Moresby")
    land_only = replace(moresby, handling=type(moresby.handling)("LP"))
    there = replace(
        state,
        task_forces=tuple(in_port if t is first else t for t in state.task_forces),
        bases=tuple(land_only if b is moresby else b for b in state.bases),
    )
    assert "replenished" not in told(resolve(there, {"allied": ["HOLD"], "japanese": ["HOLD"]}), Side.ALLIED)


def test_optional_rules_the_rules_help_says_what_is_played_and_what_is_not_and_why(
    data: dict[str, Any],
) -> None:
    """Seed 003: "OPTIONAL RULES AUTOMATICALLY USED: Critical Hits (with changes above); Expanded
    Plane Functions (#'s 1, 2, 5, 6 and 7 only); Expanded Ship Functions (All except 1 & 4. The
    latter is replaced by our "attacking screening ships" rule.)". The help says which are
    played, which default stands in, and which are not played because their text was not found."""
    text = " ".join(" ".join(order_help(new(data), "allied")).split())
    assert "Expanded Ship Function 7" in text and "supply.toml" in text
    assert "Expanded Ship Function 4: replaced by seed 003's attacking screening ships (LI 2)" in text
    assert "not played: their text was not found" in text
    assert "Expanded Plane Functions 1, 2, 5, 6, 7" in text
    assert "Expanded Ship Functions 2, 3, 5, 6" in text
    assert all(len(line) <= 72 for line in rules_help(new(data)))


# --- decks closed by hits: standard 21.2.3, the critical "no flight operations", and 25.4 ------------


def with_yorktown(state: FlatTopState, **changes: Any) -> FlatTopState:
    first = tf(state, Side.ALLIED, 1)
    ships = tuple(replace(s, **changes) if s.name == "Yorktown" else s for s in first.ships)
    return replace(
        state, task_forces=tuple(replace(t, ships=ships) if t is first else t for t in state.task_forces)
    )


def beside_yorktown(data: dict[str, Any], takeoff: int = 1) -> FlatTopState:
    """0600, clear: the Allied AF2 (2 Wildcats, taken off at turn ``takeoff``) at V-E25, next to TF1."""
    state = play(new(data), {}).state
    wildcats = AirFormation(
        2, Side.ALLIED, hx(state, "V-E25"), (AirFactors("Wildcat", 2, True),), "TF1", takeoff
    )
    return replace(state, air=(*state.air, wildcats))


def test_21_2_3_planes_may_not_land_on_a_carrier_at_lf_0(data: dict[str, Any]) -> None:
    """Standard 21.2.3: "Planes may not land or take off from a plane-carrying ship with an LF of
    zero." Yorktown, hit to LF 0, takes AF2 aboard no more: it stays aloft over TF1, its owner told
    why; no launch either."""
    state = with_yorktown(beside_yorktown(data), launch=0, launch_min=0, hits=4)
    outcome = resolve(state, {"allied": ["land af2 tf1"], "japanese": ["HOLD"]})
    assert af(outcome.state, Side.ALLIED, 2).hex == hx(state, "V-E26")
    assert (
        "AF2 is flying to TF1, now at V-E26 (TF1 can take no planes aboard: Yorktown at LF 0 (standard "
        '21.2.3: "Planes may not land or take off from a plane-carrying ship with an LF of zero"))'
    ) in told(outcome, Side.ALLIED)
    (problem,) = parse(state, "allied", "fly af1 from tf1 1 wildcat").problems
    assert problem.reason.startswith("TF1 may launch 0 air factors a turn")


def test_criticals_a_flight_deck_hit_grounds_the_carrier_the_next_turn(data: dict[str, Any]) -> None:
    """damage.toml's ship critical 4 (a design default, reference B.11): "Flight deck hit: no flight
    operations next turn". That turn Yorktown launches nothing and takes no planes aboard (the
    effect was recorded and never played before)."""
    state = beside_yorktown(data)
    state = with_yorktown(state, no_flight_ops_turns=(state.turn,))
    (problem,) = parse(state, "allied", "fly af1 from tf1 2 wildcat").problems
    assert problem.reason == (
        "TF1 may launch 0 air factors a turn (minimum launch): Yorktown may not fly this turn (a "
        "critical hit: no flight operations this turn (damage.toml, a design default))"
    )
    outcome = resolve(state, {"allied": ["land af2 tf1"], "japanese": ["HOLD"]})
    assert af(outcome.state, Side.ALLIED, 2).hex == hx(state, "V-E26")
    assert "TF1 can take no planes aboard: Yorktown grounded (a critical hit" in told(outcome, Side.ALLIED)
    later = resolve(outcome.state, {"allied": ["land af2 tf1"], "japanese": ["HOLD"]})
    assert "AF2 landed at TF1" in told(later, Side.ALLIED)


def test_criticals_a_grounded_carrier_scrambles_no_ready_cap() -> None:
    """Seed 003, 16.11: "Ready CAP is subject to plane handling restrictions in that turn": a carrier
    whose flight deck a critical hit closed for the turn scrambles nothing."""
    from tests.games.flattop.combat.test_audit_rules import (
        TARGET_HEX,
        radar_picket,
        referee,
    )
    from tests.games.flattop.combat.test_audit_rules import (
        play as play_step,
    )

    state = radar_picket(ready=40)
    tfs = tuple(
        replace(
            t,
            ships=tuple(
                replace(s, no_flight_ops_turns=(state.turn,)) if s.name == "Shokaku" else s for s in t.ships
            ),
        )
        for t in state.task_forces
    )
    path = "V-E27 V-E26 V-E25 " + TARGET_HEX
    declared = play_step(
        replace(state, task_forces=tfs), {"allied": [f"FLY AF7 PATH {path} ATTACK"]}, "T2.orders"
    )
    struck = play_step(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")
    assert referee(list(struck.events), "ready-cap") == []


def test_25_4_an_af_kept_off_a_deck_closed_by_hits_scores_2_vp_a_factor_not_10(data: dict[str, Any]) -> None:
    """Standard 25.4: the 10 VP for factors lost unnecessarily "does not apply to Air Factors that can
    reach a hex where landing was possible, but is not when they arrive because of hits scored on
    bases or plane-carrying ships". AF2 reaches TF1 on its last turn of range; Yorktown is at LF 0:
    AF2 is lost for fuel, 2 VP a factor. With her deck open and AF2 sent nowhere, it is 10."""
    state = beside_yorktown(data, takeoff=-20)
    closed = resolve(
        with_yorktown(state, launch=0, launch_min=0, hits=4), {"allied": ["land af2 tf1"], "japanese": []}
    )
    entries = [e for e in closed.state.score.ledger if e.owner is Side.ALLIED]
    assert [(e.side, e.points, e.cause) for e in entries] == [(Side.JAPANESE, 4, "fuel")]
    assert "lost unnecessarily" not in entries[0].reason
    lost = [e.text for e in closed.events if e.kind == "ft.lost"]
    assert any("2 VP a factor, not 10 (standard 25.4)" in t for t in lost), lost
    idle = resolve(state, {"allied": ["HOLD"], "japanese": []})
    assert [(e.points, e.cause) for e in idle.state.score.ledger if e.owner is Side.ALLIED] == [(20, "fuel")]


def test_21_2_3_a_tf_launches_and_lands_only_through_its_carriers_above_lf_0(data: dict[str, Any]) -> None:
    """Standard 21.2.3 ship by ship: TF1 holds Yorktown at LF 0 (her 4 Wildcats ready aboard) and a
    second carrier, Enterprise, with 2 Wildcats ready. A launch takes Enterprise's planes only, and
    one asking for more than she holds is refused naming the rule; AF2 landing on TF1 goes aboard
    Enterprise (before, planes took off from and landed on a carrier at LF 0)."""
    from mailbot.games.flattop.units import AirBoxes

    state = beside_yorktown(data)
    first = tf(state, Side.ALLIED, 1)
    yorktown = next(s for s in first.ships if s.name == "Yorktown")
    crippled = replace(
        yorktown, launch=0, launch_min=0, hits=4, boxes=AirBoxes(ready=(AirFactors("Wildcat", 4, True),))
    )
    enterprise = replace(yorktown, name="Enterprise", boxes=AirBoxes(ready=(AirFactors("Wildcat", 2, True),)))
    two = replace(first, ships=(crippled, enterprise, *first.ships[1:]))
    state = replace(state, task_forces=tuple(two if t is first else t for t in state.task_forces))
    (problem,) = parse(state, "allied", "fly af1 from tf1 3 wildcat").problems
    assert problem.reason == (
        "TF1 has only 2 Wildcat in its Ready box that may take off (Yorktown: standard 21.2.3: "
        '"Planes may not land or take off from a plane-carrying ship with an LF of zero")'
    )
    outcome = resolve(state, {"allied": ["fly af1 from tf1 2 wildcat", "land af2 tf1"], "japanese": ["HOLD"]})
    ships = {s.name: s for s in tf(outcome.state, Side.ALLIED, 1).ships}
    assert [s.count for s in ships["Yorktown"].boxes.ready] == [4]
    assert ships["Enterprise"].boxes.ready == ()
    assert sum(s.count for s in ships["Enterprise"].boxes.just_landed) == 2
    assert ships["Yorktown"].boxes.just_landed == ()


def test_21_2_3_the_letter_shows_the_planes_that_may_fly_apart_from_those_that_may_not(
    data: dict[str, Any],
) -> None:
    """The letter's "planes:" line is what the TF may launch; planes aboard a carrier at LF 0 (standard
    21.2.3) or grounded by a critical hit are listed apart, so a side does not order what would be
    refused (the demo's player reads the same lines)."""
    from mailbot.games.flattop.demo_reading import read_report
    from mailbot.games.flattop.units import AirBoxes

    state = beside_yorktown(data)
    first = tf(state, Side.ALLIED, 1)
    yorktown = next(s for s in first.ships if s.name == "Yorktown")
    crippled = replace(
        yorktown, launch=0, launch_min=0, hits=4, boxes=AirBoxes(ready=(AirFactors("Wildcat", 4, True),))
    )
    enterprise = replace(
        yorktown, name="Enterprise", boxes=AirBoxes(ready=(AirFactors("Dauntless", 2, True),))
    )
    two = replace(first, ships=(crippled, enterprise, *first.ships[1:]))
    state = replace(state, task_forces=tuple(two if t is first else t for t in state.task_forces))
    view = GAME.view(state, (), "allied")
    (shown,) = [t for t in view["forces"][0]["task_forces"] if t["name"] == "TF1"]
    assert (shown["air"], shown["grounded"]) == ("ready: 2 Dauntless", "Yorktown (LF 0): ready: 4 Wildcat")
    from mailbot.registry import default_registry
    from mailbot.testing.contract import render_report, report_env

    registry = default_registry()
    text = render_report(report_env(registry), registry.find("flattop"), view, "txt")
    assert "aboard, unable to fly this turn (standard 21.2.3; critical hits): Yorktown (LF 0)" in text
    report = read_report(text)
    assert report.tfs[1].grounded == frozenset({"Yorktown"})
    assert [s.plane for s in report.tfs[1].boxes["ready"]] == ["Dauntless"]
