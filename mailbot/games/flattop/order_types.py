# SPDX-License-Identifier: GPL-3.0-or-later
"""The accepted Flat Top orders as values, and their normalised text (grammar: :mod:`orders`)."""

from __future__ import annotations

from dataclasses import dataclass

from mailbot.games.flattop.hexes import Hex, HexMap
from mailbot.games.flattop.reports import Deception
from mailbot.games.flattop.search import Action, Leg, Reaction
from mailbot.games.flattop.units import Altitude


@dataclass(frozen=True)
class Plot:
    tf: int
    legs: tuple[tuple[Hex, ...], ...]  # one leg per turn, this turn first; () holds


@dataclass(frozen=True)
class Launch:
    place: str  # "TF1" or a base name as written in orders (hyphens for spaces)
    count: int
    plane: str


@dataclass(frozen=True)
class Search:
    af: int
    launch: Launch | None  # None: the AF is aloft already
    legs: tuple[Leg, ...]
    reactions: tuple[Reaction, ...] = ()
    join: int | None = None
    back: str | None = None  # RETURN: land here with the MP left


@dataclass(frozen=True)
class Ready:
    place: str
    count: int
    plane: str


@dataclass(frozen=True)
class Land:
    af: int
    place: str


@dataclass(frozen=True)
class Shadow:
    af: int
    hex: Hex  # the hex of a ships contact the side saw last turn


@dataclass(frozen=True)
class SetDeception:
    policy: Deception


@dataclass(frozen=True)
class Hold:
    pass


FtOrder = Plot | Search | Ready | Land | Shadow | SetDeception | Hold


def _leg_text(hexmap: HexMap, leg: Leg) -> str:
    altitude = f"@{leg.altitude.value.upper()}" if leg.altitude else ""
    extra = f"+{leg.extra}" if leg.extra else ""
    return f"{hexmap.hex_id(leg.hex)}{altitude}{extra}"


def _reaction_text(reaction: Reaction) -> str:
    head = f"IF {reaction.on.upper()} {reaction.action.value.upper()}"
    if reaction.action is Action.CLOSE:
        back = f" BACK {reaction.back_off}" if reaction.back_off is not None else ""
        return f"{head} {reaction.condition}{back}"
    if reaction.action is Action.ATTACK and reaction.altitude is not None:
        return f"{head} {reaction.altitude.value.upper()}"
    return head


def _search_text(hexmap: HexMap, order: Search) -> str:
    parts = [f"SEARCH AF{order.af}"]
    if order.launch is not None:
        launch = order.launch
        parts.append(f"FROM {launch.place} {launch.count} {launch.plane}")
    parts.append("PATH " + " ".join(_leg_text(hexmap, leg) for leg in order.legs))
    parts.extend(_reaction_text(r) for r in order.reactions)
    if order.join is not None:
        parts.append(f"JOIN AF{order.join}")
    if order.back is not None:
        parts.append(f"RETURN {order.back}")
    return " ".join(parts)


def _plot_text(hexmap: HexMap, order: Plot) -> str:
    if not order.legs:
        return f"PLOT TF{order.tf} HOLD"
    legs = (" ".join(hexmap.hex_id(h) for h in leg) or "HOLD" for leg in order.legs)
    return f"PLOT TF{order.tf} " + " / ".join(legs)


def normalise(hexmap: HexMap, order: FtOrder) -> str:
    """The exact echo; :func:`orders.parse_lines` reads it back to the same order."""
    match order:
        case Plot():
            return _plot_text(hexmap, order)
        case Search():
            return _search_text(hexmap, order)
        case Ready(place, count, plane):
            return f"READY {place} {count} {plane}"
        case Land(af, place):
            return f"LAND AF{af} {place}"
        case Shadow(af, h):
            return f"SHADOW AF{af} {hexmap.hex_id(h)}"
        case SetDeception(policy):
            return f"DECEPTION {policy.value.upper()}"
    return "HOLD"


def altitude_word(altitude: Altitude) -> str:
    return altitude.value.upper()
