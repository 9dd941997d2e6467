# SPDX-License-Identifier: GPL-3.0-or-later
"""``tabledata.by_name``: a rules table's row of named figures read into its dataclass."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.air.interception import InterceptionTable
from mailbot.games.flattop.air.landing import LandingTable
from mailbot.games.flattop.combat.bht import HitTables
from mailbot.games.flattop.combat.cap import CapTable
from mailbot.games.flattop.combat.damage import DamageRules
from mailbot.games.flattop.combat.submarines import SubmarineRules
from mailbot.games.flattop.map.movement import movement_rules
from mailbot.games.flattop.map.towing import TowingTable
from mailbot.games.flattop.map.weather import weather_rules
from mailbot.games.flattop.tabledata import by_name


@dataclass(frozen=True)
class _Row:
    hexes: int
    share: float
    anchored: bool
    name: str
    rounded: Fraction


def test_each_field_is_read_by_its_own_name_and_annotated_type() -> None:
    row = by_name(_Row, {"hexes": 2, "share": 1, "anchored": 1, "name": 7}, rounded=Fraction(1, 3))
    assert row == _Row(2, 1.0, True, "7", Fraction(1, 3))
    assert type(row.share) is float and type(row.name) is str


def test_the_first_section_that_has_the_key_gives_it_and_given_fields_win() -> None:
    first, second = {"hexes": 1}, {"hexes": 9, "share": 0.5, "anchored": False, "name": "x"}
    row = by_name(_Row, first, second, rounded=Fraction(0), name="given")
    assert (row.hexes, row.share, row.name) == (1, 0.5, "given")


def test_a_missing_key_is_a_key_error_naming_it() -> None:
    with pytest.raises(KeyError, match="anchored"):
        by_name(_Row, {"hexes": 1, "share": 0.5, "name": "x"}, rounded=Fraction(0))


def test_a_field_of_another_type_must_be_given() -> None:
    with pytest.raises(TypeError, match=r"_Row\.rounded"):
        by_name(_Row, {"hexes": 1, "share": 0.5, "anchored": True, "name": "x", "rounded": 1})


def _shipped(name: str) -> dict[str, Any]:
    path = resources.files("mailbot.games.flattop") / "data" / "tables" / name
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_the_shipped_tables_read_by_name_give_their_figures() -> None:
    landing = LandingTable.from_mapping(_shipped("landing.toml"))
    assert (landing.carrier_need, landing.base_need, landing.armed_by_day, landing.armed_at_night) == (
        3,
        2,
        True,
        -1,
    )
    moves = movement_rules(_shipped("movement.toml"))
    assert (moves.tf_hex_cost, moves.plane_hex_cost, moves.slow_moves_on) == (1, 1, "even_hour")
    assert moves.slow_at_damage_fraction == 0.5 and moves.storm_entry_allowed is False
    towing = TowingTable.from_mapping(_shipped("towing.toml"))
    assert (towing.tower_hexes, towing.turns_per_hex, towing.turns_per_hex_up) == (2, 2, 3)
    assert towing.gunnery_share == Fraction(1, 2) and towing.towed_may_be_sinking is False


@pytest.mark.parametrize(
    ("name", "read", "section", "key"),
    [
        ("movement.toml", movement_rules, "planes", "climb_cost"),
        ("towing.toml", TowingTable.from_mapping, "tower", "flight_ops"),
        ("damage.toml", DamageRules.from_mapping, "repair", "aa"),
        ("landing.toml", LandingTable.from_mapping, "night_landing", "base_need"),
        ("interception.toml", InterceptionTable.from_mapping, "modifiers", "non_combat_hex"),
        ("cap.toml", CapTable.from_mapping, "diving_cap", "fraction"),
        ("air-attack.toml", HitTables.from_mapping, "aa", "bht"),
        ("weather.toml", weather_rules, "size", "cloud_radius"),
        ("submarines.toml", SubmarineRules.from_mapping, "movers", "share"),
    ],
)
def test_a_shipped_table_missing_a_figure_is_malformed(
    name: str, read: Callable[[dict[str, Any]], object], section: str, key: str
) -> None:
    data = _shipped(name)
    del data[section][key]
    with pytest.raises(GameError, match=rf"{name} is malformed.*{key}"):
        read(data)
