# SPDX-License-Identifier: GPL-3.0-or-later
"""The Strain Roll (seed 001): "roll a d6 every turn and add their current Strain".

Decisions where the seed is silent:

* Strain, once marked, stays: the seed offers no way to clear it.
* "reduce active crew by 10%" takes 10 percentage points of the full crew.
* A mast break (11) costs one mast and 3'' of speed; a ship left without
  masts can only drift ("or drift").
* 12+: "it depends on whether it's a one masted ship or not. Naturally one
  masted ships without a mast can only drift. A ship with more masts may
  still sail downwind at reduced speed." So 12+ also breaks a mast (the
  row's ``amount`` is its speed cost); the ship then sails downwind only
  (or drifts, if that was her last mast). She sinks after 1d6 turns,
  counting the current one: a 1 means she goes down at the end of this turn.
  A ship already sinking keeps her first count.
"""

from __future__ import annotations

from mailbot.core.dice import Dice
from mailbot.core.game import Event
from mailbot.games.saltntar.state import Ship, State
from mailbot.games.saltntar.tables import StrainRow, find_row

STRAIN_RULE = "Salt'n'Tar: The Strain Roll"


def _break_mast(ship: Ship, amount: int) -> str:
    if ship.masts == 0:
        return "she has no mast left to lose"
    ship.masts -= 1
    if ship.masts == 0:
        return "dismasted, she can only drift"
    ship.speed_loss += amount
    return f"{ship.masts} mast(s) left, all speed -{amount}''"


def _sink(state: State, ship: Ship, row: StrainRow, dice: Dice) -> str:
    mast = f"{_break_mast(ship, row.amount)} ({state.rules.cite('mast_at_12')})"
    if ship.sinks_after is not None:
        return f"{mast}; still sinking, she goes down after turn {ship.sinks_after}"
    label = f"sinking/T{state.turn}/{ship.name}"
    turns = dice.dice(label, row.dice, rule=f"{STRAIN_RULE} (12+)").total
    ship.sinks_after = state.turn + max(1, turns) - 1
    return f"{mast}; sinking in {turns} turn(s): she goes down at the end of turn {ship.sinks_after}"


def apply_row(state: State, ship: Ship, row: StrainRow, dice: Dice) -> str:
    """Carry out one row of the Strain table; returns what happened, for the report."""
    if row.effect == "strain":
        ship.strain += row.amount
        return f"Strain now {ship.strain}"
    if row.effect == "speed":
        ship.speed_loss += row.amount
        return f"all speed now -{ship.speed_loss}''"
    if row.effect == "crew":
        ship.crew = max(0, ship.crew - row.amount)
        return f"active crew now {ship.crew}% ({state.rules.cite('crew')})"
    if row.effect == "mast":
        return _break_mast(ship, row.amount)
    if row.effect == "sinking":
        return _sink(state, ship, row, dice)
    return ""


def strain_roll(state: State, ship: Ship, dice: Dice, label: str, why: str = "") -> Event:
    """``why``: what called for the roll, when it is not the Strain she has marked (anchoring
    under sail), said in the report."""
    roll = dice.roll(label, 6, rule=STRAIN_RULE, modifiers={"strain": ship.strain})
    row = find_row(state.rules.strain, roll.total, "strain")
    outcome = apply_row(state, ship, row, dice)
    cause = f" ({why})" if why else ""
    text = (
        f"Strain Roll for {ship.name}{cause}: {roll.faces[0]} + {roll.total - roll.faces[0]} Strain "
        f"= {roll.total}"
    )
    text += f", {row.text}: {outcome}." if outcome else f", {row.text}"
    text += "" if text.endswith((".", "!")) else "."
    data = {"ship": ship.name, "face": roll.faces[0], "total": roll.total, "effect": row.effect}
    return Event("strain", text, data=data)


def strain_rolls(state: State, dice: Dice) -> list[Event]:
    """Step 3: "Each vessel that has marked Strain must do a Strain Roll"."""
    return [
        strain_roll(state, ship, dice, f"strain/T{state.turn}/{ship.name}")
        for ship in state.ships
        if ship.afloat and ship.strain > 0
    ]
