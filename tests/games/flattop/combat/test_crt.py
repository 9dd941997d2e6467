# SPDX-License-Identifier: GPL-3.0-or-later
"""The Combat Results Table: seed 003, 15 and 21.8; reference A.11.1-A.11.3, A.15, B.6.

The shipped tables (combat.toml) are checked cell by cell against the
numbers the reference prints; the readings of the seed's 2d6 rules are
checked on both tables.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.crt import TABLES, CombatTable, combat_table

# Reference A.11.3 as printed ("-" = blank, "no result").
A_11_3 = """
1  - - - 0 0 0 1 1 1 1 1 1 1 2
2  - - 0 1 1 1 1 1 2 2 2 3 3 3
3  - 0 1 1 1 1 2 2 2 3 3 4 4 5
4  - 1 1 1 2 2 2 2 3 4 4 5 6 6
5  - 1 1 1 2 2 3 3 4 5 6 6 7 8
6  0 1 1 1 2 2 3 4 5 6 7 8 8 9
7  0 1 1 2 2 3 3 4 5 7 8 9 10 11
8  0 1 1 2 2 3 4 5 6 7 9 10 11 13
9  0 1 2 2 3 3 4 5 7 8 10 11 13 14
10 0 1 2 2 3 4 5 6 7 9 11 12 14 16
11 0 1 2 3 3 4 5 6 8 10 12 13 16 17
12 0 1 2 3 4 4 6 7 9 11 13 15 17 19
13 0 1 2 3 4 5 6 7 9 11 13 16 18 21
14 0 1 2 3 4 5 7 8 10 12 14 17 20 22
15 1 1 2 3 4 5 7 9 11 13 17 19 21 23
"""

# Reference A.15: the rows of [ALT]'s curve-fitted table it prints.
A_15 = """
*  - - .1 .1 .1 .2 .2 .3 .4 .4 .5 .6 .7 .8
1  - .1 .2 .2 .3 .4 .5 .6 .8 .9 1.1 1.3 1.4 1.6
6  .3 .7 1.1 1.5 1.9 2.3 2.8 3.6 4.6 5.5 6.5 7.5 8.5 9.5
"""

COLUMNS = ["1-2", "3-4", "5-6", "7-8", "9-10", "11-12", "13-15", "16-20", "21-25", "26-30", "31-35"]
COLUMNS += ["36-40", "41-45", "46+"]
MIDPOINTS = [1.5, 3.5, 5.5, 7.5, 9.5, 11.5, 14, 18, 23, 28, 33, 38, 43, 48]
# Ways of rolling each 2d6 total, out of 36.
WAYS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
# The standard game's 1d6 (reference A.11.1) and a 2d6 base roll with the same adjust.
D6_ADJUST = {1: -2, 2: -1, 3: 0, 4: 0, 5: 1, 6: 2}
BASE_FOR_DIE = {1: 2, 2: 4, 3: 7, 4: 7, 5: 9, 6: 11}


def parse(text: str) -> dict[str, list[Fraction | None]]:
    rows = (line.split() for line in text.strip().splitlines())
    return {row[0]: [None if cell == "-" else Fraction(cell) for cell in row[1:]] for row in rows}


def first_factor(column: str) -> int:
    return int(column.rstrip("+").split("-")[0])


Case = tuple[str, int, int, int, int, bool]


@pytest.fixture(scope="module")
def standard(ft_tables: dict[str, Any]) -> CombatTable:
    return combat_table(ft_tables, "standard")


@pytest.fixture(scope="module")
def curve(ft_tables: dict[str, Any]) -> CombatTable:
    return combat_table(ft_tables, "curve-fitted")


# --- the shipped data against the reference ------------------------------------------


def test_standard_crt_is_reference_a_11_3_cell_by_cell(standard: CombatTable) -> None:
    """Reference A.11.3, "Third-party reconstruction of the standard CRT": "Blank means no result"."""
    printed = parse(A_11_3)
    assert [c.label for c in standard.columns] == COLUMNS
    assert sorted(standard.rows, key=int) == sorted(printed, key=int)
    for row, cells in printed.items():
        for column, cell in zip(COLUMNS, cells, strict=True):
            assert standard.cell(int(row), first_factor(column)) == cell, (row, column)


def test_curve_fitted_printed_rows_are_reference_a_15(curve: CombatTable) -> None:
    """Reference A.15: "Visible values, from row `*` down to row 6" of [ALT]'s expected-hits matrix."""
    for row, cells in parse(A_15).items():
        assert list(curve.rows[row]) == cells, row


