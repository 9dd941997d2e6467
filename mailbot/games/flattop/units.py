# SPDX-License-Identifier: GPL-3.0-or-later
"""Ships, task forces, air factors, air formations and bases (reference A.5, PART C).

Every unit is a frozen dataclass; a change makes a new value
(``dataclasses.replace``). :func:`dump` turns any of them into plain JSON
data and :func:`load` reads it back, driven by the type hints, so a new field
needs no serialisation code: hexes become ``[col, row]``, enums their value,
tuples lists.

Factors come from the scenario and the tables under ``mailbot/games/flattop/data/``; the
few derived values the standard rules define (crippled, sunk, the TF's
slowest ship) are properties here, never stored.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from functools import cache, partial
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex


class Side(StrEnum):
    ALLIED = "allied"
    JAPANESE = "japanese"

    @property
    def opponent(self) -> Side:
        return Side.JAPANESE if self is Side.ALLIED else Side.ALLIED


class ShipCategory(StrEnum):
    """The classes an observation report names (standard 7.12; seed 003, 7.12.2)."""

    CARRIER = "carrier"
    CAPITAL = "capital"
    SMALL = "small"
    SUBMARINE = "submarine"


class ShipType(StrEnum):
    CV = "CV"
    CVL = "CVL"
    AV = "AV"
    CAV = "CAV"
    BB = "BB"
    CA = "CA"
    CL = "CL"
    DD = "DD"
    PG = "PG"
    AO = "AO"
    AP = "AP"
    APD = "APD"
    SS = "SS"

    @property
    def category(self) -> ShipCategory:
        return _CATEGORY[self]

    @property
    def carries_planes(self) -> bool:
        """Plane-carrying ships (reference A.5.1: only in TFs 1-9). Japanese BBs' one float plane aside."""
        return self in (ShipType.CV, ShipType.CVL, ShipType.AV, ShipType.CAV)


_CATEGORY = dict.fromkeys(ShipType, ShipCategory.SMALL) | {
    ShipType.CV: ShipCategory.CARRIER,
    ShipType.CVL: ShipCategory.CARRIER,
    ShipType.AV: ShipCategory.CAPITAL,
    ShipType.CAV: ShipCategory.CAPITAL,
    ShipType.BB: ShipCategory.CAPITAL,
    ShipType.CA: ShipCategory.CAPITAL,
    ShipType.CL: ShipCategory.CAPITAL,
    ShipType.SS: ShipCategory.SUBMARINE,
}


class Altitude(StrEnum):
    HIGH = "high"
    LOW = "low"


class Armament(StrEnum):
    GP = "GP"
    AP = "AP"
    TORPEDO = "torpedo"


class LaunchType(StrEnum):
    """Standard 14.8: the launch type sets movement on the take-off turn (reference A.5.4)."""

    MINIMUM = "minimum"
    NORMAL = "normal"
    MAXIMUM = "maximum"


class PlaneCategory(StrEnum):
    """Standard 8.9: who may handle the plane."""

    CARRIER = "carrier"
    FLOAT = "float"
    LAND = "land"
    SEA = "sea"


class Handling(StrEnum):
    """Standard 8.9: LP bases handle land and carrier planes, SP bases sea and float planes."""

    LP = "LP"
    SP = "SP"
    BOTH = "LP+SP"


@dataclass(frozen=True)
class PlaneType:
    """One plane name's data (reference A.14; table ``planes.toml``)."""

    name: str
    side: Side
    category: PlaneCategory
    movement: int  # MF: hexes (MP) per turn
    range: int  # RF: turns aloft, counting the take-off turn (standard 8.5.5)
    air_to_air: int  # air-to-air BHT
    roles: tuple[str, ...] = ("bomber",)  # of "interceptor", "escort", "bomber" (standard 8.12)
    loads: tuple[Armament, ...] = ()  # what READY may arm it with (reference A.5.4)
    default: bool = False  # True: a design default, not checked against the counters


