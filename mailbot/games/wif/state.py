# SPDX-License-Identifier: GPL-3.0-or-later
"""The turn-end game's state, its scenario data and its JSON form.

The state is immutable: ``resolve`` returns a new one, so a stored state can
be replayed or previewed without fear of it changing underneath.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mailbot.core.defaults import DesignDefault, cite, dump_defaults, load_defaults
from mailbot.errors import GameError
from mailbot.games.wif.rules import (
    MAX_WEATHER,
    MIN_WEATHER,
    POWER_ALIASES,
    ImpulseRoll,
    canonical_power,
    threshold,
)

#: Who opens a turn after the first when nothing names the side for that turn. The seed is
#: silent (the full rules' initiative roll decides), so "alternate" is a design default.
FIRST_RULES = {
    "alternate": "design default: the side after the last mover of the previous turn",
    "same": "the same side opens every turn",
}

# The same as mailbot/games/wif/data/scenarios/standard.toml (a test keeps them equal); used
# when the edge hands in no scenario data, so the demo always has a game to play.
STANDARD_SCENARIO: dict[str, Any] = {
    "title": "Standard: Axis against Allies",
    "sides": [
        {"name": "Axis", "powers": ["Germany", "Italy", "Japan"]},
        {
            "name": "Allies",
            "powers": ["CW", "USA", "USSR", "France", "Nationalist China", "Communist China"],
        },
    ],
    "neutral": [],
    "turns": 6,
}


@dataclass(frozen=True)
class Side:
    name: str
    powers: tuple[str, ...]


@dataclass(frozen=True)
class ImpulseRecord:
    """One resolved impulse, kept for the reports' table of the turn so far."""

    turn: int
    impulse: int
    side: str
    weather: int
    passed: tuple[str, ...]
    roll: ImpulseRoll


@dataclass(frozen=True)
class WifState:
    sides: tuple[Side, ...]
    turns: int  # game length in turns
    turn: int = 1
    impulse: int = 1  # the open impulse of this turn
    first: int = 0  # index of the side that moved first this turn
    total: int = 0  # the turn-end number so far
    weather: int = 2  # the circled weather number now: dice per impulse
    neutral: tuple[str, ...] = ()
    initiative: tuple[int, ...] = ()  # per side: spaces the marker moved towards its opponents' end
    log: tuple[ImpulseRecord, ...] = ()
    finished: bool = False
    result: str = ""
    #: the side opening each turn, as set by the scenario or the GM ("" = by ``first_rule``)
    first_by_turn: tuple[str, ...] = ()
    first_by_turn_from: str = ""
    first_rule: str = "alternate"
    first_from: str = ""  # where this turn's first side comes from, for the letters
    needed: int = 0  # a turn-end number set by the scenario or the GM (0: by the seed)
    needed_from: str = ""
    #: the design defaults (data/defaults.toml), as the letters state them
    defaults: tuple[DesignDefault, ...] = ()
    turns_from: str = ""  # where the game length comes from, for the letters

    def cite(self, key: str) -> str:
        return cite(self.defaults, key)

    @property
    def threshold(self) -> int:
        return self.needed or threshold(len(self.sides))

    @property
    def threshold_source(self) -> str:
        """Where the turn-end number in force comes from, as the letters state it."""
        if self.needed:
            return self.needed_from
        count = len(self.sides)
        if count == 2:
            return "seed 002: 'When the turn end number total reaches or exceeds 55'"
        return (
            f"a reading of seed 002's note (27.5 per side): 27.5 x {count} sides = {27.5 * count:g}, "
            f"so a total of {threshold(count)} or more; the seed gives no number for {count} sides"
        )

    @property
    def mover_index(self) -> int:
        """Impulses alternate between the sides, starting with this turn's first side."""
        return (self.first + self.impulse - 1) % len(self.sides)

    @property
    def mover(self) -> Side:
        return self.sides[self.mover_index]


