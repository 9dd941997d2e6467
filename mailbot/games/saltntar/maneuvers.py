# SPDX-License-Identifier: GPL-3.0-or-later
"""Maneuvers, declared "at the end of each game turn" (seed 001).

* Reef: "reduce speed by half. It takes another turn to unreef the sails."
* Furl: "drop sails, the vessel is now adrift, down wind at Wind Speed. It
  takes two game turns to set sails again."
* Anchor: "Only ships with furled sails can anchor, lest they have to do an
  immediate Strain Roll. It takes two game turns to thus come to a full stop,
  and three game turns to light the anchor and set sail again."

Timing, where the seed is silent: a maneuver ordered in turn N is declared
at the end of turn N, after the move. Reef and Furl take hold at once (the
ship is reefed or adrift from turn N+1). The others take the printed number
of further turns: unreefing, she is still reefed in N+1 and full from N+2;
setting sail, she drifts in N+1 and N+2 and sails from N+3; anchoring, she
moves as before in N+1 and N+2 and is stopped from N+3; weighing, she lies
stopped in N+1..N+3 and sails from N+4 with her sails set. A ship busy with
one maneuver cannot start another.
"""

from __future__ import annotations

from mailbot.core.dice import Dice
from mailbot.core.game import Event
from mailbot.games.saltntar.movement import sails_drawing
from mailbot.games.saltntar.state import FURLED, REEFED, SET, Ship, State
from mailbot.games.saltntar.strain import strain_roll

REEF = "reef"
UNREEF = "unreef"
FURL = "furl"
SET_SAIL = "set-sail"
ANCHOR = "anchor"
WEIGH = "weigh"

#: why anchoring with sails not furled costs a Strain Roll, as the report says it
ANCHOR_UNDER_SAIL = (
    "anchoring with her sails not furled; seed 001: only ships with furled sails can anchor, "
    "lest they have to do an immediate Strain Roll"
)
#: the order word of each maneuver, as echoed
WORDS = {REEF: "REEF", UNREEF: "UNREEF", FURL: "FURL", SET_SAIL: "SET SAIL", ANCHOR: "ANCHOR", WEIGH: "WEIGH"}
#: further game turns a maneuver takes after the turn it is declared in
DURATION = {REEF: 0, UNREEF: 1, FURL: 0, SET_SAIL: 2, ANCHOR: 2, WEIGH: 3}
_BUSY = {UNREEF: "unreefing", SET_SAIL: "setting sail", ANCHOR: "anchoring", WEIGH: "weighing anchor"}


def busy(ship: Ship) -> str:
    """The maneuver under way, as a report says it ("" if none)."""
    if not ship.maneuver:
        return ""
    return f"{_BUSY[ship.maneuver]}, {ship.maneuver_left} turn(s) to go"


def _rig_problem(ship: Ship, kind: str) -> str | None:
    if kind == REEF and ship.rig != SET:
        return f"{ship.name} has no full sails to reef (she is {ship.rig})"
    if kind == UNREEF and ship.rig != REEFED:
        return f"{ship.name} is not reefed"
    if kind == FURL and ship.rig == FURLED:
        return f"{ship.name}'s sails are already furled"
    if kind == SET_SAIL and ship.rig != FURLED:
        return f"{ship.name}'s sails are already set"
    if kind == SET_SAIL and ship.anchored:
        return f"{ship.name} lies at anchor: WEIGH sets sail again"
    return None


def problem(ship: Ship, kind: str) -> str | None:
    """Why ``ship`` cannot start ``kind`` now, or None."""
    if ship.maneuver:
        return f"{ship.name} is still {busy(ship)}"
    if ship.masts == 0 and kind in (REEF, UNREEF, SET_SAIL):
        return f"{ship.name} has no mast left to carry sail"
    if kind == ANCHOR and ship.anchored:
        return f"{ship.name} already lies at anchor"
    if kind == WEIGH and not ship.anchored:
        return f"{ship.name} is not at anchor"
    return _rig_problem(ship, kind)


def _start(ship: Ship, kind: str) -> str:
    if kind == REEF:
        ship.rig = REEFED
        return "reefs her sails: half speed"
    if kind == FURL:
        ship.rig = FURLED
        return "furls her sails: adrift downwind at Wind Speed"
    ship.maneuver, ship.maneuver_left = kind, DURATION[kind]
    return f"starts {busy(ship)}"


def declare(state: State, ship: Ship, kind: str, dice: Dice) -> list[Event]:
    """Start a maneuver at the end of this turn (re-checked: this turn may have changed things)."""
    why = problem(ship, kind)
    if why is not None:
        return [Event("maneuver", f"{ship.name}: {WORDS[kind]} lapses, {why}.", data={"ship": ship.name})]
    # Checked before the sails change: anchoring under sail is what costs the Strain Roll.
    under_sail = kind == ANCHOR and sails_drawing(ship)
    text = f"{ship.name} {_start(ship, kind)} ({state.rules.cite('maneuver_timing')})."
    events = [Event("maneuver", text, data={"ship": ship.name, "maneuver": kind})]
    if under_sail:
        label = f"strain/T{state.turn}/{ship.name}/anchor"
        events.append(strain_roll(state, ship, dice, label, ANCHOR_UNDER_SAIL))
    return events


def _finish(ship: Ship) -> str:
    kind = ship.maneuver
    ship.maneuver, ship.maneuver_left = "", 0
    if kind == ANCHOR:
        ship.anchored = True
        return "has come to a full stop at anchor"
    if kind == WEIGH:
        ship.anchored = False
        if ship.masts == 0:
            # Nothing to set: a dismasted ship that weighs anchor drifts (issue 19).
            ship.rig = FURLED
            return "has her anchor up; dismasted, she has no sail to set and drifts"
        ship.rig = SET
        return "has her anchor up and her sails set"
    if ship.masts == 0:
        ship.rig = FURLED
        return "has no mast left to carry sail: she drifts"
    ship.rig = SET
    return "has her sails set" if kind == SET_SAIL else "has shaken out her reefs"


def progress(state: State) -> list[Event]:
    """Count down the maneuvers declared in earlier turns."""
    events = []
    for ship in state.ships:
        if ship.afloat and ship.maneuver:
            ship.maneuver_left -= 1
            if ship.maneuver_left <= 0:
                events.append(Event("maneuver", f"{ship.name} {_finish(ship)}.", data={"ship": ship.name}))
    return events
