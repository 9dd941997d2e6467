# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarines: seed 003, 27 (27.1-27.10 and the SUBMARINE ATTACK SEQUENCE TABLE), replayed with fixed
dice on the shipped submarines.toml, combat.toml and damage.toml."""

from __future__ import annotations

import copy
import re
from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat import sub_attacks as attacks
from mailbot.games.flattop.combat.crt import combat_table
from mailbot.games.flattop.combat.damage import DamageRules
from mailbot.games.flattop.combat.sub_moves import (
    AswState,
    SubState,
    asw_state,
    begin_movement,
    capped,
    deep_sub_told,
    depth_problem,
    may_move,
    movers_allowed,
    observation_limit,
    put,
    record_move,
    set_depth,
    stationary_dds,
    sub_search,
    sub_state,
    sub_visible,
    tf_may_attack,
)
from mailbot.games.flattop.combat.sub_sequence import (
    Situation,
    asw_attacks_left,
    asw_capacity,
    asw_problem,
    attack_problem,
    depth_modifier,
    depths_during_movement,
    dive,
    engaged,
    firing_order,
    gunnery_problem,
    may_fire_aa,
    rearm_ship,
    rearm_sub,
    recently_attacked,
    record_sub_attack,
    resolution_depth,
    sequence,
    sequence_modifiers,
    sequence_roll,
    sub_bht,
    tf_anchored,
    torpedo_bht,
    torpedoes_left,
    unescorted,
)
from mailbot.games.flattop.combat.submarines import (
    HIT_SOMETHING,
    NO_HITS,
    NO_SLICK,
    OIL_SLICK,
    SHIPS_OVERHEAD,
    SUB_SUNK,
    AirPresence,
    AttackReport,
    AttackSequence,
    Depth,
    Firer,
    Observer,
    SubmarineRules,
    Weapon,
    roll_range,
    submarine_rules,
)
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.map.weather import Sky
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.units import Altitude, Ship, ShipType, Side, dump, load

from ..conftest import load_tables

TABLES = load_tables()
RULES = submarine_rules(TABLES)
COMBAT = attacks.Combat(
    RULES, combat_table(TABLES, "curve-fitted"), DamageRules.from_mapping(TABLES["damage"])
)
SURFACE, PERISCOPE, DEEP = Depth.SURFACE, Depth.PERISCOPE, Depth.DEEP
SEA, PARTIAL = Terrain.SEA, Terrain.PARTIAL
T = 10
NO_DICE = FixedDice()  # any roll raises: proves that nothing was rolled


def sub(name: str = "S-44") -> Ship:
    return Ship(name, ShipType.SS, 0, 0, 4, 1, 1)


def ca(name: str = "Aoba", **more: Any) -> Ship:
    return Ship(name, ShipType.CA, 8, 4, 2, 2, 6, **more)


def dd(name: str) -> Ship:
    return Ship(name, ShipType.DD, 3, 1, 1, 2, 2)


def pg(name: str) -> Ship:
    return Ship(name, ShipType.PG, 1, 1, 0, 1, 2)


def words(text: str) -> str:
    return " ".join(text.split())


# --- the SUBMARINE ATTACK SEQUENCE TABLE ------------------------------------------------------

# Seed 003, as printed (line breaks kept, the one wrapped modifier line included).
SEED_TABLE = """
SUBMARINE ATTACK SEQUENCE TABLE

Die Roll
Result

1 or less
The TF may attack the sub, but the sub may not fire back

2,3
The attack is resolved normally

4,5
The sub may attack first and then the TF may return fire

6+
The sub may attack but the TF may not return fire
"""

SEED_MODIFIERS = """
 Modifiers to the results above:

   +1 if at night.

   +1 if in a storm.

   +1 if the TF has been involved in other combat (air attack or surface) that turn.

   +2 if TF is anchored

   -1 if there is a low level enemy air formation in the hex (-2 if the AF has

      spotted or shadowed the sub in the current turn.)

   -1 If the TF has been attacked by a sub in the last 12 hours.
"""


def seed_rows() -> list[tuple[str, str]]:
    lines = [line.strip() for line in SEED_TABLE.strip().splitlines() if line.strip()]
    body = lines[lines.index("Result") + 1 :]
    return list(zip(body[0::2], body[1::2], strict=True))


def test_27_attack_sequence_table_matches_the_seed_cell_by_cell() -> None:
    """SUBMARINE ATTACK SEQUENCE TABLE: "1 or less / The TF may attack the sub, but the sub may not
    fire back; 2,3 / The attack is resolved normally; 4,5 / The sub may attack first and then the TF
    may return fire; 6+ / The sub may attack but the TF may not return fire"."""
    shipped = [(row.rolls, row.text) for row in RULES.sequence.rows]
    assert shipped == seed_rows()
    assert [row.result for row in RULES.sequence.rows] == list(AttackSequence)
    assert RULES.sequence.die == "1d6"
    assert not RULES.is_default("sequence")


@pytest.mark.parametrize(
    ("total", "result"),
    [
        (-3, AttackSequence.TF_ONLY),
        (0, AttackSequence.TF_ONLY),
        (1, AttackSequence.TF_ONLY),
        (2, AttackSequence.NORMAL),
        (3, AttackSequence.NORMAL),
        (4, AttackSequence.SUB_FIRST),
        (5, AttackSequence.SUB_FIRST),
        (6, AttackSequence.SUB_ONLY),
        (9, AttackSequence.SUB_ONLY),
    ],
)
def test_27_sequence_of_each_modified_roll(total: int, result: AttackSequence) -> None:
    """The table's "Die Roll" cells: "1 or less", "2,3", "4,5", "6+" (modified rolls run past 1-6)."""
    assert sequence(total, RULES) is result


