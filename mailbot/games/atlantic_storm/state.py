# SPDX-License-Identifier: GPL-3.0-or-later
"""The Atlantic Storm timeline game's state and its JSON form.

The sheet is the whole selection history, so the first two columns, the
examined count and the selected convoys are derived from it, never stored
twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mailbot.core.defaults import DesignDefault, cite, dump_defaults, load_defaults
from mailbot.games.atlantic_storm.deck import DeckPart, Piles
from mailbot.games.atlantic_storm.timeline import CONVOYS, SheetRow, columns_after


@dataclass(frozen=True)
class PlayRecord:
    """What one seat reported for one convoy; discards are shown to that seat only."""

    convoy: int
    seat: str
    played: tuple[str, ...]
    discarded: tuple[str, ...]


@dataclass(frozen=True)
class StormState:
    seats: tuple[str, ...]
    enhanced: bool
    parts: tuple[DeckPart, ...]
    piles: Piles
    sheet: tuple[SheetRow, ...] = ()
    current: int = 0  # the selected convoy whose play is awaited; 0 once the timeline is done
    plays: tuple[PlayRecord, ...] = ()
    #: the design defaults in force (data/defaults.toml), as the letters state them
    defaults: tuple[DesignDefault, ...] = ()

    def cite(self, key: str) -> str:
        return cite(self.defaults, key)

    @property
    def finished(self) -> bool:
        return self.current == 0

    @property
    def selected(self) -> tuple[int, ...]:
        return tuple(row.convoy for row in self.sheet if row.selected)

    @property
    def next_convoy(self) -> int:
        """The convoy examined next; 41 when all forty have been."""
        return CONVOYS + 1 - columns_after(self.sheet)[1]

    def result(self) -> str:
        chosen = self.selected
        listed = " ".join(f"C{convoy}" for convoy in chosen) or "none"
        return f"All 40 convoys examined: {len(chosen)} selected for play ({listed})."


def _row_to_dict(row: SheetRow) -> dict[str, Any]:
    return {
        "balance": row.balance,
        "remaining": row.remaining,
        "modifier": row.modifier,
        "roll": row.roll,
        "selected": row.selected,
    }


def _row_from(data: Mapping[str, Any]) -> SheetRow:
    return SheetRow(
        int(data["balance"]),
        int(data["remaining"]),
        int(data["modifier"]),
        int(data["roll"]),
        bool(data["selected"]),
    )


def _cards(values: Any) -> tuple[str, ...]:
    return tuple(str(card) for card in values)


def dump_state(state: StormState) -> dict[str, Any]:
    return {
        "seats": list(state.seats),
        "enhanced": state.enhanced,
        "parts": [{"year": p.year, "name": p.name, "cards": list(p.cards)} for p in state.parts],
        "draw": list(state.piles.draw),
        "discard": list(state.piles.discard),
        "removed": list(state.piles.removed),
        "hands": {seat: list(cards) for seat, cards in state.piles.hands.items()},
        "sheet": [_row_to_dict(row) for row in state.sheet],
        "current": state.current,
        "plays": [
            {"convoy": p.convoy, "seat": p.seat, "played": list(p.played), "discarded": list(p.discarded)}
            for p in state.plays
        ],
        "defaults": dump_defaults(state.defaults),
    }


def load_state(data: Mapping[str, Any]) -> StormState:
    piles = Piles(
        draw=_cards(data["draw"]),
        discard=_cards(data["discard"]),
        removed=_cards(data["removed"]),
        hands={str(seat): _cards(cards) for seat, cards in data["hands"].items()},
    )
    return StormState(
        seats=tuple(str(seat) for seat in data["seats"]),
        enhanced=bool(data["enhanced"]),
        parts=tuple(DeckPart(int(p["year"]), str(p["name"]), _cards(p["cards"])) for p in data["parts"]),
        piles=piles,
        sheet=tuple(_row_from(row) for row in data["sheet"]),
        current=int(data["current"]),
        plays=tuple(
            PlayRecord(int(p["convoy"]), str(p["seat"]), _cards(p["played"]), _cards(p["discarded"]))
            for p in data["plays"]
        ),
        defaults=load_defaults(data.get("defaults", ())),
    )
