# SPDX-License-Identifier: GPL-3.0-or-later
"""Condition reports: seed 003, 7.12.1, 7.12.2 and 7.12.3 (with 15.1's example)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.observation.knowledge import PLANES, SHIPS, ContactReport, Knowledge, dump
from mailbot.games.flattop.observation.observe import AF, PlaneView, Spotting, Target, tf_target
from mailbot.games.flattop.observation.reports import (
    Deception,
    ReportRules,
    approximate,
    carrier_options,
    compose,
    describe,
    record,
    report_model,
    total_bounds,
)
from mailbot.games.flattop.units import Altitude, Ship, ShipType, Side, TaskForce

from .conftest import load_tables

J, A = Side.JAPANESE, Side.ALLIED
HERE = Hex(10, 10)
# The shipped numbers (observation.toml [reports]), so a change there fails these tests.
RULES = ReportRules.from_mapping(load_tables()["observation"])
HIGH, LOW = Altitude.HIGH, Altitude.LOW


def ship(name: str, kind: ShipType, hits: int = 0) -> Ship:
    return Ship(name, kind, gunnery=4, aa=4, torpedo=0, movement=3, damage=8, hits=hits)


def task_force(number: int, *ships: Ship, side: Side = Side.ALLIED) -> Target:
    return tf_target(TaskForce(number, side, HERE, ships))


def planes(*stacks: tuple[int, bool, Altitude]) -> Target:
    return Target("AF", J, AF, HERE, planes=tuple(PlaneView(n, armed, alt) for n, armed, alt in stacks))


def spot(kind: str, condition: int, *targets: Target, high: bool = False) -> Spotting:
    return Spotting("AF3", "AF", HERE, kind, condition, targets, observer_high=high)


def make(s: Spotting, policy: Deception = Deception.TRUTHFUL, dice: FixedDice | None = None) -> ContactReport:
    return compose(s, policy=policy, rules=RULES, dice=dice or FixedDice(), label="r")


# 15.1's example: "One contains Washington, Pensacola, New Orleans, 3 DD and 2 AP. The second
# consists of Enterprise, South Dakota, Salt Lake City, Indianapolis, Atlanta and 5 DD. The
# Pensacola has absorbed two hits so far in the game."
DD, AP = ShipType.DD, ShipType.AP
TF_ONE = task_force(
    1,
    ship("Washington", ShipType.BB),
    ship("Pensacola", ShipType.CA, hits=2),
    ship("New Orleans", ShipType.CA),
    *(ship(f"DD-{i}", DD) for i in range(3)),
    *(ship(f"AP-{i}", AP) for i in range(2)),
)
TF_TWO = task_force(
    2,
    ship("Enterprise", ShipType.CV),
    ship("South Dakota", ShipType.BB),
    ship("Salt Lake City", ShipType.CA),
    ship("Indianapolis", ShipType.CA),
    ship("Atlanta", ShipType.CL),
    *(ship(f"DD-{i}", DD) for i in range(5)),
)


def test_7_12_1_condition_1_adds_the_altitude_band() -> None:
    """Seed 003, 7.12.1: "at Condition one, in addition to the presence of aircraft being noted, it
    is stated whether there are planes at high, low or both levels." """
    for stacks, expected in (([(3, True, HIGH)], "high"), ([(3, True, LOW)], "low")):
        report = make(spot(PLANES, 1, planes(*stacks)), Deception.RANDOM)
        assert (report.condition, report.altitude, report.approx, report.classes) == (1, expected, None, ())
    both = make(spot(PLANES, 1, planes((3, True, HIGH), (2, False, LOW))), Deception.RANDOM)
    assert both.altitude == "both"
    ships = make(spot(SHIPS, 1, TF_ONE), Deception.RANDOM)
    assert (ships.altitude, ships.approx, ships.classes, ships.units) == (None, None, (), ())


def test_7_12_2_condition_2_gives_totals_and_classes_only() -> None:
    """Seed 003, 7.12.2 item 1: "No determination of numbers of AF's or TF's in a hex is announced -
    just the approximate number of planes/ships in the sighted AFs/TFs in the hex (+/- 50%) and what
    classes of each are present (but no estimate of numbers per class.)" """
    dice = FixedDice([3, 3])  # the carrier roll: 6, no error
    report = make(spot(SHIPS, 2, TF_ONE, TF_TWO), Deception.TRUTHFUL, dice)
    assert report.approx == 18  # both TFs in one figure, no count of TFs
    assert report.classes == ("carrier", "capital", "small")
    assert report.units == ()  # no counts per class, no ship condition (7.12.3)
    assert dice.leftover() == {}