def test_27_die_roll_cells_read_as_printed() -> None:
    """The "Die Roll" column: "1 or less", "2,3", "4,5", "6+"."""
    assert roll_range("1 or less") == (None, 1)
    assert roll_range("2,3") == (2, 3)
    assert roll_range("6+") == (6, None)
    with pytest.raises(ValueError, match="run of faces"):
        roll_range("2,4")


def test_27_sequence_modifiers_match_the_seed() -> None:
    """ "Modifiers to the results above: +1 if at night. +1 if in a storm. +1 if the TF has been
    involved in other combat (air attack or surface) that turn. +2 if TF is anchored -1 if there is a
    low level enemy air formation in the hex (-2 if the AF has spotted or shadowed the sub in the
    current turn.) -1 If the TF has been attacked by a sub in the last 12 hours.\""""
    printed = words(SEED_MODIFIERS)
    for key, text in RULES.sequence.texts.items():
        assert words(text) in printed, key
        match = re.match(r"\(?([+-]\d+)", text)
        assert match is not None
        assert RULES.sequence.modifiers[key] == int(match[1]), key
    assert len(RULES.sequence.texts) == printed.count(" if ") + printed.count(" If ")
    assert f"last {RULES.sequence.recent_hours} hours" in printed


def test_27_sequence_roll_with_every_modifier() -> None:
    """ "+1 if at night. +1 if in a storm. +1 if the TF has been involved in other combat ... +2 if TF
    is anchored ... (-2 if the AF has spotted or shadowed the sub in the current turn.) -1 If the TF
    has been attacked by a sub in the last 12 hours." 3 +1 +1 +1 +2 -2 -1 = 5: "The sub may attack
    first and then the TF may return fire"."""
    everything = Situation(
        night=True,
        storm=True,
        other_combat=True,
        anchored=True,
        air=AirPresence.SPOTTED,
        sub_attacked_recently=True,
    )
    dice = FixedDice(by_label={"t10/S-44 vs TF2/sequence": [3]})
    rolled = sequence_roll(everything, RULES, dice, "t10/S-44 vs TF2/sequence")
    assert rolled.roll.total == 5
    assert rolled.result is AttackSequence.SUB_FIRST
    assert sorted(rolled.roll.modifiers.values()) == [-2, -1, 1, 1, 1, 2]
    assert "The sub may attack first and then the TF may return fire" in rolled.text


def test_27_sequence_low_enemy_air_is_minus_one() -> None:
    """ "-1 if there is a low level enemy air formation in the hex": 2 - 1 = 1, "The TF may attack the
    sub, but the sub may not fire back"."""
    assert sequence_modifiers(Situation(air=AirPresence.LOW), RULES) == {"low enemy AF in the hex": -1}
    rolled = sequence_roll(Situation(air=AirPresence.LOW), RULES, FixedDice([2]), "seq")
    assert rolled.result is AttackSequence.TF_ONLY
    assert sequence_modifiers(Situation(), RULES) == {}


def test_27_sequence_attacked_by_a_sub_in_the_last_12_hours() -> None:
    """ "-1 If the TF has been attacked by a sub in the last 12 hours." Turns are hours."""
    tf = (ca(), dd("Yunagi"))
    states = record_sub_attack((), tf, T)
    assert {s.name for s in states} == {"Aoba", "Yunagi"}
    assert recently_attacked(tf, states, T, RULES)
    assert recently_attacked(tf, states, T + 12, RULES)
    assert not recently_attacked(tf, states, T + 13, RULES)
    assert not recently_attacked((ca("Kako"),), states, T + 1, RULES)


def test_27_sequence_anchored_tf() -> None:
    """ "+2 if TF is anchored": every ship of the TF afloat lies at anchor."""
    assert tf_anchored((ca(anchored=True), Ship("Kiyokawa Maru", ShipType.AV, 1, 2, 0, 2, 4, anchored=True)))
    assert not tf_anchored((ca(anchored=True), dd("Yunagi")))
    assert sequence_modifiers(Situation(anchored=True), RULES) == {"TF anchored": 2}


# --- 27.6, 27.6.2: who fires first ------------------------------------------------------------


def test_27_6_normal_situation() -> None:
    """27.6: "If a sub is on the surface and is involved in combat, the attack against the sub is
    resolved first. If a sub is at periscope depth, the sub's attack is resolved first."""
    assert firing_order(AttackSequence.NORMAL, SURFACE) == (Firer.TF, Firer.SUB)
    assert firing_order(AttackSequence.NORMAL, PERISCOPE) == (Firer.SUB, Firer.TF)
    assert firing_order(AttackSequence.SUB_FIRST, SURFACE) == (Firer.SUB, Firer.TF)
    assert firing_order(AttackSequence.TF_ONLY, PERISCOPE) == (Firer.TF,)
    assert firing_order(AttackSequence.SUB_ONLY, SURFACE) == (Firer.SUB,)


def test_27_6_2_deep_subs_only_receive_asw_and_never_attack() -> None:
    """27.6.2: "Deep subs may only receive ASW attacks. They may never attack.\""""
    assert depth_modifier(Weapon.ASW, DEEP, RULES) == -1
    assert depth_modifier(Weapon.GUNNERY, DEEP, RULES) is None
    assert depth_modifier(Weapon.AIR, DEEP, RULES) is None
    assert firing_order(AttackSequence.SUB_ONLY, DEEP) == (Firer.TF,)
    assert attack_problem(SubState("S-44", DEEP), 4, T, RULES) == "deep subs may never attack (27.6.2)"


# --- 27.1, 27.2: depth and movement -------------------------------------------------------------


def test_27_1_deep_level_not_in_partial_land_hexes() -> None:
    """27.1: "Submarines may operate at three levels -- surface, periscope, & deep. The deep level
    may not be used in partial land hexes.\""""
    assert [d.value for d in Depth] == ["surface", "periscope", "deep"]
    assert depth_problem(DEEP, SEA, RULES) is None
    assert depth_problem(PERISCOPE, PARTIAL, RULES) is None
    assert depth_problem(DEEP, PARTIAL, RULES) is not None
    with pytest.raises(GameError, match="partial land"):
        set_depth(SubState("S-44"), DEEP, PARTIAL, T, RULES)


