# SPDX-License-Identifier: GPL-3.0-or-later
"""Escorts (seed 003, 15 LI 5; reference A.6, A.11.4), played through the engine with both sides'
orders: a mixed AF launched with its bombers, fighters that fly with a strike, and enemy fighters
over a TF whose CAP is there.

The world is ``test_flattop_combat_no_leak._base``: the Japanese TF1 (Shokaku, Myoko, Ushio) at
V-E24 on turn 2 by day, the Allied TF1 (Yorktown: 4 Wildcat and 6 Dauntless GP ready) at V-E26.
Dice are the real stream, so the assertions hold for any roll.
"""

from __future__ import annotations

import re
from dataclasses import replace

from mailbot.core.dice import FixedDice
from mailbot.core.game import Event, Line
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Altitude, Armament, Side
from tests.differential.test_flattop_combat_no_leak import TARGET_HEX, _base
from tests.games.flattop.combat.test_strike_flow import GAME, play, told

MIXED = f"FLY AF9 FROM TF1 2 Dauntless AND 1 Wildcat PATH V-E25 {TARGET_HEX} ATTACK"


def referee(events: tuple[Event, ...] | list[Event], kind: str) -> str:
    return " ".join(e.text for e in events if e.kind == f"ft.{kind}")


def with_cap(*stacks: AirFactors) -> FlatTopState:
    """``_base`` with the Japanese AF20 (``stacks``, Low) on CAP over TF1 and no AF7."""
    state = _base()
    cap = AirFormation(20, Side.JAPANESE, fw._hex(state, TARGET_HEX), stacks, "TF1", 1)
    return replace(state, air=(*(a for a in state.air if a.number != 7), cap))


def test_a_mixed_launch_makes_one_af_of_bombers_and_escorts() -> None:
    """Reference A.5.3: "An AF can hold several plane names"; A.6: "a fighter-capable factor in an
    AF *with* bombers is an escort". FROM ... AND ... launches them as one AF, echoed as read."""
    state = with_cap(AirFactors("Zero", 6, True))
    parsed = GAME.parse(state, "allied", [Line(1, MIXED.lower())])
    assert not parsed.problems, parsed.problems
    assert [a.normalised for a in parsed.accepted] == [MIXED]
    hour = play(state, {"allied": [MIXED]}, "T2.orders")
    af9 = next(a for a in hour.state.air if a.number == 9 and a.side is Side.ALLIED)
    assert {(s.plane, s.count, s.armament is None) for s in af9.stacks} == {
        ("Dauntless", 2, False),
        ("Wildcat", 1, True),
    }
    assert "AF9 took off from TF1: 2 Dauntless and 1 Wildcat" in told(hour, Side.ALLIED)


def test_a_mixed_launch_is_checked_plane_by_plane() -> None:
    """Each plane name comes out of the Ready box (reference A.5.4), once, within the launch factor."""
    state = with_cap(AirFactors("Zero", 6, True))
    for line, reason in (
        ("FLY AF9 FROM TF1 3 Dauntless AND 5 Wildcat NORMAL", "only 4 Wildcat"),
        ("FLY AF9 FROM TF1 3 Dauntless AND 2 Dauntless NORMAL", "name each plane type once"),
        ("FLY AF9 FROM TF1 3 Dauntless AND 2 Wildcat", "may launch 3 air factors"),
        ("FLY AF9 FROM TF1 3 Dauntless AND", "AND needs a number and a plane type"),
    ):
        problems = GAME.parse(state, "allied", [Line(1, line)]).problems
        assert problems and reason in problems[0].reason, (line, problems)


def strike(state: FlatTopState, allied: list[str]) -> str:
    declared = play(state, {"allied": [MIXED, *allied], "japanese": []}, "T2.orders")
    struck = play(declared.state, {"allied": ["TARGET AF9 A-CV1"], "japanese": []}, "T2.strike")
    return referee(struck.events, "air-combat.roll")


def test_li5_the_escorts_of_a_mixed_af_fight_the_interceptors_first() -> None:
    """Seed 003, 15 LI 5 ("Interceptor-Escort combat"); reference A.11.4: "1. Interceptors vs
    escorts ... 2. Interceptors vs bombers, after the escort fight". The Wildcats launched with the
    Dauntless meet the Zero CAP in the escort stage; the Dauntless fire back in the bomber stage."""
    rolls = strike(with_cap(AirFactors("Zero", 6, True)), [])
    assert re.search(r"escort stage: \d+ Wildcat \(allied\) fire at Zero", rolls), rolls
    assert re.search(r"escort stage: \d+ Zero \(japanese\) fire at Wildcat", rolls), rolls
    assert rolls.index("escort stage") < rolls.index("bomber stage") if "bomber stage" in rolls else True


