# SPDX-License-Identifier: GPL-3.0-or-later
"""Damage to ships and bases, critical hits and speed: standard 21 (reference A.12) and seed 003,
21.3, 21.6.2, 21.7.1, 21.8, 21.8.1 and 21.8.2, replayed with fixed dice on the shipped damage.toml."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.damage import (
    Attack,
    BaseHit,
    DamageRules,
    HitKind,
    PlaneLoss,
    ShipHit,
    Speed,
    flight_ops_allowed,
    reported_dead_in_water,
    speed,
)
from mailbot.games.flattop.combat.damage_bases import DEFAULT_REPAIR, hit_base, repair_base
from mailbot.games.flattop.combat.damage_planes import caught_losses
from mailbot.games.flattop.combat.damage_ships import end_of_combat_phase, hit_ship
from mailbot.games.flattop.map.movement import Speed as Hexes
from mailbot.games.flattop.map.movement import movement_rules, ship_speed
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    Armament,
    Base,
    BaseFactors,
    Handling,
    Ship,
    ShipType,
    Side,
    dump,
    load,
)

from ..conftest import load_tables

TABLES = load_tables()
RULES = DamageRules.from_mapping(TABLES["damage"])
BOMB, TORPEDO, GUNNERY = HitKind.BOMB, HitKind.TORPEDO, HitKind.GUNNERY
GP, AP = Armament.GP, Armament.AP
TURN = 5
NO_DICE = FixedDice()  # any roll raises: proves that a rule rolled nothing


def f(plane: str, count: int) -> AirFactors:
    return AirFactors(plane, count, carrier_plane=True)


def cv(damage: int = 7, **more: Any) -> Ship:
    fields: dict[str, Any] = {"capacity": 30, "launch": 11, "launch_min": 3, "readying": 9} | more
    return Ship("Yorktown", ShipType.CV, 4, 8, 0, 2, damage, **fields)


def ca(damage: int = 6, **more: Any) -> Ship:
    return Ship("Astoria", ShipType.CA, 8, 4, 2, 2, damage, **more)


def base(handling: Handling = Handling.LP, **more: Any) -> Base:
    fields: dict[str, Any] = {"surface": 3} | more
    return Base("Port Moresby", Side.ALLIED, None, handling, None, 8, 4, 6, 5, **fields)


def bomb(
    ship: Ship, hits: int, dice: FixedDice = NO_DICE, *, kind: HitKind = BOMB, turn: int = TURN, **more: Any
) -> ShipHit:
    kw: dict[str, Any] = {"armament": AP, "critical_check": False} | more
    attack = Attack(hits, kind, label="t5.AF1.Yorktown", **kw)
    return hit_ship(ship, attack, rules=RULES, dice=dice, turn=turn)


def strike(
    target: Base, hits: int, dice: FixedDice = NO_DICE, *, kind: HitKind = BOMB, turn: int = TURN, **more: Any
) -> BaseHit:
    kw: dict[str, Any] = {"armament": GP, "critical_check": False} | more
    return hit_base(target, Attack(hits, kind, label="t5.AF1.PM", **kw), rules=RULES, dice=dice, turn=turn)


# --- the shipped table ---------------------------------------------------------------------


def test_21_3_chart_is_shipped_as_the_seed_prints_it() -> None:
    """Seed 003, 21.3: 'Planes in "Ready": 2X (# of hits) *Planes in "Just Landed" but not "Ready":
    (# hits) +1 ... AA factor reduced by 1 for each FOUR hits received in a given attack; round
    fractions up ... Each torpedo hit counts as two towards speed reduction ... AA reduced by one for
    every two torpedo hits taken (round fractions down.) ... (a) GP bombs cannot cause critical hits on
    ships, while AP bombs cannot cause critical hits on bases.'"""
    hits = RULES.hits
    assert hits.ready_multiplier == 2
    assert hits.just_landed_bonus == 1
    assert (hits.base_aa_per_hits, hits.base_aa_rounding) == (4, "up")
    assert hits.torpedo_speed_weight == 2
    assert (hits.torpedo_aa_per_hits, hits.torpedo_aa_rounding) == (2, "down")
    assert hits.no_critical_on_ship == {GP}
    assert hits.no_critical_on_base == {AP}
    assert not RULES.sources["hits"].default


def test_21_8_and_21_6_2_dice_are_shipped_as_the_seed_prints_them() -> None:
    """Seed 003, 21.8: "roll 1d6. A 6 will result in one critical hit." 21.6.2: "Roll 1d6; on a 1
    through 4 any aircraft that used a maximum launch in that turn are considered to still be in the
    "ready" box"."""
    assert RULES.hits.critical_on == {6}
    assert RULES.hits.caught_on == {1, 2, 3, 4}


def test_critical_effects_are_a_marked_design_default() -> None:
    """Seed 003, 21.8.2 names "Fire or Major Fire"; 21.8.1 a critical hit "that slows it to half-speed
    next turn"; 21.3 note (d) "critical hit #6" makes the ship dead in the water. The table itself
    is not in the seed: damage.toml marks it default = true."""
    ships = RULES.ship_criticals
    assert ships.dice == "1d6"
    names = {ships.result(n).name for n in range(1, 7)}
    assert {"Fire", "Major Fire"} <= names
    assert any(ships.result(n).half_speed_next_turn for n in range(1, 7))
    assert ships.result(6).dead_in_water
    assert {"criticals.ships", "criticals.bases", "fires"} <= set(RULES.design_defaults)
    assert {"hits", "sinking", "ships", "bases"}.isdisjoint(RULES.design_defaults)
    assert all(RULES.sources[name].source for name in RULES.sources)


def test_repair_defaults_match_damage_toml() -> None:
    """repair_base without a table uses these numbers: they must be the shipped [repair] section."""
    assert RULES.repair == DEFAULT_REPAIR


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("hits", "base_aa_rounding", "sideways"),
        ("hits", "critical_on", [7]),
        ("sinking", "band", [{"min_damage": 3, "hours": [1, 2]}]),
        ("ships", "launch_loss", {"XX": [1, 1]}),
    ],
)
def test_a_malformed_table_is_a_game_error(section: str, key: str, value: Any) -> None:
    broken = dict(TABLES["damage"])
    broken[section] = dict(broken[section]) | {key: value}
    with pytest.raises(GameError):
        DamageRules.from_mapping(broken)


