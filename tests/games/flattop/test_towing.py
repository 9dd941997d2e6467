# SPDX-License-Identifier: GPL-3.0-or-later
"""Towing: seed 003, "Towing (modification)", on the shipped towing.toml."""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.map.towing import (
    TowFire,
    TowingTable,
    TowPair,
    anchored_target,
    flight_ops_allowed,
    in_tow,
    may_tow,
    pair_hexes,
    pair_moves,
    pair_problems,
    start_tow,
    tow_class,
    tow_fire,
    tow_gunnery,
    tow_interval,
)
from mailbot.games.flattop.units import Ship, ShipType, dump, load

from .conftest import load_tables

TABLES = load_tables()
TABLE = TowingTable.from_mapping(TABLES["towing"])
TURN = 7

# The seed's words: "1: CV/BB 2: CA/CAV/CL 3: DD/APD/CVL 4: All others".
SEED_CLASSES = {"CV": 1, "BB": 1, "CA": 2, "CAV": 2, "CL": 2, "DD": 3, "APD": 3, "CVL": 3}
# One ship of each class for the matrix tests.
BY_CLASS = {1: ShipType.BB, 2: ShipType.CL, 3: ShipType.DD, 4: ShipType.AO}


def ship(name: str, kind: ShipType, *, movement: int = 2, gunnery: int = 4, **more: Any) -> Ship:
    return Ship(name, kind, gunnery, 6, 3, movement, 6, **more)


@pytest.mark.parametrize("kind", list(ShipType))
def test_towing_classes_cell_by_cell(kind: ShipType) -> None:
    """Seed 003, Towing: "For towing purposes, ships are divided into four "classes": 1: CV/BB 2:
    CA/CAV/CL 3: DD/APD/CVL 4: All others" """
    assert tow_class(kind, table=TABLE) == SEED_CLASSES.get(kind.value, 4)


def test_towing_a_dd_can_tow_a_cl_but_not_a_bb() -> None:
    """Seed 003, Towing: "A ship may tow any other ship up to one class above itself. Thus a DD can tow a
    CL but not a BB." """
    dd = ship("Sims", ShipType.DD)
    assert may_tow(dd, ship("Atlanta", ShipType.CL), turn=TURN, table=TABLE) == ""
    why = may_tow(dd, ship("North Carolina", ShipType.BB), turn=TURN, table=TABLE)
    assert why == "DD Sims (towing class 3) may tow ships up to class 2, not BB North Carolina (class 1)"


@pytest.mark.parametrize("tower", [1, 2, 3, 4])
@pytest.mark.parametrize("towed", [1, 2, 3, 4])
def test_towing_up_to_one_class_above_and_its_speed(tower: int, towed: int) -> None:
    """Seed 003, Towing: "A ship may tow any other ship up to one class above itself. ... If towing a
    ship one class above, the pair moves one hex every three turns instead of one every two." """
    a, b = ship("Tug", BY_CLASS[tower]), ship("Hulk", BY_CLASS[towed])
    allowed = towed >= tower - 1
    assert (may_tow(a, b, turn=TURN, table=TABLE) == "") is allowed
    if allowed:
        assert tow_interval(a, b, table=TABLE) == (3 if towed == tower - 1 else 2)
    else:
        with pytest.raises(GameError):
            tow_interval(a, b, table=TABLE)


def test_towing_pair_moves_one_hex_every_two_or_three_turns() -> None:
    """Seed 003, Towing: "the pair moves one hex every three turns instead of one every two." The turn
    the tow is taken up the pair holds its hex (design default)."""
    two = [t for t in range(TURN, TURN + 7) if pair_moves(TURN, t, 2)]
    three = [t for t in range(TURN, TURN + 7) if pair_moves(TURN, t, 3)]
    assert (two, three) == ([9, 11, 13], [10, 13])
    pair = start_tow(ship("Sims", ShipType.DD), ship("Atlanta", ShipType.CL), turn=TURN, table=TABLE)
    assert pair == TowPair("Sims", "Atlanta", TURN, 3)
    assert [pair_hexes(pair, t) for t in range(TURN, TURN + 4)] == [0, 0, 0, 1]


