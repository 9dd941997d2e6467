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

State the game keeps between turns is :class:`SubState` (per submarine) and :class:`AswState` (per
surface ship), keyed by ship name, plain fields only so ``units.dump``/``units.load`` round-trip it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from itertools import pairwise
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from mailbot.core.dice import Dice, Roll, parse_spec
from mailbot.errors import GameError
from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.bht import Bht
from mailbot.games.flattop.combat.crt import CombatTable, CrtResult
from mailbot.games.flattop.combat.damage import DamageRules, HitKind, ShipHit, hit_ship
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.map.weather import Sky
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.tabledata import Source
from mailbot.games.flattop.units import Altitude, Armament, Ship, ShipType, Side

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


_DEPTHS: tuple[Depth, ...] = tuple(Depth)


def deeper(a: Depth, b: Depth) -> Depth:
    """The deeper of two depths."""
    return a if _DEPTHS.index(a) >= _DEPTHS.index(b) else b


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
class SubmarineRules:
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
        try:
            fields = _depth_fields(data) | _observation_fields(data) | _combat_fields(data)
            return cls(**fields, sources=MappingProxyType({name: _source(data, name) for name in _SECTIONS}))
        except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as error:
            raise GameError(f"submarines.toml is malformed ({error!r})") from error

    def is_default(self, section: str) -> bool:
        """True if ``section`` (e.g. ``"asw.bht"``) is a design default: letters say so."""
        if section not in self.sources:
            raise GameError(f"submarines.toml has no section {section!r}")
        return self.sources[section].default

    @property
    def design_defaults(self) -> tuple[str, ...]:
        return tuple(name for name, source in self.sources.items() if source.default)

    @property
    def torpedo_capacity(self) -> int:
        """27.9.2: "this gives them 12 total attack factors"."""
        return self.attack_factors * (1 + self.reloads_per_factor)


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


# --- 27.6: the attack sequence ----------------------------------------------------------------


@dataclass(frozen=True)
class Situation:
    """The facts the sequence table's modifiers ask about."""

    night: bool = False
    storm: bool = False
    other_combat: bool = False  # the TF was in other combat (air attack or surface) this turn
    anchored: bool = False  # the TF is anchored (:func:`tf_anchored`)
    air: AirPresence = AirPresence.NONE
    sub_attacked_recently: bool = False  # :func:`recently_attacked`


_MODIFIER_NAMES = {
    "night": "night",
    "storm": "storm",
    "other_combat": "TF in other combat this turn",
    "anchored": "TF anchored",
    "low_air": "low enemy AF in the hex",
    "low_air_spotted": "low enemy AF spotted or shadowed the sub",
    "sub_attack": "TF attacked by a sub in the last {hours} hours",
}


def sequence_modifiers(situation: Situation, rules: SubmarineRules) -> dict[str, int]:
    """The sequence table's modifiers that apply, under short names (their printed lines: ``texts``)."""
    flags = {
        "night": situation.night,
        "storm": situation.storm,
        "other_combat": situation.other_combat,
        "anchored": situation.anchored,
        "low_air": situation.air is AirPresence.LOW,
        "low_air_spotted": situation.air is AirPresence.SPOTTED,
        "sub_attack": situation.sub_attacked_recently,
    }
    values, hours = rules.sequence.modifiers, rules.sequence.recent_hours
    return {_MODIFIER_NAMES[key].format(hours=hours): values[key] for key, on in flags.items() if on}


def sequence(total: int, rules: SubmarineRules) -> AttackSequence:
    """The table's result for a modified roll."""
    return rules.sequence.row(total).result


@dataclass(frozen=True)
class SequenceRoll:
    roll: Roll
    result: AttackSequence
    text: str  # the roll and the printed result


def sequence_roll(situation: Situation, rules: SubmarineRules, dice: Dice, label: str) -> SequenceRoll:
    """Roll the SUBMARINE ATTACK SEQUENCE TABLE for one sub and one TF."""
    mods = sequence_modifiers(situation, rules)
    roll = dice.dice(label, rules.sequence.die, rule=RULE_SEQUENCE, modifiers=mods)
    row = rules.sequence.row(roll.total)
    return SequenceRoll(roll, row.result, f"{roll.text}: {row.text}")


