# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarines (seed 003, 27: "Optional, of course. Existing rules apply when not superseded here.").

Depth and movement. 27.1: "Submarines may operate at three levels -- surface, periscope, & deep.
The deep level may not be used in partial land hexes." 27.2: "A submarine may move 1 hex per turn
on the surface, one hex every other hour at periscope depth, and may not move if deep." 27.2.1:
"A submarine is moved based on its depth at the beginning of the movement phase." 27.2.2: "A
submarine may change to any depth during movement. It may also change to any depth while remaining
stationary; this does not count as movement per 27.2.3 below." 27.2.3: "Up to one half (rounded
up) of a player's submarines may move in a given turn; a minimum of three may always move as long
as the player has at least three. Submarines may not move the turn after engaging in combat."

Observation. 27.3 caps what a sub observes by depth; 27.4 "A sub on the surface is subject to
normal detection in its own hex only"; 27.5.1 "A sub at periscope depth is only observed if it
attacks a ship or is in a hex with DDs which did not move that turn."; 27.5.2 "A deep sub is only
observed by a TF with at least 4 DDs which did not move that turn; and the sub is told only that
there are ships overhead."; 27.5.3 low aircraft "must spend 3MP per "sub search" roll and can only
spot a sub in the same hex. A TF whose plotted move takes it into the sub's hex may attack the sub
as long as the aircraft remains in the hex to spot."

Combat. 27.6's "normal" situation and the SUBMARINE ATTACK SEQUENCE TABLE; 27.6.2 "Deep subs may
only receive ASW attacks. They may never attack."; the dives of 27.6.4-27.6.8; 27.6.55
"Submarines may only use their AA factor if surfaced."; 27.8 "For night attacks, submarines cannot
combine their attack factors. During night attacks, targets will be chosen at random."; 27.9's
weapons by depth; 27.9.1's four attack factors and unescorted +2; 27.9.2's reloads; 27.10's damage
reports and oil slick.

The numbers are ``mailbot/games/flattop/data/tables/submarines.toml``: what the seed prints, and
design defaults (``default = true``) for what it leaves out: the sub search roll, the torpedo, ASW
and gunnery BHTs, which ships carry ASW gear, air attacks on subs. :meth:`SubmarineRules.is_default`
and the ``default`` flags of :class:`~mailbot.games.flattop.combat.bht.Bht` and :class:`SubSearch`
let a letter say "design default".

Readings of the seed made here (each named in :data:`READINGS`):

* 27.8 "cannot combine their attack factors" undoes 27.9.1's "used individually or in any
  combination": at night every torpedo factor is its own CRT roll at its own random target.
* 27.6.7 generalised: a sub that attacks and then dives has gunnery resolved at the depth it
  attacked from and ASW at that depth but never shallower than periscope (ASW cannot reach a
  surfaced sub, 27.9).
* 27.6.8 "most favorable depth to the ASW combat": the depth of the movement phase with the best
  ASW modifier among those ASW can reach.
* 27.10's "may report a slick": on a roll of 1 or 2 the report is flipped; the owner always takes
  the option (a false slick or a hidden loss both only help him).
* "In the last 12 hours": an attack this turn or up to 12 turns before.

This module holds the tables, the words of the rules (depths, weapons, sequence results, reports)
and the readings. The rules that use them, by subject: :mod:`.sub_moves` (the state kept per sub and
per ship, depth, movement, observation, sub search), :mod:`.sub_sequence` (the attack sequence,
dives, weapons and hit tables), :mod:`.sub_attacks` (the attacks and their reports).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import pairwise
from types import MappingProxyType
from typing import Any

from mailbot.core.dice import parse_spec
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.tabledata import Source, Sourced, parsed
from mailbot.games.flattop.units import ShipType, Side

RULE = "seed 003, 27"
RULE_SEQUENCE = "seed 003, 27 SUBMARINE ATTACK SEQUENCE TABLE"
RULE_SEARCH = "seed 003, 27.5.3 sub search (design default roll, submarines.toml)"
RULE_NIGHT_TARGET = "seed 003, 27.8 night: random target"
RULE_TORPEDO = "seed 003, 27.9.1 submarine torpedo attack"
RULE_SLICK = "seed 003, 27.10 oil slick"