def test_towing_only_ships_capable_of_two_hexes_tow() -> None:
    """Seed 003, Towing: "Only ships currently capable of moving two hexes per turn may tow." """
    hulk = ship("Hulk", ShipType.DD, dead_in_water=True)
    assert may_tow(ship("Sims", ShipType.DD, movement=2), hulk, turn=TURN, table=TABLE) == ""
    slow = ship("Neosho", ShipType.AO, movement=1)
    assert "only ships currently capable of moving 2 hexes per turn may tow" in may_tow(
        slow, hulk, turn=TURN, table=TABLE
    )
    # Half speed from damage (3 hits of 6): MF 2 makes 1 hex, MF 4 still 2.
    assert may_tow(ship("Hammann", ShipType.DD, movement=2, hits=3), hulk, turn=TURN, table=TABLE) != ""
    assert may_tow(ship("Astoria", ShipType.CA, movement=4, hits=3), hulk, turn=TURN, table=TABLE) == ""
    # "Currently": a critical hit's half speed holds her in that turn only.
    held = ship("Sims", ShipType.DD, half_speed_turns=(TURN,))
    assert may_tow(held, hulk, turn=TURN, table=TABLE) != ""
    assert may_tow(held, hulk, turn=TURN + 1, table=TABLE) == ""
    with pytest.raises(GameError, match="capable"):
        start_tow(slow, hulk, turn=TURN, table=TABLE)


def test_towing_no_sinking_or_crippled_tower_nor_sinking_tow() -> None:
    """Seed 003, Towing: "Only ships currently capable of moving two hexes per turn may tow": a cripple
    cannot; a ship destroyed and sinking is not taken in tow (design default)."""
    dd = ship("Sims", ShipType.DD)
    crippled = ship("Portland", ShipType.CA, hits=5)
    assert crippled.crippled and may_tow(crippled, dd, turn=TURN, table=TABLE) != ""
    sinking = ship("Lexington", ShipType.CV, hits=6, sinking=3, destroyed_turn=TURN)
    assert (
        may_tow(ship("Astoria", ShipType.CA), sinking, turn=TURN, table=TABLE)
        == "Lexington is sinking and cannot be taken in tow"
    )
    assert may_tow(dd, dd, turn=TURN, table=TABLE) == "Sims cannot tow herself"
    assert TABLE.design_defaults == ("rulings",)


@pytest.mark.parametrize(("gunnery", "half"), [(0, 0), (1, 1), (4, 2), (5, 3), (9, 5)])
def test_towing_tow_gunnery_half_rounded_up(gunnery: int, half: int) -> None:
    """Seed 003, Towing: "Tow ships may not fire any weaponry except AA (full strength) and gunnery (half
    strength, rounded up.)" """
    tug = ship("Tug", ShipType.CA, gunnery=gunnery)
    assert tow_gunnery(tug, table=TABLE) == half
    assert tow_fire(tug, table=TABLE) == TowFire(gunnery=half, aa=6, torpedo=0)


def test_towing_no_flight_ops_and_the_pair_is_an_anchored_target() -> None:
    """Seed 003, Towing: "Tow ships may not launch or recover aircraft. If attacked, the towing "pair" is
    treated as an anchored target." """
    pairs = [TowPair("Minneapolis", "Lexington", TURN, 3)]
    assert not flight_ops_allowed("Minneapolis", pairs, table=TABLE)
    assert flight_ops_allowed("Yorktown", pairs, table=TABLE)
    assert anchored_target("Minneapolis", pairs, table=TABLE)
    assert anchored_target("Lexington", pairs, table=TABLE)
    assert not anchored_target("Yorktown", pairs, table=TABLE)
    assert in_tow(pairs) == frozenset({"Lexington"})


def test_towing_one_tow_per_ship() -> None:
    """Seed 003, Towing speaks of the towing "pair": a ship is in one tow at a time (design default)."""
    pairs = [TowPair("Sims", "Atlanta", TURN, 3), TowPair("Hughes", "Atlanta", TURN, 3)]
    assert pair_problems(pairs) == ("Atlanta is in 2 tows: one at a time",)
    assert pair_problems(pairs[:1]) == ()


def test_tow_pair_round_trips_and_the_table_is_checked() -> None:
    """The game state holds TowPair records; a malformed towing.toml is a GameError."""
    pair = TowPair("Sims", "Atlanta", TURN, 3)
    assert load(TowPair, dump(pair)) == pair
    classes = {**TABLES["towing"]["classes"], "4": ["DD"]}
    with pytest.raises(GameError, match="two towing classes"):
        TowingTable.from_mapping({**TABLES["towing"], "classes": classes})
    with pytest.raises(GameError, match="source"):
        TowingTable.from_mapping({**TABLES["towing"], "rulings": {"towed_may_be_sinking": False}})