def test_7_12_2_item_2_altitude_all_high_all_low_or_both() -> None:
    """Seed 003, 7.12.2 item 2: "Aircraft altitude is reported as all high, all low, or some at each
    height, depending on the actual status; but no approximation is made as to counts at each level." """
    af = planes((6, True, HIGH), (4, False, LOW))
    report = make(spot(PLANES, 2, af), Deception.TRUTHFUL)
    assert (report.approx, report.classes, report.altitude) == (10, ("armed", "unarmed"), "both")


@pytest.mark.parametrize(
    ("true_total", "bounds"), [(1, (1, 1)), (2, (1, 3)), (7, (4, 10)), (13, (7, 19)), (15, (8, 22))]
)
def test_7_12_2_item_1_plus_or_minus_50_percent(true_total: int, bounds: tuple[int, int]) -> None:
    """Seed 003, 7.12.2 item 1: "the approximate number of planes/ships ... (+/- 50%)"; never below one."""
    assert total_bounds(true_total, RULES.spread) == bounds


def test_deception_policy_chooses_the_total() -> None:
    """design/flattop.md: "truthful, random (default: uniform within the allowed bounds, from the
    dice), or maximal (always the most misleading allowed figure)"."""
    assert approximate(7, Deception.TRUTHFUL, RULES, FixedDice(), "t") == 7
    assert approximate(7, Deception.MAXIMAL, RULES, FixedDice(), "t") == 10
    assert approximate(7, Deception.MAXIMAL, replace(RULES, maximal_total="low"), FixedDice(), "t") == 4
    randoms = [approximate(7, Deception.RANDOM, RULES, FixedDice([face]), "t") for face in range(1, 8)]
    assert randoms == [4, 5, 6, 7, 8, 9, 10]  # a d7 over the seven allowed figures


def _carriers(roll: tuple[int, int], policy: Deception, *ships: Ship, high: bool = False) -> tuple[str, ...]:
    target = task_force(3, *ships, side=J)
    dice = FixedDice(by_label={"r.carriers": roll, "r.carriers.choice": [1]})
    report = make(spot(SHIPS, 2, target, high=high), policy, dice)
    return report.classes


CV, BB = ship("Shokaku", ShipType.CV), ship("Kirishima", ShipType.BB)


def test_7_12_2_item_3_carrier_error_on_10_to_12_plus_1_if_high() -> None:
    """Seed 003, 7.12.2 item 3: "For each Condition 2 report on a TF that contains carriers and/or
    capital ships, roll 2d6. If the "error" range comes up, the TF owner may mis-report the presence
    of carriers in the hex ... The "error" range is 10-12. Dice roll modifier: +1 if the searcher is
    at high altitude." """
    truth = ("carrier", "small")
    destroyer = ship("Akigumo", DD)
    assert _carriers((4, 5), Deception.MAXIMAL, CV, destroyer) == truth  # 9: no error
    assert _carriers((4, 6), Deception.MAXIMAL, CV, destroyer) == ("capital", "small")  # 10: error
    assert _carriers((4, 5), Deception.MAXIMAL, CV, destroyer, high=True) == ("capital", "small")
    assert _carriers((6, 6), Deception.TRUTHFUL, CV, destroyer) == truth  # "may": the owner declines


def test_7_12_2_item_3_no_roll_without_carriers_or_capital_ships() -> None:
    """Seed 003, 7.12.2 item 3: the roll is only for a TF "that contains carriers and/or capital ships"."""
    target = task_force(4, ship("Akigumo", DD), side=J)
    report = make(spot(SHIPS, 2, target), Deception.MAXIMAL)
    assert report.classes == ("small",)