def test_curve_fitted_cells_follow_the_a_15_formula(curve: CombatTable) -> None:
    """Reference A.15: "All 106 visible cells fit E = 0.033 x HitTable x M to within +/-0.1 ...
    Row `*` behaves like HitTable = 0.5." Every shipped cell, "-" read as 0."""
    assert sorted(curve.rows, key=lambda r: -1 if r == "*" else int(r)) == ["*"] + [
        str(n) for n in range(1, 16)
    ]
    for row, cells in curve.rows.items():
        hit_table = 0.5 if row == "*" else int(row)
        for midpoint, cell in zip(MIDPOINTS, cells, strict=True):
            value = 0.0 if cell is None else float(cell)
            assert abs(value - 0.033 * hit_table * midpoint) <= 0.1 + 1e-9, (row, midpoint, cell)


def test_both_tables_are_design_defaults(ft_tables: dict[str, Any]) -> None:
    """Seed 003, 15: 'Use Kirk's modification of the "curve fitted" tables. This is available in a
    separate file.' The file is lost: both tables must say they are design defaults."""
    assert TABLES == ("curve-fitted", "standard")
    for name in TABLES:
        table = combat_table(ft_tables, name)
        assert table.name == name
        assert table.default is True
        assert "reference A.1" in table.source
    assert "provisional" in combat_table(ft_tables, "standard").source


# --- the standard procedure (A.11.1) on the 2d6 base roll -----------------------------------


def test_standard_adjust_keeps_the_d6_shape(standard: CombatTable) -> None:
    """Reference A.11.1: "Roll 1d6 and adjust: 1 Result - 2, 2 Result - 1, 3-4 Result, 5 Result + 1,
    6 Result + 2", carried over to the seed's 2d6 base roll: -2..+2, symmetric around 7."""
    assert set(standard.adjust.values()) == set(D6_ADJUST.values())
    assert all(standard.adjust[b] == -standard.adjust[14 - b] for b in WAYS)
    assert standard.adjust[7] == 0
    assert standard.adjust[2] == -2
    assert standard.adjust[12] == 2
    for die, base in BASE_FOR_DIE.items():
        assert standard.adjust[base] == D6_ADJUST[die], die


def test_a_11_1_worked_example_bht_8_with_14_factors(standard: CombatTable) -> None:
    """Reference A.11.1: "BHT 8 with 14 factors gives Result 4, so die 1 -> 2 hits, 2 -> 3, 3-4 -> 4,
    5 -> 5, 6 -> 6." """
    assert standard.result(8, 14, 7).hits == 4  # the adjust at 0
    expected = {1: 2, 2: 3, 3: 4, 4: 4, 5: 5, 6: 6}
    assert {die: standard.result(8, 14, BASE_FOR_DIE[die]).hits for die in expected} == expected


