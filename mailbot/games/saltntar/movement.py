# SPDX-License-Identifier: GPL-3.0-or-later
"""How fast and where each ship goes this turn (seed 001, "Movement").

"Each ships speed in tabletop inches is derived by multiplying Wind Speed (WS)
and Bearing Number (BN)." The order of reductions, where the seed is silent:
WS x BN first, then a reef halves it, then the Strain table's ongoing losses
(water, torn sails, broken masts) are subtracted; "Whenever the resultant
speed reaches 0 or less, the ship can only drift downwind at Wind Speed."
Drifting is never reduced: it is what is left when sailing fails.

"(backwards)": head to wind a ship is pushed astern, which is straight
downwind, at WS x the Luffing/Backing BN.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from mailbot.games.saltntar.geometry import bearing_index, downwind
from mailbot.games.saltntar.state import FURLED, REEFED, Ship, State
from mailbot.games.saltntar.tables import RUNNING, BearingRow

STOPPED = "stopped"
CALM = "calm"
DRIFT = "drift"
SAIL = "sail"
GALE = "gale"
ROW = "row"


@dataclass(frozen=True)
class Motion:
    """One ship's way for a whole turn: ``speed`` inches towards ``direction``."""

    mode: str
    heading: int  # the heading she ends with (a gale swings her downwind)
    direction: int
    speed: Fraction
    bearing: str  # the heading relative to the wind, a tables.BEARINGS key
    why: str
    strain: int = 0  # Strain marked for sailing this way (a gale)


def inches(value: Fraction) -> str:
    """``7``, ``4 1/2`` or ``-1/2``: tabletop inches as a player writes them."""
    whole, part = divmod(abs(value), 1)
    sign = "-" if value < 0 else ""
    if not part:
        return f"{sign}{whole}"
    return f"{sign}{whole} {part}" if whole else f"{sign}{part}"


def bearing_of(state: State, heading: int) -> str:
    grid = state.grid
    return state.rules.bearings(grid.points)[bearing_index(grid, heading, state.wind.direction)]


def sails_drawing(ship: Ship) -> bool:
    """Sails up and a mast to carry them; a ship setting sail is still adrift."""
    return ship.rig != FURLED and ship.masts > 0


def calm(state: State) -> bool:
    """Calm and Gale are the overall Wind Speed: "By way of a cumulation of luck rolls, wind
    speeds of 0 = Calm, or 4+ = Storm are possible" (seed 001). A ship's own luck result
    ("usually only apply to the ship the die was rolled for") changes the WS she multiplies
    with, not the weather: a fortuitous gust at Wind Speed 3 makes her faster, not caught
    alone in a gale."""
    return state.wind.speed <= state.rules.calm


def gale(state: State) -> bool:
    return state.wind.speed >= state.rules.gale


def forced_heading(state: State, ship: Ship, ws: int) -> int | None:
    """Gale and a sinking ship's last mast leave one way to sail: downwind."""
    if ship.anchored or calm(state) or not sails_drawing(ship):
        return None
    if gale(state) or ship.sinks_after is not None:
        return downwind(state.grid, state.wind.direction)
    return None


def _reduced(state: State, ship: Ship, base: Fraction) -> tuple[Fraction, str]:
    speed, why = base, f"{inches(base)}''"
    if ship.rig == REEFED:
        speed, why = speed / 2, why + f", reefed: {inches(speed / 2)}''"
    if ship.speed_loss:
        speed, why = speed - ship.speed_loss, why + f", damage -{ship.speed_loss}''"
        why += f" ({state.rules.cite('reductions')})" if ship.rig == REEFED else ""
    return speed, why


def drift(state: State, ship: Ship, ws: int, why: str) -> Motion:
    down = downwind(state.grid, state.wind.direction)
    text = f"{why}: adrift downwind at Wind Speed, {ws}''"
    if ws != state.wind.speed and not calm(state):
        # her own luck die moved the Wind Speed she drifts at
        text += f" (her Luck Roll; {state.rules.cite('gust_drift')})"
    return Motion(DRIFT, ship.heading, down, Fraction(ws), bearing_of(state, ship.heading), text)


def _sail(state: State, ship: Ship, ws: int, row: BearingRow) -> Motion:
    speed, why = _reduced(state, ship, Fraction(ws * row.bn))
    why = f"{row.label}: WS {ws} x BN {row.bn} = {why}"
    if speed <= 0:
        return drift(state, ship, ws, f"{why}, nothing left")
    direction = state.grid.opposite(ship.heading) if row.backwards else ship.heading
    if row.backwards:
        why += ", backwards"
    return Motion(SAIL, ship.heading, direction, speed, row.bearing, why)


def _gale(state: State, ship: Ship, ws: int) -> Motion:
    """Seed 001, Gale: "sail downwind at Wind Speed plus (!) Bearing Number for Running"."""
    running = state.ship_type(ship).row(RUNNING)
    speed, why = _reduced(state, ship, Fraction(ws + running.bn))
    why = f"gale, Wind Speed {ws}: downwind at WS {ws} + Running BN {running.bn} = {why}"
    if speed <= 0:
        return drift(state, ship, ws, f"{why}, nothing left")
    down = downwind(state.grid, state.wind.direction)
    return Motion(GALE, down, down, speed, RUNNING, why + ", mark 1 Strain", strain=1)


def motion(state: State, ship: Ship, ws: int) -> Motion:
    """Where ``ship`` goes on her current heading with ``ws``, the Wind Speed she has this turn."""
    if ship.anchored:
        return Motion(
            STOPPED, ship.heading, ship.heading, Fraction(0), bearing_of(state, ship.heading), "at anchor"
        )
    if calm(state):
        return _calm(state, ship)
    if ship.masts == 0:
        return drift(state, ship, ws, "dismasted")
    if not sails_drawing(ship):
        return drift(state, ship, ws, "sails furled")
    if gale(state):
        return _gale(state, ship, ws)
    row = state.ship_type(ship).row(bearing_of(state, ship.heading))
    return _sail(state, ship, ws, row)


def _calm(state: State, ship: Ship) -> Motion:
    """Seed 001, Calm: "no sailing is possible, ships drift. Oared movement ... may be possible".

    A ship with oars (``oars`` in ships.toml, inches a turn: a design default,
    the seed gives no rowing speed) rows on her heading; the damage the Strain
    table marks ("reduce all speed") slows her too. The others lie still.
    """
    oars = state.ship_type(ship).oars
    if not oars:
        return drift(state, ship, 0, "Calm: no sailing is possible")
    speed = Fraction(oars - ship.speed_loss)
    why = f"Calm: no sailing is possible; rowing {oars}''" + (
        f", damage -{ship.speed_loss}''" if ship.speed_loss else ""
    )
    if speed <= 0:
        return drift(state, ship, 0, f"{why}, nothing left")
    return Motion(ROW, ship.heading, ship.heading, speed, bearing_of(state, ship.heading), why)


def nominal(state: State, ship: Ship) -> Motion:
    """The way she would make at the overall Wind Speed, for the report (no luck, no turn)."""
    heading = forced_heading(state, ship, state.wind.speed)
    if heading is not None and heading != ship.heading:
        # Report as she will sail: a gale or a sinking hull swings her downwind.
        ship = replace(ship, heading=heading)
    return motion(state, ship, state.wind.speed)