def test_critical_results_must_cover_every_face() -> None:
    broken = dict(TABLES["damage"])
    crit = dict(broken["criticals"])
    crit["ships"] = dict(crit["ships"]) | {"result": crit["ships"]["result"][:5]}
    broken["criticals"] = crit
    with pytest.raises(GameError, match="cover"):
        DamageRules.from_mapping(broken)


# --- standard 21: what a hit does ----------------------------------------------------------------


def test_each_hit_costs_one_gunnery_and_one_aa_never_torpedo_factors() -> None:
    """Reference A.12: "Each hit costs 1 Gunnery and 1 AA. Torpedo Factors are never reduced."""
    after = bomb(ca(), 2).after
    assert (after.hits, after.gunnery, after.aa, after.torpedo) == (2, 6, 2, 2)
    assert bomb(ca(), 5).after.aa == 0  # never below 0


@pytest.mark.parametrize(
    ("kind", "loss"),
    [
        (ShipType.CV, (3, 1)),
        (ShipType.CVL, (2, 1)),
        (ShipType.AV, (1, 1)),
        (ShipType.CAV, (1, 1)),
        (ShipType.BB, (1, 1)),
        (ShipType.CA, (0, 0)),
    ],
)
def test_launch_factor_loss_per_hit_by_type(kind: ShipType, loss: tuple[int, int]) -> None:
    """Reference A.12: "LF loss per hit: CV -3/-1, CVL -2/-1, AV/CAV/BB -1/-1."""
    ship = Ship("x", kind, 9, 9, 0, 2, 20, capacity=10, launch=10, launch_min=3)
    after = bomb(ship, 2).after
    assert (after.launch, after.launch_min) == (10 - 2 * loss[0], 3 - 2 * loss[1])


