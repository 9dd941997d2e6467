# SPDX-License-Identifier: GPL-3.0-or-later
"""Survivors: how many reach the water, who may see them, who picks them up (seed 003, Survivors).

The seed: "Survivors - Note that this section replaces the rules in the booklet in their entirety.
When a ship is sunk, survivors may be rescued from the sea in the hex where the sinking took place.
Different ship types produce different factors of survivors: 6: CV,BB 5: CA,CAV,fully loaded AP/APD
4: CL,AV. These numbers are the maximum survivor counts that can be produced. Roll 1d6 on the
following table to determine what percentage of survivors makes it to the water: Die Roll 1: None;
2: 1/4; 3: 1/3; 4: 1/2; 5: 2/3; 6+: All. Round fractions up. If ship stays afloat 3 or more hours
after it is considered sunk, add 1 to the die roll. Only CA's, CAV's, CL's, DD's and empty AP/APD's
can pick up survivors. CA/CAV's can pick up 4 factors, CL/AP/APD's 3 and DD's 2. DD's and AO's never
leave survivors; PG/SS never leave survivors and cannot rescue survivors. Ships that load survivors
are considered to be anchored if attacked in that turn. Survivors are observed by ships in the same
hex (exact number of factors reported) or by aircraft at low altitude that spend half of their MP
(rounded down) in the hex (number of survivors not reported, merely their presence.) Survivors may
not be observed in the turn that their ship has taken enough hits to sink it, but are visible
afterwards. ... Survivors are never visible to a TF or AF that has failed in a shadowing attempt and
is thus unable to observe per 11.7. At the beginning of the turn every 2 hours after a ship has been
considered sunk, survivors of that ship that are still in the water automatically lose one factor.
This is counted from the turn the ship is considered sunk, not the actual turn of its sinking ...
Survivors may also be taken from crippled ships. Each cripple can offload one factor per turn to
another ship in its TF. The rescue ship is considered as anchored for that turn. Roll for available
survivors on each crippled ship, with a modifier of +1 to the die roll. Only one factor per turn may
be offloaded, regardless of how many eligible rescue ships are in the TF. Each survivor factor
rescued that is still carried (or has been unloaded on friendly territory) at game's end is worth 2
VP if the same nationality as the player who rescued them, 1 VP if of the opposite nationality."

The model. A ship is "considered sunk" when her hits reach her Damage Factor (``Ship.destroyed``,
``Ship.destroyed_turn``; delayed sinking is ``combat/sinking.py``). Her survivors go into the water
then, in her hex, as one :class:`Survivors` group: the roll knows her LI 4 delay (``Ship.sinking``,
the ``afloat_hours``), and the seed's CV "destroyed at 1100 but does not sink until 1600" loses
survivors from 1300 "even though the ship is still sinking", so they are in the water from her
destruction. Each turn is a game hour. The game state keeps the groups in the water, an
:class:`Aboard` record per ship that carries survivors or troops, and a :class:`Stranded` record per
cripple whose survivors were rolled; all are frozen dataclasses that ``units.dump``/``units.load``
round-trip. Numbers live in ``data/tables/survivors.toml``; its ``default = true`` sections are
design defaults (:attr:`SurvivorTable.design_defaults`, :meth:`SurvivorTable.factors_default`).

This module: the state kept, the table, the survivors going into the water and who may see them;
picking them up, offloading cripples, landing and the points are :mod:`.survivor_rescue`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any, Literal

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.tabledata import Source, Sourced, parsed, rounded, rounding
from mailbot.games.flattop.tabledata import share as share_of
from mailbot.games.flattop.units import Ship, ShipType, Side

RULE = "seed 003, Survivors"
RULE_ROLL = "seed 003, Survivors percentage table"
RULE_CRIPPLE = "seed 003, Survivors from crippled ships (+1)"

Observer = Literal["ship-in-hex", "low-air", "high-air"]
Sighting = Literal["exact", "presence"]
EXACT: Sighting = "exact"
PRESENCE: Sighting = "presence"
PER_CRIPPLE, PER_TASK_FORCE = "cripple", "task_force"


class Cargo(StrEnum):
    """An AP/APD's troops: "fully loaded" ones leave survivors, "empty" ones may rescue."""

    FULL = "full"
    PARTIAL = "partial"
    EMPTY = "empty"


