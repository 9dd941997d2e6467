# SPDX-License-Identifier: GPL-3.0-or-later
"""Delayed sinking (seed 003, 15 Limited Intelligence 4).

The seed: "Larger ships may take several hours to actually sink (possibly
leading the opponent to waste more ordnance on a doomed ship.)

    Ship damage factor / Sinking time: 1 or 2 Always immediate; 3 to 5: 1 to 3
    hours; 6 or more: 1 to 6 hours.

Delayed sinking times are considered randomly, rolling 1d6 and assigning each
possible outcome an equal chance (so if a ship with a 5 DF is sunk, a roll of
1 or 2 would be 1 hour delay, 3-4 would be 2, 5-6 would be 3.) A ship that is
officially destroyed but is delayed in sinking is reported to be crippled.
Each hit that a ship takes beyond its damage factor will drop an hour off of
its sinking time. So if the Wasp takes 8 hits, two beyond its damage factor,
and rolls a 4, it will sink in two hours instead of four. Hits taken after the
ship is "sunk" but is still on the board will each reduce the time by an hour
also. Note that ships with damage factors of 3 or greater will not sink
immediately unless their hits exceed their damage factor by the required
amount."

The model: a ship whose hits reach her Damage Factor is *destroyed*
(``Ship.destroyed``, ``Ship.destroyed_turn``); ``Ship.sinking`` holds the
hours she stays afloat. Every turn is an hour, so a ship destroyed in turn T
with a delay of d is on the board in turns T+1 .. T+d and gone at the end of
turn T+d (the seed's CV "destroyed at 1100 but does not sink until 1600" has
d = 5). :func:`hours_pass` counts the turns off; hits on the doomed ship take
an hour each (``combat.damage``); at 0 she is ``Ship.sunk``. The table is
``damage.toml`` ``[sinking]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.units import AirBoxes, Ship

RULE = "seed 003, 15 Limited Intelligence 4 (delayed sinking)"
FACES = 6  # the seed rolls 1d6


@dataclass(frozen=True)
class SinkingBand:
    """Ships of Damage Factor ``low`` .. ``high`` (None: and up); ``hours`` by die face 1..6."""

    low: int
    high: int | None
    hours: tuple[int, ...]

    def holds(self, damage_factor: int) -> bool:
        return self.low <= damage_factor and (self.high is None or damage_factor <= self.high)

    @property
    def immediate(self) -> bool:
        """No delay whatever the roll ("Always immediate"): no die is rolled."""
        return not any(self.hours)


@dataclass(frozen=True)
class SinkingTable:
    bands: tuple[SinkingBand, ...]
    source: str = RULE
    default: bool = False

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SinkingTable:
        """``damage.toml`` ``[sinking]``; a malformed table is a GameError (it ships with the code)."""
        try:
            bands = tuple(_band(band) for band in data["band"])
            table = cls(bands, str(data["source"]), bool(data["default"]))
        except (KeyError, TypeError, ValueError) as error:
            raise GameError(f"damage.toml [sinking] is malformed ({error!r})") from error
        table.band(1)  # the smallest ships must be covered; band() says what is wrong
        return table

    def band(self, damage_factor: int) -> SinkingBand:
        found = [band for band in self.bands if band.holds(damage_factor)]
        if len(found) != 1:
            raise GameError(f"damage.toml [sinking]: {len(found)} bands hold Damage Factor {damage_factor}")
        return found[0]


def _band(data: Mapping[str, Any]) -> SinkingBand:
    high = data.get("max_damage")
    hours = tuple(int(h) for h in data["hours"])
    if len(hours) != FACES or min(hours) < 0:
        raise ValueError(f"hours must be {FACES} numbers >= 0, not {hours}")
    return SinkingBand(int(data["min_damage"]), None if high is None else int(high), hours)


def sinking_hours(damage_factor: int, roll: int, over: int, table: SinkingTable) -> int:
    """The LI 4 delay for a 1d6 ``roll``, less an hour per hit ``over`` the Damage Factor (never < 0)."""
    if not 1 <= roll <= FACES:
        raise GameError(f"a sinking roll is 1d6, not {roll}")
    return max(0, table.band(damage_factor).hours[roll - 1] - max(0, over))


def needs_roll(damage_factor: int, table: SinkingTable) -> bool:
    """Whether a destroyed ship of this Damage Factor rolls for her delay (DF 1 or 2: "Always immediate")."""
    return not table.band(damage_factor).immediate


def hours_pass(ship: Ship, *, turn: int | None = None) -> Ship:
    """The end of a turn: a sinking ship has an hour less afloat; at 0 she is gone (``Ship.sunk``).

    ``turn`` is the turn now ending: a ship destroyed in it keeps her full delay, so that she is on
    the board for that many more turns (module docstring). Without ``turn`` every call counts an hour.
    A carrier that goes down takes her planes with her (reference A.12): her boxes are emptied; use
    ``combat.damage_ships.hours_pass_tf`` to learn which planes went down.
    """
    if ship.sunk or not ship.destroyed or not ship.sinking:
        return ship
    if turn is not None and ship.destroyed_turn == turn:
        return ship
    left = ship.sinking - 1
    return replace(ship, sinking=left, boxes=AirBoxes()) if left <= 0 else replace(ship, sinking=left)