def test_no_flight_operations_at_lf_0() -> None:
    """Reference A.12: "No flight operations at LF 0." A ship's LF stops at 0."""
    after = bomb(cv(damage=9), 4).after
    assert (after.launch, after.launch_min) == (0, 0)
    assert not flight_ops_allowed(after, TURN + 1)
    assert flight_ops_allowed(bomb(cv(), 3).after, TURN + 1)


def test_each_hit_on_a_plane_carrier_destroys_an_air_factor() -> None:
    """Reference A.12: "Each hit on a plane-carrier also destroys 1 Air Factor aboard." (Readying
    planes do not change the hits: 21.3 counts Ready and Just Landed only.)"""
    ship = cv(boxes=AirBoxes(readying=(f("Dauntless", 5),)))
    result = bomb(ship, 2)
    assert result.taken == 2
    assert result.planes == (PlaneLoss("readying", "Dauntless", 2, hidden=True),)
    assert result.after.boxes.readying == (f("Dauntless", 3),)


def test_plane_losses_go_ready_just_landed_readying_then_by_ranking() -> None:
    """Reference A.12: "Order: Ready first, then Just Landed, then Readying, then Dispersed"; seed
    003, LI 3: the attacker "ranks them in desired order of elimination"."""
    boxes = AirBoxes(
        ready=(f("Wildcat", 1), f("Dauntless", 2)),
        just_landed=(f("Avenger", 1), f("Wildcat", 3)),
        readying=(f("Devastator", 9),),
    )
    # Ready doubles 3 hits to 6: Ready 3, then Just Landed 3 (ranked Avenger first), then none.
    result = bomb(cv(damage=20, boxes=boxes), 3, ranking=("Avenger", "Wildcat"))
    assert result.taken == 6
    assert result.planes == (
        PlaneLoss("ready", "Wildcat", 1, hidden=False),
        PlaneLoss("ready", "Dauntless", 2, hidden=False),
        PlaneLoss("just_landed", "Avenger", 1, hidden=False),
        PlaneLoss("just_landed", "Wildcat", 2, hidden=False),
    )
    assert result.after.boxes.just_landed == (f("Wildcat", 1),)


def test_unranked_planes_go_most_factors_first_then_by_name() -> None:
    boxes = AirBoxes(ready=(f("Avenger", 1), f("Wildcat", 3), f("Dauntless", 3)))
    result = bomb(cv(damage=20, boxes=boxes), 2)  # doubled: 4 factors
    assert [(p.plane, p.count) for p in result.planes] == [("Dauntless", 3), ("Wildcat", 1)]


def test_21_7_1_readying_losses_are_hidden_and_chosen_by_the_defender() -> None:
    """Seed 003, 21.7.1: "If aircraft losses are taken from the "readying" box, the defender always
    chooses which factors to eliminate. Since factors in the "readying" box are not visible to the
    attackers, any loss taken from this box need not be disclosed."""
    boxes = AirBoxes(ready=(f("Wildcat", 1),), readying=(f("Dauntless", 4), f("Avenger", 4)))
    result = bomb(cv(damage=20, boxes=boxes), 2, ranking=("Dauntless",), readying_ranking=("Avenger",))
    assert result.planes == (
        PlaneLoss("ready", "Wildcat", 1, hidden=False),
        PlaneLoss("readying", "Avenger", 3, hidden=True),
    )


def test_a_carrier_sunk_at_once_takes_her_planes_with_her() -> None:
    """Reference A.12: "A sunk carrier takes its planes with it". (Seed 003, LI 4: she sinks at once
    when her hits exceed her Damage Factor by the whole delay.)"""
    boxes = AirBoxes(ready=(f("Wildcat", 1),), just_landed=(f("Dauntless", 6),), readying=(f("Avenger", 2),))
    result = bomb(
        cv(damage=3, hits=2, boxes=boxes), 4, FixedDice(by_label={"t5.AF1.Yorktown/sinking delay": [6]})
    )
    assert result.after.sunk and result.after.boxes == AirBoxes()
    # 4 hits doubled by Ready: 8 factors, the ninth goes down with her.
    lost = [(p.box, p.plane, p.count, p.sank) for p in result.planes]
    assert lost == [
        ("ready", "Wildcat", 1, False),
        ("just_landed", "Dauntless", 6, False),
        ("readying", "Avenger", 1, False),
        ("readying", "Avenger", 1, True),
    ]