def cargo_after(unloaded_turns: int, unload_turns: int, *, loaded_at_start: bool = True) -> Cargo:
    """A transport's cargo after ``unloaded_turns`` of the ``unload_turns`` its troops take to land."""
    if not loaded_at_start or unloaded_turns >= unload_turns:
        return Cargo.EMPTY
    return Cargo.FULL if unloaded_turns <= 0 else Cargo.PARTIAL


# --- state kept by the game -----------------------------------------------------------------


@dataclass(frozen=True)
class Survivors:
    """One sunk ship's survivors in the water ("survivors of that ship" decay together).

    ``ship`` names her, for the referee and the log only: reports to players never name her.
    ``sunk_turn`` is the turn she was considered sunk (destroyed); ``visible_from`` the first turn
    anyone may observe the group; ``decayed_through`` the last turn :func:`decay` counted (None:
    none yet), so that a second call in a turn, or a late one, loses the right number of factors.
    """

    ship: str
    hex: Hex
    nationality: Side
    factors: int
    ship_type: ShipType
    sunk_turn: int
    visible_from: int
    decayed_through: int | None = None


@dataclass(frozen=True)
class Carried:
    """Survivor factors of one nationality aboard a ship."""

    nationality: Side
    factors: int


@dataclass(frozen=True)
class Aboard:
    """What one ship (``ship``, of ``side``) carries: survivors, and an AP/APD's troops (``cargo``)."""

    ship: str
    side: Side
    cargo: Cargo = Cargo.EMPTY
    survivors: tuple[Carried, ...] = ()

    @property
    def factors(self) -> int:
        return sum(c.factors for c in self.survivors)

    def plus(self, nationality: Side, factors: int) -> Aboard:
        """One entry per nationality, so that victory keys (ship, nationality) stay unique."""
        held = {c.nationality: c.factors for c in self.survivors}
        held[nationality] = held.get(nationality, 0) + factors
        merged = tuple(Carried(side, held[side]) for side in Side if held.get(side))
        return replace(self, survivors=merged)


@dataclass(frozen=True)
class Stranded:
    """Survivors rolled for a crippled ship (+1), still aboard her: ``factors`` left to offload."""

    ship: str
    nationality: Side
    factors: int
    offloaded: int = 0
    last_turn: int | None = None  # the last turn a factor was offloaded


@dataclass(frozen=True)
class Landed:
    """Survivor factors ``side`` unloaded on friendly territory at ``place`` (they still count)."""

    side: Side
    nationality: Side
    factors: int
    place: str


# --- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurvivorTable(Sourced):
    """``survivors.toml``, parsed."""

    factors: Mapping[ShipType, int]  # maximum factors produced, transports not fully loaded
    loaded_factors: int  # a "fully loaded AP/APD"
    transports: frozenset[ShipType]
    default_types: frozenset[ShipType]  # figures from [factors.defaults]
    sides: int
    shares: tuple[Fraction, ...]  # by die roll 1..sides; higher totals read the last
    rounding: str
    afloat_hours: int
    afloat_bonus: int
    cripple_bonus: int
    decay_every: int
    decay_factors: int
    capacity: Mapping[ShipType, int]
    empty_only: frozenset[ShipType]
    load_anchors: bool
    air_share: Fraction
    air_rounding: str
    hidden_turns: int
    failed_shadow_blind: bool
    offload_per_turn: int
    offload_anchors: bool
    offload_limit: str
    sinking_counts_offloaded: bool
    sources: Mapping[str, Source]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SurvivorTable:
        """``survivors.toml``; a malformed table is a GameError (it ships with the code)."""
        table = parsed("survivors.toml", _read, data, also=(ZeroDivisionError,))
        _check(table)
        return table

    def factors_default(self, ship_type: ShipType, *, loaded: bool = False) -> bool:
        """Whether this type's survivor figure is a design default (the seed lists no CVL, ...)."""
        if loaded and ship_type in self.transports:
            return False
        return ship_type in self.default_types


