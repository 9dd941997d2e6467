# SPDX-License-Identifier: GPL-3.0-or-later
"""What each side is told about combat: seed 003, 15 "Limited Intelligence" 1, 3, 4, 5, 6."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.intel import (
    DESIGN_DEFAULTS,
    base_words,
    ground_loss_words,
    loss_bounds,
    makeup,
    makeup_sentence,
    night_ship_hits,
    night_ship_words,
    report_order,
    reported_losses,
    ship_words,
    types_present,
)
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.scenario_reader import Reader, read_task_force
from mailbot.games.flattop.observation.knowledge import SHIPS, Knowledge
from mailbot.games.flattop.observation.observe import Spotting, ship_state, tf_target
from mailbot.games.flattop.observation.reports import Deception, ReportRules, describe, record
from mailbot.games.flattop.units import AirBoxes, AirFactors, Ship, ShipType, Side, TaskForce

from ..conftest import load_tables

TABLES = load_tables()
TRUTHFUL, RANDOM, MAXIMAL = Deception.TRUTHFUL, Deception.RANDOM, Deception.MAXIMAL
POLICIES = (TRUTHFUL, RANDOM, MAXIMAL)
LABELS = [f"ft.intel.t9.battle-V-B45.AF{i}" for i in range(300)]


def stream() -> DiceStream:
    return DiceStream(b"seed" * 8, "digest", "T9.combat")


def read_tf(number: int, *ships: dict[str, Any]) -> TaskForce:
    """A TF as the scenario reader builds it: ships.toml's type and class lines, scenario names."""
    r = Reader(TABLES)
    tf = read_task_force(
        r, "tf", {"side": "allied", "hex": "V-B45", "number": number, "ships": [dict(s) for s in ships]}
    )
    assert tf is not None, r.problems
    assert not r.problems, r.problems
    return tf


def typed(name: str, kind: str) -> dict[str, Any]:
    return {"name": name, "type": kind}


def numbered(kind: str, n: int, prefix: str) -> list[dict[str, Any]]:
    return [typed(f"{prefix}{i}", kind) for i in range(n)]


def ship(kind: ShipType, damage: int, hits: int) -> Ship:
    return Ship("Nameless", kind, gunnery=4, aa=4, torpedo=0, movement=2, damage=damage, hits=hits)


# LI 1's example: "One contains Washington, Pensacola, New Orleans, 3 DD and 2 AP. The second
# consists of Enterprise, South Dakota, Salt Lake City, Indianapolis, Atlanta and 5 DD. The
# Pensacola has absorbed two hits so far in the game."
def example_tfs() -> tuple[TaskForce, TaskForce]:
    one = read_tf(
        11,
        {"name": "Washington"},
        typed("Pensacola", "CA"),
        typed("New Orleans", "CA"),
        *numbered("DD", 3, "Benham-"),
        *numbered("AP", 2, "Crescent City-"),
    )
    one = replace(one, ships=tuple(replace(s, hits=2) if s.name == "Pensacola" else s for s in one.ships))
    two = read_tf(
        1,
        {"name": "Enterprise"},
        typed("South Dakota", "BB"),
        typed("Salt Lake City", "CA"),
        typed("Indianapolis", "CA"),
        typed("Atlanta", "CL"),
        *numbered("DD", 5, "Porter-"),
    )
    return one, two


NAMES = ("Washington", "Pensacola", "New Orleans", "Enterprise", "South Dakota", "Atlanta", "Benham", "TF1")


def test_li_1_example_condition_3_then_precise_makeup() -> None:
    """LI 1: "Thus the initial Condition 3 report was: One TF with 3 capital and 5 small ships (one
    capital ship is smoking); one with one carrier, 4 capital and 5 small ships. The Japanese player
    declares that he will attack ships in that hex. He is then informed that one TF consists of 1 BB,
    2 CA (one smoking), 3 DD and 2 AP, and that the other consists of 1 CV, 1 BB, 2 CA, 1 CL and 5 DD."
    The shipped CA line must keep Pensacola's two hits below half its Damage Factor."""
    one, two = example_tfs()
    targets = (tf_target(two), tf_target(one))
    spotting = Spotting("AF3", "AF", one.hex, SHIPS, 3, targets)
    rules = ReportRules.from_mapping(TABLES["observation"])
    knowledge = record(Knowledge("japanese"), spotting, turn=9, dice=FixedDice(), policies={}, rules=rules)
    (sighting,) = knowledge.sightings
    condition_3 = describe(sighting.report)
    assert condition_3 == "TF: 3 capital, 5 small (1 capital ship smoking); TF: 1 carrier, 4 capital, 5 small"

    ordered = report_order([two, one], turn=9)
    assert ordered == (one, two)  # the Condition 3 order, whatever the TF numbers
    lines = makeup(ordered, turn=9)
    assert lines == ("1 BB, 2 CA (one smoking), 3 DD and 2 AP", "1 CV, 1 BB, 2 CA, 1 CL and 5 DD")
    sentence = makeup_sentence(lines)
    assert sentence == (
        "one TF consists of 1 BB, 2 CA (one smoking), 3 DD and 2 AP, "
        "and the other consists of 1 CV, 1 BB, 2 CA, 1 CL and 5 DD"
    )
    assert not any(name in text for name in NAMES for text in (condition_3, sentence))