def test_27_2_movement_by_depth() -> None:
    """27.2: "A submarine may move 1 hex per turn on the surface, one hex every other hour at
    periscope depth, and may not move if deep.\""""
    assert may_move(SubState("S-44", SURFACE, moved_turn=T - 1), T, RULES).hexes == 1
    assert not may_move(SubState("S-44", PERISCOPE, moved_turn=T - 1), T, RULES).allowed
    assert may_move(SubState("S-44", PERISCOPE, moved_turn=T - 2), T, RULES).hexes == 1
    assert may_move(SubState("S-44", PERISCOPE), T, RULES).allowed
    deep = may_move(SubState("S-44", DEEP), T, RULES)
    assert not deep.allowed
    assert "deep" in deep.reason


def test_27_2_1_depth_at_the_start_of_movement_decides() -> None:
    """27.2.1: "A submarine is moved based on its depth at the beginning of the movement phase. Thus
    if a surfaced sub moves during a turn, and submerges to periscope depth during that turn, it may
    not move the next turn since it moved in the current turn.\""""
    boat = begin_movement(SubState("S-44", SURFACE), T)
    assert may_move(boat, T, RULES).allowed
    boat = set_depth(record_move(boat, T), PERISCOPE, SEA, T, RULES)
    boat = begin_movement(boat, T + 1)
    assert not may_move(boat, T + 1, RULES).allowed
    assert may_move(begin_movement(boat, T + 2), T + 2, RULES).allowed


def test_27_2_2_depth_change_while_stationary_is_not_movement() -> None:
    """27.2.2: "A submarine may change to any depth during movement. It may also change to any depth
    while remaining stationary; this does not count as movement per 27.2.3 below.\""""
    boat = set_depth(begin_movement(SubState("S-44", SURFACE), T), DEEP, SEA, T, RULES)
    boat = set_depth(boat, PERISCOPE, SEA, T, RULES)
    assert boat.moved_turn is None
    assert depths_during_movement(boat, T) == (SURFACE, DEEP, PERISCOPE)
    assert may_move(begin_movement(boat, T + 1), T + 1, RULES).allowed


@pytest.mark.parametrize(
    ("subs", "movers"), [(0, 0), (1, 1), (2, 2), (3, 3), (4, 3), (6, 3), (7, 4), (10, 5)]
)
def test_27_2_3_half_rounded_up_but_three_may_always_move(subs: int, movers: int) -> None:
    """27.2.3: "Up to one half (rounded up) of a player's submarines may move in a given turn; a
    minimum of three may always move as long as the player has at least three.\""""
    assert movers_allowed(subs, RULES) == movers


def test_27_2_3_no_move_the_turn_after_combat() -> None:
    """27.2.3: "Submarines may not move the turn after engaging in combat.\""""
    boat = engaged(SubState("S-44", SURFACE), T)
    assert not may_move(boat, T + 1, RULES).allowed
    assert "after engaging in combat" in may_move(boat, T + 1, RULES).reason
    assert may_move(boat, T + 2, RULES).allowed


# --- 27.3-27.5.3: observation --------------------------------------------------------------------


def test_27_3_what_a_sub_may_observe_at_each_depth() -> None:
    """27.3: "A sub may observe up to condition three only in its own hex if it is on the surface
    (air units may be observed at condition one if one hex away and at HI and any sub with radar may
    observe normally); up to condition two in its own hex if at periscope depth; and only condition 1
    if deep.\""""

    def limit(depth: Depth, distance: int = 0, *, high_air: bool = False, radar: bool = False) -> int | None:
        return observation_limit(depth, distance=distance, high_air=high_air, radar=radar, rules=RULES)

    assert limit(SURFACE) == 3
    assert limit(SURFACE, 1) == 0
    assert limit(SURFACE, 1, high_air=True) == 1
    assert limit(SURFACE, 2, high_air=True) == 0
    assert limit(SURFACE, 1, radar=True) is None
    assert limit(PERISCOPE) == 2
    assert limit(PERISCOPE, 1, high_air=True) == 0
    assert limit(DEEP) == 1
    assert capped(3, limit(PERISCOPE)) == 2
    assert capped(2, None) == 2


def test_27_4_surfaced_sub_seen_normally_in_its_own_hex_only() -> None:
    """27.4: "A sub on the surface is subject to normal detection in its own hex only. It is not
    visible from adjacent hexes.\""""
    assert sub_visible(SURFACE, Observer.HIGH_AIR, distance=0, rules=RULES)
    assert sub_visible(SURFACE, Observer.SHIPS, distance=0, rules=RULES)
    assert not sub_visible(SURFACE, Observer.SHIPS, distance=1, rules=RULES)


def test_27_5_1_periscope_sub_observed_only_if_it_attacks_or_with_stationary_dds() -> None:
    """27.5.1: "A sub at periscope depth is only observed if it attacks a ship or is in a hex with DDs
    which did not move that turn.\""""
    assert not sub_visible(PERISCOPE, Observer.SHIPS, distance=0, rules=RULES)
    assert sub_visible(PERISCOPE, Observer.SHIPS, distance=0, rules=RULES, attacked_ship=True)
    assert sub_visible(PERISCOPE, Observer.SHIPS, distance=0, rules=RULES, hex_dds=1)
    assert not sub_visible(PERISCOPE, Observer.SHIPS, distance=1, rules=RULES, hex_dds=1)
    assert stationary_dds((dd("Yunagi"), ca(), pg("PG-1")), RULES) == 1