#: 27.5.2: "the sub is told only that there are ships overhead".
SHIPS_OVERHEAD = "there are ships overhead"
#: 27.10: "those that are submerged and then sunk report an oil slick appearing on the surface".
OIL_SLICK = "an oil slick appears on the surface"
NO_SLICK = "no sign of the submarine"
#: 27.10: "Surfaced subs that are sunk report this accurately".
SUB_SUNK = "the submarine is sunk"
#: 27.10: "only told that they have hit something - no further details".
HIT_SOMETHING = "the attack hit something"
NO_HITS = "no hits observed"

#: Where this module reads the seed (function or rule: the reading); the module docstring says why.
READINGS: Mapping[str, str] = MappingProxyType(
    {
        "27.8": "at night every torpedo factor is a separate CRT roll at a random target",
        "27.6.7": "after its own attack a dive does not help: gunnery at that depth, ASW there or periscope",
        "27.6.8": "the movement-phase depth with the best ASW modifier that ASW can reach",
        "27.10": "on a roll of 1-2 (night -1) the slick report is always flipped",
        "recent": "attacked by a sub this turn or in the 12 turns before",
    }
)


class Depth(StrEnum):
    """27.1; listed shallow to deep."""

    SURFACE = "surface"
    PERISCOPE = "periscope"
    DEEP = "deep"


#: the depths from the surface down (deeper is later)
DEPTHS: tuple[Depth, ...] = tuple(Depth)


def deeper(a: Depth, b: Depth) -> Depth:
    """The deeper of two depths."""
    return a if DEPTHS.index(a) >= DEPTHS.index(b) else b


class Weapon(StrEnum):
    """What may attack a sub (27.9; air: the design default of ``[against.air]``)."""

    GUNNERY = "gunnery"
    ASW = "asw"
    AIR = "air"


class AttackSequence(StrEnum):
    """The four results of the SUBMARINE ATTACK SEQUENCE TABLE."""

    TF_ONLY = "tf-only"  # "The TF may attack the sub, but the sub may not fire back"
    NORMAL = "normal"  # "The attack is resolved normally" (27.6)
    SUB_FIRST = "sub-first"  # "The sub may attack first and then the TF may return fire"
    SUB_ONLY = "sub-only"  # "The sub may attack but the TF may not return fire"


class Firer(StrEnum):
    SUB = "sub"
    TF = "tf"


class AirPresence(StrEnum):
    """The enemy air in the hex, for the sequence table's -1 / -2."""

    NONE = "none"
    LOW = "low"  # "a low level enemy air formation in the hex"
    SPOTTED = "spotted"  # "the AF has spotted or shadowed the sub in the current turn"


class Observer(StrEnum):
    SHIPS = "ships"
    LOW_AIR = "low-air"
    HIGH_AIR = "high-air"
    OTHER = "other"  # bases, coastwatchers


class AttackReport(StrEnum):
    """27.10: what a sub is told of its own attack."""

    APPROXIMATE = "approximate"  # 'normal "approximate" damage reports' (LI 3, combat/intel.py)
    HIT_SOMETHING = "hit-something"  # "only told that they have hit something"


# --- the table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DepthMove:
    """27.2: ``hexes`` a turn it moves, at most once in ``every`` turns."""

    hexes: int
    every: int


@dataclass(frozen=True)
class SequenceRow:
    rolls: str  # the seed's "Die Roll" column, e.g. "2,3"
    low: int | None  # None: open ("1 or less")
    high: int | None  # None: open ("6+")
    result: AttackSequence
    text: str  # the seed's "Result" column

    def holds(self, total: int) -> bool:
        return (self.low is None or total >= self.low) and (self.high is None or total <= self.high)


@dataclass(frozen=True)
class SequenceTable:
    die: str
    rows: tuple[SequenceRow, ...]
    modifiers: Mapping[str, int]  # night, storm, other_combat, anchored, low_air, low_air_spotted, sub_attack
    texts: Mapping[str, str]  # each modifier's printed line
    recent_hours: int

    def row(self, total: int) -> SequenceRow:
        return next(row for row in self.rows if row.holds(total))