def firing_order(result: AttackSequence, depth: Depth) -> tuple[Firer, ...]:
    """Who fires, in order. 27.6: "If a sub is on the surface and is involved in combat, the attack
    against the sub is resolved first. If a sub is at periscope depth, the sub's attack is resolved
    first." 27.6.2: a deep sub "may only receive ASW attacks. They may never attack.\""""
    if depth is Depth.DEEP:
        return (Firer.TF,)  # nothing for the table to order: only the TF's ASW can fire
    if result is AttackSequence.TF_ONLY:
        return (Firer.TF,)
    if result is AttackSequence.SUB_ONLY:
        return (Firer.SUB,)
    if result is AttackSequence.NORMAL and depth is Depth.SURFACE:
        return (Firer.TF, Firer.SUB)
    return (Firer.SUB, Firer.TF)


def tf_anchored(ships: Iterable[Ship]) -> bool:
    """A TF is anchored when every ship of it afloat is."""
    afloat = [s for s in ships if not s.sunk]
    return bool(afloat) and all(s.anchored for s in afloat)


def recently_attacked(
    ships: Iterable[Ship], states: Iterable[AswState], turn: int, rules: SubmarineRules
) -> bool:
    """The sequence table's "-1 If the TF has been attacked by a sub in the last 12 hours": any ship
    of the TF was in a TF a sub attacked this turn or in the 12 turns before."""
    by_name = {s.name: s for s in states}
    for ship in ships:
        state = by_name.get(ship.name)
        last = None if state is None else state.sub_attacked_turn
        if last is not None and 0 <= turn - last <= rules.sequence.recent_hours:
            return True
    return False


def record_sub_attack(states: Iterable[AswState], ships: Iterable[Ship], turn: int) -> tuple[AswState, ...]:
    """Every ship of a TF a sub attacked remembers it (for :func:`recently_attacked`)."""
    result = tuple(states)
    for ship in ships:
        result = put(result, replace(asw_state(result, ship.name), sub_attacked_turn=turn))
    return result


# --- 27.6.2-27.6.9, 27.9: depths in combat ------------------------------------------------------


def depth_modifier(weapon: Weapon, depth: Depth, rules: SubmarineRules) -> int | None:
    """27.9 (and ``[against.air]``): the BHT modifier of ``weapon`` against a sub at ``depth``;
    None: that weapon cannot attack it there."""
    return rules.against[weapon].get(depth)


def may_fire_aa(depth: Depth) -> bool:
    """27.6.55: "Submarines may only use their AA factor if surfaced.\""""
    return depth is Depth.SURFACE


def dive(
    sub: SubState,
    to: Depth,
    terrain: Terrain,
    turn: int,
    rules: SubmarineRules,
    *,
    under: Weapon | None = None,
) -> SubState:
    """27.6.4: a sub "may be ordered to dive upon receiving an attack"; during the combat phase, and
    its new depth is the one the next movement phase goes by (27.2.1). ``under`` AIR: 27.6.5, it may
    not attack this turn."""
    if _DEPTHS.index(to) <= _DEPTHS.index(sub.depth):
        raise GameError(f"{sub.name} cannot dive from {sub.depth} to {to}")
    problem = depth_problem(to, terrain, rules)
    if problem:
        raise GameError(f"{sub.name}: {problem}")
    air_dive = turn if under is Weapon.AIR else sub.air_dive_turn
    return replace(sub, depth=to, air_dive_turn=air_dive)


