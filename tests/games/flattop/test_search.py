# SPDX-License-Identifier: GPL-3.0-or-later
"""Search by e-mail: seed 003, 7 (General Rule) and 7.3, replayed with fixed dice."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex, distance, parse_hex_id
from mailbot.games.flattop.observation.knowledge import PLANES, SHIPS, Knowledge
from mailbot.games.flattop.observation.observe import AF, TF, PlaneView, ShipView, Target, Visibility
from mailbot.games.flattop.observation.reports import Deception, ReportRules, record_all
from mailbot.games.flattop.observation.search import (
    Action,
    Leg,
    Reaction,
    SearchOrder,
    SearchOutcome,
    SearchTable,
    air_movement_order,
    modifiers,
    rendezvous_path,
    resolve_searches,
    sequence,
)
from mailbot.games.flattop.units import Altitude, ShipCategory, Side

TABLES = Path(__file__).resolve().parents[3] / "mailbot" / "games" / "flattop" / "data" / "tables"
TABLE = SearchTable.from_mapping(tomllib.loads((TABLES / "search.toml").read_text("utf-8")))
DAY = Visibility()
J, A = Side.JAPANESE, Side.ALLIED


def h(text: str) -> Hex:
    parsed = parse_hex_id(text)
    assert parsed is not None, text
    return parsed


def tf(
    ref: str, at: str, ships: int, *, side: Side = J, category: ShipCategory = ShipCategory.SMALL
) -> Target:
    return Target(ref, side, TF, h(at), ships=(ShipView(category),) * ships)


def af(ref: str, at: str, factors: int, altitude: Altitude, *, side: Side = J) -> Target:
    return Target(ref, side, AF, h(at), planes=(PlaneView(factors, False, altitude),))


def order(key: str, start: str, path: list[str], **kw: object) -> SearchOrder:
    legs = tuple(Leg(h(x)) for x in path)
    fields: dict[str, object] = {"side": A, "altitude": Altitude.HIGH, "mp": 10} | kw
    return SearchOrder(key, start=h(start), legs=legs, **fields)  # type: ignore[arg-type]


def fly(
    orders: list[SearchOrder], targets: list[Target], dice: FixedDice, sky: Visibility = DAY
) -> list[SearchOutcome]:
    return list(resolve_searches(orders, targets, sky=sky, table=TABLE, dice=dice, turn=5))


# The Catalina example: the Japanese TF and AF sit in V-K30; the Catalina flies down column K.
CATALINA_TARGETS = [tf("TF1", "V-K30", 7), af("AF1", "V-K30", 3, Altitude.LOW)]


def test_7_3_catalina_example_replays_exactly() -> None:
    """Seed 003, 7.3: "A Catalina at high altitude approaches within two hexes of a Japanese TF
    containing seven ships, and a Japanese AF in the same hex containing 3 factors low. ... The
    Japanese player rolls a "4" for the TF. Since the TF can be spotted with a roll of 2-6, the
    Japanese player gives the US player a Condition One report on the TF. Next the Japanese player
    rolls for the AF, and rolls a 7. This modifies to a 9 because the searching AF is at a different
    altitude (+1) and the hex contains only 3 air factors (+1.) The attempt fails ... The Catalina
    moves one hex closer. Now the Japanese player rolls for the AF again; this time it is a 4. It
    modifies to a 6, which is within the range for discovery, so he gives the US player Condition
    Two reports on the newly-found aircraft and the previously-found ships."
    """
    dice = FixedDice([1, 3, 3, 4, 2, 2])  # 2d6: 4 (TF), 7 (AF), 4 (AF)
    catalina = order("AF3", "V-K34", ["V-K33", "V-K32", "V-K31"])
    (outcome,) = fly([catalina], CATALINA_TARGETS, dice)
    assert dice.leftover() == {}  # exactly three rolls: the TF is not rolled for again
    assert [distance(x, h("V-K30")) for x in outcome.path] == [4, 3, 2, 1]
    rolls = [(a.step, a.target, sum(a.roll.faces), a.roll.total, a.success) for a in outcome.attempts]
    assert rolls == [(2, "TF1", 4, 4, True), (2, "AF1", 7, 9, False), (3, "AF1", 4, 6, True)]
    assert dict(outcome.attempts[1].roll.modifiers) == {"size": 1, "different altitudes": 1}
    updates = [(u.step, u.kind, u.condition) for u in outcome.updates]
    assert updates == [(2, SHIPS, 1), (3, SHIPS, 2), (3, PLANES, 2)]
    knowledge = record_all(
        Knowledge("allied"),
        outcome.spottings(CATALINA_TARGETS),
        turn=5,
        dice=FixedDice([3, 3, 3, 3]),  # C2 totals and the carrier roll: nothing at stake here
        policies={J: Deception.TRUTHFUL},
        rules=ReportRules(),
    )
    assert [(s.hex, s.kind, s.condition) for s in knowledge.sightings] == [
        ("V-K30", PLANES, 2),
        ("V-K30", SHIPS, 2),
    ]


def test_7_3_default_table_is_marked_default_and_calibrated() -> None:
    """Seed 003, 7.3: "[the body of the search chart table is missing from this copy]" - the
    shipped chart is a design default: "the TF can be spotted with a roll of 2-6" at two hexes."""
    assert TABLE.default is True
    assert TABLE.target_number("day", "af", "TF", 2) == 6
    assert (TABLE.target_number("day", "af", "AF", 2) or 99) < 9  # "modifies to a 9 ... fails"
    assert (TABLE.target_number("day", "af", "AF", 1) or 0) >= 6  # "modifies to a 6, ... within"
    assert (TABLE.condition("day", 2), TABLE.condition("day", 1)) == (1, 2)
    assert TABLE.target_number("day", "af", "TF", 3) is None  # out of sighting range: no roll


def test_7_3_modifiers_match_the_seed() -> None:
    """Seed 003, 7.3: "+2 if AF/TF contains 1 or 2 air factors or ships / +1 if AF/TF contains 3 to 5
    air factors or ships / +1 if clouds exist in both the searchers and targets hex / +1 if searcher
    and target are air formations at different altitudes / +1 if target is a TF and the searcher is
    a low AF two hexes away"."""
    assert [TABLE.size_modifier(n) for n in (1, 2, 3, 5, 6, 20)] == [2, 2, 1, 1, 0, 0]
    assert (TABLE.both_clouded, TABLE.different_altitude) == (1, 1)
    assert (TABLE.low_searcher_tf_range, TABLE.low_searcher_tf) == (2, 1)
    low_tf = modifiers(TABLE, tf("T", "V-K30", 8), altitude=Altitude.LOW, rng=2, clouds=False)
    assert low_tf == {"low AF, TF two hexes away": 1}
    assert modifiers(TABLE, tf("T", "V-K30", 8), altitude=Altitude.LOW, rng=1, clouds=False) == {}
    same_altitude = modifiers(
        TABLE, af("A", "V-K30", 9, Altitude.LOW), altitude=Altitude.LOW, rng=1, clouds=False
    )
    assert same_altitude == {}