def _read(data: Mapping[str, Any]) -> SurvivorTable:
    fac, roll, decay, rescue = data["factors"], data["roll"], data["decay"], data["rescue"]
    seen, off = data["observation"], data["offload"]
    defaults = fac["defaults"]
    by_type = {t: int(fac[t.value]) for t in ShipType if t.value in fac}
    by_type |= {t: int(defaults[t.value]) for t in ShipType if t.value in defaults}
    return SurvivorTable(
        factors=by_type,
        loaded_factors=int(fac["loaded_transport"]),
        transports=frozenset(ShipType(str(t)) for t in fac["transports"]),
        default_types=frozenset(t for t in ShipType if t.value in defaults),
        sides=int(roll["sides"]),
        shares=tuple(share_of(pair) for pair in roll["shares"]),
        rounding=rounding(roll["rounding"]),
        afloat_hours=int(roll["afloat_hours"]),
        afloat_bonus=int(roll["afloat_bonus"]),
        cripple_bonus=int(roll["cripple_bonus"]),
        decay_every=int(decay["every_hours"]),
        decay_factors=int(decay["factors"]),
        capacity={t: int(rescue[t.value]) for t in ShipType if t.value in rescue},
        empty_only=frozenset(ShipType(str(t)) for t in rescue["empty_only"]),
        load_anchors=bool(rescue["anchored"]),
        air_share=share_of(seen["air_mp_share"]),
        air_rounding=rounding(seen["air_rounding"]),
        hidden_turns=int(seen["hidden_turns"]),
        failed_shadow_blind=bool(seen["failed_shadow_blind"]),
        offload_per_turn=int(off["factors_per_turn"]),
        offload_anchors=bool(off["anchored"]),
        offload_limit=str(off["rulings"]["limit_per"]),
        sinking_counts_offloaded=bool(off["rulings"]["sinking_counts_offloaded"]),
        sources=_sources(data),
    )


def _sources(data: Mapping[str, Any]) -> dict[str, Source]:
    """Each section's ``default`` flag and ``source`` line, by dotted name; both are required."""
    names = ("factors", "factors.defaults", "roll", "decay", "rescue", "observation", "offload")
    found: dict[str, Source] = {}
    for name in (*names, "offload.rulings"):
        section: Any = data
        for key in name.split("."):
            section = section[key]
        flag, source = section.get("default"), section.get("source")
        if not isinstance(flag, bool) or not isinstance(source, str) or not source:
            raise ValueError(f"[{name}] needs default = true/false and a source line")
        found[name] = Source(flag, source)
    return found


def _check(table: SurvivorTable) -> None:
    if len(table.shares) != table.sides or any(not 0 <= s <= 1 for s in table.shares):
        raise GameError(f"survivors.toml [roll]: {table.sides} shares between 0 and 1 expected")
    missing = set(ShipType) - set(table.factors)
    if missing:
        raise GameError(f"survivors.toml [factors]: no figure for {sorted(missing)}")
    if table.offload_limit not in (PER_CRIPPLE, PER_TASK_FORCE):
        raise GameError(f"survivors.toml: limit_per is {PER_CRIPPLE!r} or {PER_TASK_FORCE!r}")
    if table.decay_every < 1 or table.decay_factors < 0 or table.offload_per_turn < 1:
        raise GameError("survivors.toml: decay every >= 1 hour, offload >= 1 factor a turn")


# --- into the water ---------------------------------------------------------------------------


def survivor_factors(ship_type: ShipType, *, loaded: bool = False, table: SurvivorTable) -> int:
    """The most survivor factors a ship of this type produces; ``loaded``: a "fully loaded" AP/APD."""
    if loaded and ship_type in table.transports:
        return table.loaded_factors
    return table.factors[ship_type]


def share(total: int, table: SurvivorTable) -> Fraction:
    """The percentage table: a modified total above the die's faces reads the last row ("6+")."""
    return table.shares[min(max(total, 1), table.sides) - 1]


def _roll(
    ship: Ship,
    mods: Mapping[str, int],
    *,
    loaded: bool,
    dice: Dice,
    label: str,
    rule: str,
    table: SurvivorTable,
) -> tuple[int, Roll | None]:
    most = survivor_factors(ship.type, loaded=loaded, table=table)
    if most <= 0:
        return 0, None  # "never leave survivors": nothing to roll for
    roll = dice.roll(label, table.sides, rule=rule, modifiers=mods)
    return rounded(most * share(roll.total, table), table.rounding), roll


