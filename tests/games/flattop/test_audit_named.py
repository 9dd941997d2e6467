# SPDX-License-Identifier: GPL-3.0-or-later
"""Named tests for what two referee audits never reached (issue 36), played through the engine with
both sides' orders: the speed loss and the sinking of an already damaged carrier, base repair, and
the convoy's victory points.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Line, Outcome
from mailbot.games.flattop.hour import aftermath
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Armament, Base, Ship, Side

from .combat.test_strike_flow import GAME, TARGET_HEX, big_strike
from .play import game_data, new, play
from .test_bombard_play import at_the_base
from .test_tally import assert_tally


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def resolve(state: FlatTopState, orders: dict[str, list[str]]) -> Outcome[FlatTopState]:
    """One step on dice of 3 for every roll (6 on 2d6; 3 fits every die the game rolls)."""
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    return GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=FixedDice([3] * 3000))


def with_ship(state: FlatTopState, name: str, **changes: Any) -> FlatTopState:
    tfs = tuple(
        replace(t, ships=tuple(replace(s, **changes) if s.name == name else s for s in t.ships))
        for t in state.task_forces
    )
    return replace(state, task_forces=tfs)


def ship_of(state: FlatTopState, name: str) -> Ship:
    return next(s for t in state.task_forces for s in t.ships if s.name == name)


def told(outcome: Outcome[FlatTopState], side: Side) -> str:
    return "\n".join(e.text for e in outcome.events if e.visible_to(side.value))


# --- a damaged carrier: speed loss, then delayed sinking -------------------------------------------


def test_a12_a_carrier_at_half_her_damage_factor_moves_at_half_speed_and_the_refusal_says_why() -> None:
    """Reference A.12 (standard 21): at half her Damage Factor a ship's MF is halved, and a TF moves
    at its slowest ship's. Shokaku at 4/8 holds TF1 (MF 2) to one hex, and the refusal of a
    two-hex plot names her damage; the one-hex plot is sailed."""
    state = with_ship(big_strike(), "Shokaku", hits=4)
    problems = GAME.parse(state, "japanese", [Line(1, "PLOT TF1 V-E25 V-E26")]).problems
    why = "(Shokaku is at half speed from her damage, 4/8 hits: reference A.12)"
    assert problems and problems[0].reason.endswith(f"2 hexes plotted, TF 1 may move 1 {why}"), problems
    hour = resolve(state, {"japanese": ["PLOT TF1 V-E25"], "allied": []})
    tf1 = next(t for t in hour.state.task_forces if t.side is Side.JAPANESE and t.number == 1)
    assert state.scenario.map.hex_id(tf1.hex) == "V-E25"


def test_li4_a_damaged_carrier_destroyed_by_a_second_strike_sinks_hours_later_scored_once() -> None:
    """Seed 003, 15 LI 4: "Larger ships may take several hours to actually sink" (Damage Factor 6 or
    more: 1 to 6 hours), reported "crippled" meanwhile (LI 3: "dead in the water"); A.13 scores her
    once, when destroyed; A.12: the planes still aboard when she goes down are lost with her."""
    state = with_ship(big_strike(), "Shokaku", hits=6)
    declared = resolve(state, {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"], "japanese": []})
    struck = resolve(declared.state, {"allied": ["TARGET AF7 A-CV1"], "japanese": []})
    shokaku = ship_of(struck.state, "Shokaku")
    assert shokaku.destroyed and not shokaku.sunk and shokaku.sinking
    assert "attacked A-CV1: hits seen: she is dead in the water" in told(struck, Side.ALLIED)
    japanese = told(struck, Side.JAPANESE)
    assert "CV Shokaku took" in japanese and "and is sinking" in japanese
    assert "her launch factor" not in japanese  # a sinking carrier launches nothing: no note
    scored = [e for e in struck.state.score.ledger if e.key == "sunk:japanese:Shokaku"]
    assert [(e.side, e.cause) for e in scored] == [(Side.ALLIED, aftermath.AIR_STRIKE)]
    hours, after = 0, struck
    while not ship_of(after.state, "Shokaku").sunk:
        after = resolve(after.state, {})
        hours += 1
        assert_tally(after.state)
        assert hours <= 6
    assert "CV Shokaku sank" in told(after, Side.JAPANESE)
    assert "Shokaku" not in told(after, Side.ALLIED)
    assert [e.key for e in after.state.score.ledger].count("sunk:japanese:Shokaku") == 1
    gone = [e for e in after.state.score.ledger if e.cause == aftermath.SINKING]
    assert all(e.owner is Side.JAPANESE and e.key.startswith("air:") for e in gone)


# --- base repair (reference A.12; 21.3 note c) --------------------------------------------------------


def base_of(state: FlatTopState) -> Base:
    return next(b for b in state.bases if b.side is Side.ALLIED and b.hex is not None)


def test_a12_a_base_repairs_one_hit_an_hour_it_is_not_attacked(data: dict[str, Any]) -> None:
    """Reference A.12: a base not attacked in the turn repairs one hit (LF +2/+1, SF +1, AA +1), no
    higher than before its first hit."""
    shelled = play(at_the_base(data), {"japanese": ["BOMBARD TF1"]}).state
    hit = base_of(shelled)
    assert hit.hits > 0 and hit.start is not None
    quiet = play(replace(shelled, task_forces=shelled.task_forces), {"japanese": [], "allied": []}).state
    mended = base_of(quiet)
    assert mended.hits == hit.hits - 1
    assert mended.launch == min(hit.start.launch, hit.launch + 2)


def test_a12_a_base_bombarded_in_an_hour_that_ends_in_a_strike_step_does_not_repair(
    data: dict[str, Any],
) -> None:
    """Reference A.12: "one hit a turn unless attacked this turn". The Japanese bombard Port Moresby
    while the Allies strike their TF in the same hex, so the hour ends in the strike step (issue 36:
    "a base bombarded in an hour that ends in a later sub-step repairs anyway")."""
    state = at_the_base(data)
    base = base_of(state)
    assert base.hex is not None
    armed = (AirFactors("Dauntless", 3, True, Armament.AP),)
    strike = AirFormation(7, Side.ALLIED, base.hex, armed, base.name, state.turn - 1)
    state = replace(state, air=(*state.air, strike))
    declared = play(
        state,
        {
            "japanese": ["BOMBARD TF1"],
            "allied": [f"FLY AF7 PATH {state.scenario.map.hex_id(base.hex)} ATTACK"],
        },
    )
    assert declared.state.pending.battle is not None  # the hour goes on in the strike step
    shelled = base_of(declared.state)
    struck = play(declared.state, {"allied": []})
    assert base_of(struck.state).hits == shelled.hits  # no repair this hour


# --- the convoy's victory points (reference A.13; the scenario's [[victory.unloaded]]) -----------------


def convoy_at_moresby(data: dict[str, Any]) -> FlatTopState:
    """coral-sea-demo: the Japanese convoy TF10 (five AP) at Port Moresby (V-E24, the unloading
    hex), Akiba Maru one hit from her Damage Factor, and the Allied AF9 (8 B-17, AP) next to it."""
    state = new(data, "coral-sea-demo")
    h = state.scenario.map.parse
    tfs = tuple(
        replace(t, hex=h("V-E24"), plot=()) if t.side is Side.JAPANESE and t.number == 10 else t
        for t in state.task_forces
    )
    b17 = AirFormation(
        9, Side.ALLIED, h("V-E25"), (AirFactors("B-17", 8, False, Armament.AP),), "Port Moresby", 0
    )
    return with_ship(replace(state, task_forces=tfs, air=(*state.air, b17)), "Akiba Maru", hits=3)


def fixed(state: FlatTopState, orders: dict[str, list[str]]) -> Outcome[FlatTopState]:
    """``resolve`` with the Allies winning the initiative (dice of 3 tie it)."""
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    lead = {"initiative/allied": [5] * 9, "initiative/japanese": [2] * 9}
    return GAME.resolve(
        state, {s: p.orders for s, p in parsed.items()}, dice=FixedDice([3] * 5000, by_label=lead)
    )


def test_a13_the_convoy_scores_its_unloading_and_troops_and_a_transport_sunk_after_it_scores_less(
    data: dict[str, Any],
) -> None:
    """Reference A.13: "an AP unloads 3 VP a turn for 8 turns, and its value if sunk falls from 24 by
    3 each time"; coral-sea-demo's [[victory.unloaded]]: 1 VP per troop factor the convoy lands at
    Port Moresby (design default: a transport lands one a turn). Two hours of UNLOAD score 5 x 3 + 5
    x 1 each; Akiba Maru, sunk in the third while unloading, scores the Allies 24 - 3 x 3 = 15."""
    state = convoy_at_moresby(data)
    for hour in (1, 2):
        state = fixed(state, {"japanese": ["UNLOAD TF10"], "allied": []}).state
        unloading = [e for e in state.score.ledger if e.cause == "unloading" and e.turn == state.turn - 1]
        troops = [e for e in state.score.ledger if e.cause == "troops unloaded" and e.turn == state.turn - 1]
        assert [e.points for e in unloading] == [3] * 5, hour
        assert [e.points for e in troops] == [1] * 5, hour
        assert all(e.side is Side.JAPANESE for e in (*unloading, *troops))
    declared = fixed(state, {"japanese": ["UNLOAD TF10"], "allied": ["FLY AF9 PATH V-E24 ATTACK"]})
    battle = declared.state.pending.battle
    assert battle is not None
    target = next(s.label for t in battle.targets for s in t.ships if s.name == "Akiba Maru")
    struck = fixed(declared.state, {"allied": [f"TARGET AF9 {target}"], "japanese": []})
    akiba = ship_of(struck.state, "Akiba Maru")
    assert akiba.destroyed and akiba.unloaded == 3
    (sunk,) = [e for e in struck.state.score.ledger if e.key == "sunk:japanese:Akiba Maru"]
    assert (sunk.side, sunk.points, sunk.cause) == (Side.ALLIED, 24 - 3 * 3, aftermath.AIR_STRIKE)
    assert_tally(struck.state)


# --- coastwatchers (seed 003, 7.9.5 and 7.9.6) played through the engine -----------------------------


def watched(data: dict[str, Any], hour: int) -> Outcome[FlatTopState]:
    """coral-sea-demo at ``hour`` of day 1: the Japanese TF1 in VII-J24 (a sea/land hex of
    Guadalcanal), TF2 in VII-J25 (all sea, next to its coast), the Allied TF10 in III-A21 (a
    sea/land hex of Rendova); both sides HOLD."""
    state = new(data, "coral-sea-demo")
    h = state.scenario.map.parse
    where = {(Side.JAPANESE, 1): "VII-J24", (Side.JAPANESE, 2): "VII-J25", (Side.ALLIED, 10): "III-A21"}
    tfs = tuple(
        replace(t, hex=h(where[(t.side, t.number)]), plot=()) if (t.side, t.number) in where else t
        for t in state.task_forces
    )
    return play(
        replace(state, task_forces=tfs, turn=1 + hour - 5), {"allied": ["HOLD"], "japanese": ["HOLD"]}
    )


def coastwatched(outcome: Outcome[FlatTopState], side: Side) -> set[tuple[str, str, int]]:
    state = outcome.state
    seen = state.side(side).knowledge.of_turn(state.turn - 1)
    return {
        (s.observer_key, s.hex, s.condition) for s in seen if s.observer_kind == "CW" and s.kind == "ships"
    }


def test_7_9_5_and_7_9_6_coastwatchers_report_by_island_terrain_and_daylight(data: dict[str, Any]) -> None:
    """Seed 003, 7.9.5, CORAL SEA: "Allied only: ... Guadalcanal ... Japanese only: Rendova,
    Kolombomgara, Treasury"; 7.9.6: "TF in sea/land hex: Condition 2 (day), Condition 1 (night);
    TF in all-sea hex: Condition 1 (day only)". By day the Allies' Guadalcanal watchers see TF1 at
    Condition 2 and TF2 at 1; at night TF1 at 1 and TF2 not at all. Only the Japanese watch Rendova:
    the Allied TF there is theirs to see, and no Allied watcher reports it."""
    day = watched(data, 10)
    assert coastwatched(day, Side.ALLIED) == {
        ("CW Guadalcanal", "VII-J24", 2),
        ("CW Guadalcanal", "VII-J25", 1),
    }
    assert ("CW Rendova", "III-A21", 2) in coastwatched(day, Side.JAPANESE)
    assert not any(k == "CW Guadalcanal" for k, _, _ in coastwatched(day, Side.JAPANESE))
    night = watched(data, 5)
    assert coastwatched(night, Side.ALLIED) == {("CW Guadalcanal", "VII-J24", 1)}
    assert ("CW Rendova", "III-A21", 1) in coastwatched(night, Side.JAPANESE)
    letter = "\n".join(e.text for e in day.events if e.visible_to("allied"))
    assert "2 contact report(s) this turn" in letter
