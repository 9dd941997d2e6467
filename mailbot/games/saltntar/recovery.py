# SPDX-License-Identifier: GPL-3.0-or-later
"""Strain recovery: a design default (``[strain_recovery]`` in tables.toml), not in seed 001.

The seed marks Strain ("Changing direction by two points ... causes Strain",
"Wind Speed +2, mark 1 Strain", a gale's "mark 1 Strain every round") and
makes every ship with Strain roll d6 + Strain each turn, but never says how
Strain goes away. Read literally, one point of Strain is a standing chance of
a sinking roll every turn, and ordinary races end with every ship sunk
(issue 19). The rule here was chosen by measuring whole races with
``mailbot simulate salt-n-tar`` (README, "Salt'n'Tar").

At the end of a turn (after the move, before the maneuvers declared for the
end of it take hold) a ship that marked no new Strain this turn loses
``amount`` Strain when the rule allows: ``reefed`` if she sailed the turn
reefed, furled, at anchor or dismasted (easing the ship is how the crew
repairs her), ``any`` after every such turn, ``none`` never (the seed).
"""

from __future__ import annotations

from mailbot.core.game import Event
from mailbot.games.saltntar.state import FURLED, REEFED, Ship, State


def eased(ship: Ship) -> bool:
    """She carried no full sail this turn."""
    return ship.rig in (REEFED, FURLED) or ship.anchored or ship.masts == 0


def _recovers(state: State, ship: Ship) -> bool:
    rule = state.rules.recovery.rule
    if rule == "none" or ship.strain <= 0 or ship.strain > ship.strain_start:
        return False
    return rule == "any" or eased(ship)


def recover(state: State) -> list[Event]:
    """Apply the recovery rule to every ship afloat; one event for each ship that recovers."""
    events = []
    amount = state.rules.recovery.amount
    for ship in state.ships:
        if ship.afloat and ship.sinks_after is None and _recovers(state, ship):
            ship.strain = max(0, ship.strain - amount)
            rule = state.rules.recovery.text
            text = f"{ship.name} recovers {amount} Strain (design default: {rule}): Strain now {ship.strain}."
            events.append(Event("recovery", text, data={"ship": ship.name, "strain": ship.strain}))
    return events


def open_turn(state: State) -> None:
    """Reset what counts for one turn only."""
    for ship in state.ships:
        ship.luck, ship.turned, ship.second, ship.strain_start = 0, 0, 0, ship.strain
