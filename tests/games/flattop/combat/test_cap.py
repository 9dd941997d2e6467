# SPDX-License-Identifier: GPL-3.0-or-later
"""Ready CAP and diving CAP (seed 003, 16.11 and 16.12): the shipped tables, cell by cell, and the rules."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.cap import (
    CapTable,
    dive_eligible,
    diving_cap,
    launch_left,
    scramble_limit,
    warning_hexes,
)
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import Altitude

from ..conftest import load_tables

HIGH, LOW = Altitude.HIGH, Altitude.LOW


@pytest.fixture(scope="module")
def cap() -> CapTable:
    return CapTable.from_mapping(load_tables()["cap"])


# --- 16.11 Ready CAP ------------------------------------------------------------------


def test_16_11_warning_table_cell_by_cell(cap: CapTable) -> None:
    """Seed 003, 16.11: "warning hexes 1 2 3 4 5 / Low - Min Nor Nor Max / High - - Min Nor Nor"."""
    assert cap.ready[LOW] == ("-", "Min", "Nor", "Nor", "Max")
    assert cap.ready[HIGH] == ("-", "-", "Min", "Nor", "Nor")
    assert not cap.default


def test_16_11_warning_table_read_as_launches(cap: CapTable) -> None:
    """Seed 003, 16.11: "how many air factors may scramble to each altitude under a given warning
    time" - Min, Nor and Max launch of a place with LF 11/3 (Max = 2 x 11, reference A.5.4)."""

    def limit(warning: int, altitude: Altitude) -> int:
        return scramble_limit(
            warning, altitude, launch_min=3, launch_normal=11, launch_left=99, night=False, table=cap
        )

    assert [limit(w, LOW) for w in range(1, 6)] == [0, 3, 11, 11, 22]
    assert [limit(w, HIGH) for w in range(1, 6)] == [0, 0, 3, 11, 11]
    assert limit(0, LOW) == limit(0, HIGH) == 0
    assert (limit(9, LOW), limit(9, HIGH)) == (22, 11)  # beyond the printed 5: read as 5


def test_16_11_contiguous_warning_example() -> None:
    """Seed 003, 16.11: "The hexes must be contiguous; for example, if a coastwatcher sees two
    approach hexes, the enemy AF moves out of sight, and then is picked up two hexes from its
    destination, "2" is used rather than 4." """
    approach = [Hex(5, row) for row in range(1, 7)]  # the target is Hex(5, 7)
    seen = {Hex(5, 2), Hex(5, 3), Hex(5, 5), Hex(5, 6)}
    assert warning_hexes(approach, seen) == 2
    assert warning_hexes(approach, seen | {Hex(5, 4)}) == 5
    assert warning_hexes(approach, {Hex(5, 2), Hex(5, 3), Hex(5, 4)}) == 0  # lost from sight at the end
    assert warning_hexes([], seen) == 0


def test_16_11_maximum_launch_used_no_ready_cap(cap: CapTable) -> None:
    """Seed 003, 16.11: "if a base/TF has already used its maximum launch that turn, then the Ready
    CAP cannot be launched." """
    left = launch_left(11, 22, cap)
    assert left == 0
    assert (
        scramble_limit(5, LOW, launch_min=3, launch_normal=11, launch_left=left, night=False, table=cap) == 0
    )


def test_16_11_partial_launch_left(cap: CapTable) -> None:
    """Seed 003, 16.11: "If there is less available launch left than there is ready CAP, then only a
    portion of the CAP can launch." """
    left = launch_left(11, 18, cap)
    assert left == 4
    assert (
        scramble_limit(5, LOW, launch_min=3, launch_normal=11, launch_left=left, night=False, table=cap) == 4
    )
    assert (
        scramble_limit(3, HIGH, launch_min=3, launch_normal=11, launch_left=left, night=False, table=cap) == 3
    )


def test_16_11_ready_cap_only_by_day(cap: CapTable) -> None:
    """Seed 003, 16.11: "Ready CAP may only be used during day turns." """
    assert scramble_limit(5, LOW, launch_min=3, launch_normal=11, launch_left=22, night=True, table=cap) == 0
    assert (
        scramble_limit(5, LOW, launch_min=3, launch_normal=11, launch_left=22, night=False, table=cap) == 22
    )


