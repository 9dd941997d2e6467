# SPDX-License-Identifier: GPL-3.0-or-later
"""What one side knows of the enemy, as data (seed 003, 7; design/flattop.md).

A side's picture of the enemy is a list of :class:`Sighting`s: the turn,
the KIND of observer (search aircraft, TF, base, coastwatcher, radar...),
the hex, and the report as composed by :mod:`reports` (seed 003, 7.12.1-7.12.3).
Reports to players are rendered from this and nothing else, so whatever is not
in here cannot leak: no unit ids of the enemy, no ship names, no true counts
beyond what the condition level allows.

The one own-side detail kept is ``observer_key`` (e.g. ``"AF3"``): a report
is fixed per observer, contact and turn, and this is the observer part of that
key. It is the side's own designation, never an enemy fact, and reports do
not print it.

Everything is frozen; updates return a new :class:`Knowledge`. Sightings are
kept in one canonical order, so two sides that learnt the same things in a
different order hold equal (and byte-identical when dumped) knowledge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mailbot.errors import GameError

SHIPS = "ships"
PLANES = "planes"
KINDS = (SHIPS, PLANES)

#: Observer kinds, never names: a search or other air formation, a TF, a base,
#: a coastwatcher, a radar set, a submarine.
OBSERVER_KINDS = ("AF", "TF", "BASE", "CW", "RADAR", "SUB")

#: Altitude bands (7.12.1, 7.12.2 item 2): never counts per level.
BANDS = ("high", "low", "both")


@dataclass(frozen=True)
class UnitReport:
    """One TF or AF at Condition 3: exact counts by class, never names (15.1 example).

    ``counts`` and ``states`` are ``(class, number)`` and ``(class, state, number)``
    rows; states are "damaged", "crippled" and "in tow" (7.12.3).
    """

    counts: tuple[tuple[str, int], ...]
    states: tuple[tuple[str, str, int], ...] = ()
    altitude: str | None = None


@dataclass(frozen=True)
class ContactReport:
    """What an observer was told about the ships or the planes in one hex."""

    kind: str  # SHIPS | PLANES
    condition: int  # 1, 2 or 3
    altitude: str | None = None  # a BANDS value, planes only
    approx: int | None = None  # Condition 2: the stated total (+/-50%, 7.12.2 item 1)
    classes: tuple[str, ...] = ()  # Condition 2: classes present, no numbers per class
    units: tuple[UnitReport, ...] = ()  # Condition 3: one row per TF/AF, canonical order
    radar: bool = False  # radar below Condition 3 says only "planes at high altitude"


@dataclass(frozen=True)
class Sighting:
    turn: int
    observer_kind: str
    observer_key: str
    hex: str  # the hex ID as the seed writes them, e.g. "V-F24"
    report: ContactReport

    @property
    def kind(self) -> str:
        return self.report.kind

    @property
    def condition(self) -> int:
        return self.report.condition

    @property
    def key(self) -> tuple[int, str, str, str]:
        """Observer, contact and turn: the report is fixed per key (design/flattop.md)."""
        return (self.turn, self.observer_key, self.hex, self.kind)


def _order(s: Sighting) -> tuple[int, str, str, str, str]:
    return (s.turn, s.hex, s.kind, s.observer_kind, s.observer_key)


@dataclass(frozen=True)
class Knowledge:
    side: str
    sightings: tuple[Sighting, ...] = ()

    def find(self, turn: int, observer_key: str, hex_id: str, kind: str) -> Sighting | None:
        """The fixed report of this observer on this contact this turn, if any."""
        wanted = (turn, observer_key, hex_id, kind)
        return next((s for s in self.sightings if s.key == wanted), None)

    def with_sighting(self, sighting: Sighting) -> Knowledge:
        """Add a sighting; a better one replaces a worse one under the same key, never the reverse."""
        old = self.find(*sighting.key)
        if old is not None and old.condition >= sighting.condition:
            return self
        kept = tuple(s for s in self.sightings if s.key != sighting.key)
        return replace(self, sightings=tuple(sorted((*kept, sighting), key=_order)))

    def of_turn(self, turn: int) -> tuple[Sighting, ...]:
        return tuple(s for s in self.sightings if s.turn == turn)

    def saw(self, turn: int, hex_id: str, kind: str) -> bool:
        """True if any observer of this side saw that kind in that hex that turn."""
        return any(s.turn == turn and s.hex == hex_id and s.kind == kind for s in self.sightings)


# --- JSON ------------------------------------------------------------------------


def dump(knowledge: Knowledge) -> dict[str, Any]:
    """Plain JSON data; :func:`load` reads it back unchanged."""
    return {"side": knowledge.side, "sightings": [_dump_sighting(s) for s in knowledge.sightings]}


def _dump_sighting(s: Sighting) -> dict[str, Any]:
    r = s.report
    report = {
        "kind": r.kind,
        "condition": r.condition,
        "altitude": r.altitude,
        "approx": r.approx,
        "classes": list(r.classes),
        "units": [_dump_unit(u) for u in r.units],
        "radar": r.radar,
    }
    return {
        "turn": s.turn,
        "observer_kind": s.observer_kind,
        "observer_key": s.observer_key,
        "hex": s.hex,
        "report": report,
    }


def _dump_unit(u: UnitReport) -> dict[str, Any]:
    return {
        "counts": [[cls, n] for cls, n in u.counts],
        "states": [[cls, state, n] for cls, state, n in u.states],
        "altitude": u.altitude,
    }


def load(data: Mapping[str, Any]) -> Knowledge:
    """Inverse of :func:`dump`; malformed data is a stored-state bug: GameError."""
    try:
        sightings = tuple(_load_sighting(item) for item in data["sightings"])
        return Knowledge(side=str(data["side"]), sightings=tuple(sorted(sightings, key=_order)))
    except (KeyError, TypeError, ValueError) as exc:
        raise GameError(f"malformed knowledge data: {exc!r}") from exc


def _load_sighting(data: Mapping[str, Any]) -> Sighting:
    r = data["report"]
    report = ContactReport(
        kind=_one_of(r["kind"], KINDS),
        condition=_condition(r["condition"]),
        altitude=None if r["altitude"] is None else _one_of(r["altitude"], BANDS),
        approx=None if r["approx"] is None else int(r["approx"]),
        classes=tuple(str(c) for c in r["classes"]),
        units=tuple(_load_unit(u) for u in r["units"]),
        radar=bool(r["radar"]),
    )
    return Sighting(
        turn=int(data["turn"]),
        observer_kind=_one_of(data["observer_kind"], OBSERVER_KINDS),
        observer_key=str(data["observer_key"]),
        hex=str(data["hex"]),
        report=report,
    )


def _load_unit(data: Mapping[str, Any]) -> UnitReport:
    return UnitReport(
        counts=tuple((str(cls), int(n)) for cls, n in data["counts"]),
        states=tuple((str(cls), str(state), int(n)) for cls, state, n in data["states"]),
        altitude=None if data["altitude"] is None else _one_of(data["altitude"], BANDS),
    )


def _one_of(value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{value!r} is not one of {allowed}")
    return str(value)


def _condition(value: Any) -> int:
    if value not in (1, 2, 3) or isinstance(value, bool):
        raise ValueError(f"condition {value!r} is not 1, 2 or 3")
    return int(value)