def test_27_5_2_deep_sub_needs_a_tf_with_four_stationary_dds() -> None:
    """27.5.2: "A deep sub is only observed by a TF with at least 4 DDs which did not move that turn;
    and the sub is told only that there are ships overhead.\""""
    assert not sub_visible(DEEP, Observer.SHIPS, distance=0, rules=RULES, tf_dds=3, hex_dds=6)
    assert sub_visible(DEEP, Observer.SHIPS, distance=0, rules=RULES, tf_dds=4)
    assert not sub_visible(DEEP, Observer.LOW_AIR, distance=0, rules=RULES, tf_dds=4, found_by_search=True)
    assert deep_sub_told(True) == SHIPS_OVERHEAD == "there are ships overhead"
    assert deep_sub_told(False) == ""


def test_27_5_3_low_aircraft_sub_search() -> None:
    """27.5.3: "Subs at periscope depth may also be observed by aircraft flying at low level. The
    aircraft must spend 3MP per "sub search" roll and can only spot a sub in the same hex.\""""

    def search(depth: Depth, dice: FixedDice, **more: Any) -> Any:
        where: dict[str, Any] = {"distance": 0, "sky": Sky.CLEAR, "night": False} | more
        return sub_search(depth, Altitude.LOW, rules=RULES, dice=dice, label="t10/AF3/sub search", **where)

    found = search(PERISCOPE, FixedDice([2]))
    assert found.found
    assert found.mp == 3
    assert found.default
    assert not search(PERISCOPE, FixedDice([3])).found
    assert not search(PERISCOPE, FixedDice([2]), sky=Sky.CLOUD).found
    assert not search(PERISCOPE, NO_DICE, distance=1).found
    assert not search(PERISCOPE, NO_DICE, sky=Sky.STORM).found
    assert not search(PERISCOPE, NO_DICE, night=True).found
    assert not search(DEEP, NO_DICE).found
    assert sub_visible(PERISCOPE, Observer.LOW_AIR, distance=0, rules=RULES, found_by_search=True)
    assert not sub_visible(PERISCOPE, Observer.HIGH_AIR, distance=0, rules=RULES, found_by_search=True)
    with pytest.raises(GameError, match="low level"):
        sub_search(
            PERISCOPE,
            Altitude.HIGH,
            distance=0,
            sky=Sky.CLEAR,
            night=False,
            rules=RULES,
            dice=NO_DICE,
            label="x",
        )


def test_27_5_3_tf_attacks_while_the_aircraft_spots() -> None:
    """27.5.3: "A TF whose plotted move takes it into the sub's hex may attack the sub as long as the
    aircraft remains in the hex to spot.\""""
    assert tf_may_attack(seen_by_tf=False, spotted_by_air=True, spotter_in_hex=True)
    assert not tf_may_attack(seen_by_tf=False, spotted_by_air=True, spotter_in_hex=False)
    assert tf_may_attack(seen_by_tf=True, spotted_by_air=False, spotter_in_hex=False)


# --- 27.6.4-27.6.9: diving and the depth of each attack -------------------------------------------


def test_27_6_4_dive_upon_receiving_an_attack() -> None:
    """27.6.4: "A sub may be ordered to dive upon receiving an attack (e.g. from surface to periscope
    depth for an air or surface attack and from surface or periscope to deep for an ASW attack). This
    will happen during the combat phase & will have an effect upon the movement capabilities for the
    next movement phase.\""""
    boat = dive(SubState("S-44", SURFACE), PERISCOPE, SEA, T, RULES, under=Weapon.GUNNERY)
    assert boat.depth is PERISCOPE
    boat = dive(boat, DEEP, SEA, T, RULES, under=Weapon.ASW)
    assert not may_move(begin_movement(boat, T + 2), T + 2, RULES).allowed  # deep: no move
    with pytest.raises(GameError, match="cannot dive"):
        dive(boat, PERISCOPE, SEA, T, RULES)
    with pytest.raises(GameError, match="partial land"):
        dive(SubState("S-44", PERISCOPE), DEEP, PARTIAL, T, RULES)


def test_27_6_5_a_sub_that_dives_under_air_attack_cannot_attack() -> None:
    """27.6.5: "A sub which dives under an air attack cannot make an attack itself that turn.\""""
    boat = dive(SubState("S-44", SURFACE), PERISCOPE, SEA, T, RULES, under=Weapon.AIR)
    assert attack_problem(boat, 4, T, RULES) is not None
    assert "dives under an air attack" in (attack_problem(boat, 4, T, RULES) or "")
    assert attack_problem(boat, 4, T + 1, RULES) is None
    # The air attack itself reaches surfaced subs only (design default [against.air]).
    assert resolution_depth(Weapon.AIR, depth=SURFACE, dive_to=PERISCOPE, rules=RULES) is None
    assert resolution_depth(Weapon.AIR, depth=SURFACE, rules=RULES) is SURFACE
    assert RULES.is_default("against.air")


def test_27_6_55_aa_only_if_surfaced() -> None:
    """27.6.55: "Submarines may only use their AA factor if surfaced.\""""
    assert may_fire_aa(SURFACE)
    assert not may_fire_aa(PERISCOPE)
    assert not may_fire_aa(DEEP)


def test_27_6_6_dive_before_own_attack_resolved_at_new_depth() -> None:
    """27.6.6: "A sub which dives under a gunnery or ASW attack before making its own attack has the
    enemy attack resolved at its new depth.\""""
    assert resolution_depth(Weapon.GUNNERY, depth=SURFACE, dive_to=PERISCOPE, rules=RULES) is PERISCOPE
    assert resolution_depth(Weapon.ASW, depth=PERISCOPE, dive_to=DEEP, rules=RULES) is DEEP
    assert resolution_depth(Weapon.GUNNERY, depth=PERISCOPE, dive_to=DEEP, rules=RULES) is None


def test_27_6_7_dive_after_own_attack() -> None:
    """27.6.7: "A sub which dives after making an attack has the surface attack resolved at surface
    level and the ASW attack resolved at periscope depth.\""""
    after: dict[str, Any] = {"depth": SURFACE, "dive_to": DEEP, "after_own_attack": True, "rules": RULES}
    assert resolution_depth(Weapon.GUNNERY, **after) is SURFACE
    assert resolution_depth(Weapon.ASW, **after) is PERISCOPE
    assert resolution_depth(Weapon.ASW, depth=SURFACE, rules=RULES) is None  # 27.9: no ASW at the surface