def resolution_depth(
    weapon: Weapon,
    *,
    depth: Depth,
    rules: SubmarineRules,
    dive_to: Depth | None = None,
    after_own_attack: bool = False,
    movement_depths: tuple[Depth, ...] = (),
) -> Depth | None:
    """The depth an enemy attack on a sub is resolved at; None: ``weapon`` cannot reach it.

    ``depth``: the sub's depth when the attack comes in; ``dive_to``: the depth it dives to on
    receiving it; ``after_own_attack``: it made its own attack before this one; ``movement_depths``:
    the depths it was at during movement, given when it "begins and ends a turn in the same hex with
    ASW units" (27.6.8; :func:`depths_during_movement`).

    27.6.6 "A sub which dives under a gunnery or ASW attack before making its own attack has the
    enemy attack resolved at its new depth." (27.6.5: planes too.) 27.6.7 "A sub which dives after
    making an attack has the surface attack resolved at surface level and the ASW attack resolved at
    periscope depth." 27.6.8 "... has the ASW attack resolved at the most favorable depth to the ASW
    combat which the sub was at during movement."
    """
    if dive_to is not None and _DEPTHS.index(dive_to) <= _DEPTHS.index(depth):
        raise GameError(f"a dive from {depth} to {dive_to} is no dive")
    lingering = _best_for(weapon, movement_depths, rules) if weapon is Weapon.ASW else None
    if lingering is not None:
        return lingering
    resolved = depth
    if dive_to is not None and not after_own_attack:
        resolved = dive_to
    elif dive_to is not None and weapon is Weapon.ASW:
        resolved = deeper(depth, Depth.PERISCOPE)
    return resolved if depth_modifier(weapon, resolved, rules) is not None else None


def _best_for(weapon: Weapon, depths: tuple[Depth, ...], rules: SubmarineRules) -> Depth | None:
    reachable = [d for d in depths if depth_modifier(weapon, d, rules) is not None]
    return max(reachable, key=lambda d: rules.against[weapon][d], default=None)


def depths_during_movement(sub: SubState, turn: int) -> tuple[Depth, ...]:
    """The depths of this turn's movement phase, for 27.6.8 (:func:`begin_movement` must have run)."""
    if sub.movement_turn != turn:
        raise GameError(f"{sub.name}: no movement phase recorded for turn {turn}")
    return sub.movement_depths


def engaged(sub: SubState, turn: int) -> SubState:
    """The sub was in combat this turn: 27.2.3, it may not move next turn."""
    return replace(sub, fought_turn=turn)


# --- 27.9-27.9.2: ammunition ------------------------------------------------------------------


def torpedoes_left(sub: SubState, rules: SubmarineRules) -> int:
    """27.9.2: 12 attack factors between reloads."""
    return max(0, rules.torpedo_capacity - sub.factors_fired)


def asw_capacity(ship_type: ShipType, rules: SubmarineRules) -> int:
    """27.9.2: DD class three ASW attacks, PG two; 0 for ships without ASW gear."""
    reloads = rules.asw_reloads.get(ship_type)
    return 0 if reloads is None else 1 + reloads


def asw_attacks_left(ship: Ship, state: AswState, rules: SubmarineRules) -> int:
    return max(0, asw_capacity(ship.type, rules) - state.asw_attacks)


def rearm_sub(sub: SubState) -> SubState:
    """27.9.2: reloaded "at eligible bases like gunnery and torpedo supplies"."""
    return replace(sub, factors_fired=0)


def rearm_ship(state: AswState) -> AswState:
    return replace(state, asw_attacks=0)


def attack_problem(
    sub: SubState, factors: int, turn: int, rules: SubmarineRules, *, result: AttackSequence | None = None
) -> str | None:
    """Why the sub may not make this torpedo attack now; None if it may (27.6.2, 27.6.5, 27.9.1,
    27.9.2, and the sequence table's result when rolled)."""
    if sub.depth is Depth.DEEP:
        return "deep subs may never attack (27.6.2)"
    if sub.air_dive_turn == turn:
        return "a sub which dives under an air attack cannot make an attack itself that turn (27.6.5)"
    if sub.attacked_turn == turn:
        return "a sub may only make one attack per combat phase (27.9.1)"
    if result is AttackSequence.TF_ONLY:
        return "the sub may not fire back (attack sequence table)"
    if not 1 <= factors <= rules.attack_factors:
        return f"a sub fires 1 to {rules.attack_factors} attack factors in an attack (27.9.1), not {factors}"
    if factors > torpedoes_left(sub, rules):
        return f"only {torpedoes_left(sub, rules)} attack factors left before a reload (27.9.2)"
    return None


