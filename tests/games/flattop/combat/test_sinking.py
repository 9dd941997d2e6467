# SPDX-License-Identifier: GPL-3.0-or-later
"""Delayed sinking: seed 003, 15 Limited Intelligence 4, on the shipped damage.toml with fixed dice."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.damage import (
    Attack,
    DamageRules,
    HitKind,
    ShipHit,
    Speed,
    reported_dead_in_water,
    speed,
)
from mailbot.games.flattop.combat.damage_ships import hit_ship, hours_pass_tf
from mailbot.games.flattop.combat.sinking import hours_pass, needs_roll, sinking_hours
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import AirBoxes, AirFactors, Armament, Ship, ShipType, Side, TaskForce

from ..conftest import load_tables

RULES = DamageRules.from_mapping(load_tables()["damage"])
TURN = 7
LABEL = "t7.AF2.Wasp"


def wasp(**more: Any) -> Ship:
    """The seed's Wasp: "8 hits, two beyond its damage factor", so Damage Factor 6."""
    return Ship("Wasp", ShipType.CV, 4, 6, 0, 2, 6, capacity=28, launch=10, launch_min=3, readying=7, **more)


def hit(ship: Ship, hits: int, *rolls: int, turn: int = TURN) -> ShipHit:
    dice = FixedDice(by_label={f"{LABEL}/sinking delay": list(rolls)})
    attack = Attack(hits, HitKind.BOMB, Armament.AP, critical_check=False, label=LABEL)
    result = hit_ship(ship, attack, rules=RULES, dice=dice, turn=turn)
    assert dice.leftover() == {}, "every given roll is used"
    return result


# The seed's table in its own words: "1 or 2 Always immediate; 3 to 5: 1 to 3 hours; 6 or more: 1 to
# 6 hours", each outcome equally likely on 1d6 ("a roll of 1 or 2 would be 1 hour delay, 3-4 would
# be 2, 5-6 would be 3").
IMMEDIATE = (0, 0, 0, 0, 0, 0)
ONE_TO_THREE = (1, 1, 2, 2, 3, 3)
ONE_TO_SIX = (1, 2, 3, 4, 5, 6)
SEED_TABLE = {1: IMMEDIATE, 2: IMMEDIATE, 3: ONE_TO_THREE, 4: ONE_TO_THREE, 5: ONE_TO_THREE}
SEED_TABLE |= dict.fromkeys(range(6, 13), ONE_TO_SIX)


@pytest.mark.parametrize("damage_factor", range(1, 13))
@pytest.mark.parametrize("roll", range(1, 7))
def test_li4_delayed_sinking_table_cell_by_cell(damage_factor: int, roll: int) -> None:
    """Seed 003, LI 4: "Ship damage factor / Sinking time: 1 or 2 Always immediate; 3 to 5: 1 to 3
    hours; 6 or more: 1 to 6 hours. Delayed sinking times are considered randomly, rolling 1d6 and
    assigning each possible outcome an equal chance (so if a ship with a 5 DF is sunk, a roll of 1 or
    2 would be 1 hour delay, 3-4 would be 2, 5-6 would be 3.)"""
    assert sinking_hours(damage_factor, roll, 0, RULES.sinking) == SEED_TABLE[damage_factor][roll - 1]
    assert needs_roll(damage_factor, RULES.sinking) == (damage_factor >= 3)


def test_li4_the_wasp_sinks_in_two_hours_instead_of_four() -> None:
    """Seed 003, LI 4: "Each hit that a ship takes beyond its damage factor will drop an hour off of
    its sinking time. So if the Wasp takes 8 hits, two beyond its damage factor, and rolls a 4, it
    will sink in two hours instead of four."""
    assert sinking_hours(6, 4, 2, RULES.sinking) == 2
    result = hit(wasp(), 8, 4)
    ship = result.after
    assert (result.sinking_roll, ship.sinking, ship.destroyed_turn) == (4, 2, TURN)
    assert ship.destroyed and not ship.sunk
    # On the board for two more hours (turns 8 and 9), gone at the end of turn 9.
    ship = hours_pass(ship, turn=TURN)
    assert (ship.sinking, ship.sunk) == (2, False)
    ship = hours_pass(ship, turn=TURN + 1)
    assert (ship.sinking, ship.sunk) == (1, False)
    ship = hours_pass(ship, turn=TURN + 2)
    assert (ship.sinking, ship.sunk) == (0, True)