@dataclass(frozen=True)
class SubmarineRules(Sourced):
    """``submarines.toml`` parsed; see that file for what each number is and where it comes from."""

    deep_barred: frozenset[Terrain]
    movement: Mapping[Depth, DepthMove]
    movers_share: Fraction
    movers_minimum: int
    observation: Mapping[Depth, int]
    high_air_one_hex: int
    deep_detection_dds: int
    destroyers: frozenset[ShipType]
    search_mp: int
    search_die: str
    search_need: Mapping[str, int]  # clear, cloud, storm, night
    sequence: SequenceTable
    against: Mapping[Weapon, Mapping[Depth, int]]
    attack_factors: int
    reloads_per_factor: int
    unescorted_bonus: int
    combine_at_night: bool
    torpedo_bht: Mapping[Side, int]
    asw_reloads: Mapping[ShipType, int]  # the ASW ships, with their reloads
    asw_factor: int
    asw_bht: int
    gunnery_bht: int
    report_die: str
    flip_max: int
    report_night: int
    sources: Mapping[str, Source]  # by section, e.g. "asw.bht"

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SubmarineRules:
        """``submarines.toml``; a malformed table is a GameError (it ships with the code)."""
        return parsed("submarines.toml", _read, data, also=(StopIteration,))

    def is_default(self, section: str) -> bool:
        """True if ``section`` (e.g. ``"asw.bht"``) is a design default: letters say so."""
        if section not in self.sources:
            raise GameError(f"submarines.toml has no section {section!r}")
        return self.sources[section].default

    @property
    def torpedo_capacity(self) -> int:
        """27.9.2: "this gives them 12 total attack factors"."""
        return self.attack_factors * (1 + self.reloads_per_factor)


def _read(data: Mapping[str, Any]) -> SubmarineRules:
    fields = _depth_fields(data) | _observation_fields(data) | _combat_fields(data)
    return SubmarineRules(
        **fields, sources=MappingProxyType({name: _source(data, name) for name in _SECTIONS})
    )


def submarine_rules(tables: Mapping[str, Any]) -> SubmarineRules:
    """The rules of ``tables["submarines"]`` (every data table by file stem)."""
    if "submarines" not in tables:
        raise GameError("the submarine table (submarines.toml) is missing")
    return SubmarineRules.from_mapping(tables["submarines"])


_SECTIONS = (
    "depths", "movers", "observation", "sub_search", "sub_search.roll", "sequence", "sequence.recent",
    "against", "against.air", "attack", "attack.torpedo_bht", "asw", "asw.ships", "asw.bht", "gunnery",
    "reports",
)  # fmt: skip


def _section(data: Mapping[str, Any], dotted: str) -> Mapping[str, Any]:
    found: Any = data
    for key in dotted.split("."):
        found = found[key]
    if not isinstance(found, Mapping):
        raise TypeError(f"[{dotted}] is not a table")
    return found


def _source(data: Mapping[str, Any], dotted: str) -> Source:
    section = _section(data, dotted)
    return Source(_boolean(section["default"]), str(section["source"]))


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"not true/false: {value!r}")
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"not an integer: {value!r}")
    return value


def _die(value: Any) -> str:
    parse_spec(str(value))  # GameError for a malformed spec
    return str(value)


def _depth_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    depths, movers = data["depths"], data["movers"]
    movement = {
        d: DepthMove(_integer(depths[d.value]["hexes"]), _integer(depths[d.value]["every"])) for d in Depth
    }
    if any(move.every < 1 or move.hexes < 0 for move in movement.values()):
        raise ValueError("[depths.*]: hexes >= 0 and every >= 1")
    share = Fraction(str(movers["share"]))
    if not 0 < share <= 1:
        raise ValueError(f"[movers] share {share} is not a fraction of the subs")
    return {
        "deep_barred": frozenset(Terrain(str(t)) for t in depths["deep_barred_in"]),
        "movement": MappingProxyType(movement),
        "movers_share": share,
        "movers_minimum": _integer(movers["minimum"]),
    }


def _observation_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    seen, search = data["observation"], data["sub_search"]
    roll = search["roll"]
    return {
        "observation": MappingProxyType({d: _integer(seen[d.value]) for d in Depth}),
        "high_air_one_hex": _integer(seen["high_air_one_hex"]),
        "deep_detection_dds": _integer(seen["deep_detection_dds"]),
        "destroyers": frozenset(ShipType(str(t)) for t in seen["destroyers"]),
        "search_mp": _integer(search["mp_per_roll"]),
        "search_die": _die(roll["die"]),
        "search_need": MappingProxyType({k: _integer(roll[k]) for k in ("clear", "cloud", "storm", "night")}),
    }