def gunnery_problem(ship: Ship, state: AswState, turn: int) -> str | None:
    """27.9: "Ships may not attack subs by gunnery if they have used their gunnery factor in the
    current turn.\""""
    if ship.sunk or ship.gunnery <= 0:
        return f"{ship.name} has no gunnery factor"
    if state.gunnery_turn == turn:
        return f"{ship.name} used its gunnery factor this turn (27.9)"
    return None


def asw_problem(ship: Ship, state: AswState, rules: SubmarineRules) -> str | None:
    if ship.sunk or asw_capacity(ship.type, rules) == 0:
        return f"{ship.name} carries no ASW weapons (design default, submarines.toml [asw.ships])"
    if asw_attacks_left(ship, state, rules) <= 0:
        return f"{ship.name} has used its ASW attacks; it must reload (27.9.2)"
    return None


# --- 27.9: BHTs ---------------------------------------------------------------------------------


def _make_bht(what: str, base: int, mods: Mapping[str, int], default: bool) -> Bht:
    value = base + sum(mods.values())
    shown = "".join(f" {amount:+d} {name}" for name, amount in mods.items())
    flag = " (design default)" if default else ""
    return Bht(value, MappingProxyType(dict(mods)), f"{what}: BHT {base}{shown} = {value}{flag}", default)


def sub_bht(weapon: Weapon, depth: Depth, rules: SubmarineRules) -> Bht:
    """Gunnery or ASW against a sub at ``depth``: the design default BHT plus 27.9's modifier."""
    modifier = depth_modifier(weapon, depth, rules)
    if modifier is None:
        raise GameError(f"27.9: {weapon} cannot attack a sub at {depth}")
    if weapon is Weapon.ASW:
        base, section = rules.asw_bht, "asw.bht"
    elif weapon is Weapon.GUNNERY:
        base, section = rules.gunnery_bht, "gunnery"
    else:
        raise GameError("planes attack subs with their Air Hit Table (combat/bht.py)")
    mods = {f"sub at {depth} depth (27.9)": modifier} if modifier else {}
    return _make_bht(f"{weapon} vs submarine", base, mods, rules.is_default(section))


def unescorted(target: Ship, hex_ships: Iterable[Ship]) -> bool:
    """27.9.1: the target is crippled or anchored and "no friendly non-crippled/non-anchored ships
    are in the hex" (``hex_ships``: the target side's ships in the hex)."""
    if not (target.crippled or target.anchored):
        return False
    others = [s for s in hex_ships if s.name != target.name and not s.sunk]
    return all(s.crippled or s.anchored for s in others)


def torpedo_bht(side: Side, target: Ship, hex_ships: Iterable[Ship], rules: SubmarineRules) -> Bht:
    """A sub's torpedo BHT (design default: the side's torpedo BHT) with 27.9.1's +2."""
    mods = {"crippled/anchored target, unescorted (27.9.1)": rules.unescorted_bonus}
    mods = mods if unescorted(target, hex_ships) else {}
    default = rules.is_default("attack.torpedo_bht")
    return _make_bht(f"{side} submarine torpedoes", rules.torpedo_bht[side], mods, default)


# --- 27.8, 27.9.1: the sub's attack ----------------------------------------------------------


@dataclass(frozen=True)
class Aim:
    """By day: ``factors`` torpedo factors at ``target`` in one CRT roll (27.9.1 "any combination")."""

    target: str
    factors: int


@dataclass(frozen=True)
class Strike:
    """One CRT roll and what it did."""

    target: str
    factors: int
    bht: Bht
    crt: CrtResult
    hit: ShipHit | None  # None: no hits (or the target had already gone down)


@dataclass(frozen=True)
class TorpedoAttack:
    sub: SubState  # after the attack
    strikes: tuple[Strike, ...]
    ships: tuple[Ship, ...]  # ``hex_ships`` after the attack, same order

    @property
    def hits(self) -> tuple[ShipHit, ...]:
        return tuple(s.hit for s in self.strikes if s.hit is not None)


@dataclass(frozen=True)
class Combat:
    """What the tables a sub fight needs: the game's CRT and damage rules."""

    rules: SubmarineRules
    crt: CombatTable
    damage: DamageRules