def test_li5_the_escorts_order_chooses_which_interceptors_they_shoot_at() -> None:
    """Seed 003, 15 LI 5: "If more than one type of interceptor is attacking the escorts, the player
    with the escorts must prioritize the types of interceptor he wishes to shoot at." Without an
    order the Wildcats fire at the Zeros (most factors); ESCORTS Rufe sends their fire at the Rufes."""
    cap = with_cap(AirFactors("Zero", 6, True), AirFactors("Rufe", 2, False))
    plain = strike(cap, [])
    assert re.search(r"escort stage: \d+ Wildcat \(allied\) fire at Zero", plain), plain
    ordered = strike(cap, ["ESCORTS Rufe"])
    assert re.search(r"escort stage: \d+ Wildcat \(allied\) fire at Rufe", ordered), ordered


def test_fighters_with_a_strike_at_another_altitude_are_told_why_they_do_not_escort() -> None:
    """Reference A.6: "Escorts must fly at the same altitude as the bombers in their AF". Fighters
    sent with a strike never silently do nothing: the Wildcats of AF8 that stayed High while the
    Dauntless came in Low are told why they did not escort; at Low they are told they escorted."""
    state = with_cap(AirFactors("Zero", 6, True))
    start = fw._hex(state, "V-E25")
    for altitude, said in (
        (Altitude.HIGH, "did not escort: the bombers came in low"),
        (Altitude.LOW, "flew with"),
    ):
        wildcats = AirFormation(
            8, Side.ALLIED, start, (AirFactors("Wildcat", 2, True, None, altitude),), "TF1", 1
        )
        declared = play(
            replace(state, air=(*state.air, wildcats)),
            {"allied": [MIXED, f"FLY AF8 PATH {TARGET_HEX}"], "japanese": []},
            "T2.orders",
        )
        struck = play(declared.state, {"allied": ["TARGET AF9 A-CV1"], "japanese": []}, "T2.strike")
        letter = told(struck, Side.ALLIED)
        assert f"AF8 (2 Wildcat, {altitude.value}) {said}" in letter, letter
        assert "AF9's 1 Wildcat fly with its bombers as their escort" in letter, letter


def over_yorktown(japanese: list[str], cap: int = 4) -> tuple[str, str, str]:
    """Zeros (the Japanese AF20, Low) fly over the Allied TF1 at V-E26, where the Allied AF8 of
    ``cap`` Wildcats flies CAP at Low: (the referee's rolls, the Allied letter, the Japanese letter)."""
    state = with_cap(AirFactors("Zero", 6, True))
    allied_cap = AirFormation(
        8, Side.ALLIED, fw._hex(state, "V-E26"), (AirFactors("Wildcat", cap, True),), "TF1", 1
    )
    hour = play(
        replace(state, air=(*state.air, allied_cap)), {"allied": [], "japanese": japanese}, "T2.orders"
    )
    return referee(hour.events, "air-combat.roll"), told(hour, Side.ALLIED), told(hour, Side.JAPANESE)


def test_enemy_fighters_over_a_tf_with_cap_present_fight_it() -> None:
    """Reference A.11.4: "Only interceptors can start it ... If both sides have interceptors, either
    may start it, and then all interceptors in the hex must fight"; interceptor against interceptor
    "works like the escort fight, but with no bomber stage". The Zeros that fly over Yorktown are met
    by her Wildcat CAP (design default: fighters start it over their own ships); both fire, both
    sides are told, and the Japanese hear the Allied losses as the defender reports them."""
    rolls, allied, japanese = over_yorktown(["FLY AF20 PATH V-E25 V-E26"])
    assert re.search(r"\d+ Wildcat \(allied\) fire at Zero", rolls), rolls
    assert re.search(r"\d+ Zero \(japanese\) fire at Wildcat", rolls), rolls
    assert "Your fighters AF8 fought enemy planes at V-E26" in allied, allied
    assert re.search(
        r"AF20 at V-E26 met enemy fighters .*: you lost .*; "
        r"(your fire downed none|enemy fighters lost about [1-9])",
        japanese,
    ), japanese
    assert "about 0" not in japanese