# Reference A.11.3, "Consistent" examples: (factors, BHT, die, hits).
CONSISTENT = [
    (5, 9, 4, 2),  # 5 Zeros at BHT 9: die 4 -> 2
    (3, 9, 3, 1),  # 3 Wildcats at BHT 9: die 3 -> 1
    (4, 9, 6, 3),  # 4 Zeros at BHT 9: die 6 -> 3
    (10, 8, 2, 1),  # 10 B-17 at BHT 8: die 2 -> 1
    (4, 2, 3, 0),  # 4 Vals at BHT 2: die 3 -> 0
    (4, 9, 5, 2),  # 4 Zeros at BHT 9: die 5 -> 2
    (2, 6, 4, 0),  # 2 Beaufighters at BHT 6: die 4 -> 0
    (6, 9, 2, 1),  # 6 Zeros at BHT 9: die 2 -> 1
    (2, 3, 3, 0),  # 2 Hudsons at BHT 3: die 3 -> 0
    (8, 7, 3, 2),  # 8 Dauntless, dive AP, BHT 7: die 3 -> 2
    (6, 6, 1, 0),  # 6 Avengers, torpedo, BHT 6: die 1 -> 0
    (41, 7, 4, 10),  # 41 GF at BHT 7: die 4 -> 10
    (11, 7, 5, 4),  # 11 GF at BHT 7: die 5 -> 4
    (46, 7, 6, 13),  # 46 GF at BHT 7: die 6 -> 13
    (3, 15, 5, 2),  # 3 Japanese torpedo factors at BHT 15: die 5 -> 2
]


@pytest.mark.parametrize(("factors", "bht", "die", "hits"), CONSISTENT)
def test_a_11_3_consistent_worked_examples(
    standard: CombatTable, factors: int, bht: int, die: int, hits: int
) -> None:
    """Reference A.11.3, "Check against the worked examples in [GT-R]": the "Consistent" list, each
    die face read through the 2d6 base roll with the same adjust."""
    result = standard.result(bht, factors, BASE_FOR_DIE[die])
    assert result.hits == hits, result.text


def test_standard_zero_cell_is_not_a_dash(standard: CombatTable) -> None:
    """A Result Number 0 (BHT 6, 1-2 factors) is a number, not a "-": it scores on a high roll."""
    assert standard.result(6, 2, 12).hits == 2
    assert standard.result(6, 2, 9).hits == 1
    assert standard.result(6, 2, 7).hits == 0
    assert not standard.result(6, 2, 12).dash


# --- seed 003, 15: the "-" rule -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "bht", "factors"), [("standard", 1, 1), ("standard", 5, 2), ("curve-fitted", 1, 2)]
)
def test_seed_15_dash_hits_only_on_2_or_12(
    ft_tables: dict[str, Any], name: str, bht: int, factors: int
) -> None:
    """Seed 003, 15: 'if a "-" comes up on the BHT, then a "2" or "12" on a 2d6 will result in one hit.'"""
    table = combat_table(ft_tables, name)
    assert table.cell(bht, factors) is None
    for base in WAYS:
        result = table.result(bht, factors, base)
        assert result.dash
        assert result.hits == (1 if base in (2, 12) else 0), base
        assert not result.critical_check
    assert "2 or 12" in table.result(bht, factors, 12).text


def test_seed_15_dash_on_the_curve_fitted_star_row(curve: CombatTable) -> None:
    """Seed 003, 15 with reference A.15's row '*' ("Row * behaves like HitTable = 0.5"): BHT 0 or less
    reads row '*', whose first two columns are '-'."""
    assert curve.row_for(0) == "*"
    assert curve.row_for(-4) == "*"
    assert curve.result(0, 4, 2).hits == 1
    assert curve.result(0, 4, 12).hits == 1
    assert curve.result(0, 4, 7).hits == 0
    assert curve.result(0, 4, 7).dash
    assert not curve.result(1, 4, 7).dash  # row 1, 3-4 factors: 0.1


def test_bht_outside_the_table(standard: CombatTable, curve: CombatTable) -> None:
    """Reference A.11.1: "Clamp the result to 1-15" (standard); A.15: the '*' row below 1 (curve-fitted)."""
    assert standard.row_for(0) == "1"
    assert standard.row_for(-3) == "1"
    assert standard.row_for(16) == "15"
    assert standard.result(-3, 46, 7).hits == 2
    assert curve.row_for(22) == "15"
    assert curve.result(22, 46, 7).hits == curve.result(15, 46, 7).hits == 24
    assert "(row 15)" in curve.result(22, 46, 7).text