def test_27_6_8_asw_at_the_most_favorable_depth_of_movement() -> None:
    """27.6.8: "A sub which begins and ends a turn in the same hex with ASW units has the ASW attack
    resolved at the most favorable depth to the ASW combat which the sub was at during movement.\""""
    lingering: dict[str, Any] = {"depth": DEEP, "rules": RULES}
    assert resolution_depth(Weapon.ASW, movement_depths=(PERISCOPE, DEEP), **lingering) is PERISCOPE
    assert resolution_depth(Weapon.ASW, movement_depths=(DEEP,), **lingering) is DEEP
    assert resolution_depth(
        Weapon.ASW, depth=PERISCOPE, dive_to=DEEP, movement_depths=(PERISCOPE,), rules=RULES
    ) is (PERISCOPE)
    # Surfaced all movement: no depth ASW reaches there, so the ordinary rules decide.
    assert resolution_depth(Weapon.ASW, depth=PERISCOPE, movement_depths=(SURFACE,), rules=RULES) is PERISCOPE
    with pytest.raises(GameError, match="no movement phase"):
        depths_during_movement(SubState("S-44"), T)


def test_27_6_9_worked_sequence() -> None:
    """27.6.9: "it would be possible for a sub on the surface to dive to periscope depth before combat,
    fire its torpedoes at periscope depth, then suffer gunnery and ASW attack at that depth, and then
    dive deep. If the ASW units remained overhead during the next turn and the sub elected not to
    rise, it would only suffer deep ASW attack that turn."

    An Allied sub against a Japanese TF (Aoba and two DDs), curve-fitted CRT."""
    tf = (ca(), dd("Yunagi"), dd("Uzuki"))
    label = "t10/S-44 vs TF4"
    dice = FixedDice(
        by_label={
            f"{label}/sequence": [2],  # "The attack is resolved normally"
            f"{label}/salvo 1 at Aoba": [3, 4],  # BHT 10 x 4 factors: E 1.2 x 1 -> 1 hit
            f"{label}/gunnery at S-44": [1, 1],  # base roll 2: nothing
            f"{label}/ASW at S-44": [3, 4],  # E 0.4 -> 0 hits
        }
    )
    # Turn 10: surfaced at the start of movement, dives to periscope before combat.
    boat = set_depth(begin_movement(SubState("S-44", SURFACE), T), PERISCOPE, SEA, T, RULES)
    seq = sequence_roll(Situation(), RULES, dice, f"{label}/sequence")
    assert firing_order(seq.result, boat.depth) == (Firer.SUB, Firer.TF)
    # "fire its torpedoes at periscope depth"
    firing = attacks.Firing(T, COMBAT, dice, label)
    salvo = attacks.fire_torpedoes(
        sub(), boat, (attacks.Aim("Aoba", 4),), attacks.Torpedoes(Side.ALLIED, tf), firing=firing
    )
    assert salvo.strikes[0].bht.value == 10
    assert salvo.ships[0].hits == 1
    assert salvo.ships[0].torpedo_hits == 1
    boat = salvo.sub
    # "then suffer gunnery and ASW attack at that depth"
    moved = depths_during_movement(boat, T)
    gun_depth = resolution_depth(Weapon.GUNNERY, depth=boat.depth, after_own_attack=True, rules=RULES)
    asw_depth = resolution_depth(
        Weapon.ASW, depth=boat.depth, after_own_attack=True, movement_depths=moved, rules=RULES
    )
    assert gun_depth is PERISCOPE
    assert asw_depth is PERISCOPE
    shot = attacks.gunnery_attack(sub(), boat, tf, (), depth=gun_depth, firing=firing)
    assert shot.strike.bht.value == 7 - 2
    assert shot.strike.factors == 8 + 3 + 3
    charged = attacks.asw_attack(shot.sub_ship, shot.sub, tf[1:], shot.states, depth=asw_depth, firing=firing)
    assert charged.strike.bht.value == 8
    assert not charged.sub_ship.destroyed
    # "and then dive deep"
    boat = dive(charged.sub, DEEP, SEA, T, RULES)
    assert dice.leftover() == {}

    # Turn 11: the ASW units stay overhead, the sub stays deep: "only ... deep ASW attack".
    boat = begin_movement(boat, T + 1)
    assert not may_move(boat, T + 1, RULES).allowed
    moved = depths_during_movement(boat, T + 1)
    assert resolution_depth(Weapon.ASW, depth=boat.depth, movement_depths=moved, rules=RULES) is DEEP
    assert resolution_depth(Weapon.GUNNERY, depth=boat.depth, rules=RULES) is None
    assert attack_problem(boat, 4, T + 1, RULES) == "deep subs may never attack (27.6.2)"
    dice = FixedDice(by_label={"t11/S-44 vs TF4/ASW at S-44": [6, 6]})  # E 0.3 x 2 -> 1 hit
    later = attacks.Firing(T + 1, COMBAT, dice, "t11/S-44 vs TF4")
    again = attacks.asw_attack(charged.sub_ship, boat, tf[1:], charged.states, depth=DEEP, firing=later)
    assert again.strike.bht.value == 8 - 1
    assert again.sub_ship.sunk
    assert asw_state(again.states, "Yunagi").asw_attacks == 2


# --- 27.8, 27.9.1, 27.9.2: the sub's attack ------------------------------------------------------