def fire_torpedoes(
    sub_ship: Ship,
    sub: SubState,
    aims: tuple[Aim, ...],
    hex_ships: tuple[Ship, ...],
    *,
    side: Side,
    turn: int,
    combat: Combat,
    dice: Dice,
    label: str,
    result: AttackSequence | None = None,
) -> TorpedoAttack:
    """27.9.1 by day: one CRT roll per aim, at the side's torpedo BHT; hits are torpedo hits (21.3).

    ``hex_ships``: the target side's ships in the hex (the 27.9.1 +2 looks at them all).
    """
    total = sum(aim.factors for aim in aims)
    _check_attack(sub_ship, sub, total, turn=turn, rules=combat.rules, result=result)
    if any(aim.factors <= 0 for aim in aims):
        raise GameError(f"{sub.name}: every aim needs attack factors")
    plan = tuple(
        (f"{label}/salvo {i + 1} at {aim.target}", aim.target, aim.factors) for i, aim in enumerate(aims)
    )
    return _salvos(sub, plan, hex_ships, side=side, turn=turn, combat=combat, dice=dice)


def night_targets(factors: int, candidates: tuple[Ship, ...], dice: Dice, label: str) -> tuple[str, ...]:
    """27.8: "During night attacks, targets will be chosen at random": one die per torpedo factor
    over the candidates afloat, listed by name so the same dice always pick the same ship."""
    ships = sorted((s for s in candidates if not s.sunk), key=lambda s: s.name)
    if not ships:
        raise GameError("no target afloat for a night submarine attack")
    if len(ships) == 1:
        return (ships[0].name,) * factors  # one ship: nothing to choose, nothing rolled
    picks = (
        dice.roll(f"{label}/night target {i + 1}", len(ships), rule=RULE_NIGHT_TARGET) for i in range(factors)
    )
    return tuple(ships[roll.total - 1].name for roll in picks)


def fire_torpedoes_at_night(
    sub_ship: Ship,
    sub: SubState,
    factors: int,
    candidates: tuple[Ship, ...],
    hex_ships: tuple[Ship, ...],
    *,
    side: Side,
    turn: int,
    combat: Combat,
    dice: Dice,
    label: str,
    result: AttackSequence | None = None,
) -> TorpedoAttack:
    """27.8 at night: every factor at a random ship of ``candidates`` (the TF attacked); the factors
    are not combined (``[attack] combine_at_night``), each is its own CRT roll."""
    _check_attack(sub_ship, sub, factors, turn=turn, rules=combat.rules, result=result)
    targets = night_targets(factors, candidates, dice, label)
    if combat.rules.combine_at_night:
        counts = {name: targets.count(name) for name in dict.fromkeys(targets)}
        plan = tuple((f"{label}/salvo at {name}", name, n) for name, n in counts.items())
    else:
        plan = tuple((f"{label}/tube {i + 1} at {name}", name, 1) for i, name in enumerate(targets))
    return _salvos(sub, plan, hex_ships, side=side, turn=turn, combat=combat, dice=dice)


def _check_attack(
    sub_ship: Ship,
    sub: SubState,
    factors: int,
    *,
    turn: int,
    rules: SubmarineRules,
    result: AttackSequence | None,
) -> None:
    if sub_ship.name != sub.name or sub_ship.type is not ShipType.SS:
        raise GameError(f"{sub_ship.name} is not the submarine {sub.name}")
    if sub_ship.sunk:
        raise GameError(f"{sub.name} has sunk")
    problem = attack_problem(sub, factors, turn, rules, result=result)
    if problem:
        raise GameError(f"{sub.name}: {problem}")


def _salvos(
    sub: SubState,
    plan: tuple[tuple[str, str, int], ...],
    hex_ships: tuple[Ship, ...],
    *,
    side: Side,
    turn: int,
    combat: Combat,
    dice: Dice,
) -> TorpedoAttack:
    """Each (label, target, factors) of ``plan`` in turn; damage takes effect at once (18.2.1)."""
    ships = {s.name: s for s in hex_ships}
    strikes: list[Strike] = []
    for roll_label, target, factors in plan:
        if target not in ships:
            raise GameError(f"{sub.name}: no ship {target!r} in the hex")
        bht = torpedo_bht(side, ships[target], ships.values(), combat.rules)
        strike = _strike(
            ships[target],
            factors,
            bht,
            kind=HitKind.TORPEDO,
            combat=combat,
            dice=dice,
            label=roll_label,
            turn=turn,
        )
        strikes.append(strike)
        if strike.hit is not None:
            ships[target] = strike.hit.after
    fired = sum(factors for _, _, factors in plan)
    after = replace(sub, factors_fired=sub.factors_fired + fired, attacked_turn=turn, fought_turn=turn)
    return TorpedoAttack(after, tuple(strikes), tuple(ships[s.name] for s in hex_ships))