def test_a_fighter_sweep_may_attack_and_fights_the_planes_where_it_ends() -> None:
    """A fighter AF "cannot ATTACK" no more: FLY ... ATTACK by fighters is a sweep (reference A.11.4:
    interceptors start air combat) that fights the enemy planes where its path ends, ships or not;
    without ATTACK, fighters meeting enemy planes away from their own ships do not fight."""
    state = with_cap(AirFactors("Zero", 6, True))
    away = fw._hex(state, "V-E25")
    wildcats = AirFormation(8, Side.ALLIED, away, (AirFactors("Wildcat", 2, True),), "TF1", 1)
    state = replace(state, air=(*state.air, wildcats))
    for line, fought in (("FLY AF20 PATH V-E25 ATTACK", True), ("FLY AF20 PATH V-E25", False)):
        parsed = GAME.parse(state, "japanese", [Line(1, line)])
        assert not parsed.problems, parsed.problems
        hour = play(state, {"allied": [], "japanese": [line]}, "T2.orders")
        rolls = referee(hour.events, "air-combat.roll")
        assert bool(re.search(r"\d+ Zero \(japanese\) fire at Wildcat", rolls)) is fought, (line, rolls)
        assert ("AF20 sweeps V-E25" in told(hour, Side.JAPANESE)) is fought


def test_14_13_2_an_interception_made_during_movement_is_fought_in_an_hour_with_a_strike() -> None:
    """Seed 003, 14.13.2 (reference A.7): an interception that succeeded during plane movement is
    fought in the Combat Phase; when a strike makes the hour wait for its choice step, the
    interception is kept with the battle and fought then (it was dropped)."""
    state = with_cap(AirFactors("Zero", 6, True))
    away = fw._hex(state, "V-E25")
    wildcats = AirFormation(8, Side.ALLIED, away, (AirFactors("Wildcat", 2, True),), "TF1", 1)
    zeros = AirFormation(21, Side.JAPANESE, away, (AirFactors("Zero", 2, True),), "TF1", 1)
    declared = play(
        replace(state, air=(*state.air, wildcats, zeros)), {"allied": [MIXED], "japanese": []}, "T2.orders"
    )
    assert declared.state.pending.battle is not None
    battle = replace(declared.state.pending.battle, interceptions=((Side.JAPANESE, 21, 8, away),))
    waiting = replace(declared.state, pending=replace(declared.state.pending, battle=battle))
    struck = play(waiting, {"allied": ["TARGET AF9 A-CV1"]}, "T2.strike")
    assert "AF21 fought the enemy AF at V-E25" in told(struck, Side.JAPANESE)
    assert "AF8 fought enemy interceptors at V-E25" in told(struck, Side.ALLIED)


def test_a13_every_factor_shot_down_over_the_target_is_scored_whatever_af_it_flew_in() -> None:
    """Reference A.13: each Air Factor lost scores 2 VP, once. Two AFs of Dauntless that each lose as
    many factors to the CAP are two losses (the strike's count kept them in a set and scored one),
    and AA fires at the bombers that came through the CAP only (the targets were placed before the
    air combat, so AA shot down and scored the fallen again): for several dice streams the ledger's
    Allied air points are twice the factors gone from the AFs."""
    state = with_cap(AirFactors("Zero", 8, True))
    start = fw._hex(state, "V-E25")
    pair = tuple(
        AirFormation(n, Side.ALLIED, start, (AirFactors("Dauntless", 3, True, Armament.AP),), "TF1", 1)
        for n in (7, 9)
    )
    state = replace(state, air=(*state.air, *pair))
    orders = [f"FLY AF7 PATH {TARGET_HEX} ATTACK", f"FLY AF9 PATH {TARGET_HEX} ATTACK"]
    for key in ("a", "b", "c", "d", "e", "f", "g", "h"):
        declared = play(state, {"allied": orders, "japanese": []}, f"T2.orders.{key}")
        struck = play(
            declared.state, {"allied": ["TARGET AF7 A-CV1", "TARGET AF9 A-CV1"]}, f"T2.strike.{key}"
        )
        left = sum(a.factors for a in struck.state.own_air(Side.ALLIED) if a.number in (7, 9))
        scored = sum(
            e.points for e in struck.state.score.ledger if e.owner is Side.ALLIED and e.key.startswith("air:")
        )
        assert scored == 2 * (6 - left), key


def test_a_fight_of_fighters_is_combat_news_in_both_letters() -> None:
    """The fight over Yorktown is read under "Combat and losses", not "Other news"."""
    from mailbot.games.flattop.view_news import GROUPS

    combat = dict(GROUPS)["Combat and losses"]
    assert {"ft.fighters", "ft.intercept-combat"} <= combat


def with_cap_and_af7() -> FlatTopState:
    """``with_cap`` (six Zeros) with the Allied AF7 (3 Dauntless AP, Low, aloft since turn 1) kept at
    V-E25."""
    af7 = next(a for a in _base().air if a.number == 7 and a.side is Side.ALLIED)
    state = with_cap(AirFactors("Zero", 6, True))
    return replace(state, air=(*state.air, af7))


