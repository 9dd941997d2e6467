# SPDX-License-Identifier: GPL-3.0-or-later
"""Victory points and the end of the game (standard 25, reference A.13; seed 003).

Reference A.13: a lost Air Factor is worth 2 VP to the enemy, or 10 VP if
lost "unnecessarily" (it could not land by its deadline through the owner's
error or choice); an AP unloads 3 VP a turn for 8 turns and "its value if
sunk falls from 24 by 3 each time"; at the end of a 2400 turn a VP
difference of at least the scenario's Automatic Victory Level ends the game;
otherwise "the side with the most VP wins, but only if it has >= 50 VP.
Otherwise the game is a draw"; ships that leave the map score VP for their
damage, not as sunk.

Seed 003: "VICTORY POINT CHANGE:  For each turn that Henderson or Rabaul
STARTS at 0 LF or below, score 4 points.  For all other bases, score 2
points." And (Survivors) "Each survivor factor rescued that is still carried
(or has been unloaded on friendly territory) at game’s end is worth 2 VP if
the same nationality as the player who rescued them, 1 VP if of the opposite
nationality."

The numbers live in ``data/tables/victory.toml``; the printed VP table was
not found, so ship values are design defaults and every :class:`Points`
(and every :class:`VpEntry`) carries the flag, for letters to say so.

The ledger is data in the state: an append-only tuple of :class:`VpEntry`
(:func:`record` appends and refuses a key scored twice). Who is told what
(seed 003, "Limited Intelligence"): an entry is *about* one side's unit
(``owner``: the side that lost it, or that unloaded or rescued). During the
game a side sees only the entries about its own units, in ``owner_reason``
words: it knows its own losses and gains, but not what its attacks achieved
(a delayed sinking must stay a secret; a running total would give it away).
At the end each side sees every entry: its own in ``owner_reason`` words,
the enemy's in ``public_reason`` words, which name no ship. ``reason`` is
referee-level and names everything.

This module holds the rules (``victory.toml`` merged with the scenario's), the ledger and what each
side is told of it; what scores is :mod:`.victory_scoring`, the end of the game :mod:`.victory_end`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.units import ShipType, Side

HIDDEN_NOTE = "Points for the losses you inflicted on the enemy are counted at the end of the game."

SIDE_NAMES = MappingProxyType({Side.ALLIED: "Allied", Side.JAPANESE: "Japanese"})

# What a scenario's [victory] table may hold (its sections mirror victory.toml).
_SCENARIO_KEYS = frozenset(
    {
        "automatic_level",
        "minimum_to_win",
        "ships",
        "damage",
        "air",
        "transports",
        "bases",
        "survivors",
        "unloaded",
    }
)


@dataclass(frozen=True)
class Points:
    """A value and where it comes from: ``default`` marks a design default."""

    value: int
    default: bool
    source: str


@dataclass(frozen=True)
class TroopAward:
    """A scenario condition: ``points`` VP per troop factor ``side`` unloads at ``place``."""

    place: str
    side: Side
    points: Points


@dataclass(frozen=True)
class VpEntry:
    """One line of the ledger: ``side`` scores ``points``; ``owner``'s unit is what it is about."""

    turn: int
    side: Side
    points: int
    reason: str  # referee-level: names everything
    key: str  # unique in the ledger: the same thing is never scored twice
    owner: Side
    owner_reason: str  # what the owner of the unit may read (its own unit's name)
    public_reason: str  # what anyone may read at the end: no ship names
    default: bool = False  # the points come from a design default
    cause: str = ""  # how it came about ("surface combat", "fuel", ...): the referee's ledger and archive


@dataclass(frozen=True)
class VpLine:
    """An entry as one side may read it."""

    turn: int
    side: Side
    points: int
    text: str
    default: bool


@dataclass(frozen=True)
class Verdict:
    winner: Side | None  # None: a draw
    totals: Mapping[Side, int]
    reason: str  # e.g. "Allied victory, 64 VP to 31"


