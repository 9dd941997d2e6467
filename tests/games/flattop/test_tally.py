# SPDX-License-Identifier: GPL-3.0-or-later
"""The final tally after every way a ship or an aircraft is lost, played through the engine.

Reference A.13 scores "ships sunk" and "air factors lost" to the enemy (an air factor that could
not land in time by its owner's choice 10 VP instead of 2); seed 003's VICTORY POINT CHANGE scores
bases and survivors. Every fight puts its ships back one way (``combat.aftermath``), so a ship
destroyed is scored once whatever sank her, and every ledger entry names its cause: the
referee's view and the archive read the ledger whole (issue 36, error 1: the surface copy of
"write the ships back" never scored, and Canberra, Chicago and Vincennes were missing).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.games.flattop import GAME
from mailbot.games.flattop.fleet import SCUTTLED
from mailbot.games.flattop.hour import aftermath
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.turn import LANDING
from mailbot.games.flattop.map.weather import Cloud, storm_hexes
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Side
from mailbot.games.flattop.victory import totals
from mailbot.games.flattop.victory_end import final

from .play import game_data, new, play

CAUSES = {
    aftermath.AIR_STRIKE,
    aftermath.AIR_COMBAT,
    aftermath.SURFACE,
    aftermath.SUBMARINE,
    aftermath.ANTI_SUBMARINE,
    aftermath.BOMBARDMENT,
    aftermath.FIRE,
    aftermath.SINKING,
    "fuel",
    SCUTTLED,
    LANDING,
}


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def assert_tally(state: FlatTopState) -> None:
    """Every destroyed ship scored once, to her enemy, with a cause; every loss has a cause."""
    sunk = {e.key: e for e in state.score.ledger if e.key.startswith("sunk:")}
    for tf in state.task_forces:
        for ship in tf.ships:
            entry = sunk.pop(f"sunk:{tf.side}:{ship.name}", None)
            assert (entry is not None) is ship.destroyed, ship.name
            assert entry is None or (entry.side is tf.side.opponent and entry.cause in CAUSES)
    assert not sunk  # nothing scored that is not destroyed
    assert all(e.cause in CAUSES for e in state.score.ledger if e.key.startswith(("sunk:", "air:")))
    scores = totals(state.score.ledger)
    assert sum(scores.values()) == sum(e.points for e in state.score.ledger)


def referee_lines(state: FlatTopState) -> list[str]:
    return [line["text"] for line in GAME.view(state, (), None)["vp"]["lines"]]


# --- surface and submarine: the surface demo played to its end -------------------------------------


def test_a13_ships_sunk_in_surface_combat_score_and_the_ledger_names_the_cause() -> None:
    """A.13: the enemy scores "ships sunk". The surface demo (issue 36: "Canberra, Chicago and
    Vincennes sank and the tally holds only the two submarines' 3 points each")."""
    from .test_surface_demo import played

    state, letters, _ = played()
    assert_tally(state)
    causes = {e.key: e.cause for e in state.score.ledger}
    assert causes["sunk:allied:Canberra"] == causes["sunk:japanese:Chokai"] == aftermath.SURFACE
    assert causes["sunk:japanese:I-21"] == aftermath.ANTI_SUBMARINE
    assert "Allied CA Canberra sunk [surface combat]" in referee_lines(state)
    final = " ".join(letters["allied"][-1].split())
    assert "CA Canberra sunk [surface combat]" in final  # her own side reads her name
    assert "Japanese CA sunk [surface combat]" in final  # the enemy's: the type only


# --- air: a strike on a carrier, the planes aboard and in the air ------------------------------------


def _shokaku_ready(state: FlatTopState) -> FlatTopState:
    """Shokaku with 4 Zero and 4 Kate in her Ready box (a dive attack there is the attacker's pick)."""
    from mailbot.games.flattop.units import AirBoxes

    def ready(ship: Any) -> Any:
        boxes = AirBoxes(ready=(AirFactors("Zero", 4, True), AirFactors("Kate", 4, True)))
        return replace(ship, boxes=boxes) if ship.name == "Shokaku" else ship

    tfs = tuple(replace(t, ships=tuple(ready(s) for s in t.ships)) for t in state.task_forces)
    return replace(state, task_forces=tfs)


def _struck(state: FlatTopState) -> Any:
    from .combat.test_strike_flow import TARGET_HEX
    from .combat.test_strike_flow import play as play_step

    declared = play_step(state, {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    return play_step(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")


def test_a13_an_air_strike_scores_the_planes_shot_down_and_those_lost_aboard_even_in_readying() -> None:
    """A.12: hits destroy Air Factors aboard, Readying included (21.7.1 hides them from the attacker,
    not from the tally); A.13 scores each factor lost 2 VP."""
    from .combat.test_strike_flow import big_strike

    struck = _struck(big_strike())
    assert_tally(struck.state)
    entries = {(e.reason, e.cause) for e in struck.state.score.ledger}
    assert ("Japanese 3 Val factors lost", aftermath.AIR_STRIKE) in entries  # Readying: hidden, scored
    assert ("Allied 2 Dauntless factors lost", aftermath.AIR_STRIKE) in entries  # AA
    japanese = [e.text for e in struck.events if e.kind == "ft.strike" and e.visible_to("japanese")]
    assert "aircraft lost aboard: 3 Val" in japanese[0]


def test_li3_the_defender_learns_the_types_lost_and_the_tally_scores_them_only_after_the_ranking() -> None:
    """15 LI 3: "the defender need only tell the attacker what type of aircraft are present, not the
    exact numbers. The attacker then ranks them in desired order of elimination." (issue 36, error 2:
    "4 Wildcat" was told, then 4 Devastators died, and the wrong type stayed in the tally)."""
    from .combat.test_strike_flow import big_strike
    from .combat.test_strike_flow import play as play_step

    struck = _struck(_shokaku_ready(big_strike()))
    japanese = " ".join(e.text for e in struck.events if e.kind == "ft.strike" and e.visible_to("japanese"))
    assert "6 factors, types as the attacker ranks them (15 LI 3)" in japanese
    assert "Zero" not in japanese and "Kate" not in japanese
    assert not any("Kate" in e.reason or "Zero" in e.reason for e in struck.state.score.ledger)
    ranked = play_step(struck.state, {"allied": ["RANK A-CV1 Kate Zero"]}, "T2.losses")
    told = [e.text for e in ranked.events if e.kind == "ft.rank" and e.visible_to("japanese")]
    assert told == ["Shokaku: the aircraft lost as the enemy ranked their types: 4 Kate, 2 Zero"]
    lost = {e.reason for e in ranked.state.score.ledger if e.cause == aftermath.AIR_STRIKE}
    assert {"Japanese 4 Kate factors lost", "Japanese 2 Zero factors lost"} <= lost
    assert_tally(ranked.state)


def test_li3_a_silent_attacker_leaves_the_default_losses_and_they_are_scored() -> None:
    from .combat.test_strike_flow import big_strike
    from .combat.test_strike_flow import play as play_step

    struck = _struck(_shokaku_ready(big_strike()))
    done = play_step(struck.state, {}, "T2.losses")
    ledger = done.state.score.ledger
    scored = sum(e.points for e in ledger if e.owner is Side.JAPANESE and e.key.startswith("air:"))
    assert scored == 6 * 2  # the six factors lost, 2 VP each (A.13)
    assert_tally(done.state)


# --- fuel and storms: an AF that cannot land in time ------------------------------------------------


def test_8_5_5_an_af_out_of_fuel_is_lost_unnecessarily_10_vp_a_factor(data: dict[str, Any]) -> None:
    """Standard 8.5.5; A.13: "10 VP per Air Factor that could not land in time" (a storm over its
    carrier or its owner's plan: the tally is the same)."""
    state = new(data)
    base = next(b for b in state.bases if b.side is Side.JAPANESE and b.hex is not None)
    lost = AirFormation(9, Side.JAPANESE, base.hex, (AirFactors("Zero", 3),), base.name, takeoff_turn=-20)
    outcome = play(replace(state, air=(*state.air, lost)), {})
    (entry,) = [e for e in outcome.state.score.ledger if e.owner is Side.JAPANESE]
    assert (entry.points, entry.cause, entry.side) == (30, "fuel", Side.ALLIED)
    assert "lost unnecessarily" in entry.reason
    assert_tally(outcome.state)


# --- bombardment ------------------------------------------------------------------------------------


def test_a11_8_planes_on_the_ground_lost_to_a_bombardment_are_scored(data: dict[str, Any]) -> None:
    """A.12: each hit on a base destroys an Air Factor there; A.13 scores them."""
    from .test_bombard_play import at_the_base

    state = at_the_base(data)
    base = next(b for b in state.bases if b.side is Side.ALLIED and b.hex is not None)
    full = replace(base, boxes=replace(base.boxes, ready=(AirFactors("Wildcat", 12),)))
    state = replace(state, bases=tuple(full if b is base else b for b in state.bases))
    outcome = play(state, {"japanese": ["BOMBARD TF1"]})
    after = next(b for b in outcome.state.bases if b.name == base.name)
    gone = 12 - sum(s.count for s in after.boxes.ready)
    scored = [e for e in outcome.state.score.ledger if e.cause == aftermath.BOMBARDMENT]
    assert gone and sum(e.points for e in scored) == 2 * gone
    assert_tally(outcome.state)


# --- storms: an AF whose carrier is under a storm -----------------------------------------------------


def storm_over_yorktown(data: dict[str, Any]) -> FlatTopState:
    """0700 (clouds do not drift this hour), two cloud markers overlapping on TF1 at V-E26 (a storm,
    standard 6.5), and the Allied AF2 (2 Wildcat) one hex off on its last turn of range."""
    state = play(play(new(data), {}).state, {}).state
    h = state.scenario.map.parse
    clouds = (Cloud(1, h("V-E24"), 5), Cloud(2, h("V-E28"), 5))  # type: ignore[arg-type]
    state = replace(state, weather=replace(state.weather, clouds=clouds))
    assert storm_hexes(state.weather, state.rules.weather) == {h("V-E26")}
    wildcats = AirFormation(2, Side.ALLIED, h("V-E25"), (AirFactors("Wildcat", 2, True),), "TF1", -20)
    return replace(state, air=(*state.air, wildcats))


def test_6_6_an_af_lands_on_its_carrier_under_a_storm_by_the_night_landing_chart_2_vp_a_loss(
    data: dict[str, Any],
) -> None:
    """Standard 6.6: "Planes may not enter a Storm hex ... Planes landing in a Storm hex use the
    Night Landing Chart"; 25.4 (reference A.13): 10 VP only for factors "unable to land safely by
    the turn of landing due to player error or choice". A storm over Yorktown no longer keeps AF2
    off her (an earlier reading lost it for fuel, 10 VP a factor): it lands by the chart, and a
    factor the chart eliminates scores 2 VP, like any landing loss."""
    outcome = play(storm_over_yorktown(data), {"allied": ["LAND AF2 TF1"], "japanese": ["HOLD"]})
    assert not any(a.number == 2 for a in outcome.state.own_air(Side.ALLIED))
    told = "\n".join(e.text for e in outcome.events if e.visible_to("allied"))
    assert "AF2 landed at TF1 in a storm (the Night Landing Chart, standard 6.6)" in told
    entries = [e for e in outcome.state.score.ledger if e.owner is Side.ALLIED]
    assert entries and all((e.cause, e.side) == (LANDING, Side.JAPANESE) for e in entries)
    assert not any(e.cause == "fuel" for e in outcome.state.score.ledger)
    lost = 2 - sum(s.count for t in outcome.state.own_tfs(Side.ALLIED) for sh in t.ships
                   for s in sh.boxes.just_landed if s.plane == "Wildcat")  # fmt: skip
    assert sum(e.points for e in entries) == 2 * lost
    assert_tally(outcome.state)


# --- scuttling (reference A.5.1, standard 12.9) --------------------------------------------------------


def test_12_9_a_scuttled_carrier_scores_as_sunk_with_the_planes_aboard(data: dict[str, Any]) -> None:
    """Reference A.5.1: "Scuttling is allowed during TF movement; the enemy scores it as sunk";
    A.12: a sunk carrier takes its planes with it (Yorktown: 4 Wildcat and 6 Dauntless ready, 2
    Devastator readying, 12 factors at 2 VP each, A.13)."""
    state = new(data)
    outcome = play(state, {"allied": ["SCUTTLE Yorktown"]})
    yorktown = next(s for t in outcome.state.task_forces for s in t.ships if s.name == "Yorktown")
    assert yorktown.sunk and yorktown.destroyed_turn == state.turn
    scored = [e for e in outcome.state.score.ledger if e.owner is Side.ALLIED]
    assert {e.cause for e in scored} == {SCUTTLED}
    assert all(e.side is Side.JAPANESE for e in scored)
    ship = [e for e in scored if e.key == "sunk:allied:Yorktown"]
    assert [e.points for e in ship] == [20]
    assert sum(e.points for e in scored if e.key.startswith("air:")) == 12 * 2
    told = "\n".join(e.text for e in outcome.events if e.visible_to("allied"))
    assert "CV Yorktown was scuttled with 12 air factor(s) aboard (standard 12.9)" in told
    assert "Yorktown" not in "\n".join(e.text for e in outcome.events if e.visible_to("japanese"))
    assert_tally(outcome.state)
    again = parse_problems(outcome.state, "SCUTTLE Yorktown")
    assert again and "no ship YORKTOWN afloat" in again[0].reason


def parse_problems(state: FlatTopState, line: str) -> Any:
    from .play import parse

    return parse(state, "allied", line).problems


# --- the final tally after every way a ship or a plane is lost ------------------------------------------


def test_a13_the_final_tally_adds_every_loss_once_whatever_its_cause(data: dict[str, Any]) -> None:
    """A.13, played to the verdict: AF2 lands on Yorktown under a storm by the Night Landing Chart
    (standard 6.6; a factor lost there 2 VP), the Allies fly AF8 past its range (fuel, 10 VP a
    factor, 25.4) and scuttle Astoria, the Japanese lose an AF out of fuel; with the air strike,
    surface, submarine and bombardment games above each scoring once with its cause, the final
    verdict's totals are the ledger's sums."""
    state = storm_over_yorktown(data)
    base = next(b for b in state.bases if b.side is Side.JAPANESE and b.hex is not None)
    lost = AirFormation(9, Side.JAPANESE, base.hex, (AirFactors("Zero", 3),), base.name, takeoff_turn=-20)
    far = state.scenario.map.parse("V-A23")
    spent = AirFormation(8, Side.ALLIED, far, (AirFactors("Wildcat", 2, True),), "TF1", takeoff_turn=-20)
    state = replace(state, air=(*state.air, lost, spent))
    outcome = play(state, {"allied": ["LAND AF2 TF1", "SCUTTLE Astoria"], "japanese": []})
    assert_tally(outcome.state)
    ledger = outcome.state.score.ledger
    by_cause: dict[tuple[Side, str], int] = {}
    for e in ledger:
        by_cause[(e.side, e.cause)] = by_cause.get((e.side, e.cause), 0) + e.points
    landing = by_cause.pop((Side.JAPANESE, LANDING), 0)
    assert landing in (0, 2, 4)  # 2 VP for each Wildcat the storm landing lost
    assert by_cause == {
        (Side.JAPANESE, "fuel"): 20,  # AF8's 2 Wildcat past their range, 10 VP each
        (Side.JAPANESE, SCUTTLED): 6,  # CA Astoria
        (Side.ALLIED, "fuel"): 30,  # 3 Zero out of range
    }, by_cause
    verdict = final(ledger, kit(outcome.state).victory)
    assert dict(verdict.totals) == totals(ledger) == {Side.ALLIED: 30, Side.JAPANESE: 26 + landing}


# --- landing: an armed landing (14.14) or a night landing (14.10) that fails ------------------------


def test_14_14_factors_lost_landing_are_scored_2_vp_each(data: dict[str, Any]) -> None:
    """Standard 14.10 and 14.14 (reference A.6): "Landing while still armed uses the Night Landing
    Chart"; A.13: an Air Factor lost "is worth 2 VP to the enemy" (they were lost, and scored
    nowhere). AF2's two armed Dauntless land on TF1 on dice of 1: both fail."""
    from .test_rule_bugs import resolve, strike_aloft

    outcome = resolve(strike_aloft(data), {"allied": ["land af2 tf1"]})
    assert "AF2 landed at TF1: 2 air factor(s) lost in the landing" in "\n".join(
        e.text for e in outcome.events if e.visible_to("allied")
    )
    scored = [e for e in outcome.state.score.ledger if e.cause == LANDING]
    assert [(e.side, e.points, e.owner) for e in scored] == [(Side.JAPANESE, 4, Side.ALLIED)]
    assert_tally(outcome.state)