def test_7_fighters_join_a_strike_already_in_flight_and_escort_it_as_one_af() -> None:
    """Seed 003, 7: "an armed strike ... can be joined along its path by another ... AF as long as a
    specific rendezvous hex is listed, and that the movement of the non-searching AF is stated to
    conform to that of the searcher for the remainder of the move"; reference A.6: "a
    fighter-capable factor in an AF *with* bombers is an escort". AF7's Dauntless have been aloft
    since turn 1; two Wildcats launched from Yorktown meet them at V-E25 and follow them into the
    target hex, where the two AFs become one (design default: a rendezvous with a strike flying a
    planned path is as certain as one with a searcher). The Wildcats fight the Zero CAP in the
    escort stage, and fly home with AF7."""
    state = with_cap_and_af7()
    strike_line = f"FLY AF7 PATH {TARGET_HEX} ATTACK"
    join = "FLY AF9 FROM TF1 2 Wildcat PATH V-E25 RENDEZVOUS V-E25 WITH AF7"
    parsed = GAME.parse(state, "allied", [Line(1, strike_line), Line(2, join.lower())])
    assert not parsed.problems and [a.normalised for a in parsed.accepted][1] == join
    declared = play(state, {"allied": [strike_line, join], "japanese": []}, "T2.orders")
    letter = told(declared, Side.ALLIED)
    assert f"AF9 met AF7 at V-E25 and followed it to {TARGET_HEX}" in letter, letter
    assert f"AF9 joined AF7 at {TARGET_HEX}: one AF of 5 factors" in letter, letter
    af7 = next(a for a in declared.state.own_air(Side.ALLIED) if a.number == 7)
    assert {(s.plane, s.count, s.armament is None) for s in af7.stacks} == {
        ("Dauntless", 3, False),
        ("Wildcat", 2, True),
    }
    assert all(a.number != 9 for a in declared.state.own_air(Side.ALLIED))
    battle = declared.state.pending.battle
    assert battle is not None and [s.af for s in battle.strikes] == [7]
    struck = play(declared.state, {"allied": ["TARGET AF7 A-CV1"], "japanese": []}, "T2.strike")
    rolls = referee(struck.events, "air-combat.roll")
    assert re.search(r"escort stage: \d+ Wildcat \(allied\) fire at Zero", rolls), rolls
    assert "AF7's 2 Wildcat fly with its bombers as their escort" in told(struck, Side.ALLIED)


def test_7_a_rendezvous_with_a_strike_is_missed_off_its_path_and_nothing_merges() -> None:
    """Seed 003, 7 ("there is a chance that they may miss connections"): Wildcats sent to V-D25 to
    meet AF7, whose path does not pass there, wait there as AF9."""
    state = with_cap_and_af7()
    missed = "FLY AF9 FROM TF1 2 Wildcat PATH V-D25 RENDEZVOUS V-D25 WITH AF7"
    hour = play(state, {"allied": [f"FLY AF7 PATH {TARGET_HEX}", missed], "japanese": []}, "T2.orders")
    assert "AF9 missed its rendezvous with AF7 at V-D25" in told(hour, Side.ALLIED)
    af9 = next(a for a in hour.state.own_air(Side.ALLIED) if a.number == 9)
    assert hour.state.scenario.map.hex_id(af9.hex) == "V-D25" if af9.hex else False


def test_7_a_searcher_that_finds_its_friend_attacking_joins_it() -> None:
    """Seed 003, 7: "A searching AF MAY be directed to join a specific friendly AF that is searching
    for, and attacking if found, enemy ships. In this case the second AF must find both the enemy TF
    and the friendly AF by search die rolls." Every die a 2 (a natural 2 always succeeds, 7.3): the
    searching Wildcats of AF9 find the Japanese TF and the searching Dauntless of AF6 attacking it,
    fly to it and become part of it, and AF6 alone is declared."""
    state = with_cap_and_af7()
    orders = {
        "allied": [
            f"SEARCH AF6 FROM TF1 1 Dauntless GP PATH V-E25 {TARGET_HEX} IF SHIPS ATTACK",
            "SEARCH AF9 FROM TF1 2 Wildcat PATH V-D25 JOIN AF6",
        ],
        "japanese": [],
    }
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    hour = GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=FixedDice([1] * 4000))
    letter = told(hour, Side.ALLIED)
    assert f"AF9 joined AF6 at {TARGET_HEX}" in letter, letter
    assert all(a.number != 9 for a in hour.state.own_air(Side.ALLIED))
    battle = hour.state.pending.battle
    assert battle is not None and 9 not in [s.af for s in battle.strikes]
