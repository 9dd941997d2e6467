# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top demo staff's review at nightfall (:mod:`mailbot.games.flattop.demo`): from the
third day's nightfall letter on (:func:`demo_plans.reviewed`), a side that has lost more
carriers than its strikes put out concedes the game instead of sending orders."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mailbot.games.flattop.demo_flying import CARRIERS
from mailbot.games.flattop.demo_plans import CARRIER_NAMES, reviewed
from mailbot.games.flattop.demo_reading import LF_LOSS, OwnShip, Report, read_report


def can_fly(ship: OwnShip) -> bool:
    """Whether the carrier's hits leave her a launch factor (reference A.12: each hit costs LF)."""
    data = CARRIERS.get(ship.name)
    return data is not None and data.launch - ship.hits * LF_LOSS[ship.type][0] > 0


def carriers_lost(seat: str, report: Report) -> int:
    """The side's carriers of the plan's order of battle sunk (gone from the letter) or that can
    launch nothing, their hits having taken their whole LF (there are no repairs in five days)."""
    flying = {ship.name for tf in report.tfs.values() for ship in tf.carriers if can_fly(ship)}
    return len(set(CARRIER_NAMES[seat]) - flying)


#: an attack that put an enemy carrier out of the battle, as the attacker's letter tells it (seed 003,
#: 15 LI 3 and 4): "AF21: 6 Val attacked A-CV1: hits seen: she is dead in the water", or "... attacked
#: A-CV1: she is seen to sink". "no hits seen; she was dead in the water already" is not one.
_CARRIER_OUT = re.compile(
    r"attacked ([A-Z]-CVL?\d+): (?:hits seen: )?she is (?:dead in the water|seen to sink)"
)


def carriers_put_out(letters: Sequence[str]) -> int:
    """The enemy carriers the side's strikes left dead in the water or saw sink, as its letters told
    it, one a label: which of them sank it never learns (the enemy's losses are scored at the end)."""
    return len({found[1] for text in letters for found in _CARRIER_OUT.finditer(" ".join(text.split()))})


def concedes(seat: str, step: str, letters: Sequence[str]) -> bool:
    """The staff's review at nightfall (:func:`demo_plans.reviewed`): a side that has lost more
    carriers than its strikes put out gives the game up by mail (CONCEDE), as a beaten admiral
    breaks off rather than play out days in which his ships can only be struck. ``letters``: every
    letter the side has read, the last one asking for ``step``'s orders."""
    if not step.endswith(".orders") or seat not in CARRIER_NAMES:
        return False
    report = read_report(letters[-1])
    return reviewed(report) and carriers_lost(seat, report) > carriers_put_out(letters)