@dataclass(frozen=True)
class AirFactors:
    """Air Factors of one plane name (1 factor is about 3 planes)."""

    plane: str
    count: int
    carrier_plane: bool = False  # the black dot: a carrier-qualified counter
    armament: Armament | None = None
    altitude: Altitude = Altitude.LOW
    # Dropped its load (attacked or jettisoned, standard 14.14): unarmed now, yet "a factor
    # armed at take-off is a bomber until it lands" (reference A.6), so no interceptor.
    expended: bool = False


@dataclass(frozen=True)
class AirBoxes:
    """The boxes of a plane-carrier or base (standard 8.2-8.10)."""

    just_landed: tuple[AirFactors, ...] = ()
    readying: tuple[AirFactors, ...] = ()
    ready: tuple[AirFactors, ...] = ()
    dispersed: tuple[AirFactors, ...] = ()  # bases only

    @property
    def total(self) -> int:
        boxes = (self.just_landed, self.readying, self.ready, self.dispersed)
        return sum(stack.count for box in boxes for stack in box)


@dataclass(frozen=True)
class Ship:
    """One ship counter; factors per reference A.5.2, plane-carrier data per A.5.4."""

    name: str
    type: ShipType
    gunnery: int
    aa: int
    torpedo: int
    movement: int  # MF: hexes per turn
    damage: int  # Damage Factor: hits to sink
    ammo: int = 0  # Ammunition Factors (DDs and APDs fire once instead)
    radar: bool = False
    capacity: int = 0  # MC, plane-carriers only
    launch: int = 0  # normal LF; maximum LF is twice this (A.5.4)
    launch_min: int = 0
    readying: int = 0  # Readying Factor
    hits: int = 0
    anchored: bool = False
    torpedoes_fired: bool = False
    boxes: AirBoxes = field(default_factory=AirBoxes)
    # Damage beyond the hit count (combat/damage_ships.py, combat/sinking.py; seed 003, 21.3, 21.8, LI 4).
    torpedo_hits: int = 0  # 21.3: AA -1 per two torpedo hits, "cumulative, not per attack"
    slowing_hits: int = 0  # 21.3: extra hits counted only toward speed (a torpedo hit "counts as two")
    dead_in_water: bool = False  # "critical hit #6" (21.3 note d): crippled for good
    half_speed_turns: tuple[int, ...] = ()  # turns a critical hit holds her to half speed (21.8.1)
    no_flight_ops_turns: tuple[int, ...] = ()  # turns a critical hit grounds her planes
    fires: tuple[str, ...] = ()  # fires started this Combat Phase, assessed at its end (21.8.2)
    sinking: int | None = None  # destroyed: hours she stays afloat (LI 4); 0 = gone
    destroyed_turn: int | None = None  # the turn her hits reached her Damage Factor
    unloaded: int = 0  # AP/APD: turns of cargo unloaded so far (reference A.13: eight in all)

    @property
    def destroyed(self) -> bool:
        """Hits have reached the Damage Factor; she may still be afloat, sinking (seed 003, LI 4)."""
        return self.hits >= self.damage

    @property
    def sunk(self) -> bool:
        """Gone from the board: destroyed with no sinking delay left (none recorded: she sank at once)."""
        return self.destroyed and (self.sinking is None or self.sinking <= 0)

    @property
    def handles(self) -> frozenset[PlaneCategory]:
        """Standard 8.9: carriers operate carrier planes; other plane-carrying ships float planes."""
        if not self.capacity:
            return frozenset()
        if self.type.category is ShipCategory.CARRIER:
            return frozenset({PlaneCategory.CARRIER})
        return frozenset({PlaneCategory.FLOAT})

    @property
    def stops_to_recover(self) -> bool:
        """Seed 003, 12.7.3: BBs, CAVs and AVs "have to stop in a hex for 1 turn to recover" float planes."""
        return PlaneCategory.FLOAT in self.handles

    @property
    def crippled(self) -> bool:
        """Dead in the water for good: standard 21, at Damage Factor - 1 hits when it is >= 3; critical
        hit #6 (seed 003, 21.3 note d); destroyed but still sinking ("reported to be crippled", LI 4).

        Two half-speed restrictions at once stop a ship only while both last (21.8.1): that depends on
        the turn, see ``combat.damage.speed``.
        """
        if self.sunk:
            return False
        return self.dead_in_water or self.destroyed or (self.damage >= 3 and self.hits >= self.damage - 1)