@dataclass(frozen=True)
class VictoryRules:
    """``victory.toml`` merged with a scenario's ``[victory]`` table."""

    ships: Mapping[ShipType, Points]
    damage_per_hit: Points
    damage_below_sunk: int
    air_lost: Points
    air_unnecessary: Points
    unload_turns: int
    unload_per_turn: Mapping[ShipType, Points]
    base_points: Points
    key_bases: Mapping[str, Points]  # by casefolded name
    survivors_same: Points
    survivors_other: Points
    minimum_to_win: Points
    automatic_level: Points | None  # None: the scenario sets no Automatic Victory Level
    automatic_hour: int
    unloaded: tuple[TroopAward, ...] = ()

    @classmethod
    def from_mapping(
        cls, table: Mapping[str, Any], scenario: Mapping[str, Any] | None = None
    ) -> VictoryRules:
        """``table`` is victory.toml; ``scenario`` the parsed scenario file (its ``victory`` table is read).

        GameError on malformed data, including an unknown key in the scenario's table (a typo
        there would silently leave the default in force).
        """
        try:
            return _Merge(table, scenario or {}).rules()
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameError(f"victory data is malformed ({error!r})") from error

    def sunk_value(self, ship_type: ShipType, unloaded_turns: int = 0) -> int:
        """VP for sinking a ship of this type after ``unloaded_turns`` unloading turns (A.13)."""
        initial = self.ships[ship_type].value
        per_turn = self.unload_per_turn.get(ship_type)
        if per_turn is None:
            return initial
        return transport_value(initial, min(unloaded_turns, self.unload_turns), per_turn.value)

    def base_value(self, name: str) -> Points:
        """Seed 003: Henderson and Rabaul score 4 a turn, "all other bases" 2."""
        return self.key_bases.get(name.strip().casefold(), self.base_points)


def transport_value(initial: int, unloaded_turns: int, per_turn: int) -> int:
    """A.13: an AP's "value if sunk falls from 24 by 3 each time" it unloads; never below 0."""
    return max(0, initial - unloaded_turns * per_turn)


# --- reading the tables -----------------------------------------------------------


class _Merge:
    """Reads victory.toml, letting the scenario's [victory] table override any value."""

    def __init__(self, table: Mapping[str, Any], scenario: Mapping[str, Any]) -> None:
        self.table = table
        self.over: Mapping[str, Any] = _mapping(scenario.get("victory", {}), "scenario [victory]")
        self.source = f"scenario {scenario.get('id', '?')} [victory]"
        unknown = set(self.over) - _SCENARIO_KEYS
        if unknown:
            raise GameError(f"{self.source}: unknown key(s) {sorted(unknown)}")

    def rules(self) -> VictoryRules:
        return VictoryRules(
            ships=self.ships(),
            damage_per_hit=self.points(("damage",), "per_hit"),
            damage_below_sunk=self.plain(("damage",), "below_sunk"),
            air_lost=self.points(("air",), "lost"),
            air_unnecessary=self.points(("air",), "unnecessary"),
            unload_turns=self.plain(("transports",), "turns"),
            unload_per_turn=self.transports(),
            base_points=self.points(("bases",), "points"),
            key_bases=self.key_bases(),
            survivors_same=self.points(("survivors",), "same"),
            survivors_other=self.points(("survivors",), "other"),
            minimum_to_win=self.top_level("minimum_to_win"),
            automatic_level=self.automatic_level(),
            automatic_hour=_count(self.table["end"]["automatic_hour"], "end.automatic_hour"),
            unloaded=self.unloaded(),
        )

    def points(self, path: tuple[str, ...], key: str, meta: tuple[str, ...] | None = None) -> Points:
        """The value at ``path``.``key``: the scenario's if it gives one, else the shipped one."""
        where = ".".join((*path, key))
        override = _dig(self.over, path)
        if key in override:
            return Points(_count(override[key], f"{self.source} {where}"), False, self.source)
        section = _dig(self.table, meta or path)
        return Points(_count(_dig(self.table, path)[key], where), _flag(section), _source(section))

    def plain(self, path: tuple[str, ...], key: str) -> int:
        """A number that is no VP award (a count of turns, a margin): no source of its own."""
        override = _dig(self.over, path)
        table = override if key in override else _dig(self.table, path)
        return _count(table[key], ".".join((*path, key)))

    def top_level(self, key: str) -> Points:
        """``end.<key>`` in victory.toml; a scenario writes it at the top of its [victory]."""
        if key in self.over:
            return Points(_count(self.over[key], f"{self.source} {key}"), False, self.source)
        end = self.table["end"]
        return Points(_count(end[key], f"end.{key}"), _flag(end), _source(end))

    def automatic_level(self) -> Points | None:
        if "automatic_level" not in self.over and "automatic_level" not in self.table["end"]:
            return None
        level = self.top_level("automatic_level")
        if level.value <= 0:
            raise GameError(f"{level.source}: automatic_level must be at least 1")
        return level

    def ships(self) -> Mapping[ShipType, Points]:
        unknown = set(_dig(self.over, ("ships",))) - {t.value for t in ShipType}
        if unknown:
            raise GameError(f"{self.source}: unknown ship type(s) {sorted(unknown)}")
        return MappingProxyType({t: self.points(("ships",), t.value) for t in ShipType})

    def transports(self) -> Mapping[ShipType, Points]:
        names = set(self.table["transports"]) | set(_dig(self.over, ("transports",)))
        types = sorted(ShipType(name) for name in names if name != "turns")
        for ship_type in types:
            if ship_type not in (ShipType.AP, ShipType.APD):
                raise GameError(f"victory transports: only AP and APD unload, not {ship_type}")
        return MappingProxyType({t: self.points(("transports", t.value), "per_turn") for t in types})

    def key_bases(self) -> Mapping[str, Points]:
        names = set(self.table["bases"].get("key", {})) | set(_dig(self.over, ("bases", "key")))
        found = {name.casefold(): self.points(("bases", "key"), name, meta=("bases",)) for name in names}
        return MappingProxyType(found)

    def unloaded(self) -> tuple[TroopAward, ...]:
        awards = self.over.get("unloaded", [])
        if not isinstance(awards, list):
            raise GameError(f"{self.source}: unloaded must be a list of tables")
        return tuple(self.award(_mapping(item, f"{self.source} unloaded")) for item in awards)

    def award(self, item: Mapping[str, Any]) -> TroopAward:
        where = f"{self.source} unloaded"
        place = item["place"]
        if not isinstance(place, str) or not place.strip():
            raise GameError(f"{where}: place must be a base or hex name")
        points = Points(_count(item["points"], f"{where} points"), False, self.source)
        return TroopAward(place.strip(), Side(item["side"]), points)