def test_27_8_night_random_targets_and_no_combining() -> None:
    """27.8: "For night attacks, submarines cannot combine their attack factors. During night
    attacks, targets will be chosen at random." Every factor rolls alone at a ship drawn by 1d3 over
    the TF listed by name (Aoba, Kako, Kinugasa)."""
    tf = (ca("Kinugasa"), ca("Aoba"), ca("Kako"))
    label = "t20/S-38 vs TF6"
    picks = {f"{label}/night target {i}": [face] for i, face in enumerate((3, 1, 3), start=1)}
    tubes = {f"{label}/tube 1 at Kinugasa": [1, 1], f"{label}/tube 2 at Aoba": [1, 1]}
    tubes |= {f"{label}/tube 3 at Kinugasa": [1, 1]}
    dice = FixedDice(by_label=picks | tubes)
    boat = SubState("S-38", PERISCOPE)
    firing = attacks.Firing(20, COMBAT, dice, label)
    attack = attacks.fire_torpedoes_at_night(
        sub("S-38"), boat, 3, tf, attacks.Torpedoes(Side.ALLIED, tf), firing=firing
    )
    assert [(s.target, s.factors) for s in attack.strikes] == [("Kinugasa", 1), ("Aoba", 1), ("Kinugasa", 1)]
    assert attack.sub.factors_fired == 3
    assert dice.leftover() == {}
    assert not RULES.combine_at_night


def test_27_9_1_four_attack_factors_in_any_combination_one_attack_a_phase() -> None:
    """27.9.1: "A submarine has four attack factors. They may be used individually or in any
    combination (each represents a single torpedo tube.) A sub may only make one attack per combat
    phase, however.\""""
    assert RULES.attack_factors == 4
    tf = (ca("Aoba"), dd("Yunagi"))
    label = "t10/S-44 vs TF4"
    dice = FixedDice(by_label={f"{label}/salvo 1 at Aoba": [1, 1], f"{label}/salvo 2 at Yunagi": [1, 1]})
    aims = (attacks.Aim("Aoba", 3), attacks.Aim("Yunagi", 1))
    torpedoes = attacks.Torpedoes(Side.ALLIED, tf)
    attack = attacks.fire_torpedoes(
        sub(), SubState("S-44"), aims, torpedoes, firing=attacks.Firing(T, COMBAT, dice, label)
    )
    assert [(s.target, s.factors) for s in attack.strikes] == [("Aoba", 3), ("Yunagi", 1)]
    assert attack.sub.attacked_turn == T
    assert attack.sub.fought_turn == T
    assert (
        attack_problem(attack.sub, 1, T, RULES) == "a sub may only make one attack per combat phase (27.9.1)"
    )
    assert attack_problem(SubState("S-44"), 5, T, RULES) is not None
    with pytest.raises(GameError, match="one attack per combat phase"):
        attacks.fire_torpedoes(
            sub(),
            attack.sub,
            (attacks.Aim("Aoba", 1),),
            torpedoes,
            firing=attacks.Firing(T, COMBAT, NO_DICE, label),
        )


def test_27_9_1_crippled_or_anchored_unescorted_target_adds_2() -> None:
    """27.9.1: "If the target ship is crippled or anchored, and no friendly non-crippled/non-anchored
    ships are in the hex, add 2 to the BHT.\""""
    anchored = ca("Aoba", anchored=True)
    crippled = ca("Kako", hits=5)
    assert crippled.crippled
    assert torpedo_bht(Side.JAPANESE, anchored, (anchored, crippled), RULES).value == 15 + 2
    assert torpedo_bht(Side.ALLIED, anchored, (anchored,), RULES).value == 10 + 2
    assert not unescorted(anchored, (anchored, dd("Yunagi")))
    assert torpedo_bht(Side.ALLIED, anchored, (anchored, dd("Yunagi")), RULES).value == 10
    assert torpedo_bht(Side.ALLIED, ca(), (ca(),), RULES).value == 10


def test_27_9_1_torpedo_bht_is_a_design_default() -> None:
    """27.9.1 prints no BHT for a sub's torpedoes: the side's torpedo BHT (reference A.11.7), flagged."""
    bht = torpedo_bht(Side.JAPANESE, ca(), (ca(),), RULES)
    assert bht.default
    assert "design default" in bht.text
    assert RULES.torpedo_bht == {Side.JAPANESE: 15, Side.ALLIED: 10}


def test_27_9_2_submarine_reloads() -> None:
    """27.9.2: "Submarines have two reloads for each attack factor (this gives them 12 total attack
    factors that may be used before they are out of ammo. Per above, no more than four factors may
    be used in a given attack.)\""""
    assert RULES.reloads_per_factor == 2
    assert RULES.torpedo_capacity == 12
    boat = SubState("S-44", factors_fired=10)
    assert torpedoes_left(boat, RULES) == 2
    assert attack_problem(boat, 3, T, RULES) == "only 2 attack factors left before a reload (27.9.2)"
    assert attack_problem(boat, 2, T, RULES) is None
    assert torpedoes_left(rearm_sub(boat), RULES) == 12


def test_27_9_2_asw_reloads() -> None:
    """27.9.2: "ASW ships of DD class and above have two reloads, giving them the capacity to make
    three ASW attacks before being depleted. PG's have one reload (two total attacks.)\""""
    assert asw_capacity(ShipType.DD, RULES) == 3
    assert asw_capacity(ShipType.PG, RULES) == 2
    assert asw_capacity(ShipType.BB, RULES) == 0
    ship = pg("PG-1")
    assert asw_attacks_left(ship, AswState("PG-1", asw_attacks=1), RULES) == 1
    assert asw_problem(ship, AswState("PG-1", asw_attacks=2), RULES) is not None
    assert asw_problem(ca(), AswState("Aoba"), RULES) is not None
    assert asw_attacks_left(ship, rearm_ship(AswState("PG-1", asw_attacks=2)), RULES) == 2
    used = AswState("Yunagi", asw_attacks=3)
    with pytest.raises(GameError, match="reload"):
        attacks.asw_attack(
            sub(),
            SubState("S-44", PERISCOPE),
            (dd("Yunagi"),),
            (used,),
            depth=PERISCOPE,
            firing=attacks.Firing(T, COMBAT, NO_DICE, "x"),
        )