def scenario_table(scenario: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The scenario's table: ``data["scenarios"][name]``, ``data`` itself, or the built-in standard."""
    scenarios = data.get("scenarios")
    if isinstance(scenarios, Mapping):
        if scenario not in scenarios:
            raise GameError(f"no World in Flames scenario {scenario!r}; known: {', '.join(scenarios)}")
        table: Mapping[str, Any] = scenarios[scenario]
        return table
    return data if "sides" in data else STANDARD_SCENARIO


def _powers(names: Any, where: str) -> tuple[str, ...]:
    powers = []
    for name in list(names):
        power = canonical_power(str(name))
        if power is None:
            known = ", ".join(sorted(set(POWER_ALIASES.values())))
            raise GameError(f"{where}: {name!r} is not a major power of the last impulse test ({known})")
        powers.append(power)
    return tuple(powers)


def read_sides(table: Mapping[str, Any]) -> tuple[Side, ...]:
    sides = tuple(
        Side(str(side["name"]), _powers(side["powers"], f"side {side['name']}")) for side in table["sides"]
    )
    if len(sides) < 2:
        raise GameError("the turn-end game needs two or more sides")
    return sides


def _option_int(options: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = options.get(key, default)
    if not isinstance(value, int) or not low <= value <= high:
        raise GameError(f"option {key} must be a whole number {low}..{high}, not {value!r}")
    return value


def initial_state(
    table: Mapping[str, Any],
    seats: tuple[str, ...],
    options: Mapping[str, Any],
    defaults: tuple[DesignDefault, ...] = (),
) -> WifState:
    sides = read_sides(table)
    if sorted(seats) != sorted(side.name for side in sides):
        raise GameError(f"seats {seats} do not match the scenario's sides")
    names = [side.name for side in sides]
    first = str(options.get("first", table.get("first", names[0])))
    first = next((name for name in names if name.lower() == first.lower()), first)  # as seats are
    if first not in names:
        raise GameError(f"option first must name a side ({', '.join(names)}), not {first!r}")
    neutral = _powers([*table.get("neutral", []), *options.get("neutral", [])], "neutral")
    turns = _option_int(options, "turns", table.get("turns", 1), 1, 1000)
    by_turn, by_turn_from = _first_by_turn(table, options, names, turns)
    rule = str(options.get("first_rule", table.get("first_rule", "alternate")))
    if rule not in FIRST_RULES:
        raise GameError(f"first_rule must be one of {', '.join(FIRST_RULES)}, not {rule!r}")
    needed, needed_from = _needed(table, options)
    if by_turn[:1] not in ((), ("",)):
        first = by_turn[0]
    state = WifState(
        sides=sides,
        turns=turns,
        first=names.index(first),
        weather=_option_int(options, "weather", 2, MIN_WEATHER, MAX_WEATHER),
        neutral=tuple(dict.fromkeys(neutral)),
        initiative=(0,) * len(sides),
        first_by_turn=by_turn,
        first_by_turn_from=by_turn_from,
        first_rule=rule,
        needed=needed,
        needed_from=needed_from,
        defaults=defaults,
        turns_from=_source(table, options, "turns", "one turn: the scenario sets no length"),
    )
    source = _source(table, options, "first", "the first side of the scenario's list")
    named = by_turn[:1] not in ((), ("",))
    return replace(state, first_from=f"first_by_turn, {by_turn_from}" if named else source)


def _source(table: Mapping[str, Any], options: Mapping[str, Any], key: str, otherwise: str) -> str:
    if key in options:
        return "set by the GM when the game was created"
    return "set by the scenario" if key in table else otherwise


def _first_by_turn(
    table: Mapping[str, Any], options: Mapping[str, Any], names: list[str], turns: int
) -> tuple[tuple[str, ...], str]:
    """``first_by_turn``: a list of side names (turn 1 first) or a table {"2" = "Allies"}; "" skips."""
    raw = options.get("first_by_turn", table.get("first_by_turn", ()))
    listed = dict(raw) if isinstance(raw, Mapping) else {str(n): side for n, side in enumerate(raw, 1)}
    by_turn = [""] * turns
    for key, side in listed.items():
        if not str(key).isdigit() or not 1 <= int(key) <= turns:
            raise GameError(f"first_by_turn: {key!r} is not a turn 1..{turns}")
        if side and str(side) not in names:
            raise GameError(f"first_by_turn: {side!r} is not a side ({', '.join(names)})")
        by_turn[int(key) - 1] = str(side or "")
    source = _source(table, options, "first_by_turn", "")
    return tuple(by_turn) if listed else (), source


def _needed(table: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[int, str]:
    if "threshold" not in options and "threshold" not in table:
        return 0, ""
    value = options.get("threshold", table.get("threshold"))
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise GameError(f"threshold must be a whole number above 0, not {value!r}")
    return value, _source(table, options, "threshold", "")


def _roll_to_dict(roll: ImpulseRoll) -> dict[str, Any]:
    return {
        "faces": list(roll.faces),
        "bonus_per_die": roll.bonus_per_die,
        "last_position": roll.last_position,
        "before": roll.before,
        "after": roll.after,
        "ends_turn": roll.ends_turn,
    }


def _record_to_dict(record: ImpulseRecord) -> dict[str, Any]:
    return {
        "turn": record.turn,
        "impulse": record.impulse,
        "side": record.side,
        "weather": record.weather,
        "passed": list(record.passed),
        "roll": _roll_to_dict(record.roll),
    }


def dump_state(state: WifState) -> dict[str, Any]:
    return {
        "sides": [{"name": side.name, "powers": list(side.powers)} for side in state.sides],
        "turns": state.turns,
        "turn": state.turn,
        "impulse": state.impulse,
        "first": state.first,
        "total": state.total,
        "weather": state.weather,
        "neutral": list(state.neutral),
        "initiative": list(state.initiative),
        "log": [_record_to_dict(record) for record in state.log],
        "finished": state.finished,
        "result": state.result,
        "first_by_turn": list(state.first_by_turn),
        "first_by_turn_from": state.first_by_turn_from,
        "first_rule": state.first_rule,
        "first_from": state.first_from,
        "needed": state.needed,
        "needed_from": state.needed_from,
        "defaults": dump_defaults(state.defaults),
        "turns_from": state.turns_from,
    }


def _record_from(data: Mapping[str, Any]) -> ImpulseRecord:
    roll = data["roll"]
    return ImpulseRecord(
        turn=int(data["turn"]),
        impulse=int(data["impulse"]),
        side=str(data["side"]),
        weather=int(data["weather"]),
        passed=tuple(str(power) for power in data["passed"]),
        roll=ImpulseRoll(
            faces=tuple(int(face) for face in roll["faces"]),
            bonus_per_die=int(roll["bonus_per_die"]),
            last_position=int(roll["last_position"]),
            before=int(roll["before"]),
            after=int(roll["after"]),
            ends_turn=bool(roll["ends_turn"]),
        ),
    )


def load_state(data: Mapping[str, Any]) -> WifState:
    return WifState(
        sides=tuple(Side(str(s["name"]), tuple(str(p) for p in s["powers"])) for s in data["sides"]),
        turns=int(data["turns"]),
        turn=int(data["turn"]),
        impulse=int(data["impulse"]),
        first=int(data["first"]),
        total=int(data["total"]),
        weather=int(data["weather"]),
        neutral=tuple(str(power) for power in data["neutral"]),
        initiative=tuple(int(moves) for moves in data["initiative"]),
        log=tuple(_record_from(record) for record in data["log"]),
        finished=bool(data["finished"]),
        result=str(data["result"]),
        first_by_turn=tuple(str(side) for side in data.get("first_by_turn", ())),
        first_by_turn_from=str(data.get("first_by_turn_from", "")),
        first_rule=str(data.get("first_rule", "alternate")),
        first_from=str(data.get("first_from", "")),
        needed=int(data.get("needed", 0)),
        needed_from=str(data.get("needed_from", "")),
        defaults=load_defaults(data.get("defaults", ())),
        turns_from=str(data.get("turns_from", "")),
    )