def _dig(data: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, Any]:
    """The table at ``path``; an absent table is empty (a scenario overrides only what it names)."""
    for key in path:
        data = _mapping(data.get(key, {}), ".".join(path))
    return data


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise GameError(f"{where}: expected a table, got {value!r}")
    return value


def _count(value: Any, where: str) -> int:
    """A VP figure: a whole number, never negative (a loss never costs its owner points here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GameError(f"{where}: expected a whole number >= 0, got {value!r}")
    return value


def _flag(section: Mapping[str, Any]) -> bool:
    flag = section["default"]
    if not isinstance(flag, bool):
        raise GameError(f"victory.toml: default must be true or false, got {flag!r}")
    return flag


def _source(section: Mapping[str, Any]) -> str:
    source = section["source"]
    if not isinstance(source, str) or not source:
        raise GameError("victory.toml: every section needs a source line")
    return source


def record(ledger: Sequence[VpEntry], entries: Iterable[VpEntry | None]) -> tuple[VpEntry, ...]:
    """The ledger with ``entries`` appended (None skipped); GameError if a key was scored already."""
    keys = {entry.key for entry in ledger}
    added: list[VpEntry] = []
    for entry in entries:
        if entry is None:
            continue
        if entry.key in keys:
            raise GameError(f"victory points scored twice for {entry.key!r}")
        keys.add(entry.key)
        added.append(entry)
    return (*ledger, *added)


# --- what each side is told -----------------------------------------------------


# A loss's line says what was lost, not how: the cause (the owner was told it) is added to it.
_LOSSES = ("sunk:", "air:")


def visible(ledger: Sequence[VpEntry], side: Side, *, game_over: bool = False) -> tuple[VpLine, ...]:
    """The entries ``side`` may read: during the game those about its own units, at the end all.

    During the game add :data:`HIDDEN_NOTE`: the points it scored against the enemy are not shown.
    """
    lines: list[VpLine] = []
    for entry in ledger:
        cause = f" [{entry.cause}]" if entry.key.startswith(_LOSSES) and entry.cause else ""
        if entry.owner is side:
            lines.append(
                VpLine(entry.turn, entry.side, entry.points, entry.owner_reason + cause, entry.default)
            )
        elif game_over:
            lines.append(
                VpLine(entry.turn, entry.side, entry.points, entry.public_reason + cause, entry.default)
            )
    return tuple(lines)


def totals(ledger: Sequence[VpEntry]) -> dict[Side, int]:
    scores = dict.fromkeys(Side, 0)
    for entry in ledger:
        scores[entry.side] += entry.points
    return scores