# --- 27.9: gunnery and ASW by depth -------------------------------------------------------------


def test_27_9_weapons_and_bht_modifiers_by_depth() -> None:
    """27.9: "Surfaced subs may only be attacked by gunnery; periscope depth subs may be attacked by
    gunnery (-2 BHT modifier) or ASW (no modifier); deep subs can only be attacked by ASW (-1 BHT
    modifier.)\""""
    table = {(w, d): depth_modifier(w, d, RULES) for w in (Weapon.GUNNERY, Weapon.ASW) for d in Depth}
    assert table == {
        (Weapon.GUNNERY, SURFACE): 0,
        (Weapon.GUNNERY, PERISCOPE): -2,
        (Weapon.GUNNERY, DEEP): None,
        (Weapon.ASW, SURFACE): None,
        (Weapon.ASW, PERISCOPE): 0,
        (Weapon.ASW, DEEP): -1,
    }
    assert not RULES.is_default("against")
    assert sub_bht(Weapon.GUNNERY, PERISCOPE, RULES).value == RULES.gunnery_bht - 2
    assert sub_bht(Weapon.ASW, DEEP, RULES).value == RULES.asw_bht - 1
    assert sub_bht(Weapon.ASW, PERISCOPE, RULES).default
    with pytest.raises(GameError, match="cannot attack"):
        sub_bht(Weapon.ASW, SURFACE, RULES)


def test_27_9_no_gunnery_at_subs_after_using_it_this_turn() -> None:
    """27.9: "Ships may not attack subs by gunnery if they have used their gunnery factor in the
    current turn.\""""
    aoba = ca()
    assert gunnery_problem(aoba, AswState("Aoba"), T) is None
    assert gunnery_problem(aoba, AswState("Aoba", gunnery_turn=T - 1), T) is None
    assert gunnery_problem(aoba, AswState("Aoba", gunnery_turn=T), T) is not None
    dice = FixedDice(by_label={"t10/gunnery at S-44": [1, 1]})
    firing = attacks.Firing(T, COMBAT, dice, "t10")
    shot = attacks.gunnery_attack(sub(), SubState("S-44"), (aoba,), (), depth=SURFACE, firing=firing)
    assert asw_state(shot.states, "Aoba").gunnery_turn == T
    assert shot.sub.fought_turn == T
    with pytest.raises(GameError, match="used its gunnery"):
        attacks.gunnery_attack(
            sub(),
            shot.sub,
            (aoba,),
            shot.states,
            depth=SURFACE,
            firing=attacks.Firing(T, COMBAT, NO_DICE, "t10"),
        )


def test_27_9_gunnery_sinks_a_surfaced_sub() -> None:
    """27.9: "Surfaced subs may only be attacked by gunnery"; a hit sinks a sub (Damage Factor 1)."""
    dice = FixedDice(by_label={"t10/gunnery at S-44": [4, 4]})
    firing = attacks.Firing(T, COMBAT, dice, "t10")
    shot = attacks.gunnery_attack(sub(), SubState("S-44"), (ca(),), (), depth=SURFACE, firing=firing)
    assert shot.strike.crt.hits >= 1
    assert shot.sub_ship.sunk


# --- 27.10: damage reports -------------------------------------------------------------------------


def test_27_10_what_the_sub_is_told_of_its_attack() -> None:
    """27.10: "Subs that remain surfaced after their attacks, or subs that attack before the TF
    attacks and then dive, get normal "approximate" damage reports. Subs that are attacked before
    they execute their own attack, and finish their attack submerged, are only told that they have
    hit something - no further details.\""""
    assert attacks.attack_report(attacked_first=False, ended_surfaced=True) is AttackReport.APPROXIMATE
    assert attacks.attack_report(attacked_first=True, ended_surfaced=False) is AttackReport.APPROXIMATE
    assert attacks.attack_report(attacked_first=False, ended_surfaced=False) is AttackReport.HIT_SOMETHING
    label = "t10/S-44 vs TF4"
    dice = FixedDice(by_label={f"{label}/salvo 1 at Aoba": [3, 4]})
    tf = (ca(),)
    torpedoes, firing = attacks.Torpedoes(Side.ALLIED, tf), attacks.Firing(T, COMBAT, dice, label)
    attack = attacks.fire_torpedoes(
        sub(), SubState("S-44"), (attacks.Aim("Aoba", 4),), torpedoes, firing=firing
    )
    told: dict[str, Any] = {
        "night": False,
        "turn": T,
        "policy": Deception.TRUTHFUL,
        "dice": NO_DICE,
        "label": label,
    }
    assert attacks.attack_report_lines(AttackReport.APPROXIMATE, attack.hits, **told) == ("a CA: smoking",)
    assert attacks.attack_report_lines(AttackReport.HIT_SOMETHING, attack.hits, **told) == (HIT_SOMETHING,)
    assert attacks.attack_report_lines(AttackReport.APPROXIMATE, (), **told) == (NO_HITS,)
    at_night = told | {"night": True}
    assert attacks.attack_report_lines(AttackReport.APPROXIMATE, attack.hits, **at_night) == (
        "a CA: 1 hit observed",
    )


def test_27_10_two_salvos_at_one_ship_make_one_approximate_line() -> None:
    """27.9.1 "used individually or in any combination" with 27.10's "approximate" report: one ship
    hit by two salvos is reported once, as she is after both (LI 3 "Ship is seen smoking")."""
    label = "t10/S-44 vs TF4"
    dice = FixedDice(by_label={f"{label}/salvo 1 at Aoba": [3, 4], f"{label}/salvo 2 at Aoba": [3, 4]})
    aims = (attacks.Aim("Aoba", 2), attacks.Aim("Aoba", 2))
    torpedoes, firing = attacks.Torpedoes(Side.ALLIED, (ca(),)), attacks.Firing(T, COMBAT, dice, label)
    attack = attacks.fire_torpedoes(sub(), SubState("S-44"), aims, torpedoes, firing=firing)
    assert attack.ships[0].hits == 2
    told: dict[str, Any] = {"turn": T, "policy": Deception.TRUTHFUL, "dice": NO_DICE, "label": label}
    assert attacks.attack_report_lines(AttackReport.APPROXIMATE, attack.hits, night=False, **told) == (
        "a CA: smoking",
    )
    night = attacks.attack_report_lines(AttackReport.APPROXIMATE, attack.hits, night=True, **told)
    assert night == ("a CA: 2 hits observed",)


