# SPDX-License-Identifier: GPL-3.0-or-later
"""A battle waiting for the attacker's choice (seed 003, 15 Limited Intelligence 1; design/flattop.md).

When an armed AF ends its move in a hex with enemy ships or an enemy base and its
orders said ATTACK (a FLY path ending ``ATTACK``, a search reaction ``IF SHIPS
ATTACK``, or an AF that rendezvoused with such a searcher), the turn stops before
its Combat Phase and the attacking side gets a short choice sub-step
(``T<n>.strike``): "A player Air Attacking enemy TF's is told the precise makeup
of the TF's in the hex ... when he declares that he will be making an attack in
that hex. ... After the precise report is given, he then declares what TF's/ships
he will attack."

:class:`Battle` is that pause as state: the strikes with their targets as the
attacker may name them (TFs lettered A, B, ... per hex; ships numbered per type
inside each TF, never named), and the warning each defending place had of the
approach (16.11, measured when the AFs flew). A later phase ``losses`` is the
second choice of 15 LI 3 (the attacker ranks the plane types present).

Labels are given in an order that says nothing the attacker may not know: TFs by
their precise makeup (what he is told anyway), ships by type, then by damage seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import Altitude, ShipType, Side, TaskForce

#: The seed's own order of ship types in a makeup report (15 LI 1's example: "1 BB, 2 CA ... 3 DD and 2 AP").
TYPE_ORDER: tuple[ShipType, ...] = (
    ShipType.CV, ShipType.CVL, ShipType.AV, ShipType.CAV, ShipType.BB, ShipType.CA, ShipType.CL,
    ShipType.DD, ShipType.APD, ShipType.AP, ShipType.AO, ShipType.PG, ShipType.SS,
)  # fmt: skip
#: The default target priority when a side has none standing (design default, said in the letters).
DEFAULT_PRIORITY: tuple[str, ...] = (
    "CV",
    "CVL",
    "BB",
    "CA",
    "CAV",
    "AV",
    "CL",
    "AP",
    "AO",
    "APD",
    "DD",
    "PG",
)
STRIKE, LOSSES = "strike", "losses"
#: the sub-steps of a surface battle (``hour.surface_flow``)
ENGAGE, BHT, GUNNERY, TORPEDO, BREAKTHROUGH = "engage", "bht", "gunnery", "torpedo", "breakthrough"


@dataclass(frozen=True)
class ShipLabel:
    """``A-CV1``: TF letter, type, number within the TF; ``name`` is referee data, never shown."""

    label: str
    tf: int
    name: str


@dataclass(frozen=True)
class Strike:
    """One AF that reached an enemy hex to attack; ``approach`` is its path up to that hex."""

    side: Side
    af: int
    hex: Hex
    altitude: Altitude
    warning: int = 0  # 16.11: contiguous approach hexes the defender saw (ready CAP)


@dataclass(frozen=True)
class Target:
    """The enemy in one attacked hex, labelled for one attacking side."""

    side: Side  # the attacking side
    hex: Hex
    tfs: tuple[tuple[str, int], ...]  # (letter, TF number)
    ships: tuple[ShipLabel, ...]
    base: str | None = None  # the enemy base in the hex, by name (bases are public)


@dataclass(frozen=True)
class LossChoice:
    """15 LI 3: the attacker chooses which of the defender's planes are lost at ``place``."""

    side: Side  # the side that chooses (the attacker)
    label: str  # the place as the attacker knows it: a ship label or "BASE <name>"
    place: str  # referee: the ship's or base's name
    owner: Side
    planes: tuple[str, ...]  # the types present (what the attacker is told)
    taken: tuple[tuple[str, str, int], ...]  # referee: (box, plane, factors) lost by the default ranking


@dataclass(frozen=True)
class Battle:
    """The turn's Combat Phase waiting for a choice sub-step."""

    turn: int
    phase: str  # STRIKE | LOSSES
    strikes: tuple[Strike, ...] = ()
    targets: tuple[Target, ...] = ()
    losses: tuple[LossChoice, ...] = ()
    # Kept for the Combat Phase fought after the choice: fighter sweeps (side, AF) and the
    # 14.13.2 interceptions that succeeded during movement (side, AF, enemy AF, hex).
    sweeps: tuple[tuple[Side, int], ...] = ()
    interceptions: tuple[tuple[Side, int, int, Hex], ...] = ()

    def choosers(self) -> frozenset[str]:
        if self.phase == LOSSES:
            return frozenset(c.side.value for c in self.losses)
        return frozenset(s.side.value for s in self.strikes)

    def target_of(self, side: Side, h: Hex) -> Target | None:
        return next((t for t in self.targets if t.side is side and t.hex == h), None)

    def strikes_of(self, side: Side) -> tuple[Strike, ...]:
        return tuple(s for s in self.strikes if s.side is side)


def label_target(
    side: Side, h: Hex, tfs: Sequence[TaskForce], base: str | None, makeups: Sequence[str]
) -> Target:
    """Letters for the TFs (ordered by their makeup text, then number) and per-type ship numbers."""
    order = sorted(zip(makeups, tfs, strict=True), key=lambda pair: (pair[0], pair[1].number))
    letters: list[tuple[str, int]] = []
    ships: list[ShipLabel] = []
    for i, (_, tf) in enumerate(order):
        letter = chr(ord("A") + i)
        letters.append((letter, tf.number))
        ranked = sorted(tf.afloat, key=lambda s: (TYPE_ORDER.index(s.type), s.hits, s.name))
        seen: dict[ShipType, int] = {}
        for ship in ranked:
            seen[ship.type] = seen.get(ship.type, 0) + 1
            ships.append(ShipLabel(f"{letter}-{ship.type.value}{seen[ship.type]}", tf.number, ship.name))
    return Target(side, h, tuple(letters), tuple(ships), base)


@dataclass(frozen=True)
class SurfaceFight:
    """The surface battles of this hour: the hexes still to fight (the first is on), the phase."""

    turn: int
    hexes: tuple[Hex, ...]
    index: int = 0
    phase: str = ENGAGE
    positions: tuple[tuple[str, str], ...] = ()
    declared: tuple[tuple[str, int], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    breaker: str | None = None

    @property
    def key(self) -> str:
        return f"T{self.turn}.surface{self.index + 1}.{self.phase}"
