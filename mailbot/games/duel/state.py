# SPDX-License-Identifier: GPL-3.0-or-later
"""The duel's state, its options and its JSON form.

The state is immutable: ``resolve`` returns a new one. It holds secrets (each
seat's ATTACK/DEFEND split for the open turn and for every turn played), so
it is for the store and the referee only; what a seat may see is chosen in
:mod:`mailbot.games.duel.view`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from mailbot.errors import GameError

SEATS: tuple[str, ...] = ("north", "south")
DEFAULT_HP = 10
DEFAULT_TURNS = 3
MAX_OPTION = 99  # hp and turns; a mail game longer than that is a typo in the options


class Phase(StrEnum):
    ORDERS = "orders"  # T{n}.orders: every seat splits its three dice
    BID = "bid"  # T{n}.bid: every seat seals its initiative bid


@dataclass(frozen=True)
class Split:
    """A seat's dice for one turn: ``attack`` + ``defend`` is at most 3, the rest is wasted."""

    attack: int
    defend: int

    @property
    def text(self) -> str:
        return f"ATTACK {self.attack}, DEFEND {self.defend}"


@dataclass(frozen=True)
class SeatState:
    name: str
    hp: int
    #: this turn's split between the orders and the bid step; a secret from the opponent
    pending: Split | None = None


@dataclass(frozen=True)
class Strike:
    """One seat's attack on the other, with the defender's defence dice against it."""

    attacker: str
    defender: str
    attack_faces: tuple[int, ...]
    defend_faces: tuple[int, ...]
    hits: int
    cancelled: int
    hp_before: int  # the defender's
    hp_after: int

    @property
    def damage(self) -> int:
        return self.hits - self.cancelled


@dataclass(frozen=True)
class SeatTurn:
    """One seat's part of a resolved turn."""

    seat: str
    split: Split
    bid: int
    hp_start: int  # before the bid was paid
    hp_end: int


@dataclass(frozen=True)
class TurnRecord:
    turn: int
    #: strike rounds in order: one seat each, or both seats at once after a tie
    rounds: tuple[tuple[str, ...], ...]
    seats: tuple[SeatTurn, ...]
    strikes: tuple[Strike, ...]
    silenced: tuple[str, ...]  # seats down before their strike came

    def entry(self, seat: str) -> SeatTurn:
        return next(entry for entry in self.seats if entry.seat == seat)


@dataclass(frozen=True)
class DuelState:
    seats: tuple[SeatState, ...]
    max_hp: int
    turns: int  # game length in turns
    turn: int = 1
    phase: Phase = Phase.ORDERS
    log: tuple[TurnRecord, ...] = ()
    finished: bool = False
    result: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.seats)

    def seat(self, name: str) -> SeatState:
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise GameError(f"the duel has no seat {name!r} (seats: {', '.join(self.names)})")

    def opponent(self, name: str) -> str:
        return next(seat.name for seat in self.seats if seat.name != name)

    def living(self) -> frozenset[str]:
        return frozenset(seat.name for seat in self.seats if seat.hp > 0)

    def with_seats(self, seats: Mapping[str, SeatState]) -> DuelState:
        """The state with some seats replaced, keeping the seat order."""
        return replace(self, seats=tuple(seats.get(seat.name, seat) for seat in self.seats))


def _option_int(options: Mapping[str, Any], key: str, default: int) -> int:
    value = options.get(key, default)
    # bool is an int to Python, but "hp = true" in a game's options is a mistake.
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_OPTION:
        raise GameError(f"duel option {key} must be a whole number 1..{MAX_OPTION}, not {value!r}")
    return value


def initial_state(seats: tuple[str, ...], options: Mapping[str, Any]) -> DuelState:
    if sorted(seats) != sorted(SEATS):
        raise GameError(f"the duel is played by {' and '.join(SEATS)}, not {', '.join(seats) or 'nobody'}")
    hp = _option_int(options, "hp", DEFAULT_HP)
    return DuelState(
        seats=tuple(SeatState(name, hp) for name in SEATS),
        max_hp=hp,
        turns=_option_int(options, "turns", DEFAULT_TURNS),
    )


def _split_to(split: Split | None) -> dict[str, int] | None:
    return None if split is None else {"attack": split.attack, "defend": split.defend}


def _split_from(data: Mapping[str, Any] | None) -> Split | None:
    return None if data is None else Split(int(data["attack"]), int(data["defend"]))


def _strike_to(strike: Strike) -> dict[str, Any]:
    return {
        "attacker": strike.attacker,
        "defender": strike.defender,
        "attack_faces": list(strike.attack_faces),
        "defend_faces": list(strike.defend_faces),
        "hits": strike.hits,
        "cancelled": strike.cancelled,
        "hp_before": strike.hp_before,
        "hp_after": strike.hp_after,
    }


def _strike_from(data: Mapping[str, Any]) -> Strike:
    return Strike(
        attacker=str(data["attacker"]),
        defender=str(data["defender"]),
        attack_faces=tuple(int(face) for face in data["attack_faces"]),
        defend_faces=tuple(int(face) for face in data["defend_faces"]),
        hits=int(data["hits"]),
        cancelled=int(data["cancelled"]),
        hp_before=int(data["hp_before"]),
        hp_after=int(data["hp_after"]),
    )


def _record_to(record: TurnRecord) -> dict[str, Any]:
    return {
        "turn": record.turn,
        "rounds": [list(names) for names in record.rounds],
        "seats": [
            {
                "seat": entry.seat,
                "split": _split_to(entry.split),
                "bid": entry.bid,
                "hp_start": entry.hp_start,
                "hp_end": entry.hp_end,
            }
            for entry in record.seats
        ],
        "strikes": [_strike_to(strike) for strike in record.strikes],
        "silenced": list(record.silenced),
    }


def _seat_turn_from(data: Mapping[str, Any]) -> SeatTurn:
    split = _split_from(data["split"])
    if split is None:
        raise GameError(f"stored duel turn lacks the split of {data['seat']!r}")
    return SeatTurn(str(data["seat"]), split, int(data["bid"]), int(data["hp_start"]), int(data["hp_end"]))


def _record_from(data: Mapping[str, Any]) -> TurnRecord:
    return TurnRecord(
        turn=int(data["turn"]),
        rounds=tuple(tuple(str(name) for name in names) for names in data["rounds"]),
        seats=tuple(_seat_turn_from(entry) for entry in data["seats"]),
        strikes=tuple(_strike_from(strike) for strike in data["strikes"]),
        silenced=tuple(str(name) for name in data["silenced"]),
    )


def dump_state(state: DuelState) -> dict[str, Any]:
    return {
        "seats": [
            {"name": seat.name, "hp": seat.hp, "pending": _split_to(seat.pending)} for seat in state.seats
        ],
        "max_hp": state.max_hp,
        "turns": state.turns,
        "turn": state.turn,
        "phase": state.phase.value,
        "log": [_record_to(record) for record in state.log],
        "finished": state.finished,
        "result": state.result,
    }


def load_state(data: Mapping[str, Any]) -> DuelState:
    return DuelState(
        seats=tuple(
            SeatState(str(seat["name"]), int(seat["hp"]), _split_from(seat["pending"]))
            for seat in data["seats"]
        ),
        max_hp=int(data["max_hp"]),
        turns=int(data["turns"]),
        turn=int(data["turn"]),
        phase=Phase(str(data["phase"])),
        log=tuple(_record_from(record) for record in data["log"]),
        finished=bool(data["finished"]),
        result=str(data["result"]),
    )