def test_li_1_makeup_lists_types_in_the_seed_order_with_each_visible_damage() -> None:
    """LI 1: "the precise makeup of the TF's in the hex (ship types and numbers of each type, plus
    visible damage, but never ship names)"."""
    tf = read_tf(
        2,
        typed("Chikuma", "CA"),
        typed("Tone", "CA"),
        typed("Kirishima", "BB"),
        typed("Shokaku", "CV"),
        typed("Nowaki", "DD"),
        typed("Haruna", "BB"),
    )
    hits = {"Chikuma": 3, "Tone": 1, "Nowaki": 1, "Kirishima": 1, "Haruna": 2}
    tf = replace(tf, ships=tuple(replace(s, hits=hits.get(s.name, 0)) for s in tf.ships))
    (line,) = makeup([tf], turn=3)
    assert line == (
        "1 CV, 2 BB (two smoking), 2 CA (one smoking, one burning and listing heavily) "
        "and 1 DD (one burning and listing heavily)"
    )


def test_li_1_makeup_sentence_for_one_and_three_tfs() -> None:
    """LI 1: "He is then informed that one TF consists of ..., and that the other consists of ..."; one
    or three TFs get the same plain form."""
    assert makeup_sentence(["1 CV and 2 DD"]) == "the TF consists of 1 CV and 2 DD"
    assert makeup_sentence(["1 CV", "2 DD", "1 AO"]) == (
        "the first TF consists of 1 CV; the second TF consists of 2 DD; and the third TF consists of 1 AO"
    )


@pytest.mark.parametrize(
    ("damage", "hits", "words"),
    [
        (6, 0, ""),
        (6, 1, "smoking"),
        (6, 2, "smoking"),
        (6, 3, "burning and listing heavily"),
        (6, 4, "burning and listing heavily"),
        (6, 5, "dead in the water"),
        (5, 2, "smoking"),
        (5, 3, "burning and listing heavily"),
        (5, 4, "dead in the water"),
        (4, 1, "smoking"),
        (4, 2, "burning and listing heavily"),
        (4, 3, "dead in the water"),
        (3, 1, "smoking"),
        (3, 2, "dead in the water"),
        (2, 0, ""),
        (2, 1, "burning and listing heavily"),
        (12, 5, "smoking"),
        (12, 6, "burning and listing heavily"),
        (12, 10, "burning and listing heavily"),
        (12, 11, "dead in the water"),
    ],
)
def test_li_3_ship_damage_report_boundaries(damage: int, hits: int, words: str) -> None:
    """LI 3: "Damage less than half of ship's damage factor: Ship is seen smoking. Damage at least
    half of DF, but ship not crippled: Ship is burning and/or listing heavily. Crippled: No change.
    Ship is dead in water and is reported as such." (Crippled: Damage Factor - 1, DF >= 3.)"""
    assert ship_words(ship(ShipType.CA, damage, hits), turn=4) == words


def test_li_4_destroyed_ship_delayed_in_sinking_is_reported_crippled() -> None:
    """LI 4: "A ship that is officially destroyed but is delayed in sinking is reported to be
    crippled." Crippled ships are "dead in water and ... reported as such"."""
    assert ship_words(replace(ship(ShipType.CV, 8, 8), sinking=3), turn=4) == "dead in the water"
    assert ship_words(replace(ship(ShipType.CV, 8, 10), sinking=1), turn=4) == "dead in the water"
    sinking = replace(ship(ShipType.CV, 8, 9), name="Hornet", sinking=2)
    gone = replace(ship(ShipType.CA, 6, 6), name="Northampton")
    tf = TaskForce(5, Side.ALLIED, Hex(10, 10), (sinking, gone, ship(ShipType.DD, 2, 0)))
    assert makeup([tf], turn=4) == ("1 CV (one dead in the water) and 1 DD",)


