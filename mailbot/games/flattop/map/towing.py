# SPDX-License-Identifier: GPL-3.0-or-later
"""Towing (seed 003, "Towing (modification)").

The seed: "For towing purposes, ships are divided into four "classes": 1: CV/BB 2: CA/CAV/CL 3:
DD/APD/CVL 4: All others. Only ships currently capable of moving two hexes per turn may tow. Tow
ships may not fire any weaponry except AA (full strength) and gunnery (half strength, rounded up.)
Tow ships may not launch or recover aircraft. If attacked, the towing "pair" is treated as an
anchored target. A ship may tow any other ship up to one class above itself. Thus a DD can tow a CL
but not a BB. If towing a ship one class above, the pair moves one hex every three turns instead of
one every two."

Class 1 is the largest, so "one class above" is one step toward class 1: a class 3 DD tows classes
2, 3 and 4. "Currently capable of moving two hexes" is checked every turn against the tower's pace
this turn (``map.movement.ship_speed``, from ``combat.damage.speed``): call :func:`may_tow` again
each turn and drop the tow when it gives a reason. The game state keeps one :class:`TowPair` per
tow, by ship names (``units.dump``/``units.load`` round-trip it). The numbers are
``data/tables/towing.toml``; its ``[rulings]`` are design defaults (:attr:`TowingTable.design_defaults`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.map.movement import MovementRules, ship_speed
from mailbot.games.flattop.tabledata import (
    Source,
    Sourced,
    by_name,
    parsed,
    rounded,
    rounding,
    share,
    source_of,
)
from mailbot.games.flattop.units import Ship, ShipType

RULE = "seed 003, Towing (modification)"
_SECTIONS = ("classes", "towing", "tower", "rulings")


@dataclass(frozen=True)
class TowingTable(Sourced):
    """``towing.toml``, parsed."""

    classes: Mapping[ShipType, int]  # every type: the listed ones, then "All others"
    tower_hexes: int  # "capable of moving two hexes per turn"
    reach: int  # "up to one class above itself"
    turns_per_hex: int
    turns_per_hex_up: int  # towing a ship of a larger class
    gunnery_share: Fraction
    gunnery_rounding: str
    aa_share: Fraction
    torpedoes: bool
    flight_ops: bool
    pair_anchored: bool
    towed_may_be_sinking: bool
    sources: Mapping[str, Source]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TowingTable:
        """``towing.toml``; a malformed table is a GameError (it ships with the code)."""
        table = parsed("towing.toml", _read, data, also=(ZeroDivisionError,))
        if table.tower_hexes < 1 or table.reach < 0 or min(table.turns_per_hex, table.turns_per_hex_up) < 1:
            raise GameError("towing.toml: tower_hexes and turns per hex must be >= 1, reach >= 0")
        return table


def _read(data: Mapping[str, Any]) -> TowingTable:
    classes, towing, tower = data["classes"], data["towing"], data["tower"]
    listed: dict[ShipType, int] = {}
    for key, names in classes.items():
        if key in ("default", "source", "others"):
            continue
        for name in names:
            if ShipType(str(name)) in listed:
                raise ValueError(f"{name} is in two towing classes")
            listed[ShipType(str(name))] = int(key)
    others = int(classes["others"])
    return by_name(
        TowingTable,
        towing,
        tower,
        data["rulings"],
        classes={t: listed.get(t, others) for t in ShipType},
        turns_per_hex_up=int(towing["turns_per_hex_reaching_up"]),
        gunnery_share=share(tower["gunnery_share"]),
        gunnery_rounding=rounding(tower["gunnery_rounding"]),
        aa_share=share(tower["aa_share"]),
        sources={name: source_of(data[name], name) for name in _SECTIONS},
    )


# --- who may tow whom -------------------------------------------------------------------------


@dataclass(frozen=True)
class TowPair:
    """A tow in force: ``tower`` tows ``towed`` since ``started``, one hex every ``interval`` turns."""

    tower: str
    towed: str
    started: int
    interval: int


def tow_class(ship_type: ShipType, *, table: TowingTable) -> int:
    """1: CV/BB, 2: CA/CAV/CL, 3: DD/APD/CVL, 4: all others."""
    return table.classes[ship_type]


def hexes_this_turn(ship: Ship, *, turn: int, movement: MovementRules | None = None) -> int:
    """The hexes the ship can make in ``turn`` on her own (damage and critical hits counted)."""
    return ship_speed(ship, movement or MovementRules(), turn=turn).hexes


def may_tow(
    tower: Ship, towed: Ship, *, turn: int, table: TowingTable, movement: MovementRules | None = None
) -> str:
    """ "" when ``tower`` may tow ``towed`` in ``turn``; else the reason, in words a player reads."""
    if tower.name == towed.name:
        return f"{tower.name} cannot tow herself"
    if tower.destroyed or towed.sunk:
        gone = tower if tower.destroyed else towed
        return f"{gone.name} is {'sinking' if not gone.sunk else 'gone'}"
    if towed.destroyed and not table.towed_may_be_sinking:
        return f"{towed.name} is sinking and cannot be taken in tow"
    pace = hexes_this_turn(tower, turn=turn, movement=movement)
    if pace < table.tower_hexes:
        return (
            f"{tower.name} can make {pace} hex(es) this turn: only ships currently capable of moving "
            f"{table.tower_hexes} hexes per turn may tow"
        )
    mine, theirs = tow_class(tower.type, table=table), tow_class(towed.type, table=table)
    if theirs < mine - table.reach:
        return (
            f"{tower.type} {tower.name} (towing class {mine}) may tow ships up to class "
            f"{mine - table.reach}, not {towed.type} {towed.name} (class {theirs})"
        )
    return ""


def tow_interval(tower: Ship, towed: Ship, *, table: TowingTable) -> int:
    """Turns per hex: 3 when towing a ship one class above, else 2 (GameError beyond reach)."""
    mine, theirs = tow_class(tower.type, table=table), tow_class(towed.type, table=table)
    if theirs < mine - table.reach:
        raise GameError(f"{tower.type} {tower.name} cannot tow {towed.type} {towed.name}")
    return table.turns_per_hex_up if theirs < mine else table.turns_per_hex


def start_tow(
    tower: Ship, towed: Ship, *, turn: int, table: TowingTable, movement: MovementRules | None = None
) -> TowPair:
    """The tow taken up in ``turn``; GameError with :func:`may_tow`'s reason if it may not be."""
    why = may_tow(tower, towed, turn=turn, table=table, movement=movement)
    if why:
        raise GameError(why)
    return TowPair(tower.name, towed.name, turn, tow_interval(tower, towed, table=table))