def survivor_roll(
    ship: Ship, *, afloat_hours: int, dice: Dice, label: str, table: SurvivorTable, loaded: bool = False
) -> tuple[int, Roll | None]:
    """The factors that reach the water when ``ship`` is considered sunk, and the 1d6 (None: no roll).

    ``afloat_hours``: how long she stays afloat after that (her LI 4 delay); 3 or more adds 1.
    """
    mods = {"afloat 3+ hours after sunk": table.afloat_bonus} if afloat_hours >= table.afloat_hours else {}
    return _roll(
        ship,
        mods,
        loaded=loaded,
        dice=dice,
        label=f"{label}/survivors {ship.name}",
        rule=RULE_ROLL,
        table=table,
    )


def cripple_roll(
    ship: Ship, *, dice: Dice, label: str, table: SurvivorTable, loaded: bool = False
) -> tuple[int, Roll | None]:
    """ "Roll for available survivors on each crippled ship, with a modifier of +1 to the die roll."""
    mods = {"crippled ship": table.cripple_bonus}
    where = f"{label}/survivors aboard {ship.name}"
    return _roll(ship, mods, loaded=loaded, dice=dice, label=where, rule=RULE_CRIPPLE, table=table)


def survivors_in_water(
    ship: Ship,
    *,
    hex: Hex,
    nationality: Side,
    afloat_hours: int,
    dice: Dice,
    label: str,
    table: SurvivorTable,
    loaded: bool = False,
    taken_off: int = 0,
) -> tuple[Survivors | None, Roll | None]:
    """The group a destroyed ship leaves in ``hex`` (None when no factor reaches the water).

    ``taken_off``: factors already offloaded from her while she was a cripple; they are not in
    the water twice (``[offload.rulings]``). The group is unseen in the turn she was destroyed.
    """
    turn = ship.destroyed_turn
    if not ship.destroyed or turn is None:
        raise GameError(f"{ship.name} is not sunk: no survivors in the water")
    factors, roll = survivor_roll(
        ship, afloat_hours=afloat_hours, dice=dice, label=label, table=table, loaded=loaded
    )
    if table.sinking_counts_offloaded:
        factors = max(0, factors - taken_off)
    if factors <= 0:
        return None, roll
    group = Survivors(ship.name, hex, nationality, factors, ship.type, turn, turn + table.hidden_turns)
    return group, roll


def decay(group: Survivors, turn: int, *, table: SurvivorTable) -> Survivors | None:
    """The group at the beginning of ``turn``: a factor lost each 2 hours after the ship was considered
    sunk (counted from ``sunk_turn``, whatever her actual sinking); None when none is left."""
    since = group.sunk_turn if group.decayed_through is None else group.decayed_through
    if turn <= since:
        return group
    every = table.decay_every
    losses = (turn - group.sunk_turn) // every - (since - group.sunk_turn) // every
    left = group.factors - losses * table.decay_factors
    return replace(group, factors=left, decayed_through=turn) if left > 0 else None


# --- who sees them ------------------------------------------------------------------------------


def may_observe(
    group: Survivors,
    turn: int,
    *,
    observer: Observer,
    mp_spent: int = 0,
    mp: int = 0,
    failed_shadow: bool = False,
    table: SurvivorTable,
) -> Sighting | None:
    """What an observer in the group's hex learns: "exact" factors (a ship), "presence" (low planes
    that spent half their MP, rounded down, in the hex), or None.

    ``mp_spent`` counts every MP the AF spent in the hex, the one that brought it in included;
    ``failed_shadow``: the TF or AF failed a shadowing attempt this turn (11.7).
    """
    if turn < group.visible_from or group.factors <= 0:
        return None  # not in the turn the ship took her fatal damage
    if failed_shadow and table.failed_shadow_blind:
        return None
    if observer == "ship-in-hex":
        return EXACT
    if observer == "low-air" and mp_spent >= rounded(mp * table.air_share, table.air_rounding):
        return PRESENCE
    return None