def _strike(
    target: Ship, factors: int, bht: Bht, *, kind: HitKind, combat: Combat, dice: Dice, label: str, turn: int
) -> Strike:
    """One CRT roll at ``target``, its hits through ``damage.hit_ship``; a ship already sunk is no
    target any more (rolled for nothing)."""
    if target.sunk:
        skipped = combat.crt.result(bht.value, 0, 0)
        return Strike(target.name, factors, bht, skipped, None)
    crt = combat.crt.roll(bht.value, factors, dice, label, rule=RULE)
    if crt.hits <= 0:
        return Strike(target.name, factors, bht, crt, None)
    armament = Armament.TORPEDO if kind is HitKind.TORPEDO else None
    hit = hit_ship(
        target,
        crt.hits,
        kind,
        armament=armament,
        critical_check=crt.critical_check,
        rules=combat.damage,
        dice=dice,
        label=label,
        turn=turn,
    )
    return Strike(target.name, factors, bht, crt, hit)


# --- 27.9, 27.9.2: the TF's attack on a sub ------------------------------------------------------


@dataclass(frozen=True)
class SubAttacked:
    strike: Strike
    sub_ship: Ship  # after
    sub: SubState  # after (in combat this turn)
    states: tuple[AswState, ...]  # the attackers' states after (ammunition or gunnery used)


def gunnery_attack(
    sub_ship: Ship,
    sub: SubState,
    attackers: tuple[Ship, ...],
    states: tuple[AswState, ...],
    *,
    depth: Depth,
    turn: int,
    combat: Combat,
    dice: Dice,
    label: str,
) -> SubAttacked:
    """27.9: the attackers' gunnery factors together in one CRT roll against the sub at ``depth``
    (:func:`resolution_depth`); each attacker has then used its gunnery factor this turn."""
    for ship in attackers:
        problem = gunnery_problem(ship, asw_state(states, ship.name), turn)
        if problem:
            raise GameError(problem)
    factors = sum(s.gunnery for s in attackers)
    bht = sub_bht(Weapon.GUNNERY, depth, combat.rules)
    where = f"{label}/gunnery at {sub.name}"
    strike = _strike(
        sub_ship, factors, bht, kind=HitKind.GUNNERY, combat=combat, dice=dice, label=where, turn=turn
    )
    for ship in attackers:
        states = put(states, replace(asw_state(states, ship.name), gunnery_turn=turn))
    return _attacked(sub_ship, sub, strike, states, turn)


def asw_attack(
    sub_ship: Ship,
    sub: SubState,
    attackers: tuple[Ship, ...],
    states: tuple[AswState, ...],
    *,
    depth: Depth,
    turn: int,
    combat: Combat,
    dice: Dice,
    label: str,
) -> SubAttacked:
    """27.9: the attackers' ASW factors (design default: 1 a ship) in one CRT roll against the sub
    at ``depth``; each attacker spends one of its ASW attacks (27.9.2). Depth charges are resolved
    as bomb hits (no planes aboard a sub, so only their critical hit rules apply)."""
    for ship in attackers:
        problem = asw_problem(ship, asw_state(states, ship.name), combat.rules)
        if problem:
            raise GameError(problem)
    factors = len(attackers) * combat.rules.asw_factor
    bht = sub_bht(Weapon.ASW, depth, combat.rules)
    where = f"{label}/ASW at {sub.name}"
    strike = _strike(
        sub_ship, factors, bht, kind=HitKind.BOMB, combat=combat, dice=dice, label=where, turn=turn
    )
    for ship in attackers:
        state = asw_state(states, ship.name)
        states = put(states, replace(state, asw_attacks=state.asw_attacks + 1))
    return _attacked(sub_ship, sub, strike, states, turn)