def test_7_12_2_item_3_misreport_bounds() -> None:
    """Seed 003, 7.12.2 item 3: "up to two carriers may be reported as capital ships instead, and up
    to two capital ships may be reported as carriers instead. (Thus in the unlikely event that a hex
    contains three carriers, the presence of carriers must still be reported.)" """
    # (carriers shown, capital ships shown)
    assert carrier_options(1, 0, RULES.swap_limit) == ((False, True), (True, False))
    assert carrier_options(2, 0, RULES.swap_limit) == ((False, True), (True, False), (True, True))
    assert all(shown_carriers for shown_carriers, _ in carrier_options(3, 0, RULES.swap_limit))
    assert all(shown_carriers for shown_carriers, _ in carrier_options(3, 5, RULES.swap_limit))
    assert carrier_options(0, 2, RULES.swap_limit) == ((False, True), (True, False), (True, True))
    assert carrier_options(0, 3, RULES.swap_limit) == (
        (False, True),
        (True, True),
    )  # a capital ship always remains
    for carriers in range(6):
        for capitals in range(6):
            options = carrier_options(carriers, capitals, RULES.swap_limit)
            assert (carriers > 0, capitals > 0) in options  # the truth is always allowed


def test_7_12_2_item_3_random_policy_picks_among_the_allowed() -> None:
    """design/flattop.md: random is "uniform within the allowed bounds, from the dice"."""
    target = task_force(5, CV, BB, side=J)
    options = carrier_options(1, 1, RULES.swap_limit)
    seen = set()
    for pick in range(1, len(options) + 1):
        dice = FixedDice(by_label={"r.total": [2], "r.carriers": [5, 5], "r.carriers.choice": [pick]})
        report = make(spot(SHIPS, 2, target), Deception.RANDOM, dice)
        seen.add(report.classes)
    assert seen == {("carrier",), ("capital",), ("carrier", "capital")}


def test_7_12_3_condition_3_reveals_ship_condition_never_names() -> None:
    """Seed 003, 7.12.3: "Conditions of ships (damaged, crippled, in tow) are only revealed in a
    Condition 3 report." 15.1: "Thus the initial Condition 3 report was: One TF with 3 capital and 5
    small ships (one capital ship is smoking); one with one carrier, 4 capital and 5 small ships." """
    knowledge = record(
        Knowledge("japanese"),
        spot(SHIPS, 3, TF_TWO, TF_ONE),
        turn=7,
        dice=FixedDice(),
        policies={},
        rules=RULES,
    )
    (sighting,) = knowledge.sightings
    units = [(u.counts, u.states) for u in sighting.report.units]
    assert units == [
        ((("capital", 3), ("small", 5)), (("capital", "smoking", 1),)),
        ((("carrier", 1), ("capital", 4), ("small", 5)), ()),
    ]
    text = json.dumps(dump(knowledge))
    assert not any(name in text for name in ("Washington", "Pensacola", "Enterprise", "Atlanta", "TF1"))
    assert (
        describe(sighting.report)
        == "TF: 3 capital, 5 small (1 capital ship smoking); TF: 1 carrier, 4 capital, 5 small"
    )


def test_report_is_fixed_per_observer_contact_and_turn() -> None:
    """design/flattop.md: "The report is then fixed for that observer, contact and turn: asking again
    does not re-roll it." """
    s = spot(SHIPS, 2, TF_ONE, TF_TWO)
    kwargs = {"turn": 7, "policies": {A: Deception.RANDOM}, "rules": RULES}
    first = record(Knowledge("japanese"), s, dice=DiceStream(b"seed" * 8, "digest", "T7.orders"), **kwargs)  # type: ignore[arg-type]
    again = record(first, s, dice=FixedDice(), **kwargs)  # type: ignore[arg-type]
    assert again is first  # no roll at all: FixedDice() would have raised
    fresh = record(Knowledge("japanese"), s, dice=DiceStream(b"seed" * 8, "digest", "T7.orders"), **kwargs)  # type: ignore[arg-type]
    assert fresh == first  # the labels name observer, contact and turn: same dice, same report
    worse = Spotting("AF3", "AF", HERE, SHIPS, 1, (TF_ONE,))
    assert record(first, worse, dice=FixedDice(), **kwargs) is first  # type: ignore[arg-type]


def test_report_model_is_rendered_from_knowledge() -> None:
    """design/flattop.md: "Reports are rendered only from that knowledge." """
    knowledge = record(
        Knowledge("allied"),
        spot(PLANES, 2, planes((6, True, HIGH))),
        turn=3,
        dice=FixedDice(),
        policies={J: Deception.TRUTHFUL},
        rules=RULES,
    )
    model = report_model(knowledge)
    assert model == {
        "side": "allied",
        "contacts": [
            {
                "turn": 3,
                "hex": "I-K11",
                "kind": PLANES,
                "condition": 2,
                "observer": "aircraft",
                "text": "about 6 air factors: armed, at high altitude",
            }
        ],
    }
    assert report_model(knowledge, turn=4)["contacts"] == []
