# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top demo staff's review at nightfall (:mod:`mailbot.games.flattop.demo`): from the
third day's nightfall letter on (:func:`demo_plans.reviewed`), a side that has lost more
carriers than it sank concedes the game instead of sending orders."""

from __future__ import annotations

import re

from mailbot.games.flattop.demo_flying import CARRIERS
from mailbot.games.flattop.demo_plans import CARRIER_NAMES, reviewed
from mailbot.games.flattop.demo_reading import LF_LOSS, OwnShip, Report


def can_fly(ship: OwnShip) -> bool:
    """Whether the carrier's hits leave her a launch factor (reference A.12: each hit costs LF)."""
    data = CARRIERS.get(ship.name)
    return data is not None and data.launch - ship.hits * LF_LOSS[ship.type][0] > 0


def carriers_lost(seat: str, report: Report) -> int:
    """The side's carriers of the plan's order of battle sunk (gone from the letter) or that can
    launch nothing, their hits having taken their whole LF (there are no repairs in five days)."""
    flying = {ship.name for tf in report.tfs.values() for ship in tf.carriers if can_fly(ship)}
    return len(set(CARRIER_NAMES[seat]) - flying)


def carriers_sunk(seat: str, text: str) -> int:
    """The enemy carriers the side sank, as its letter's Victory points list scores them."""
    return len(re.findall(rf"\b{seat} \+\d+ (?:Allied|Japanese) CVL? sunk", " ".join(text.split())))


def concedes(seat: str, report: Report, text: str) -> bool:
    """The staff's review at nightfall (:func:`demo_plans.reviewed`): a side that has lost more
    carriers than it sank gives the game up by mail (CONCEDE), as a beaten admiral breaks off
    rather than play out days in which his ships can only be struck."""
    return reviewed(report) and carriers_lost(seat, report) > carriers_sunk(seat, text)