def test_7_3_modifiers_are_cumulative() -> None:
    """Seed 003, 7.3: "Modifiers are cumulative. If a searcher is in a cloud hex and his potential
    target TF is in an adjacent cloud hex and contains 2 ships, the modifier is +3.\""""
    mods = modifiers(TABLE, tf("T", "V-K30", 2), altitude=Altitude.HIGH, rng=1, clouds=True)
    assert sum(mods.values()) == 3


def test_7_3_cloud_modifier_needs_clouds_in_both_hexes() -> None:
    """Seed 003, 7.3: "+1 *if clouds exist in both the searchers and targets hex"."""
    target = tf("TF1", "V-K30", 8)
    one_cloud = Visibility(clouds=frozenset({h("V-K30")}))
    both = Visibility(clouds=frozenset({h("V-K30"), h("V-K32")}))
    for sky, expected in ((one_cloud, {}), (both, {"clouds in both hexes": 1})):
        dice = FixedDice([3, 3])
        (outcome,) = fly([order("AF3", "V-K33", ["V-K32"])], [target], dice, sky)
        assert dict(outcome.attempts[0].roll.modifiers) == expected


def test_7_3_natural_two_always_succeeds() -> None:
    """Seed 003, 7.3: "a "natural" roll of 2 is always successful regardless of modifiers."
    At night a 2-factor AF one hex from a low searcher needs 3 or less; 1+1 modifies to 5 and
    still finds it."""
    night = Visibility(night=True)
    target = af("AF1", "V-K30", 2, Altitude.HIGH)
    dice = FixedDice([1, 1])
    (outcome,) = fly([order("AF3", "V-K32", ["V-K31"], altitude=Altitude.LOW)], [target], dice, night)
    (attempt,) = outcome.attempts
    assert (attempt.roll.total, attempt.number, attempt.success) == (5, 3, True)