# --- seed 003, 21.8: critical-hit eligibility ------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        ("standard", 8, 14, 3, 2, True),  # result 4 - 2 = 2 hits on a 3
        ("standard", 8, 14, 7, 4, True),
        ("standard", 8, 14, 11, 6, True),
        ("standard", 8, 14, 6, 4, False),  # not 3, 7 or 11
        ("standard", 8, 14, 2, 2, False),
        ("standard", 7, 3, 7, 1, False),  # one hit: nothing from the "n>1" portion
        ("standard", 7, 3, 3, 0, False),
        ("curve-fitted", 7, 8, 7, 2, True),  # E 1.7 x 1
        ("curve-fitted", 7, 8, 3, 0, False),
        ("curve-fitted", 2, 7, 11, 1, False),  # E 0.5 x 1.75 -> 1
    ],
)
def test_seed_21_8_critical_check(
    ft_tables: dict[str, Any], case: tuple[str, int, int, int, int, bool]
) -> None:
    """Seed 003, 21.8: 'Critical hits are checked for only on hits taken from the "n>1" portion of the
    chart. If the hits were produced from a base roll of 3,7 or 11, roll 1d6.'"""
    name, bht, factors, base, hits, check = case
    result = combat_table(ft_tables, name).result(bht, factors, base)
    assert (result.hits, result.critical_check) == (hits, check), result.text
    assert result.base == base
    assert ("critical" in result.text) is check


# --- columns and factors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("factors", "column"),
    [
        (1, "1-2"),
        (2, "1-2"),
        (3, "3-4"),
        (15, "13-15"),
        (16, "16-20"),
        (45, "41-45"),
        (46, "46+"),
        (100, "46+"),
    ],
)
def test_columns_at_their_edges(standard: CombatTable, factors: int, column: str) -> None:
    """Reference A.11.2: "the attack-factor columns are: 1-2, 3-4, 5-6, 7-8, 9-10, 11-12, 13-15,
    16-20, 21-25, 26-30, 31-35, 36-40, 41-45, 46-50+"."""
    assert standard.column_for(factors).label == column


def test_column_edges_change_the_result(standard: CombatTable) -> None:
    """Reference A.11.3, row 8: "0 1 1 2 2 3 4 5 6 7 9 10 11 13"."""
    row = [standard.result(8, factors, 7).hits for factors in (2, 3, 15, 16, 45, 46, 100)]
    assert row == [0, 1, 4, 5, 11, 13, 13]


def test_zero_factors_no_roll_no_hits(standard: CombatTable, curve: CombatTable) -> None:
    """No attack factors: nothing to cross-index (reference A.11.1 step 3), so no roll and no hits."""
    for table in (standard, curve):
        dice = FixedDice()  # any roll would exhaust it and raise
        result = table.roll(9, 0, dice, "strike/AA")
        assert (result.hits, result.base, result.dash, result.critical_check) == (0, 0, False, False)
        assert dice.log == []
        assert table.result(9, 0, 7).hits == 0
    with pytest.raises(GameError):
        standard.result(9, -1, 7)


def test_result_refuses_an_impossible_base_roll(standard: CombatTable) -> None:
    with pytest.raises(GameError):
        standard.result(8, 14, 13)
    with pytest.raises(GameError):
        standard.result(8, 14, 1)


# --- the roll ----------------------------------------------------------------------------------


def test_roll_makes_one_labelled_2d6_base_roll(curve: CombatTable) -> None:
    """Seed 003, 15 and 21.8 speak of "a 2d6" and "a base roll": one 2d6 per CRT read."""
    dice = FixedDice(by_label={"T5/AF3/Dauntless vs Shoho": [3, 4]})
    result = curve.roll(7, 8, dice, "T5/AF3/Dauntless vs Shoho")
    assert (result.hits, result.base, result.critical_check) == (2, 7, True)
    assert result.text == (
        "CRT curve-fitted BHT 7 x 8 factors (E 1.7): 2d6 3+4=7 -> 2 hits; critical hit check (seed 003, 21.8)"
    )
    [roll] = dice.log
    assert (roll.label, roll.sides, roll.count) == ("T5/AF3/Dauntless vs Shoho", 6, 2)
    assert roll.rule.startswith("seed 003, 15")
    assert dice.leftover() == {}