def test_li_4_a_ship_that_sinks_at_once_is_seen_to_sink_not_dead_in_the_water() -> None:
    """LI 4: only "A ship that is officially destroyed but is delayed in sinking is reported to be
    crippled" (issue 36, error 3: one that sank at once was shown "dead in the water")."""
    gone = replace(ship(ShipType.CA, 6, 6), name="Northampton")  # no delay recorded: sank at once
    assert gone.sunk and ship_words(gone, turn=4) == "seen to sink"
    assert ship_words(replace(gone, sinking=0), turn=4) == "seen to sink"
    assert ship_words(replace(gone, sinking=2), turn=4) == "dead in the water"


def test_21_8_1_stopped_ship_is_reported_dead_in_the_water() -> None:
    """21.8.1: a ship that "cannot move next turn" for two half-speed restrictions: "(Such a ship is
    reported as "dead in the water;" - imagine the enemy's surprise when it subsequently moves!)" """
    assert ship_state(ship(ShipType.CA, 6, 3), stopped=True) == "dead in the water"
    assert ship_state(ship(ShipType.CA, 6, 3)) == "burning and listing heavily"
    # The seed's case: DF 6, three hits, and a critical hit slowing her to half speed next turn (5).
    slowed = replace(ship(ShipType.CA, 6, 3), half_speed_turns=(5,))
    assert ship_words(slowed, turn=4) == "dead in the water"
    assert ship_words(slowed, turn=6) == "burning and listing heavily"


def test_7_12_3_condition_3_uses_the_day_damage_words_and_in_tow() -> None:
    """7.12.3: "Conditions of ships (damaged, crippled, in tow) are only revealed in a Condition 3
    report", worded as LI 3: "Ship is seen smoking", "burning and/or listing heavily", "dead in water"."""
    tf = TaskForce(
        4,
        Side.JAPANESE,
        Hex(10, 10),
        (ship(ShipType.DD, 2, 1), ship(ShipType.CA, 6, 5), replace(ship(ShipType.CL, 5, 4), name="Tenryu")),
    )
    spotting = Spotting("AF1", "AF", tf.hex, SHIPS, 3, (tf_target(tf, in_tow=("Tenryu",)),))
    rules = ReportRules.from_mapping(TABLES["observation"])
    knowledge = record(Knowledge("allied"), spotting, turn=2, dice=FixedDice(), policies={}, rules=rules)
    assert describe(knowledge.sightings[0].report) == (
        "TF: 2 capital, 1 small (1 capital ship dead in the water, 1 capital ship in tow, "
        "1 small ship burning and listing heavily)"
    )


@pytest.mark.parametrize(
    ("hits", "words"), [(0, "no damage"), (1, "light damage"), (3, "light damage"), (4, "heavy damage")]
)
def test_li_3_base_damage_by_day(hits: int, words: str) -> None:
    """LI 3: "For base, a general statement about observed damage will need to be made. 1-3 hits can
    be reported as light damage, 4 or more as heavy damage." No choice, so no roll (FixedDice() would
    raise)."""
    for policy in POLICIES:
        assert base_words(hits, night=False, policy=policy, dice=FixedDice(), label="b") == words


@pytest.mark.parametrize(
    ("hits", "truthful", "maximal", "random"),
    [
        (0, "no damage observed", "installations burning", {"no damage observed", "installations burning"}),
        (1, "installations burning", "no damage observed", {"no damage observed", "installations burning"}),
        (2, "installations burning", "no damage observed", {"no damage observed", "installations burning"}),
        (3, "installations burning", "installations burning", {"installations burning"}),
        (7, "installations burning", "installations burning", {"installations burning"}),
    ],
)
def test_li_3_night_base_reports(hits: int, truthful: str, maximal: str, random: set[str]) -> None:
    """LI 3, night: "Bases: Damage of any kind is reported simply as "installations burning." In
    addition, 0 hits can be reported as damage, and up to two hits can be reported as no damage." """
    none = FixedDice()

    def night(policy: Deception, dice: Any) -> str:
        return base_words(hits, night=True, policy=policy, dice=dice, label="ft.base.t9.Rabaul")

    assert night(TRUTHFUL, none) == truthful
    assert night(MAXIMAL, none) == maximal
    seen = set()
    for face in (1, 2):
        dice = FixedDice(by_label={"ft.base.t9.Rabaul": [face]}) if len(random) > 1 else none
        seen.add(night(RANDOM, dice))
    assert seen == random