# --- 16.12 Diving CAP ----------------------------------------------------------------------


def test_16_12_diving_table_cell_by_cell(cap: CapTable) -> None:
    """Seed 003, 16.12: "Die Roll 1 or less 2 3 4 5 6 7 / Diving CAP 0 1/4 1/3 1/3 1/2 2/3 All"."""
    assert cap.diving == ("0", "1/4", "1/3", "1/3", "1/2", "2/3", "All")
    expected = [0, Fraction(1, 4), Fraction(1, 3), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), 1]
    assert [cap.dive_fraction(total) for total in range(1, 8)] == expected
    assert cap.dive_fraction(0) == 0  # "1 or less"
    assert (cap.all_low, cap.high_two_to_one) == (1, -1)


def dive(cap: CapTable, face: int, factors: int = 10, low: int = 6, high: int = 3) -> Any:
    dice = FixedDice(by_label={"dive": [face]})
    return diving_cap(factors, attackers_low=low, attackers_high=high, dice=dice, label="dive", table=cap)


def test_16_12_fractions_round_up(cap: CapTable) -> None:
    """Seed 003, 16.12: "Fractions round up to next full air factor" - 10 factors: 1/4 -> 3,
    1/3 -> 4, 1/2 -> 5, 2/3 -> 7; 3 factors at 2/3 -> 2."""
    assert [dive(cap, face).eligible for face in range(1, 7)] == [0, 3, 4, 4, 5, 7]
    assert dive(cap, 6, factors=3).eligible == 2


def test_16_12_all_only_on_all(cap: CapTable) -> None:
    """Seed 003, 16.12: "(except all factors may only dive if "ALL" is rolled.)" - 2 factors at 2/3
    round up to 2, all of them, so 1; 1 factor at 1/2 gives none; 7 (6 +1) gives All."""
    assert dive(cap, 6, factors=2).eligible == 1
    assert dive(cap, 5, factors=1).eligible == 0
    assert dive_eligible(4, Fraction(2, 3)) == 3
    result = dive(cap, 6, factors=10, high=0)
    assert result.roll is not None and result.roll.total == 7
    assert (result.fraction, result.eligible) == (1, 10)


def test_16_12_modifiers(cap: CapTable) -> None:
    """Seed 003, 16.12: "Modifiers: All enemy attackers are Low: +1; Enemy has at least a 2-1 ratio
    of high to low attackers: -1"."""
    all_low = dive(cap, 4, high=0)
    assert all_low.roll is not None and all_low.roll.total == 5 and all_low.eligible == 5
    two_to_one = dive(cap, 4, low=3, high=6)
    assert two_to_one.roll is not None and two_to_one.roll.total == 3
    short = dive(cap, 4, low=4, high=7)
    assert short.roll is not None and short.roll.total == 4
    worst = dive(cap, 1, low=2, high=9)
    assert worst.roll is not None and worst.roll.total == 0 and worst.eligible == 0  # "1 or less"


def test_16_12_nothing_low_nothing_to_dive_at(cap: CapTable) -> None:
    """Seed 003, 16.12: "When an enemy AF enters a target hex Low, and all CAP in the hex is High"
    - with no Low attacker no roll is made."""
    result = diving_cap(10, attackers_low=0, attackers_high=5, dice=FixedDice(), label="dive", table=cap)
    assert (result.roll, result.eligible) == (None, 0)


def test_cap_toml_malformed_is_a_game_error() -> None:
    """The tables ship with the code: a broken cap.toml is a GameError, not a wrong answer."""
    data = load_tables()["cap"]
    broken = {**data, "diving_cap": {**data["diving_cap"], "fraction": ["0", "1/4", "All"]}}
    with pytest.raises(GameError, match=r"cap\.toml"):
        CapTable.from_mapping(broken)
    broken = {**data, "ready_cap": {**data["ready_cap"], "low": ["-", "Some", "Nor", "Nor", "Max"]}}
    with pytest.raises(GameError, match=r"cap\.toml"):
        CapTable.from_mapping(broken)