@dataclass(frozen=True)
class TaskForce:
    """A TF: ships moving together; ``plot`` holds the hexes plotted for this and later turns."""

    number: int
    side: Side
    hex: Hex
    ships: tuple[Ship, ...]
    plot: tuple[tuple[Hex, ...], ...] = ()  # one leg per turn; an empty leg holds position
    hidden: bool = True  # not on the map board for the enemy (standard 7.1)

    @property
    def afloat(self) -> tuple[Ship, ...]:
        return tuple(ship for ship in self.ships if not ship.sunk)

    @property
    def carriers(self) -> tuple[Ship, ...]:
        return tuple(s for s in self.afloat if s.type.category is ShipCategory.CARRIER)

    @property
    def plane_ships(self) -> tuple[Ship, ...]:
        """Every ship afloat that operates planes: carriers, and ships with float planes (12.7.3)."""
        return tuple(s for s in self.afloat if s.handles)


@dataclass(frozen=True)
class BaseFactors:
    """A base's factors before its first hit: repairs never raise them above these (reference A.12)."""

    launch: int
    launch_min: int
    aa: int
    surface: int


@dataclass(frozen=True)
class Base:
    """An airbase (reference A.5.5). ``hex`` is None for off-board bases, reached by ``entry`` hexes."""

    name: str
    side: Side
    hex: Hex | None
    handling: Handling
    capacity: int | None  # MC; None = unlimited (the printed infinity)
    launch: int
    launch_min: int
    readying: int
    aa: int
    surface: int = 0
    radar: bool = False
    hits: int = 0
    entry: tuple[str, ...] = ()  # entry-hex labels for off-board bases, e.g. "5N"
    boxes: AirBoxes = field(default_factory=AirBoxes)
    start: BaseFactors | None = None  # set by the first hit (combat/damage_bases.py): the repair ceiling
    no_flight_ops_turns: tuple[int, ...] = ()  # turns a critical hit closes the runway
    attacked_turn: int | None = None  # the last turn it was air-attacked or bombarded (no repair then)

    @property
    def off_board(self) -> bool:
        return self.hex is None


@dataclass(frozen=True)
class AirFormation:
    """An AF in the air (standard 14): numbered 1-35 per side."""

    number: int
    side: Side
    hex: Hex | None  # None while in an off-board In Flight box
    stacks: tuple[AirFactors, ...]
    origin: str  # base or ship it took off from
    takeoff_turn: int
    searching: bool = False
    rf_spent: int = 0  # combat costs RF (standard 15.6): the landing deadline comes earlier
    launch: LaunchType = LaunchType.MINIMUM  # sets its MP on the take-off turn (standard 14.8)
    # From an off-board base (reference A.3): the entry hex it appears in, at the end of turn
    # ``arrives``; until then it is in the base's In Flight box (``hex`` None).
    entry: Hex | None = None
    arrives: int = 0
    # Bound for an off-board base (reference A.3): it left the board by one of the base's entry
    # hexes and lands there at the end of turn ``arrives`` (``hex`` None meanwhile).
    home: str | None = None

    @property
    def factors(self) -> int:
        return sum(stack.count for stack in self.stacks)


@dataclass(frozen=True)
class Fact:
    """Something the rules code found out, for the plugin to turn into events.

    ``kind`` names it (e.g. ``cloud-moved``); ``text`` is a referee-level
    sentence; ``data`` holds plain values. Who may see it is the plugin's call.
    """

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)


# --- JSON round trip ------------------------------------------------------------

T = TypeVar("T")
_SCALARS: tuple[type, ...] = (bool, int, float, str)