# --- seed 003, 21.3 -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [BOMB, GUNNERY])
def test_21_3_row_1_planes_in_ready_double_the_hits(kind: HitKind) -> None:
    """Seed 003, 21.3: 'Ship or Base, Bomb(a) or Gunnery: *Planes in "Ready": 2X (# of hits)'."""
    ship = cv(damage=20, boxes=AirBoxes(ready=(f("Wildcat", 8),)))
    result = bomb(ship, 3, kind=kind, armament=None if kind is GUNNERY else AP)
    assert (result.rolled, result.taken, result.after.hits) == (3, 6, 6)
    landed = strike(base(boxes=AirBoxes(ready=(f("Wildcat", 8),))), 3, kind=kind)
    assert landed.taken == 6


def test_21_3_row_1_just_landed_adds_one() -> None:
    """Seed 003, 21.3: 'Planes in "Just Landed" but not "Ready": (# hits) +1'."""
    ship = cv(damage=20, boxes=AirBoxes(just_landed=(f("Dauntless", 8),)))
    assert bomb(ship, 3).taken == 4
    both = cv(damage=20, boxes=AirBoxes(ready=(f("Wildcat", 1),), just_landed=(f("Dauntless", 8),)))
    assert bomb(both, 3).taken == 6  # "but not Ready": Ready wins
    assert strike(base(boxes=AirBoxes(just_landed=(f("Dauntless", 8),))), 1).taken == 2


def test_21_3_note_b_no_plus_one_on_zero_hits() -> None:
    """Seed 003, 21.3 note (b): 'Exception: If "0" total hits are rolled, do not add one.'"""
    ship = cv(boxes=AirBoxes(just_landed=(f("Dauntless", 8),)))
    result = bomb(ship, 0)
    assert (result.taken, result.after) == (0, ship)
    assert any("note b" in fact for fact in result.facts)


def test_21_3_row_2_base_aa_loses_one_per_four_hits_rounded_up() -> None:
    """Seed 003, 21.3: 'Base, Bomb(a) or Gunnery: *AA factor reduced by 1 for each FOUR hits received
    in a given attack; round fractions up'."""
    for hits, loss in ((1, 1), (4, 1), (5, 2), (8, 2), (9, 3)):
        assert strike(base(), hits).after.aa == 5 - loss, hits
    # "in a given attack": two attacks of one hit cost two AA, one attack of two hits one.
    twice = strike(strike(base(), 1).after, 1).after
    assert (twice.aa, strike(base(), 2).after.aa) == (3, 4)


def test_21_3_row_3_torpedo_hits_ignore_planes_on_board() -> None:
    """Seed 003, 21.3: 'Ship, Torpedo: *Planes on board do NOT affect number of hits taken'."""
    ship = cv(damage=20, boxes=AirBoxes(ready=(f("Wildcat", 8),), just_landed=(f("Avenger", 2),)))
    result = bomb(ship, 3, kind=TORPEDO, armament=Armament.TORPEDO)
    assert (result.taken, result.after.hits) == (3, 3)


def test_21_3_row_3_torpedo_hits_count_two_for_speed_one_for_damage() -> None:
    """Seed 003, 21.3: 'Each torpedo hit counts as two towards speed reduction but only one for
    actual ship damage'."""
    by_torpedo = bomb(ca(), 2, kind=TORPEDO, armament=Armament.TORPEDO).after
    by_bomb = bomb(ca(), 2).after
    assert by_torpedo.hits == by_bomb.hits == 2
    assert (speed(by_torpedo, TURN + 1), speed(by_bomb, TURN + 1)) == (Speed.HALF, Speed.FULL)