def test_roll_passes_the_rule_text(standard: CombatTable) -> None:
    dice = FixedDice([6, 6])
    result = standard.roll(1, 2, dice, "AA/TF2", rule="reference B.8 AA")
    assert (result.hits, result.dash) == (1, True)
    assert dice.log[0].rule.startswith("reference B.8 AA")


# --- the curve-fitted resolution (design default, reference B.6) ------------------------------


def test_curve_fitted_multiplier_is_symmetric_with_mean_one(curve: CombatTable) -> None:
    """Reference B.6: "hits = floor(E * mult + 0.5)", "mean 1.0; mirrors the -2..+2 spread"."""
    assert all(curve.multiplier[b] + curve.multiplier[14 - b] == 2 for b in WAYS)
    assert sum(curve.multiplier[b] * ways for b, ways in WAYS.items()) == 36
    assert all(value == 0 for value in curve.adjust.values())


def test_curve_fitted_rounds_half_up_exactly(curve: CombatTable) -> None:
    """E x multiplier exactly on .5 rounds up (E read as an exact decimal, not a binary float)."""
    assert curve.hits_for(Fraction("0.4"), 9) == 1  # 0.4 x 1.25 = 0.5
    assert curve.hits_for(Fraction("0.3"), 10) == 0  # 0.45
    assert curve.hits_for(Fraction("1.0"), 10) == 2  # 1.5


@pytest.mark.parametrize(("bht", "factors"), [(8, 14), (6, 10), (10, 25), (5, 40)])
def test_curve_fitted_hits_average_close_to_e(curve: CombatTable, bht: int, factors: int) -> None:
    """Reference A.15: the table is "a fractional expected-hits matrix": over the 36 base rolls the
    hits must average within 15% of the cell's E."""
    expected = float(curve.cell(bht, factors) or 0)
    mean = sum(curve.result(bht, factors, b).hits * ways for b, ways in WAYS.items()) / 36
    assert abs(mean - expected) <= 0.15 * expected, (mean, expected)


# --- malformed data -----------------------------------------------------------------------------


def test_unknown_table_name_is_a_game_error(ft_tables: dict[str, Any]) -> None:
    with pytest.raises(GameError, match="kirk"):
        combat_table(ft_tables, "kirk")
    with pytest.raises(GameError):
        combat_table({}, "standard")


@pytest.mark.parametrize(
    ("name", "breakage"),
    [
        ("standard", lambda d: d["standard"]["rows"].update({"3": [1, 2]})),
        ("standard", lambda d: d["standard"]["rows"].pop("7")),
        ("standard", lambda d: d["standard"]["adjust"].pop("12")),
        ("standard", lambda d: d["standard"]["rows"]["2"].__setitem__(0, "x")),
        ("standard", lambda d: d["standard"]["rows"]["2"].__setitem__(0, -1)),
        ("curve-fitted", lambda d: d["curve-fitted"]["multiplier"].__setitem__("7", "one")),
        ("curve-fitted", lambda d: d.__setitem__("columns", ["1-2", "4-5"])),
        ("curve-fitted", lambda d: d.__setitem__("columns", ["1-2", "3-4"])),
        ("standard", lambda d: d["standard"].pop("source")),
    ],
)
def test_malformed_combat_toml_is_a_game_error(ft_tables: dict[str, Any], name: str, breakage: Any) -> None:
    data = copy.deepcopy(ft_tables["combat"])
    CombatTable.from_mapping(data, name)  # the shipped data reads
    breakage(data)
    with pytest.raises(GameError):
        CombatTable.from_mapping(data, name)
