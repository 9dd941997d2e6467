# SPDX-License-Identifier: GPL-3.0-or-later
"""Basic Hit Tables (BHT) for air attack, air-to-air and AA fire, with their modifiers.

Standard 16.10, 17, 18 as reference A.11.4-A.11.6 found them, and seed 003:

* "Change to the Air Modifier Chart: The following aircraft have modifiers
  added: Mavis, Catalina, Betty, Nell, Devastator (+1); Emily (-1.)"
* 16.10.4 "(Addition): These same plane types have their MF reduced by 1
  when armed." (the planes 16.10 gives -6 in air-to-air combat when armed).
* 21.8.2: an AF attacking a ship that earlier hits "reduce[d] to half speed
  ... receives the "+1" modifier for attacking a less-mobile target".
* Limited Intelligence 2, "Attacking screening ships": "If a TF contains
  CV's, CVL's, AV's, CA's, CAV's or BB's, and an AF does not send any planes
  to attack those ships but concentrates on ships of CL or smaller class
  instead, the AF only receives fire from one half (rounded down) of the AA
  factors in the TF."

The per-plane Air Hit Tables and the AA BHT are design defaults
(``mailbot/games/flattop/data/tables/air-attack.toml`` says how they were
made); :attr:`Bht.default` carries the flag so a letter can say so. A
:class:`Bht` is not clamped: the CRT decides what a BHT outside 1-15 reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.tabledata import integer, parsed
from mailbot.games.flattop.units import Armament, PlaneType, Ship, ShipType

#: Standard 16.10 (reference A.11.4): armed, these fight air-to-air at -6;
#: seed 003, 16.10.4: "These same plane types have their MF reduced by 1 when armed."
ARMED_FIGHTERS: frozenset[str] = frozenset({"Wildcat", "P-38", "P-39", "P-40", "Beaufighter", "Zero", "Rufe"})
ARMED_MF_PENALTY = 1

#: Seed 003, Limited Intelligence 2: the ships an AF must attack to draw the TF's full AA.
SCREENED_TYPES: frozenset[ShipType] = frozenset(
    {ShipType.CV, ShipType.CVL, ShipType.AV, ShipType.CA, ShipType.CAV, ShipType.BB}
)

_ATTACK_KEYS = ("crippled", "anchored", "half_speed", "cloud", "night")
_AIR_TO_AIR_KEYS = ("rf_not_spent", "cloud", "night", "armed_fighter")


class AttackKind(StrEnum):
    DIVE = "dive"
    LEVEL_HIGH = "level-high"
    LEVEL_LOW = "level-low"
    TORPEDO = "torpedo"


@dataclass(frozen=True)
class Bht:
    value: int  # base + sum(modifiers), unclamped
    modifiers: Mapping[str, int]
    text: str  # e.g. "Dauntless dive AP vs ship: BHT 7 -2 cloud hex = 5 (design default)"
    default: bool = False  # the base BHT is a design default


@dataclass(frozen=True)
class Targets:
    """One entry of a plane's Air Hit Table: the BHT against a ship and a base; None = not allowed."""

    ship: int | None
    base: int | None