def dump(value: Any) -> Any:
    """Plain JSON data for a unit (or any value built of them)."""
    kind: type = type(value)
    if kind in _PLAIN:  # most of a state's leaves
        return value
    return _dumper(kind)(value)


_PLAIN = frozenset({str, int, float, bool, type(None)})


# How to dump a value is decided by its class alone, once per class: asking isinstance,
# is_dataclass and the Mapping ABC of each of a state's ~80,000 values made saving it slow.
@cache
def _dumper(kind: type) -> Callable[[Any], Any]:
    """:func:`dump` for values of ``kind`` (the order of the tests matters: a Hex is a dataclass)."""
    if issubclass(kind, Hex):
        return Hex.as_list
    if issubclass(kind, Enum):
        return _enum_value
    if dataclasses.is_dataclass(kind):
        names = _init_names(kind)
        return lambda value: {name: dump(getattr(value, name)) for name in names}
    if issubclass(kind, tuple | list | frozenset):
        return _dump_items
    if issubclass(kind, Mapping):
        return _dump_mapping
    return _same


def _enum_value(value: Enum) -> Any:
    return value.value


def _dump_items(value: tuple[Any, ...] | list[Any] | frozenset[Any]) -> list[Any]:
    return [dump(item) for item in value]


def _dump_mapping(value: Mapping[Any, Any]) -> dict[str, Any]:
    return {str(key): dump(item) for key, item in value.items()}


def _same(value: Any) -> Any:
    return value


def load(cls: type[T], data: Mapping[str, Any]) -> T:
    """The dataclass ``cls`` from :func:`dump`'s output; GameError on malformed data."""
    kind: type = cls
    fields = _fields(kind)
    unknown = set(data) - fields.keys()
    if unknown:
        raise GameError(f"{cls.__name__}: unknown field(s) {sorted(unknown)}")
    kwargs = {name: fields[name](value) for name, value in data.items()}
    return cls(**kwargs)


@cache
def _init_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


# A converter reads one value of one declared type: made once per type from its hints, since
# resolving annotations and inspecting ``typing`` forms for every value of a 50 kB saved state
# was most of the time spent loading it.
Converter = Callable[[Any], Any]


@cache
def _fields(cls: type) -> Mapping[str, Converter]:
    """The converter of each ``__init__`` field of the dataclass ``cls``."""
    hints = get_type_hints(cls)
    return types.MappingProxyType(
        {
            f.name: _converter(hints[f.name], f"{cls.__name__}.{f.name}")
            for f in dataclasses.fields(cls)
            if f.init
        }
    )


@cache
def _converter(tp: Any, where: str) -> Converter:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _optional(tp, where)
    if origin in (tuple, frozenset):
        return _sequence(tp, origin, where)
    if tp is Hex:
        return Hex.from_list
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return partial(load, tp)
    return partial(_convert_scalar, tp, where)


def _convert_scalar(tp: Any, where: str, value: Any) -> Any:
    if isinstance(value, bool) and tp is not bool:
        raise GameError(f"{where}: expected {tp}, got {value!r}")
    if tp is float and isinstance(value, int):
        return float(value)
    if tp in _SCALARS and isinstance(value, tp):
        return value
    raise GameError(f"{where}: expected {tp}, got {value!r}")


def _optional(tp: Any, where: str) -> Converter:
    args = [arg for arg in get_args(tp) if arg is not type(None)]

    def convert(value: Any) -> Any:
        if value is None:
            return None
        if len(args) != 1:
            raise GameError(f"{where}: unsupported union {tp}")
        return _converter(args[0], where)(value)

    return convert


def _sequence(tp: Any, origin: Any, where: str) -> Converter:
    args = get_args(tp)
    fixed = origin is tuple and not (len(args) == 2 and args[1] is Ellipsis)

    def convert(value: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise GameError(f"{where}: expected a list, got {value!r}")
        if fixed:
            return tuple(_converter(arg, where)(item) for arg, item in zip(args, value, strict=True))
        item = _converter(args[0], where)
        return tuple(map(item, value)) if origin is tuple else frozenset(map(item, value))

    return convert