def test_21_3_note_d_torpedo_hits_do_not_cripple_by_speed_alone() -> None:
    """Seed 003, 21.3 note (d): 'However, a ship is not caused to be dead in the water unless actual
    hits taken cripple it (or on critical hit #6.)'"""
    four = bomb(ca(), 4, kind=TORPEDO, armament=Armament.TORPEDO).after  # counts 8 toward speed
    assert not four.crippled and speed(four, TURN + 1) is Speed.HALF
    five = bomb(four, 1, kind=TORPEDO, armament=Armament.TORPEDO).after  # Damage Factor - 1
    assert five.crippled and speed(five, TURN + 1) is Speed.STOPPED


def test_21_3_row_3_torpedo_aa_loss_is_one_per_two_cumulative() -> None:
    """Seed 003, 21.3: 'AA reduced by one for every two torpedo hits taken (round fractions down.)
    This is cumulative, not per attack.'"""
    ship = ca(damage=20)
    seen = []
    for hits in (1, 1, 3, 0, 1):
        ship = bomb(ship, hits, kind=TORPEDO, armament=Armament.TORPEDO).after
        seen.append((ship.torpedo_hits, ship.aa, ship.gunnery))
    # torpedo hits 1, 2, 5, 5, 6: AA 4 - floor(n / 2); Gunnery still -1 a hit.
    assert seen == [(1, 4, 7), (2, 3, 6), (5, 2, 3), (5, 2, 3), (6, 1, 2)]


# --- critical hits -------------------------------------------------------------------------------


def crit_dice(check: int, effect: int | None = None, label: str = "t5.AF1.Yorktown") -> FixedDice:
    faces = {f"{label}/critical check": [check]}
    if effect is not None:
        faces[f"{label}/critical effect"] = [effect]
    return FixedDice(by_label=faces)


def test_21_8_a_six_on_the_check_is_a_critical_hit() -> None:
    """Seed 003, 21.8: "If the hits were produced from a base roll of 3,7 or 11, roll 1d6. A 6 will
    result in one critical hit." (The CRT module says when to check.)"""
    assert bomb(ca(), 2, crit_dice(5), critical_check=True).criticals == ()
    hit = bomb(ca(), 2, crit_dice(6, 5), critical_check=True)
    assert hit.criticals == ("Gun mounts hit: Gunnery -2, AA -2",)
    assert (hit.after.gunnery, hit.after.aa) == (4, 0)
    assert bomb(ca(), 2, NO_DICE, critical_check=False).criticals == ()


def test_21_3_note_a_gp_bombs_never_crit_ships_ap_bombs_never_crit_bases() -> None:
    """Seed 003, 21.3 note (a): "GP bombs cannot cause critical hits on ships, while AP bombs cannot
    cause critical hits on bases." (NO_DICE raises if anything is rolled.)"""
    assert bomb(ca(), 2, NO_DICE, armament=GP, critical_check=True).criticals == ()
    assert strike(base(), 2, NO_DICE, armament=AP, critical_check=True).criticals == ()
    assert bomb(ca(), 2, crit_dice(6, 3), armament=AP, critical_check=True).criticals
    assert strike(base(), 2, crit_dice(6, 5, "t5.AF1.PM"), armament=GP, critical_check=True).criticals
    assert bomb(ca(), 2, crit_dice(6, 3), armament=None, kind=GUNNERY, critical_check=True).criticals


def test_21_8_2_fire_is_assessed_at_the_end_of_the_combat_phase() -> None:
    """Seed 003, 21.8.2: "All direct and critical hit damage inflicted by a single AF takes effect
    immediately ... This does not apply to damage resulting from Fire or Major Fire started earlier
    that same turn, because such damage is not assessed until the end of the Combat Phase."""
    burning = bomb(ca(), 1, crit_dice(6, 1), critical_check=True).after
    assert (burning.hits, burning.fires) == (1, ("fire",))
    second = bomb(burning, 1).after  # a later AF: the fire has done nothing yet
    assert (second.hits, second.fires) == (2, ("fire",))
    end = end_of_combat_phase(
        second,
        rules=RULES,
        dice=FixedDice(by_label={"t5.fire.Astoria/Fire 1": [4]}),
        label="t5.fire.Astoria",
        turn=TURN,
    )
    assert end is not None and end.kind is HitKind.FIRE
    assert (end.after.hits, end.after.fires, end.after.gunnery) == (3, (), 5)
    assert end_of_combat_phase(end.after, rules=RULES, dice=NO_DICE, label="x", turn=TURN) is None