def test_7_3_roll_once_per_potential_target_in_each_hex() -> None:
    """Seed 003, 7.3: "Roll once for each hex containing enemy units for each hex the searcher is in
    sighting range. Within each hex, roll once per sighting attempt for each potential target." """
    targets = [tf("TF1", "V-K30", 8), tf("TF2", "V-K30", 8), tf("TF3", "V-M30", 8)]
    dice = FixedDice([6, 6] * 6)  # every roll fails
    (outcome,) = fly([order("AF3", "V-K33", ["V-K32", "V-K31"])], targets, dice)
    per_step = [(a.step, a.target) for a in outcome.attempts]
    assert per_step == [(1, "TF1"), (1, "TF2"), (2, "TF1"), (2, "TF2"), (2, "TF3")]
    assert not outcome.found


def test_7_3_extra_mp_buys_extra_attempts() -> None:
    """Seed 003, 7.3: "Each additional MP gives the searcher one additional attempt per potential
    sighting (i.e. per AF or TF in the hex.)" The rolls stop once the target is found."""
    target = tf("TF1", "V-K30", 8)
    searcher = SearchOrder("AF3", A, h("V-K32"), Altitude.HIGH, (Leg(h("V-K31"), extra=3),), mp=3)
    dice = FixedDice([6, 6, 6, 5, 2, 2])  # 12 fails, 11 fails, 4 finds; no fourth roll
    (outcome,) = fly([searcher], [target], dice)
    assert [a.success for a in outcome.attempts] == [False, False, True]
    assert outcome.mp_left == 0  # one MP to enter, two used of the three extra ones it could pay for
    assert dice.leftover() == {}


def test_14_11_climbing_costs_an_extra_mp() -> None:
    """Seed 003, 14.11: "Going from low to high altitude costs one extra MP in the hex in which
    it occurs." """
    legs = (Leg(h("V-K31"), Altitude.HIGH), Leg(h("V-K30")))
    searcher = SearchOrder("AF3", A, h("V-K32"), Altitude.LOW, legs, mp=2)
    (outcome,) = fly([searcher], [], FixedDice())
    assert outcome.path == (h("V-K32"), h("V-K31"))
    assert outcome.altitude is Altitude.HIGH


def test_7_conditional_close_to_condition_2_then_back_off_to_two_hexes() -> None:
    """Seed 003, 7: "if the AF in question spots ships he is to move close enough to receive a
    Condition 2 report, then back off to two hexes away if he has MPs left"."""
    target = tf("TF1", "V-K30", 8)
    reaction = Reaction(SHIPS, Action.CLOSE, condition=2, back_off=2)
    searcher = order("AF3", "V-I30", ["V-I31", "V-I32", "V-I33"], reactions=(reaction,))
    (outcome,) = fly([searcher], [target], FixedDice([2, 2]))
    ranges = [distance(x, target.hex) for x in outcome.path]
    assert ranges == [2, 1, 2]  # spotted at two hexes, closed to one (Condition 2), backed off
    assert outcome.found == {"TF1": 2}
    assert outcome.mp_left == 8


def test_7_default_is_not_to_deviate() -> None:
    """Seed 003, 7: "search instructions may indicate that the path is not to be deviated from"."""
    target = tf("TF1", "V-K30", 8)
    searcher = order("AF3", "V-I30", ["V-I31", "V-I32"], reactions=(Reaction(SHIPS, Action.CONTINUE),))
    (outcome,) = fly([searcher], [target], FixedDice([2, 2]))
    assert outcome.path == (h("V-I30"), h("V-I31"), h("V-I32"))


def test_7_armed_searcher_attacks_what_it_finds() -> None:
    """Seed 003, 7: "an armed strike searching for the enemy"; 14.11: "Aircraft intending to execute
    an attack must enter the target hex at the proper attack altitude." """
    target = tf("TF1", "V-K30", 8)
    attack = Reaction(SHIPS, Action.ATTACK, altitude=Altitude.LOW)
    searcher = order("AF3", "V-K33", ["V-K32", "V-L32"], reactions=(attack,), armed=True)
    (outcome,) = fly([searcher], [target], FixedDice([2, 2]))
    assert outcome.attack_hex == target.hex
    assert outcome.path[-1] == target.hex
    assert outcome.altitude is Altitude.LOW


LEADER_LABEL = "ft.search.t5.allied.AF1"
JOINER_LABEL = "ft.search.t5.allied.AF2"


def _join_case(joiner_tf: list[int], joiner_af: list[int]) -> SearchOutcome:
    target = tf("TF1", "V-K30", 8)
    attack = Reaction(SHIPS, Action.ATTACK, altitude=Altitude.LOW)
    leader = order("AF1", "V-K32", ["V-K31"], reactions=(attack,), armed=True, factors=6)
    joiner = order("AF2", "V-M31", ["V-N31"], join="AF1", armed=True)
    dice = FixedDice(
        by_label={
            f"{LEADER_LABEL}.TF1": [1, 2],
            f"{JOINER_LABEL}.TF1": joiner_tf,
            f"{JOINER_LABEL}.friendly AF1": joiner_af,
        }
    )
    outcomes = fly([joiner, leader], [target], dice)  # given out of order: the leader still flies first
    assert outcomes[1].attack_hex == target.hex
    return outcomes[0]