def pair_moves(turn_started: int, turn: int, interval: int) -> bool:
    """Whether the pair moves its one hex in ``turn``: a full ``interval`` after the tow began, and
    every ``interval`` turns after that (it holds its hex the turn the tow is taken up)."""
    if interval < 1:
        raise GameError(f"a tow moves one hex every {interval} turns: at least 1 expected")
    elapsed = turn - turn_started
    return elapsed > 0 and elapsed % interval == 0


def pair_hexes(pair: TowPair, turn: int) -> int:
    """The hexes the pair (and so its TF) may move in ``turn``: 1 or 0."""
    return 1 if pair_moves(pair.started, turn, pair.interval) else 0


# --- what towing costs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TowFire:
    """The factors a tow ship fires with: "AA (full strength) and gunnery (half strength, rounded up)"."""

    gunnery: int
    aa: int
    torpedo: int


def tow_gunnery(ship: Ship, *, table: TowingTable) -> int:
    """Her current Gunnery Factor, halved and rounded up."""
    return rounded(ship.gunnery * table.gunnery_share, table.gunnery_rounding)


def tow_fire(ship: Ship, *, table: TowingTable) -> TowFire:
    """What a tow ship may fire: no torpedoes ("may not fire any weaponry except AA ... and gunnery")."""
    aa = rounded(ship.aa * table.aa_share, "down")
    return TowFire(tow_gunnery(ship, table=table), aa, ship.torpedo if table.torpedoes else 0)


def towers(pairs: Iterable[TowPair]) -> frozenset[str]:
    return frozenset(p.tower for p in pairs)


def in_tow(pairs: Iterable[TowPair]) -> frozenset[str]:
    """The towed ships, e.g. for ``observation.observe.tf_target(in_tow=...)`` (7.12.3)."""
    return frozenset(p.towed for p in pairs)


def flight_ops_allowed(ship_name: str, pairs: Iterable[TowPair], *, table: TowingTable) -> bool:
    """False for a tow ship: "Tow ships may not launch or recover aircraft."."""
    return table.flight_ops or ship_name not in towers(pairs)


def anchored_target(ship_name: str, pairs: Iterable[TowPair], *, table: TowingTable) -> bool:
    """Either ship of a pair: "If attacked, the towing "pair" is treated as an anchored target."."""
    names = [name for p in pairs for name in (p.tower, p.towed)]
    return table.pair_anchored and ship_name in names


def pair_problems(pairs: Iterable[TowPair]) -> tuple[str, ...]:
    """Ships in more than one tow (one tow each: a ship tows one ship, or is towed by one)."""
    seen: dict[str, int] = {}
    for pair in pairs:
        for name in (pair.tower, pair.towed):
            seen[name] = seen.get(name, 0) + 1
    return tuple(
        f"{name} is in {count} tows: one at a time" for name, count in sorted(seen.items()) if count > 1
    )