def test_21_8_2_major_fire_burns_harder_and_damage_control_may_win() -> None:
    ship = replace(ca(), fires=("fire", "major_fire"))
    dice = FixedDice(by_label={"t5.fire/Fire 1": [3], "t5.fire/Major Fire 2": [1]})
    end = end_of_combat_phase(ship, rules=RULES, dice=dice, label="t5.fire", turn=TURN)
    assert end is not None and (end.rolled, end.after.hits) == (1, 1)
    assert [r.label for r in dice.log] == ["t5.fire/Fire 1", "t5.fire/Major Fire 2"]


def test_21_3_note_d_critical_hit_6_leaves_the_ship_dead_in_the_water() -> None:
    """Seed 003, 21.3 note (d): "a ship is not caused to be dead in the water unless actual hits
    taken cripple it (or on critical hit #6.)"""
    after = bomb(ca(), 1, crit_dice(6, 6), critical_check=True).after
    assert after.crippled and after.dead_in_water
    assert speed(after, TURN + 10) is Speed.STOPPED
    assert reported_dead_in_water(after, TURN + 10)


def test_a_flight_deck_critical_grounds_her_planes_next_turn() -> None:
    after = bomb(cv(damage=20), 1, crit_dice(6, 4), critical_check=True).after
    assert not flight_ops_allowed(after, TURN + 1)
    assert flight_ops_allowed(after, TURN + 2)


def test_base_criticals_add_hits_or_close_the_runway() -> None:
    """Design default: a dump explosion is an extra hit at once, counted in the attack's AA loss."""
    hit = strike(base(), 3, crit_dice(6, 6, "t5.AF1.PM"), critical_check=True)
    assert (hit.taken, hit.extra_hits, hit.after.hits, hit.after.aa) == (3, 2, 5, 3)
    closed = strike(base(), 1, crit_dice(6, 3, "t5.AF1.PM"), critical_check=True).after
    assert not flight_ops_allowed(closed, TURN + 1) and flight_ops_allowed(closed, TURN + 2)


def test_several_checks_roll_separately_labelled() -> None:
    dice = FixedDice(
        by_label={
            "t5.AF1.Yorktown/critical check 1": [6],
            "t5.AF1.Yorktown/critical effect 1": [3],
            "t5.AF1.Yorktown/critical check 2": [2],
        }
    )
    assert len(bomb(ca(), 2, dice, critical_check=2).criticals) == 1
    assert dice.leftover() == {}


# --- speed: 21.8.1 -----------------------------------------------------------------------------


def test_21_8_1_two_half_speed_restrictions_stop_the_ship() -> None:
    """Seed 003, 21.8.1: "a ship with a damage factor of "6" has received three hits and is thus
    restricted to half-speed for the remainder of the game, but has suffered a critical hit that
    slows it to half-speed next turn; the ship cannot move next turn and is restricted to half speed
    thereafter. (Such a ship is reported as "dead in the water;" - imagine the enemy's surprise when
    it subsequently moves!)"""
    three = bomb(ca(damage=6), 3).after
    assert speed(three, TURN + 1) is Speed.HALF
    # Her third hit comes with a critical hit that slows her next turn.
    ship = bomb(ca(damage=6, hits=2), 1, crit_dice(6, 3), critical_check=True).after
    assert (ship.hits, ship.half_speed_turns) == (3, (TURN + 1,))
    assert speed(ship, TURN) is Speed.HALF
    assert speed(ship, TURN + 1) is Speed.STOPPED  # "cannot move next turn"
    assert speed(ship, TURN + 2) is Speed.HALF  # "restricted to half speed thereafter"
    assert reported_dead_in_water(ship, TURN) and reported_dead_in_water(ship, TURN + 1)
    assert not reported_dead_in_water(ship, TURN + 2)  # "when it subsequently moves"
    assert not ship.crippled