def test_27_10_sunk_surfaced_sub_reported_accurately_submerged_as_an_oil_slick() -> None:
    """27.10: "Surfaced subs that are sunk report this accurately; those that are submerged and then
    sunk report an oil slick appearing on the surface.\""""
    sunk = Ship("S-44", ShipType.SS, 0, 0, 4, 1, 1, hits=1)
    report: dict[str, Any] = {
        "dived_deep_after_attack": False,
        "night": False,
        "turn": T,
        "rules": RULES,
        "dice": NO_DICE,
        "label": "t10",
    }
    assert attacks.report_for_sub(sunk, surfaced=True, **report).text == SUB_SUNK
    assert attacks.report_for_sub(sunk, surfaced=False, **report).text == OIL_SLICK
    assert attacks.report_for_sub(sub(), surfaced=False, **report).text == NO_SLICK
    assert attacks.report_for_sub(sub(), surfaced=True, **report).slick is None


@pytest.mark.parametrize(
    ("sunk", "face", "night", "slick"),
    [
        (False, 2, False, True),
        (False, 3, False, False),
        (True, 1, False, False),
        (True, 3, False, True),
        (False, 3, True, True),
        (True, 4, True, True),
    ],
)
def test_27_10_oil_slick_roll_after_diving_deep(sunk: bool, face: int, night: bool, slick: bool) -> None:
    """27.10: "Subs that dive deep after their attack roll 1d6; on a 1 or 2 they may report a slick
    even if they survived the attack, or not report one even if they have been sunk. Subtract one
    from roll at night.\""""
    boat = Ship("S-44", ShipType.SS, 0, 0, 4, 1, 1, hits=int(sunk))
    dice = FixedDice(by_label={"t10/S-44/oil slick": [face]})
    report = attacks.report_for_sub(
        boat,
        surfaced=False,
        dived_deep_after_attack=True,
        night=night,
        turn=T,
        rules=RULES,
        dice=dice,
        label="t10/S-44",
    )
    assert report.slick is slick
    assert report.text == (OIL_SLICK if slick else NO_SLICK)
    assert report.roll is not None
    assert report.roll.total == face - (1 if night else 0)
    assert RULES.flip_max == 2
    assert RULES.report_night == -1


# --- the data, the flags, the state --------------------------------------------------------------


def test_seed_numbers_in_the_data() -> None:
    """27.2 "1 hex per turn on the surface, one hex every other hour at periscope depth, and may not
    move if deep"; 27.2.3 "one half (rounded up) ... a minimum of three"; 27.3 "condition three",
    "condition two", "condition 1", "condition one if one hex away and at HI"; 27.5.2 "at least 4
    DDs"; 27.5.3 "3MP per "sub search" roll"."""
    assert [(RULES.movement[d].hexes, RULES.movement[d].every) for d in Depth] == [(1, 1), (1, 2), (0, 1)]
    assert (RULES.movers_share, RULES.movers_minimum) == (Fraction(1, 2), 3)
    assert [RULES.observation[d] for d in Depth] == [3, 2, 1]
    assert RULES.high_air_one_hex == 1
    assert RULES.deep_detection_dds == 4
    assert RULES.destroyers == {ShipType.DD}
    assert RULES.search_mp == 3
    assert RULES.deep_barred == {Terrain.PARTIAL}


def test_design_defaults_are_flagged_with_a_source() -> None:
    """Every table the seed lacks is data marked default = true with a source line."""
    assert set(RULES.design_defaults) == {
        "sub_search.roll",
        "against.air",
        "attack.torpedo_bht",
        "asw.ships",
        "asw.bht",
        "gunnery",
    }
    for name, source in RULES.sources.items():
        assert source.source, name
        assert ("design default" in source.source) is source.default, name
    with pytest.raises(GameError, match="no section"):
        RULES.is_default("nonsense")


def test_malformed_table_is_a_game_error() -> None:
    """submarines.toml ships with the code: a broken copy must not load."""
    gap = copy.deepcopy(TABLES["submarines"])
    gap["sequence"]["results"][1]["rolls"] = "3"
    with pytest.raises(GameError, match="do not meet"):
        SubmarineRules.from_mapping(gap)
    missing = copy.deepcopy(TABLES["submarines"])
    del missing["sequence"]["modifiers"]["storm"]
    with pytest.raises(GameError, match="malformed"):
        SubmarineRules.from_mapping(missing)
    with pytest.raises(GameError, match="missing"):
        submarine_rules({})


def test_state_round_trips_through_units_dump_and_load() -> None:
    """The game state holds SubState and AswState; units.dump/load must give them back unchanged."""
    boat = SubState("S-44", PERISCOPE, 3, 4, 4, None, 8, 5, (SURFACE, PERISCOPE))
    ship = AswState("Yunagi", 2, 7, 9)
    assert load(SubState, dump(boat)) == boat
    assert load(AswState, dump(ship)) == ship


def test_states_are_kept_by_name() -> None:
    states = put((SubState("S-44"),), SubState("S-38", DEEP))
    states = put(states, SubState("S-44", PERISCOPE))
    assert [(s.name, s.depth) for s in states] == [("S-38", DEEP), ("S-44", PERISCOPE)]
    assert sub_state(states, "S-47") == SubState("S-47")
