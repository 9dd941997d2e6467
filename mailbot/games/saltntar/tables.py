# SPDX-License-Identifier: GPL-3.0-or-later
"""Salt'n'Tar's tables as data: ship types, wind, luck, strain (seed 001).

The edge reads ``mailbot/games/saltntar/data/ships.toml`` and ``tables.toml`` and hands
them in through ``Setup.data`` (as ``data["ships"]`` and ``data["tables"]``).
This module only checks and indexes those mappings; a malformed table is a
configuration bug and raises :class:`GameError`. The raw mappings are kept so
that a game's state carries its own tables and never depends on the files
changing under a running game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mailbot.core.defaults import DesignDefault, cite, read_defaults
from mailbot.errors import GameError

#: The seed's relative bearings, from wind astern to head to wind.
RUNNING = "running"
HEAD_TO_WIND = "head to wind"
BEARINGS = (RUNNING, "broad reaching", "quarter reaching", "beating", HEAD_TO_WIND)
# The seed calls the head-to-wind row "Luffing" for lateen and fore-n-aft rigs
# and "Backing" for square rigs: one bearing, two names.
_BEARING_ALIASES = {"luffing": HEAD_TO_WIND, "backing": HEAD_TO_WIND}

WIND_EFFECTS = frozenset({"clockwise", "counter-clockwise", "speed"})
STRAIN_EFFECTS = frozenset({"none", "strain", "speed", "crew", "mast", "sinking"})


def bearing_key(label: str) -> str:
    key = " ".join(label.lower().split())
    key = _BEARING_ALIASES.get(key, key)
    if key not in BEARINGS:
        raise GameError(f"unknown bearing {label!r}")
    return key


@dataclass(frozen=True)
class RollRange:
    """A die column entry as printed: ``"6"``, ``"5-"`` (or less) or ``"12+"`` (or more)."""

    text: str
    low: int | None
    high: int | None

    @classmethod
    def parse(cls, text: str) -> RollRange:
        raw = str(text).strip()
        number = raw.rstrip("+-")
        if not number.isdigit() or len(raw) - len(number) > 1:
            raise GameError(f"not a die column entry: {text!r}")
        value = int(number)
        low = None if raw.endswith("-") else value
        high = None if raw.endswith("+") else value
        return cls(raw, low, high)

    def __contains__(self, total: object) -> bool:
        if not isinstance(total, int):
            return False
        return (self.low is None or total >= self.low) and (self.high is None or total <= self.high)


@dataclass(frozen=True)
class BearingRow:
    bearing: str  # a BEARINGS key
    label: str  # as printed: "Luffing", "Backing", ...
    bn: int
    backwards: bool = False


@dataclass(frozen=True)
class ShipType:
    key: str
    name: str
    masts: int
    rows: tuple[BearingRow, ...]
    description: str = ""
    oars: int = 0  # inches a turn under oars in a calm (a design default; 0: no oars)

    def row(self, bearing: str) -> BearingRow:
        for row in self.rows:
            if row.bearing == bearing:
                return row
        raise GameError(f"{self.name} has no Bearing Number for {bearing!r}")


@dataclass(frozen=True)
class WindRow:
    roll: RollRange
    effect: str  # WIND_EFFECTS; the initial table uses "speed" only
    speed: int
    text: str


@dataclass(frozen=True)
class LuckRow:
    roll: RollRange
    wind: int
    strain: int
    text: str


@dataclass(frozen=True)
class SharedLuck:
    face: int
    at_least: int
    overall: int
    text: str


@dataclass(frozen=True)
class StrainRow:
    roll: RollRange
    effect: str
    amount: int
    dice: str
    text: str


RowT = TypeVar("RowT", WindRow, LuckRow, StrainRow)


def find_row(rows: Sequence[RowT], total: int, table: str) -> RowT:
    for row in rows:
        if total in row.roll:
            return row
    raise GameError(f"the {table} table has no row for {total}")


def _mapping(data: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise GameError(f"Salt'n'Tar data: {where} must be a table")
    return data


def _rows(data: Mapping[str, Any], table: str) -> list[Mapping[str, Any]]:
    rows = _mapping(data.get(table), table).get("rows")
    if not isinstance(rows, list) or not rows:
        raise GameError(f"Salt'n'Tar data: {table}.rows must be a non-empty list")
    return [_mapping(row, f"a row of {table}") for row in rows]


def _int(row: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = row.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise GameError(f"Salt'n'Tar data: {where}: {key} must be a whole number, not {value!r}")
    return value


def _ship_type(key: str, data: Mapping[str, Any]) -> ShipType:
    rows = []
    for entry in data.get("bearings", ()):
        row = _mapping(entry, f"a bearing of ship {key}")
        label = str(row.get("bearing", ""))
        bn = _int(row, "bn", f"ship {key}")
        rows.append(BearingRow(bearing_key(label), label, bn, bool(row.get("backwards", False))))
    if sorted(row.bearing for row in rows) != sorted(BEARINGS):
        raise GameError(f"Salt'n'Tar data: ship {key} must list each bearing once")
    masts = _int(data, "masts", f"ship {key}")
    if masts < 1:
        raise GameError(f"Salt'n'Tar data: ship {key} needs at least one mast")
    name = str(data.get("name", key))
    oars = _int(data, "oars", f"ship {key}", 0)
    return ShipType(key, name, masts, tuple(rows), str(data.get("description", "")), max(0, oars))


def _wind_rows(data: Mapping[str, Any], table: str) -> tuple[WindRow, ...]:
    rows = []
    for row in _rows(data, table):
        effect = str(row.get("effect", "speed"))
        if effect not in WIND_EFFECTS:
            raise GameError(f"Salt'n'Tar data: {table}: unknown effect {effect!r}")
        speed = _int(row, "speed", table, 0)
        rows.append(WindRow(RollRange.parse(row.get("roll", "")), effect, speed, str(row.get("text", ""))))
    return tuple(rows)


def _luck_rows(data: Mapping[str, Any]) -> tuple[LuckRow, ...]:
    return tuple(
        LuckRow(
            RollRange.parse(row.get("roll", "")),
            _int(row, "wind", "luck", 0),
            _int(row, "strain", "luck", 0),
            str(row.get("text", "")),
        )
        for row in _rows(data, "luck")
    )


def _shared_luck(data: Mapping[str, Any]) -> tuple[SharedLuck, ...]:
    rules = [
        _mapping(rule, "a luck.shared rule") for rule in _mapping(data.get("luck"), "luck").get("shared", ())
    ]
    return tuple(
        SharedLuck(
            _int(rule, "face", "luck.shared"),
            _int(rule, "at_least", "luck.shared"),
            _int(rule, "overall", "luck.shared"),
            str(rule.get("text", "")),
        )
        for rule in rules
    )


def _strain_rows(data: Mapping[str, Any]) -> tuple[StrainRow, ...]:
    rows = []
    for row in _rows(data, "strain"):
        effect = str(row.get("effect", "none"))
        if effect not in STRAIN_EFFECTS:
            raise GameError(f"Salt'n'Tar data: strain: unknown effect {effect!r}")
        amount = _int(row, "amount", "strain", 0)
        rolls = RollRange.parse(row.get("roll", ""))
        rows.append(StrainRow(rolls, effect, amount, str(row.get("dice", "1d6")), str(row.get("text", ""))))
    return tuple(rows)


def _bearing_list(data: Mapping[str, Any], key: str, points: int) -> tuple[str, ...]:
    labels = _mapping(data.get("bearings"), "bearings").get(key)
    if not isinstance(labels, list) or len(labels) != points // 2 + 1:
        raise GameError(f"Salt'n'Tar data: bearings.{key} needs {points // 2 + 1} entries")
    return tuple(bearing_key(str(label)) for label in labels)


RECOVERY_RULES = frozenset({"none", "reefed", "any"})


@dataclass(frozen=True)
class Recovery:
    """How Strain clears (the seed gives no way to: a design default, see tables.toml)."""

    rule: str  # none | reefed (reefed, furled, at anchor or dismasted) | any
    amount: int
    text: str
    default: bool


def _recovery(data: Mapping[str, Any]) -> Recovery:
    table = _mapping(data.get("strain_recovery", {"rule": "none"}), "strain_recovery")
    rule = str(table.get("rule", "none"))
    if rule not in RECOVERY_RULES:
        raise GameError(f"Salt'n'Tar data: strain_recovery.rule must be one of {sorted(RECOVERY_RULES)}")
    amount = _int(table, "amount", "strain_recovery", 1)
    return Recovery(rule, amount, str(table.get("text", "")), bool(table.get("default", False)))


@dataclass(frozen=True)
class Rules:
    """Every table of one game, checked; ``raw`` is what was handed in."""

    ships: Mapping[str, ShipType]
    initial_speed: tuple[WindRow, ...]
    wind_roll: tuple[WindRow, ...]
    luck: tuple[LuckRow, ...]
    shared_luck: tuple[SharedLuck, ...]
    strain: tuple[StrainRow, ...]
    bearings8: tuple[str, ...]
    bearings6: tuple[str, ...]
    calm: int
    gale: int
    wind_names: tuple[str, ...]
    raw: Mapping[str, Any]
    recovery: Recovery = Recovery("none", 0, "", False)
    initiative: str = "1d6"  # each side's initiative die in naval combat (a design default)
    defaults: tuple[DesignDefault, ...] = ()  # data/defaults.toml

    @classmethod
    def from_data(
        cls, ships: Mapping[str, Any], tables: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
    ) -> Rules:
        weather = _mapping(tables.get("weather"), "weather")
        defaults = {} if defaults is None else defaults
        return cls(
            ships={key: _ship_type(key, _mapping(value, key)) for key, value in ships.items()},
            initial_speed=_wind_rows(tables, "initial_wind_speed"),
            wind_roll=_wind_rows(tables, "wind_roll"),
            luck=_luck_rows(tables),
            shared_luck=_shared_luck(tables),
            strain=_strain_rows(tables),
            bearings8=_bearing_list(tables, "points8", 8),
            bearings6=_bearing_list(tables, "points6", 6),
            calm=_int(weather, "calm", "weather"),
            gale=_int(weather, "gale", "weather"),
            wind_names=tuple(str(name) for name in weather.get("names", ())),
            raw={"ships": ships, "tables": tables, "defaults": defaults},
            recovery=_recovery(tables),
            initiative=str(_mapping(tables.get("initiative", {}), "initiative").get("dice", "1d6")),
            defaults=read_defaults(defaults, "Salt'n'Tar data"),
        )

    def cite(self, key: str) -> str:
        """``design default: <title>`` for an event the default ``key`` shaped (defaults.toml)."""
        return cite(self.defaults, key)

    def with_recovery(self, rule: str) -> Rules:
        """The same tables with another Strain recovery rule (a game option; the simulator)."""
        tables = dict(self.raw["tables"])
        tables["strain_recovery"] = dict(tables.get("strain_recovery", {})) | {"rule": rule}
        return Rules.from_data(self.raw["ships"], tables, self.raw.get("defaults"))

    def ship_type(self, key: str) -> ShipType:
        found = self.ships.get(key)
        if found is None:
            raise GameError(f"unknown ship type {key!r}; known: {', '.join(self.ships)}")
        return found

    def bearings(self, points: int) -> tuple[str, ...]:
        return self.bearings8 if points == 8 else self.bearings6

    def wind_name(self, speed: int) -> str:
        if not self.wind_names:
            return f"Wind Speed {speed}"
        return self.wind_names[max(0, min(speed, len(self.wind_names) - 1))]