def test_21_8_1_one_restriction_is_half_speed() -> None:
    """Seed 003, 21.8.1: "A ship restricted to half-speed for more than one reason at the same time is
    crippled" - one reason alone is half speed."""
    ship = bomb(ca(damage=6), 1, crit_dice(6, 3), critical_check=True).after
    assert [speed(ship, t) for t in (TURN, TURN + 1, TURN + 2)] == [Speed.FULL, Speed.HALF, Speed.FULL]
    assert not reported_dead_in_water(ship, TURN)


def test_movement_uses_the_damage_speed() -> None:
    rules = movement_rules(TABLES["movement"])
    ship = replace(ca(damage=6, hits=3), half_speed_turns=(TURN + 1,))
    assert ship_speed(ship, rules, turn=TURN + 1) == Hexes(0)
    assert ship_speed(ship, rules, turn=TURN + 2) == Hexes(1)
    assert ship_speed(ship, rules) == Hexes(1)  # old callers: lasting damage only
    slow = replace(ca(damage=6), movement=1, torpedo_hits=2, slowing_hits=2, hits=2)
    assert ship_speed(slow, rules, turn=TURN) == Hexes(1, alternate=True)


# --- 21.6.2 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", [1, 2, 3, 4, 5, 6])
def test_21_6_2_a_maximum_launch_is_caught_on_1_to_4(roll: int) -> None:
    """Seed 003, 21.6.2: "Roll 1d6; on a 1 through 4 any aircraft that used a maximum launch in that
    turn are considered to still be in the "ready" box when the enemy strike arrives. The damage
    increase due to having air factors in "ready" is in effect. Also, these factors are the first
    ones from which losses due to bomb hits are taken. Any surviving factors then are considered to
    have taken off normally."""
    boxes = AirBoxes(ready=(f("Dauntless", 9),))
    ship = cv(damage=20, boxes=replace(boxes, ready=()), launch=11)
    launching = (f("Wildcat", 3), f("Dauntless", 2))
    dice = FixedDice(by_label={"t5.AF1.Yorktown/caught taking off": [roll]})
    result = bomb(ship, 2, dice, launching=launching, ranking=("Dauntless",))
    if roll <= 4:
        assert (result.caught, result.taken) == (True, 4)
        assert caught_losses(result.planes) == {"Dauntless": 2, "Wildcat": 2}
        assert all(p.box == "launching" for p in result.planes)
    else:
        assert (result.caught, result.taken, result.planes) == (False, 2, ())


def test_21_6_2_caught_planes_are_lost_before_the_ready_box() -> None:
    ship = cv(damage=20, boxes=AirBoxes(ready=(f("Dauntless", 9),)))
    dice = FixedDice(by_label={"t5.AF1.Yorktown/caught taking off": [1]})
    result = bomb(ship, 2, dice, launching=(f("Wildcat", 3),))
    assert [(p.box, p.plane, p.count) for p in result.planes] == [
        ("launching", "Wildcat", 3),
        ("ready", "Dauntless", 1),
    ]


def test_21_6_2_only_bases_and_cv_cvl_and_only_when_hit() -> None:
    """Seed 003, 21.6.2: "If a base or CV/CVL is attacked on the same turn that a maximum launch was
    used"."""
    av = Ship("Tangier", ShipType.AV, 2, 3, 0, 2, 5, capacity=6, launch=4, launch_min=2)
    assert not bomb(av, 2, NO_DICE, launching=(f("Catalina", 2),)).caught
    assert not bomb(cv(), 0, NO_DICE, launching=(f("Wildcat", 2),)).caught
    dice = FixedDice(by_label={"t5.AF1.PM/caught taking off": [2]})
    assert strike(base(), 1, dice, launching=(f("P-39", 2),)).taken == 2


# --- bases --------------------------------------------------------------------------------------


def test_base_hits_cost_lf_sf_and_may_go_below_zero() -> None:
    """Reference A.12: "Each hit costs LF -2/-1 (-1/-1 for SP-only bases) ... SF -1 ... A base's
    factors may go below zero."""
    after = strike(base(), 5).after
    assert (after.launch, after.launch_min, after.surface, after.hits) == (-2, -1, -2, 5)
    assert after.start == BaseFactors(8, 4, 5, 3)
    sp = strike(base(Handling.SP), 2).after
    assert (sp.launch, sp.launch_min) == (6, 2)


