# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarine state, depth, movement and observation (seed 003, 27.1-27.5).

27.1: "Submarines may operate at three levels -- surface, periscope, & deep. The deep level may not
be used in partial land hexes." 27.2: "A submarine may move 1 hex per turn on the surface, one hex
every other hour at periscope depth, and may not move if deep." 27.2.3: "Up to one half (rounded up)
of a player's submarines may move in a given turn; a minimum of three may always move as long as the
player has at least three. Submarines may not move the turn after engaging in combat."

27.3 caps what a sub observes by depth; 27.4 "A sub on the surface is subject to normal detection in
its own hex only"; 27.5.1-27.5.2 who sees a sub at periscope depth or deep; 27.5.3 the low aircraft's
"sub search" roll (a design default, ``submarines.toml``).

State the game keeps between turns is :class:`SubState` (per submarine) and :class:`AswState` (per
surface ship), keyed by ship name, plain fields only so ``units.dump``/``units.load`` round-trip it.
The tables and the depths are :mod:`~mailbot.games.flattop.combat.submarines`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.combat.submarines import (
    RULE_SEARCH,
    SHIPS_OVERHEAD,
    Depth,
    Observer,
    SubmarineRules,
)
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.map.weather import Sky
from mailbot.games.flattop.units import Altitude, Ship

# --- state the game keeps ------------------------------------------------------------------


@dataclass(frozen=True)
class SubState:
    """One submarine's state between turns (keyed by ship name)."""

    name: str
    depth: Depth = Depth.SURFACE
    moved_turn: int | None = None  # the last turn it moved a hex (27.2, 27.2.1)
    fought_turn: int | None = None  # the last turn it was in combat (27.2.3)
    attacked_turn: int | None = None  # the last turn it made its attack (27.9.1: one per combat phase)
    air_dive_turn: int | None = None  # it dived under an air attack in this turn (27.6.5)
    factors_fired: int = 0  # torpedo factors used since its last reload (27.9.2)
    movement_turn: int | None = None  # the turn of ``movement_depths``
    movement_depths: tuple[Depth, ...] = ()  # every depth it was at in that movement phase (27.6.8)


@dataclass(frozen=True)
class AswState:
    """One surface ship's state for submarine combat (keyed by ship name)."""

    name: str
    asw_attacks: int = 0  # ASW attacks made since its last reload (27.9.2)
    gunnery_turn: int | None = None  # the last turn it used its gunnery factor (27.9)
    sub_attacked_turn: int | None = None  # the last turn a sub attacked its TF (sequence table -1)


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_S = TypeVar("_S", bound=_Named)


def sub_state(states: Iterable[SubState], name: str) -> SubState:
    """The state of submarine ``name``; a fresh (surfaced, full) one if the game holds none yet."""
    return next((s for s in states if s.name == name), SubState(name))


def asw_state(states: Iterable[AswState], name: str) -> AswState:
    return next((s for s in states if s.name == name), AswState(name))


def put(states: Iterable[_S], new: _S) -> tuple[_S, ...]:
    """The states with ``new`` in place of the one of the same name (added if absent), by name."""
    kept = [s for s in states if s.name != new.name]
    return tuple(sorted([*kept, new], key=lambda s: s.name))


# --- 27.1, 27.2: depth and movement -----------------------------------------------------------


def depth_problem(depth: Depth, terrain: Terrain, rules: SubmarineRules) -> str | None:
    """27.1: "The deep level may not be used in partial land hexes." None if allowed."""
    if terrain is Terrain.LAND:
        return "submarines cannot be in an all-land hex"
    if depth is Depth.DEEP and terrain in rules.deep_barred:
        return "the deep level may not be used in partial land hexes (27.1)"
    return None


def begin_movement(sub: SubState, turn: int) -> SubState:
    """The start of a movement phase: the depth it starts at is the one it moves by (27.2.1)."""
    return replace(sub, movement_turn=turn, movement_depths=(sub.depth,))


def set_depth(sub: SubState, depth: Depth, terrain: Terrain, turn: int, rules: SubmarineRules) -> SubState:
    """27.2.2: "A submarine may change to any depth during movement", moving or not."""
    problem = depth_problem(depth, terrain, rules)
    if problem:
        raise GameError(f"{sub.name}: {problem}")
    seen = sub.movement_depths if sub.movement_turn == turn else (sub.depth,)
    return replace(sub, depth=depth, movement_turn=turn, movement_depths=(*seen, depth))


@dataclass(frozen=True)
class MoveCheck:
    hexes: int  # how far it may move this turn
    reason: str

    @property
    def allowed(self) -> bool:
        return self.hexes > 0


def may_move(sub: SubState, turn: int, rules: SubmarineRules) -> MoveCheck:
    """27.2, 27.2.1, 27.2.3 by the depth at the start of the movement phase (``sub.depth`` then)."""
    if sub.fought_turn is not None and sub.fought_turn == turn - 1:
        return MoveCheck(0, "submarines may not move the turn after engaging in combat (27.2.3)")
    move = rules.movement[sub.depth]
    if move.hexes == 0:
        return MoveCheck(0, f"a submarine may not move if {sub.depth} (27.2)")
    if sub.moved_turn is not None and 0 <= turn - sub.moved_turn < move.every:
        return MoveCheck(
            0, f"at {sub.depth} depth a submarine moves one hex every {move.every} hours (27.2.1)"
        )
    return MoveCheck(move.hexes, f"{move.hexes} hex at {sub.depth} depth (27.2)")