def test_li4_a_ship_delayed_in_sinking_is_reported_crippled() -> None:
    """Seed 003, LI 4: "A ship that is officially destroyed but is delayed in sinking is reported to be
    crippled." She stays on the board and cannot move."""
    ship = hit(wasp(), 6, 6).after
    assert ship.sinking == 6 and ship.crippled and not ship.sunk
    tf = TaskForce(1, Side.ALLIED, Hex(3, 4), (ship,))
    assert tf.afloat == (ship,)
    assert speed(ship, TURN + 1) is Speed.STOPPED
    assert reported_dead_in_water(ship, TURN + 1)


def test_li4_hits_after_sunk_take_an_hour_each() -> None:
    """Seed 003, LI 4: "Hits taken after the ship is "sunk" but is still on the board will each reduce
    the time by an hour also."""
    doomed = hit(wasp(), 6, 5).after
    assert doomed.sinking == 5
    later = hit(doomed, 2, turn=TURN + 1)  # no second sinking roll
    assert (later.after.sinking, later.after.hits, later.sinking_roll) == (3, 8, None)
    gone = hit(later.after, 3, turn=TURN + 1).after
    assert (gone.sinking, gone.sunk) == (0, True)


def test_li4_damage_factor_1_or_2_always_sinks_at_once() -> None:
    """Seed 003, LI 4: "1 or 2 Always immediate" (no die is rolled)."""
    dd = Ship("Sims", ShipType.DD, 3, 1, 2, 2, 2)
    result = hit(dd, 2)
    assert result.after.sunk and result.sinking_roll is None
    tf = TaskForce(1, Side.ALLIED, Hex(3, 4), (result.after,))
    assert tf.afloat == ()


@pytest.mark.parametrize(("hits", "sunk"), [(5, False), (7, False), (8, True), (9, True)])
def test_li4_damage_factor_3_or_more_sinks_at_once_only_with_enough_hits_over(hits: int, sunk: bool) -> None:
    """Seed 003, LI 4: "Note that ships with damage factors of 3 or greater will not sink immediately
    unless their hits exceed their damage factor by the required amount." (DF 5, roll 6: 3 hours.)"""
    ca = Ship("Chicago", ShipType.CA, 8, 4, 0, 2, 5)
    assert hit(ca, hits, 6).after.sunk is sunk


def test_hours_pass_leaves_other_ships_alone() -> None:
    whole, sunk = wasp(hits=2), Ship("Sims", ShipType.DD, 3, 1, 2, 2, 2, hits=2)
    assert hours_pass(whole, turn=TURN) == whole
    assert hours_pass(sunk, turn=TURN) == sunk


def test_a_sinking_carrier_takes_her_planes_down_when_she_goes() -> None:
    """Reference A.12: "A sunk carrier takes its planes with it" - when she goes down, not before."""
    boxes = AirBoxes(ready=(AirFactors("Wildcat", 9),), readying=(AirFactors("Avenger", 9),))
    doomed = hit(wasp(boxes=boxes), 3, 1).after  # Ready doubles 3 hits to 6: 6 Wildcats lost, 1 hour left
    assert doomed.sinking == 1 and doomed.boxes.total == 12
    tf = TaskForce(1, Side.ALLIED, Hex(3, 4), (doomed, replace(wasp(), name="Hornet")))
    same, none = hours_pass_tf(tf, turn=TURN)
    assert (same.ships, none) == (tf.ships, ())
    after, sank = hours_pass_tf(tf, turn=TURN + 1)
    assert [s.ship.name for s in sank] == ["Wasp"] and sank[0].destroyed_turn == TURN
    assert [(p.box, p.plane, p.count, p.hidden, p.sank) for p in sank[0].planes] == [
        ("ready", "Wildcat", 3, False, True),
        ("readying", "Avenger", 9, True, True),
    ]
    assert after.afloat == (replace(wasp(), name="Hornet"),) and after.ships[0].boxes == AirBoxes()


def test_sunk_without_a_recorded_delay_is_sunk() -> None:
    """Old saved states: a ship whose hits reach her Damage Factor with no delay recorded has sunk."""
    assert wasp(hits=6).sunk and not wasp(hits=6).crippled
    assert not replace(wasp(hits=6), sinking=2).sunk


def test_a_sinking_roll_is_one_d6() -> None:
    with pytest.raises(GameError):
        sinking_hours(6, 7, 0, RULES.sinking)
