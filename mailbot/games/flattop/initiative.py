# SPDX-License-Identifier: GPL-3.0-or-later
"""The Initiative Phase (standard 13, reference A.9; seed 003, 13).

Each side rolls 1d6 and the higher total wins; a tie goes to the side that
did not have the initiative last turn. Seed 003, 13 adds a catch-up bonus:
"A player who did not have the initiative in the turn immediately previous
to the current one adds 1 to his initiative roll. If he did not have
initiative in the previous TWO consecutive turns, he would add 2 to the roll
and would add "3" if his opponent had had initiative for three straight
turns, etc." The winner moves his planes first.

The moderator rolls for both sides; both rolls are reported to both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.units import Fact, Side

RULE = "seed 003, 13 initiative"
CATCH_UP = "catch-up (seed 003, 13)"


@dataclass(frozen=True)
class InitiativeRecord:
    """Who had the initiative last turn, and for how many turns running."""

    holder: Side | None = None
    streak: int = 0

    def bonus(self, side: Side) -> int:
        """Seed 003, 13: +1 for each consecutive turn the opponent has held the initiative."""
        return self.streak if self.holder is not None and side is not self.holder else 0

    def after(self, winner: Side) -> InitiativeRecord:
        return InitiativeRecord(winner, self.streak + 1 if winner is self.holder else 1)


@dataclass(frozen=True)
class InitiativeResult:
    winner: Side
    rolls: tuple[Roll, Roll]  # the deciding rolls: Allied, Japanese (totals include the bonus)
    record: InitiativeRecord  # the record to keep for next turn
    tie: bool = False  # totals were equal; the side without the initiative last turn won
    rerolls: int = 0  # first-turn ties rolled again

    @property
    def fact(self) -> Fact:
        allied, japanese = self.rolls
        tie = " (tie: to the side without it last turn)" if self.tie else ""
        text = f"initiative: {self.winner} ({allied.text}; {japanese.text}){tie}"
        data = {"winner": self.winner.value, "allied": allied.total, "japanese": japanese.total}
        return Fact("initiative", text, data | {"tie": self.tie, "streak": self.record.streak})


def _roll(dice: Dice, side: Side, record: InitiativeRecord, catch_up: bool) -> Roll:
    bonus = record.bonus(side) if catch_up else 0
    modifiers = {CATCH_UP: bonus} if bonus else None
    return dice.roll(f"initiative/{side.value}", 6, rule=RULE, modifiers=modifiers)


def roll_initiative(
    record: InitiativeRecord, dice: Dice, *, catch_up: bool = True, max_rerolls: int = 100
) -> InitiativeResult:
    """Roll the Initiative Phase; ``catch_up=False`` plays the standard rule without seed 003, 13.

    On a tie with no previous holder (the first turn) both sides roll again: the
    standard tie rule needs a previous turn (this project's ruling).
    """
    for attempt in range(max_rerolls + 1):
        allied = _roll(dice, Side.ALLIED, record, catch_up)
        japanese = _roll(dice, Side.JAPANESE, record, catch_up)
        if allied.total != japanese.total:
            winner = Side.ALLIED if allied.total > japanese.total else Side.JAPANESE
            return InitiativeResult(winner, (allied, japanese), record.after(winner), rerolls=attempt)
        if record.holder is not None:
            winner = record.holder.opponent  # standard 13: a tie goes to the side without it last turn
            return InitiativeResult(
                winner, (allied, japanese), record.after(winner), tie=True, rerolls=attempt
            )
    raise GameError(f"the first initiative roll tied {max_rerolls + 1} times")
