# SPDX-License-Identifier: GPL-3.0-or-later
"""The end of the game and who won (standard 25, reference A.13).

At the end of a 2400 turn a VP difference of at least the scenario's Automatic Victory Level ends
the game (:func:`automatic`); otherwise "the side with the most VP wins, but only if it has >= 50
VP. Otherwise the game is a draw" (:func:`final`); a game also ends when a side has nothing left
to fight with (:func:`nothing_left`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from mailbot.games.flattop.units import AirBoxes, AirFormation, Base, Ship, Side, TaskForce
from mailbot.games.flattop.victory import SIDE_NAMES, Verdict, VictoryRules, VpEntry, totals

# --- the end ----------------------------------------------------------------------


def automatic(ledger: Sequence[VpEntry], rules: VictoryRules, *, hour: int) -> Verdict | None:
    """A.13: at the end of a 2400 turn (``GameTime.hour`` 24) a lead >= the Automatic Victory Level wins."""
    if hour != rules.automatic_hour or rules.automatic_level is None:
        return None
    scores = totals(ledger)
    leader, other = _ranked(scores)
    lead = scores[leader] - scores[other]
    level = rules.automatic_level.value
    if lead < level:
        return None
    reason = (
        f"Automatic {SIDE_NAMES[leader]} victory, {scores[leader]} VP to {scores[other]}: "
        f"a lead of {lead} (Automatic Victory Level {level})"
    )
    return Verdict(leader, MappingProxyType(scores), reason)


def final(ledger: Sequence[VpEntry], rules: VictoryRules) -> Verdict:
    """A.13: the side with the most VP wins if it has at least the minimum (50); otherwise a draw."""
    scores = totals(ledger)
    leader, other = _ranked(scores)
    minimum = rules.minimum_to_win.value
    board = MappingProxyType(scores)
    if scores[leader] == scores[other]:
        return Verdict(None, board, f"Draw, {scores[leader]} VP each")
    score = f"{scores[leader]} VP to {scores[other]}"
    if scores[leader] < minimum:
        return Verdict(
            None, board, f"Draw: {SIDE_NAMES[leader]} lead {score}, short of the {minimum} VP to win"
        )
    return Verdict(leader, board, f"{SIDE_NAMES[leader]} victory, {score}")


def _ranked(scores: Mapping[Side, int]) -> tuple[Side, Side]:
    """The leader first; on a tie the order does not matter (the callers check for it)."""
    if scores[Side.JAPANESE] > scores[Side.ALLIED]:
        return Side.JAPANESE, Side.ALLIED
    return Side.ALLIED, Side.JAPANESE


def fleet(task_forces: Sequence[TaskForce]) -> tuple[tuple[Ship, Side], ...]:
    """Every ship of these TFs with its side, as :func:`damage_at_end` and :func:`nothing_left` take them."""
    return tuple((ship, tf.side) for tf in task_forces for ship in tf.ships)


def nothing_left(
    side: Side,
    ships: Sequence[tuple[Ship, Side]],
    bases: Sequence[Base],
    formations: Sequence[AirFormation],
) -> bool:
    """Design default for "a side has nothing left to fight with": the game may end.

    True when ``side`` has no ship afloat that can move or fight, and no Air Factor
    anywhere: not in a box of its bases (on or off the board) or ships, not aloft.
    A crippled ship is dead in the water; it still fights if it has gunnery or unfired
    torpedoes. AA alone only defends, so it does not count.
    """
    if any(_can_fight(ship) for ship, owner in ships if owner is side):
        return False
    boxes = [base.boxes for base in bases if base.side is side]
    boxes += [ship.boxes for ship, owner in ships if owner is side and not ship.sunk]
    if any(_has_planes(box) for box in boxes):
        return False
    return not any(af.factors > 0 for af in formations if af.side is side)


def _can_fight(ship: Ship) -> bool:
    if ship.sunk:
        return False
    moves = ship.movement > 0 and not ship.crippled
    return moves or ship.gunnery > 0 or (ship.torpedo > 0 and not ship.torpedoes_fired)


def _has_planes(boxes: AirBoxes) -> bool:
    return boxes.total > 0