def _combat_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    attack, asw, reports = data["attack"], data["asw"], data["reports"]
    torpedo = attack["torpedo_bht"]
    return {
        "sequence": _sequence(data["sequence"]),
        "against": _against(data["against"]),
        "attack_factors": _integer(attack["factors"]),
        "reloads_per_factor": _integer(attack["reloads_per_factor"]),
        "unescorted_bonus": _integer(attack["unescorted_target"]),
        "combine_at_night": _boolean(attack["combine_at_night"]),
        "torpedo_bht": MappingProxyType({side: _integer(torpedo[side.value]) for side in Side}),
        "asw_reloads": _asw_reloads(asw),
        "asw_factor": _integer(asw["ships"]["factor"]),
        "asw_bht": _integer(asw["bht"]["bht"]),
        "gunnery_bht": _integer(data["gunnery"]["bht"]),
        "report_die": _die(reports["die"]),
        "flip_max": _integer(reports["flip_on_or_below"]),
        "report_night": _integer(reports["night"]),
    }


def _asw_reloads(asw: Mapping[str, Any]) -> Mapping[ShipType, int]:
    ships = asw["ships"]
    reloads = {ShipType(str(t)): _integer(asw["dd_class_reloads"]) for t in ships["dd_class"]}
    reloads |= {ShipType(str(t)): _integer(asw["pg_reloads"]) for t in ships["pg"]}
    return MappingProxyType(reloads)


def _against(data: Mapping[str, Any]) -> Mapping[Weapon, Mapping[Depth, int]]:
    table: dict[Weapon, Mapping[Depth, int]] = {}
    for weapon in Weapon:
        entries = data[weapon.value]
        table[weapon] = MappingProxyType(
            {Depth(str(k)): _integer(v) for k, v in entries.items() if k not in ("default", "source")}
        )
    return MappingProxyType(table)


_MODIFIERS = ("night", "storm", "other_combat", "anchored", "low_air", "low_air_spotted", "sub_attack")


def _sequence(data: Mapping[str, Any]) -> SequenceTable:
    rows = tuple(_sequence_row(row) for row in data["results"])
    _check_rows(rows)
    mods = data["modifiers"]
    if set(mods) != set(_MODIFIERS):
        raise ValueError(f"[sequence.modifiers] must be {sorted(_MODIFIERS)}, not {sorted(mods)}")
    return SequenceTable(
        die=_die(data["die"]),
        rows=rows,
        modifiers=MappingProxyType({k: _integer(mods[k]["value"]) for k in _MODIFIERS}),
        texts=MappingProxyType({k: str(mods[k]["text"]) for k in _MODIFIERS}),
        recent_hours=_integer(data["recent"]["hours"]),
    )


def _sequence_row(data: Mapping[str, Any]) -> SequenceRow:
    rolls = str(data["rolls"])
    low, high = roll_range(rolls)
    return SequenceRow(rolls, low, high, AttackSequence(str(data["result"])), str(data["text"]))


def roll_range(rolls: str) -> tuple[int | None, int | None]:
    """The seed's "Die Roll" cells: "1 or less", "2,3", "6+", "4" -> (low, high), None for open."""
    text = rolls.strip()
    if text.endswith("or less"):
        return None, int(text.removesuffix("or less"))
    if text.endswith("+"):
        return int(text[:-1]), None
    faces = [int(face) for face in text.split(",")]
    if faces != list(range(faces[0], faces[-1] + 1)):
        raise ValueError(f"die roll cell {rolls!r} is not a run of faces")
    return faces[0], faces[-1]


def _check_rows(rows: tuple[SequenceRow, ...]) -> None:
    """Open at both ends, every total in exactly one row, in order."""
    if not rows or rows[0].low is not None or rows[-1].high is not None:
        raise ValueError("the sequence table must open with 'N or less' and close with 'N+'")
    for before, after in pairwise(rows):
        if before.high is None or after.low != before.high + 1:
            raise ValueError(f"sequence rows {before.rolls!r} and {after.rolls!r} do not meet")