@dataclass(frozen=True)
class HitTables:
    default: bool  # the Air Hit Tables are design defaults
    source: str
    planes: Mapping[str, Mapping[tuple[AttackKind, Armament], Targets]]
    attack_modifiers: Mapping[str, int]  # crippled, anchored, half_speed, cloud, night
    plane_modifiers: Mapping[str, int]  # seed 003's Air Modifier Chart change
    air_to_air_modifiers: Mapping[str, int]  # rf_not_spent, cloud, night, armed_fighter
    aa_bht: int
    aa_modifiers: Mapping[str, int]  # cloud, night
    aa_default: bool

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> HitTables:
        """``air-attack.toml`` parsed; malformed data is a GameError (it ships with the code)."""
        return parsed("air-attack.toml", _read, data)

    def kinds(self, plane: str, armament: Armament) -> tuple[AttackKind, ...]:
        """The attack kinds open to ``plane`` carrying ``armament``, in AttackKind order.

        A plane with no Air Hit Table (the float planes Dave, Jake, Pete) has none.
        """
        table = self.planes.get(plane, {})
        return tuple(kind for kind in AttackKind if (kind, armament) in table)

    def attack(
        self,
        plane: str,
        kind: AttackKind,
        armament: Armament,
        *,
        base_target: bool,
        crippled: bool = False,
        anchored: bool = False,
        half_speed: bool = False,
        cloud: bool = False,
        night: bool = False,
    ) -> Bht:
        """The air attack BHT (standard 18); GameError for an attack the plane may not make."""
        target = "base" if base_target else "ship"
        what = f"{plane} {kind.value} {armament.value} vs {target}"
        entry = self._table(plane).get((kind, armament))
        base = None if entry is None else (entry.base if base_target else entry.ship)
        if base is None:
            raise GameError(f"{what}: not an attack this plane may make")
        if base_target and (crippled or anchored or half_speed):
            raise GameError(f"{what}: crippled, anchored and half speed are ship conditions")
        mods = self._ship_modifiers(crippled=crippled, anchored=anchored, half_speed=half_speed)
        mods |= _flagged(self.attack_modifiers, cloud=cloud, night=night)
        if self.plane_modifiers.get(plane):
            mods["air modifier chart (seed 003)"] = self.plane_modifiers[plane]
        return _bht(what, base, mods, self.default)

    def air_to_air(self, plane: PlaneType, *, armed: bool, rf_spent: bool, cloud: bool, night: bool) -> Bht:
        """Air-to-air BHT (standard 16.10). ``rf_spent`` False: an interceptor or escort that
        refused to pay its RF (reference A.10); bombers pay none and pass True."""
        table = self.air_to_air_modifiers
        mods = {} if rf_spent else {"RF not spent": table["rf_not_spent"]}
        mods |= _flagged(table, cloud=cloud, night=night)
        if armed and plane.name in ARMED_FIGHTERS:
            mods["armed fighter"] = table["armed_fighter"]
        return _bht(f"{plane.name} air-to-air", plane.air_to_air, mods, plane.default)

    def aa(self, *, cloud: bool, night: bool) -> Bht:
        """AA BHT (reference B.8, design default)."""
        return _bht("AA", self.aa_bht, _flagged(self.aa_modifiers, cloud=cloud, night=night), self.aa_default)

    def _table(self, plane: str) -> Mapping[tuple[AttackKind, Armament], Targets]:
        if plane not in self.planes:
            raise GameError(f"{plane!r} has no Air Hit Table: it may not attack")
        return self.planes[plane]

    def _ship_modifiers(self, *, crippled: bool, anchored: bool, half_speed: bool) -> dict[str, int]:
        mods: dict[str, int] = {}
        if crippled:
            mods["target crippled"] = self.attack_modifiers["crippled"]
        elif half_speed:  # a crippled ship is slower still: its +2 covers this +1 (21.8.2)
            mods["target at half speed (seed 003, 21.8.2)"] = self.attack_modifiers["half_speed"]
        if anchored:
            mods["target anchored"] = self.attack_modifiers["anchored"]
        return mods


def _read(data: Mapping[str, Any]) -> HitTables:
    planes = data["planes"]
    return HitTables(
        default=bool(planes["default"]),
        source=str(planes["source"]),
        planes=MappingProxyType(
            {str(name): _plane(entries) for name, entries in planes.items() if name not in _META}
        ),
        attack_modifiers=_numbers(data["attack"], ("crippled", "anchored", "half_speed", "cloud", "night")),
        plane_modifiers=_numbers(data["plane_modifiers"], None),
        air_to_air_modifiers=_numbers(data["air_to_air"], _AIR_TO_AIR_KEYS),
        aa_bht=integer(data["aa"]["bht"]),
        aa_modifiers=_numbers(data["aa"], ("cloud", "night")),
        aa_default=bool(data["aa"]["default"]),
    )