def record_move(sub: SubState, turn: int) -> SubState:
    return replace(sub, moved_turn=turn)


def movers_allowed(n_subs: int, rules: SubmarineRules) -> int:
    """27.2.3: half the subs (rounded up) may move, but three of them always if there are three."""
    if n_subs < 0:
        raise GameError(f"{n_subs} submarines")
    half = math.ceil(n_subs * rules.movers_share)
    return max(half, min(rules.movers_minimum, n_subs))


# --- 27.3-27.5.3: observation -----------------------------------------------------------------


def observation_limit(
    depth: Depth, *, distance: int, high_air: bool, radar: bool, rules: SubmarineRules
) -> int | None:
    """27.3: the best condition a sub at ``depth`` may observe a unit ``distance`` hexes away at.

    ``high_air``: the unit is an air unit at HI. None: no limit ("any sub with radar may observe
    normally", read as a surfaced one, where 27.3 says it). 0: it sees nothing there.
    """
    if depth is Depth.SURFACE and radar:
        return None
    if distance == 0:
        return rules.observation[depth]
    if depth is Depth.SURFACE and distance == 1 and high_air:
        return rules.high_air_one_hex
    return 0


def capped(condition: int, limit: int | None) -> int:
    """The condition the normal rules give, cut to a 27.3 limit."""
    return condition if limit is None else min(condition, limit)


def stationary_dds(ships: Iterable[Ship], rules: SubmarineRules) -> int:
    """DDs afloat among ``ships`` (give the ships of TFs that did not move this turn; 27.5.1, 27.5.2)."""
    return sum(1 for s in ships if s.type in rules.destroyers and not s.sunk)


def sub_visible(
    depth: Depth,
    observer: Observer,
    *,
    distance: int,
    rules: SubmarineRules,
    attacked_ship: bool = False,
    hex_dds: int = 0,
    tf_dds: int = 0,
    found_by_search: bool = False,
) -> bool:
    """27.4-27.5.3: may ``observer`` see a sub at ``depth``? True for a surfaced sub means the normal
    observation rules then decide (27.4 "normal detection in its own hex only").

    ``attacked_ship``: the sub attacked a ship this turn; ``hex_dds``: the observing side's DDs in the
    hex that did not move this turn; ``tf_dds``: those of the observing TF; ``found_by_search``: a
    low AF's sub search found it (:func:`sub_search`).
    """
    if distance != 0:
        return False  # 27.4 "not visible from adjacent hexes"; 27.5 own hex only
    if depth is Depth.SURFACE:
        return True
    if depth is Depth.PERISCOPE:
        searched = observer is Observer.LOW_AIR and found_by_search
        return attacked_ship or hex_dds > 0 or searched
    return observer is Observer.SHIPS and tf_dds >= rules.deep_detection_dds


def deep_sub_told(ships_in_hex: bool) -> str:
    """27.5.2 (and 27.3 "only condition 1 if deep"): all a deep sub learns of enemy ships."""
    return SHIPS_OVERHEAD if ships_in_hex else ""


@dataclass(frozen=True)
class SubSearch:
    found: bool
    mp: int  # MP the AF spends on this roll (27.5.3: 3)
    roll: Roll | None  # None: no chance, nothing rolled
    text: str
    default: bool  # the roll's odds are a design default


def sub_search(
    depth: Depth,
    altitude: Altitude,
    *,
    distance: int,
    sky: Sky,
    night: bool,
    rules: SubmarineRules,
    dice: Dice,
    label: str,
) -> SubSearch:
    """27.5.3: one "sub search" roll of a low AF for one sub at periscope depth in its hex.

    Only a periscope sub is found this way (a surfaced one is seen normally, a deep one never by
    planes); no chance (storm, night) rolls nothing. The MP are spent all the same.
    """
    if altitude is not Altitude.LOW:
        raise GameError("27.5.3: only aircraft flying at low level make sub search rolls")
    need = rules.search_need["night"] if night else rules.search_need[sky.value]
    default = rules.is_default("sub_search.roll")
    if distance != 0 or depth is not Depth.PERISCOPE or need <= 0:
        return SubSearch(False, rules.search_mp, None, "sub search: nothing found", default)
    roll = dice.dice(label, rules.search_die, rule=RULE_SEARCH)
    found = roll.total <= need
    text = f"{roll.text}: {'sub found' if found else 'nothing found'} (found on {need} or less)"
    return SubSearch(found, rules.search_mp, roll, text, default)


def tf_may_attack(*, seen_by_tf: bool, spotted_by_air: bool, spotter_in_hex: bool) -> bool:
    """27.5.3: a TF attacks a sub it sees, or one an AF spotted "as long as the aircraft remains in
    the hex to spot"."""
    return seen_by_tf or (spotted_by_air and spotter_in_hex)
