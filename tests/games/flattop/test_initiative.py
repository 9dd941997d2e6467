# SPDX-License-Identifier: GPL-3.0-or-later
"""The Initiative Phase: standard 13 (reference A.9) with seed 003, 13's catch-up bonus.

Seed 003, 13: "A player who did not have the initiative in the turn immediately
previous to the current one adds 1 to his initiative roll. If he did not have
initiative in the previous TWO consecutive turns, he would add 2 to the roll and
would add "3" if his opponent had had initiative for three straight turns, etc."
"""

from __future__ import annotations

import json

import pytest

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.initiative import CATCH_UP, InitiativeRecord, roll_initiative
from mailbot.games.flattop.units import Side, dump, load

ALLIED, JAPANESE = Side.ALLIED, Side.JAPANESE


def rolls(allied: list[int], japanese: list[int]) -> FixedDice:
    return FixedDice(by_label={"initiative/allied": allied, "initiative/japanese": japanese})


def test_seed_003_13_one_turn_without_the_initiative_adds_1() -> None:
    """seed 003, 13: "A player who did not have the initiative in the turn immediately previous
    to the current one adds 1 to his initiative roll." """
    result = roll_initiative(InitiativeRecord(ALLIED, 1), rolls([4], [4]))
    allied, japanese = result.rolls
    assert (allied.total, japanese.total) == (4, 5)
    assert dict(japanese.modifiers) == {CATCH_UP: 1} and dict(allied.modifiers) == {}
    assert result.winner is JAPANESE and not result.tie
    assert result.record == InitiativeRecord(JAPANESE, 1)


def test_seed_003_13_two_consecutive_turns_add_2() -> None:
    """seed 003, 13: "If he did not have initiative in the previous TWO consecutive turns, he
    would add 2 to the roll" """
    result = roll_initiative(InitiativeRecord(JAPANESE, 2), rolls([3], [5]))
    assert [r.total for r in result.rolls] == [5, 5]
    # The totals tie; standard 13 gives a tie to the side without the initiative last turn.
    assert result.winner is ALLIED and result.tie
    assert result.record == InitiativeRecord(ALLIED, 1)


def test_seed_003_13_three_straight_turns_add_3_and_so_on() -> None:
    """seed 003, 13: "and would add "3" if his opponent had had initiative for three straight
    turns, etc." """
    record = InitiativeRecord(ALLIED, 3)
    assert (record.bonus(JAPANESE), record.bonus(ALLIED)) == (3, 0)
    assert InitiativeRecord(ALLIED, 5).bonus(JAPANESE) == 5  # "etc.": no cap
    result = roll_initiative(record, rolls([6], [2]))
    assert [r.total for r in result.rolls] == [6, 5]
    assert result.winner is ALLIED and result.record == InitiativeRecord(ALLIED, 4)


def test_seed_003_13_the_bonus_builds_turn_by_turn_and_resets() -> None:
    # The Allies win three turns running; the Japanese bonus grows 1, 2, 3 until they win.
    record = InitiativeRecord()
    bonuses = []
    for allied, japanese in ((6, 1), (6, 1), (6, 1), (4, 2)):
        result = roll_initiative(record, rolls([allied], [japanese]))
        bonuses.append(dict(result.rolls[1].modifiers).get(CATCH_UP, 0))
        record = result.record
    assert bonuses == [0, 1, 2, 3]
    assert record == InitiativeRecord(JAPANESE, 1)  # 2 + 3 = 5 beat 4
    assert record.bonus(ALLIED) == 1 and record.bonus(JAPANESE) == 0


def test_standard_13_higher_roll_wins_and_ties_go_to_the_other_side() -> None:
    # reference A.9 without the house rule: no bonus, tie to the side without it last turn.
    result = roll_initiative(InitiativeRecord(JAPANESE, 4), rolls([3], [3]), catch_up=False)
    assert [r.total for r in result.rolls] == [3, 3]
    assert result.winner is ALLIED and result.tie
    assert roll_initiative(InitiativeRecord(), rolls([2], [5]), catch_up=False).winner is JAPANESE


def test_first_turn_ties_are_rolled_again() -> None:
    # With no previous holder the tie rule cannot apply: both roll again (this project's ruling).
    result = roll_initiative(InitiativeRecord(), rolls([3, 2], [3, 6]))
    assert result.winner is JAPANESE and result.rerolls == 1 and not result.tie
    with pytest.raises(GameError, match="tied 2 times"):
        roll_initiative(InitiativeRecord(), rolls([1, 1], [1, 1]), max_rerolls=1)


def test_the_fact_reports_both_rolls() -> None:
    fact = roll_initiative(InitiativeRecord(ALLIED, 2), rolls([4], [2])).fact
    assert fact.kind == "initiative"
    assert fact.text == (
        "initiative: japanese (initiative/allied: 1d6 4 = 4 (seed 003, 13 initiative); "
        "initiative/japanese: 1d6 2 +2 catch-up (seed 003, 13) = 4 (seed 003, 13 initiative)) "
        "(tie: to the side without it last turn)"
    )
    assert fact.data == {"winner": "japanese", "allied": 4, "japanese": 4, "tie": True, "streak": 1}


def test_verifiable_dice_and_record_round_trip() -> None:
    dice = DiceStream(b"k" * 32, "0" * 64, "T1.orders")
    result = roll_initiative(InitiativeRecord(ALLIED, 1), dice)
    assert [r.label for r in dice.log][:2] == ["initiative/allied", "initiative/japanese"]
    assert load(InitiativeRecord, json.loads(json.dumps(dump(result.record)))) == result.record
    assert load(InitiativeRecord, dump(InitiativeRecord())) == InitiativeRecord()