def _attacked(
    sub_ship: Ship, sub: SubState, strike: Strike, states: tuple[AswState, ...], turn: int
) -> SubAttacked:
    after = strike.hit.after if strike.hit is not None else sub_ship
    return SubAttacked(strike, after, engaged(sub, turn), states)


# --- 27.10: damage reports ------------------------------------------------------------------------


def attack_report(*, attacked_first: bool, ended_surfaced: bool) -> AttackReport:
    """27.10: "Subs that remain surfaced after their attacks, or subs that attack before the TF
    attacks and then dive, get normal "approximate" damage reports. Subs that are attacked before
    they execute their own attack, and finish their attack submerged, are only told that they have
    hit something - no further details." ``attacked_first``: the sub fired before the TF did."""
    if ended_surfaced or attacked_first:
        return AttackReport.APPROXIMATE
    return AttackReport.HIT_SOMETHING


def attack_report_lines(
    kind: AttackReport,
    hits: tuple[ShipHit, ...],
    *,
    night: bool,
    turn: int,
    policy: Deception,
    dice: Dice,
    label: str,
) -> tuple[str, ...]:
    """The words a sub's owner gets for its attack: LI 3's approximate report per ship hit (never
    names; combat/intel.py, night figures by the target owner's DECEPTION policy), or 27.10's "hit
    something". Two salvos at one ship make one line: her state after both, their hits together."""
    landed: dict[str, tuple[Ship, int]] = {}
    for hit in hits:
        if hit.taken > 0:
            taken = landed.get(hit.after.name, (hit.after, 0))[1]
            landed[hit.after.name] = (hit.after, taken + hit.taken)
    if not landed:
        return (NO_HITS,)
    if kind is AttackReport.HIT_SOMETHING:
        return (HIT_SOMETHING,)
    lines: list[str] = []
    for i, (ship, taken) in enumerate(landed.values()):
        if night:
            reported = intel.night_ship_hits(taken, policy, dice, f"{label}/night report {i + 1}")
            lines.append(f"{_article(ship.type.value)} {ship.type.value}: {intel.night_ship_words(reported)}")
        else:
            words = intel.ship_words(ship, turn=turn) or "no visible damage"
            lines.append(f"{_article(ship.type.value)} {ship.type.value}: {words}")
    return tuple(lines)


@dataclass(frozen=True)
class SubReport:
    """What the TF's side is told of the sub it attacked (27.10)."""

    text: str
    slick: bool | None  # None: a surfaced sub, no slick question
    roll: Roll | None  # the oil slick roll, when made


def report_for_sub(
    sub_ship: Ship,
    *,
    surfaced: bool,
    dived_deep_after_attack: bool,
    night: bool,
    turn: int,
    rules: SubmarineRules,
    dice: Dice,
    label: str,
) -> SubReport:
    """27.10 for a sub the TF attacked. ``sub_ship``: after the attacks; ``surfaced``: on the surface
    when sunk, or at the end if it survived.

    "Surfaced subs that are sunk report this accurately; those that are submerged and then sunk
    report an oil slick appearing on the surface. Subs that dive deep after their attack roll 1d6; on
    a 1 or 2 they may report a slick even if they survived the attack, or not report one even if
    they have been sunk. Subtract one from roll at night."
    """
    sunk = sub_ship.destroyed
    if surfaced:
        if sunk:
            return SubReport(SUB_SUNK, None, None)
        words = intel.ship_words(sub_ship, turn=turn)
        return SubReport(
            f"the submarine is {words}" if words else "no damage seen on the submarine", None, None
        )
    slick, roll = sunk, None
    if dived_deep_after_attack:
        mods = {"night": rules.report_night} if night else {}
        roll = dice.dice(f"{label}/oil slick", rules.report_die, rule=RULE_SLICK, modifiers=mods)
        if roll.total <= rules.flip_max:
            slick = not slick
    return SubReport(OIL_SLICK if slick else NO_SLICK, slick, roll)


def _article(word: str) -> str:
    """ "an AO", "an AP", "a DD": type letters are read out as letters."""
    return "an" if word[:1] in "AEFHILMNORSX" else "a"