@pytest.mark.parametrize(("true", "low", "high"), [(0, 0, 1), (1, 0, 2), (2, 1, 3), (3, 2, 4), (4, 2, 6)])
def test_li_3_night_gunfire_hits_within_50_percent(true: int, low: int, high: int) -> None:
    """LI 3, night: "Ships: Gunfire hits can be reported at +/- 50%, listing a total number of hits
    instead of the terms above. Cripples are not reported." Below 2 hits LI 5's "+/- 1" applies."""
    assert loss_bounds(true) == (low, high)
    dice = stream()
    assert all(night_ship_hits(true, TRUTHFUL, FixedDice(), label) == true for label in LABELS[:5])
    assert night_ship_hits(true, MAXIMAL, FixedDice(), "x") == low
    figures = {night_ship_hits(true, RANDOM, dice, label) for label in LABELS}
    assert figures == set(range(low, high + 1))
    assert night_ship_words(1) == "1 hit observed"
    assert night_ship_words(0) == "no hits observed"


@pytest.mark.parametrize(("true", "low", "high"), [(0, 0, 1), (1, 0, 2), (4, 2, 6), (5, 3, 7), (10, 5, 15)])
def test_li_5_6_reported_losses_within_50_percent_or_1(true: int, low: int, high: int) -> None:
    """LI 5: "The player with the interceptors ... can report his own losses with an error of +/-
    50%. (In cases where 50% is less than 1, such as a case where the loss is 1 or 0, use +/- 1
    instead.)" LI 6: "he may report the same 50% error in planes the attacker's bombers may have
    downed"."""
    assert reported_losses(true, TRUTHFUL, FixedDice(), "x") == true
    assert reported_losses(true, MAXIMAL, FixedDice(), "x") == low
    dice = stream()
    figures = [reported_losses(true, RANDOM, dice, label) for label in LABELS]
    assert set(figures) == set(range(low, high + 1))


def test_reported_figures_are_fixed_by_their_label() -> None:
    """design/flattop.md: "The report is then fixed for that observer, contact and turn: asking again
    does not re-roll it." A fresh stream of the same step gives the same figures."""
    first = [reported_losses(6, RANDOM, stream(), label) for label in LABELS[:40]]
    again = [reported_losses(6, RANDOM, stream(), label) for label in LABELS[:40]]
    assert first == again
    assert len(set(first)) > 1


def test_li_3_types_present_never_lists_readying() -> None:
    """LI 3: "the defender need only tell the attacker what type of aircraft are present, not the
    exact numbers." 21.7.1: "factors in the "readying" box are not visible to the attackers"."""
    boxes = AirBoxes(
        just_landed=(AirFactors("Zero", 3), AirFactors("Kate", 2)),
        readying=(AirFactors("Betty", 6), AirFactors("Val", 1)),
        ready=(AirFactors("Val", 4), AirFactors("Zero", 1), AirFactors("Nell", 0)),
        dispersed=(AirFactors("Mavis", 2),),
    )
    assert types_present(boxes) == ("Kate", "Val", "Zero")
    assert types_present(AirBoxes(readying=(AirFactors("Betty", 6),))) == ()


def test_li_3_6_ground_losses_said_by_day_never_at_night() -> None:
    """LI 6: "If planes are lost on the ground from air attack, nothing need be said apart from that
    fact". LI 3: "Aircraft losses at night due to attacks on bases or aircraft-carrying ships are
    never reported." """
    assert ground_loss_words(3, night=False) == "aircraft were destroyed on the ground"
    assert ground_loss_words(3, night=True) == ""
    assert ground_loss_words(0, night=False) == ""


def test_design_defaults_are_named() -> None:
    """Every choice the seed leaves open is flagged, so a letter can say "design default"."""
    assert set(DESIGN_DEFAULTS) == {"night_ship_hits", "maximal", "types_present"}


def test_random_policy_needs_its_roll() -> None:
    """The random policy draws from the dice: with no face to give, FixedDice fails loudly."""
    with pytest.raises(GameError):
        reported_losses(4, RANDOM, FixedDice(), "x")