def aa_factors(ships: Sequence[Ship], targets: Sequence[Ship]) -> int:
    """The AA factors firing at an AF that attacks ``targets`` in the TF of ``ships``.

    The AA of every ship afloat (never below 0), halved rounded down under
    Limited Intelligence 2 when the TF holds a CV, CVL, AV, CA, CAV or BB
    afloat and the AF attacks none of them. Targets are matched by name to
    the TF's ships afloat: one sunk before this AF came in (21.8.2: earlier
    AFs' damage "takes effect immediately"), or not in the TF, is no target
    here. An AF attacking no ship of the TF draws no fire from it (AA fires
    only at bombers that attack, reference A.11.5).
    """
    afloat = [ship for ship in ships if not ship.sunk]
    aimed = {target.name for target in targets}
    hit = [ship for ship in afloat if ship.name in aimed]
    if not hit:
        return 0
    total = sum(max(0, ship.aa) for ship in afloat)
    screened = any(ship.type in SCREENED_TYPES for ship in afloat)
    if screened and not any(ship.type in SCREENED_TYPES for ship in hit):
        return total // 2
    return total


def armed_mf_penalty(plane: str) -> int:
    """Seed 003, 16.10.4: MF lost by an armed plane of this name (1 for ARMED_FIGHTERS, else 0)."""
    return ARMED_MF_PENALTY if plane in ARMED_FIGHTERS else 0


# --- helpers ------------------------------------------------------------------------

_META = ("default", "source")  # the keys of a section that are not table entries

_NAMES = {
    "cloud": "cloud hex",
    "night": "night",
}


def _flagged(table: Mapping[str, int], *, cloud: bool, night: bool) -> dict[str, int]:
    flags = {"cloud": cloud, "night": night}
    return {_NAMES[key]: table[key] for key, on in flags.items() if on}


def _bht(what: str, base: int, mods: Mapping[str, int], default: bool) -> Bht:
    value = base + sum(mods.values())
    shown = "".join(f" {amount:+d} {name}" for name, amount in mods.items())
    flag = " (design default)" if default else ""
    return Bht(value, MappingProxyType(dict(mods)), f"{what}: BHT {base}{shown} = {value}{flag}", default)


def _plane(entries: Mapping[str, Any]) -> dict[tuple[AttackKind, Armament], Targets]:
    table = {_key(str(key)): _targets(value) for key, value in entries.items()}
    if not table:
        raise ValueError("a plane with no attacks should have no Air Hit Table")
    return table


def _key(text: str) -> tuple[AttackKind, Armament]:
    """'torpedo' or '<kind>-<AP|GP>', e.g. 'level-high-GP'."""
    if text == AttackKind.TORPEDO.value:
        return AttackKind.TORPEDO, Armament.TORPEDO
    kind, _, load = text.rpartition("-")
    armament = Armament(load)
    if AttackKind(kind) is AttackKind.TORPEDO or armament is Armament.TORPEDO:
        raise ValueError(f"{text!r}: torpedoes are the entry 'torpedo'")
    return AttackKind(kind), armament


def _targets(value: Mapping[str, Any]) -> Targets:
    unknown = set(value) - {"ship", "base"}
    if unknown or not value:
        raise ValueError(f"an attack entry has 'ship' and/or 'base', not {sorted(value)}")
    ship, base = value.get("ship"), value.get("base")
    return Targets(None if ship is None else integer(ship), None if base is None else integer(base))


def _numbers(table: Mapping[str, Any], keys: tuple[str, ...] | None) -> Mapping[str, int]:
    """The integer entries of a section (``default``/``source`` aside); ``keys`` must all be there."""
    numbers = {str(k): integer(v) for k, v in table.items() if k not in _META}
    missing = set(keys or ()) - set(numbers)
    if missing:
        raise KeyError(f"missing {sorted(missing)}")
    return MappingProxyType(numbers)