def test_dispersed_factors_need_two_hits_each() -> None:
    """Reference A.12: "Dispersed factors need 2 hits each." They go last."""
    boxes = AirBoxes(readying=(f("B-26", 1),), dispersed=(f("P-39", 5),))
    result = strike(base(boxes=boxes), 6)
    assert result.planes == (
        PlaneLoss("readying", "B-26", 1, hidden=True),
        PlaneLoss("dispersed", "P-39", 2, hidden=False),
    )
    assert result.after.boxes.dispersed == (f("P-39", 3),)


def test_base_repairs_one_hit_a_turn_unless_attacked() -> None:
    """Reference A.12: "A base repairs 1 hit per turn in the Repair Phase, unless it was air-attacked
    or bombarded that turn, and never above its starting values. Each repaired hit gives LF +2/+1, SF
    +1" and AA +1 (ruling B.14)."""
    hit = strike(base(), 5).after  # LF -2/-1, SF -2, AA 3
    assert repair_base(hit, attacked=True) == hit
    once = repair_base(hit, attacked=False)
    assert (once.hits, once.launch, once.launch_min, once.surface, once.aa) == (4, 0, 0, -1, 4)
    fixed = hit
    for _ in range(5):
        fixed = repair_base(fixed, attacked=False, rules=RULES)
    assert (fixed.hits, fixed.launch, fixed.launch_min, fixed.surface, fixed.aa) == (0, 8, 4, 3, 5)
    assert repair_base(fixed, attacked=False) == fixed
    assert repair_base(base(), attacked=False) == base()


def test_21_3_note_c_base_aa_repairs_one_factor_a_turn() -> None:
    """Seed 003, 21.3 note (c): "Base AA still repairs at one factor per turn(but no more than one.)"""
    hit = strike(base(), 8).after  # AA -2
    assert (repair_base(hit, attacked=False).aa, hit.aa) == (4, 3)


def test_sp_only_bases_repair_what_they_lost() -> None:
    hit = strike(base(Handling.SP), 2).after
    once = repair_base(hit, attacked=False)
    assert (once.launch, once.launch_min) == (7, 3)


def test_bases_are_not_torpedoed() -> None:
    """Reference B.14 ruling: bases may not be attacked by torpedo."""
    with pytest.raises(GameError):
        strike(base(), 1, kind=TORPEDO, armament=Armament.TORPEDO)


# --- bookkeeping --------------------------------------------------------------------------------


def test_every_roll_is_labelled_from_the_inputs_and_reported() -> None:
    dice = FixedDice(
        by_label={
            "t5.AF1.Yorktown/caught taking off": [2],
            "t5.AF1.Yorktown/critical check": [6],
            "t5.AF1.Yorktown/critical effect": [2],
            "t5.AF1.Yorktown/sinking delay": [5],
        }
    )
    result = bomb(cv(), 4, dice, launching=(f("Wildcat", 2),), critical_check=True)
    assert dice.leftover() == {}
    assert all(roll.rule for roll in dice.log)
    for roll in dice.log:
        assert any(roll.text in fact for fact in result.facts), roll.text
    assert result.after.fires == ("major_fire",) and result.sinking_roll == 5


def test_new_ship_and_base_fields_round_trip() -> None:
    ship = replace(
        cv(hits=7), sinking=3, destroyed_turn=4, torpedo_hits=2, half_speed_turns=(5,), fires=("fire",)
    )
    assert load(Ship, dump(ship)) == ship
    hit = strike(base(), 2).after
    assert load(Base, dump(hit)) == hit
    old = {k: v for k, v in dump(cv()).items() if k not in ("sinking", "destroyed_turn", "fires")}
    assert load(Ship, old) == cv()


def test_a_sunk_ship_cannot_be_hit() -> None:
    with pytest.raises(GameError):
        bomb(ca(hits=6), 1)