def test_7_join_a_searcher_seen_attacking_needs_both_found() -> None:
    """Seed 003, 7: "A searching AF MAY be directed to join a specific friendly AF that is searching
    for, and attacking if found, enemy ships. In this case the second AF must find both the enemy TF
    and the friendly AF by search die rolls. The TF and AF must be in the same hex ... If the second
    AF only finds one of the two, it may not join up." """
    joined = _join_case([2, 2], [2, 2])
    assert joined.joined and joined.attack_hex == h("V-K30")
    assert "friendly AF1" not in joined.found  # its own side's AF is no contact
    only_tf = _join_case([2, 2], [6, 6])
    assert not only_tf.joined and only_tf.attack_hex is None
    assert only_tf.path[-1] == h("V-N31")  # "Thus there is a chance that they may miss connections."
    only_af = _join_case([6, 6], [2, 2])
    assert not only_af.joined


def test_7_join_only_a_searcher_seen_attacking() -> None:
    """Seed 003, 7: "it is allowed to react to the findings of another AF in the same turn ONLY if
    that AF is seen attacking a TF." A leader that found nothing gives its joiner nothing to find."""
    leader = order("AF1", "V-K32", ["V-K31"], reactions=(Reaction(SHIPS, Action.ATTACK),))
    joiner = order("AF2", "V-M31", ["V-N31"], join="AF1")
    outcomes = fly([leader, joiner], [], FixedDice())
    assert outcomes[0].attack_hex is None and not outcomes[1].joined


def test_7_leaders_fly_before_their_joiners() -> None:
    """Seed 003, 7: joiners react to their leader, so the leader's flight is resolved first."""
    a, b, c = (
        order("AF1", "V-K32", []),
        order("AF2", "V-K32", [], join="AF3"),
        order("AF3", "V-K32", [], join="AF1"),
    )
    assert [o.key for o in sequence([b, c, a])] == ["AF1", "AF3", "AF2"]
    ring = [order("AF4", "V-K32", [], join="AF5"), order("AF5", "V-K32", [], join="AF4")]
    assert [o.key for o in sequence(ring)] == ["AF4", "AF5"]


def test_7_non_search_movement_before_search_movement() -> None:
    """Seed 003, 7: "Except for such a situation, all non-searching movement is conducted before all
    search movement." The exception: a non-searcher conforming to a searcher from a rendezvous hex."""
    searchers = [order("AF1", "V-K32", []), order("AF2", "V-K32", [], join="AF1")]
    moves = air_movement_order(["AF5", "AF6", "AF7"], searchers, {"AF6": "AF1", "AF7": "AF9"})
    assert moves == ("AF5", "AF7", "AF1", "AF6", "AF2")


def test_7_rendezvous_non_searcher_conforms_to_the_searcher() -> None:
    """Seed 003, 7: "an armed strike searching for the enemy can be joined along its path by another
    (non-searching) armed AF as long as a specific rendezvous hex is listed, and that the movement of
    the non-searching AF is stated to conform to that of the searcher for the remainder of the move." """
    target = tf("TF1", "V-K30", 8)
    reaction = Reaction(SHIPS, Action.CLOSE, condition=2, back_off=2)
    searcher = order("AF1", "V-I33", ["V-I32", "V-I31", "V-I30"], reactions=(reaction,))
    (flown,) = fly([searcher], [target], FixedDice([6, 6, 2, 2]))
    own = [h("V-G32"), h("V-H32"), h("V-I32")]
    path = rendezvous_path(own, h("V-I32"), flown.path, mp=10)
    assert path[:3] == tuple(own) and path[3:] == flown.path[2:]
    assert rendezvous_path(own, h("V-I32"), flown.path, mp=3) == (*own, flown.path[2])
    missed = rendezvous_path([h("V-G32"), h("V-H31")], h("V-H31"), flown.path, mp=10)
    assert missed == (h("V-G32"), h("V-H31"))


def test_storm_hexes_block_search_by_default() -> None:
    """Design default (reference B.4): "Storm: no roll, no observation"."""
    target = tf("TF1", "V-K30", 8)
    storm = Visibility(storms=frozenset({h("V-K30")}))
    (outcome,) = fly([order("AF3", "V-K32", ["V-K31"])], [target], FixedDice(), storm)
    assert outcome.attempts == ()


def test_malformed_search_table_is_a_config_error() -> None:
    with pytest.raises(GameError):
        SearchTable.from_mapping({"targets": {}})
