# SPDX-License-Identifier: GPL-3.0-or-later
"""Bombardment (seed 003, 19.8, 19.9.4, 19.10.3; reference A.11.7).

CAV, CA and CL bombard at BHT 8 for 8 Ammunition Factors. 19.9.4: "DDs may bombard but only with a
BHT of 4. Their CRT number is added to the CRT number of the other ships (for example, if a CA with a
5 gunnery factor and 6 DD's are bombarding, add the CA's 1.5 and the DDs' 0.7 to make a 2.2
overall.)" 19.10.3: "Bombardments on Night turns have a base BHT modifier of (-1.)" The numbers are
:class:`~mailbot.games.flattop.combat.surface.SurfaceRules` (``surface.toml``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.crt import CRITICAL_BASES, Cell, CombatTable, CrtResult
from mailbot.games.flattop.combat.surface import (
    DEFAULT_RULES,
    NO_FIRINGS,
    RULE_19_8,
    RULE_19_9_4,
    RULE_19_10_3,
    RULE_STANDARD,
    Firings,
    SurfaceRules,
    frozen_map,
    survived,
)
from mailbot.games.flattop.combat.surface_rounds import gun_factors
from mailbot.games.flattop.units import Ship

# --- bombardment -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BombardGroup:
    """The ships bombarding at one BHT: their gunnery read once on the CRT."""

    bht: int
    ships: tuple[str, ...]
    factors: int
    cell: Cell  # the CRT number (expected hits on the curve-fitted table); None: "-"
    text: str


@dataclass(frozen=True)
class Bombardment:
    """A bombardment's CRT numbers added up (19.9.4) and resolved; the caller lands ``result.hits`` on
    the base (``damage.hit_base``, HitKind.GUNNERY, ``critical_check=result.critical_check``)."""

    groups: tuple[BombardGroup, ...]
    expected: Cell  # the sum; None when every group read "-"
    result: CrtResult
    ships: tuple[Ship, ...]  # after the ammunition they spent
    ammo_used: Mapping[str, int]
    firings: Firings
    lines: tuple[str, ...]


def bombard_problems(
    ships: Sequence[Ship],
    *,
    firings: Firings,
    occasion: str,
    fought: Collection[str] = (),
    bombarded: bool = False,
    rules: SurfaceRules = DEFAULT_RULES,
) -> tuple[str, ...]:
    """Why these ships may not bombard (empty: they may). ``fought``: ships that took part in other
    surface combat this turn (screened and unused ones excepted, A.11.7); ``bombarded``: the side has
    bombarded this hex this turn already (A.11.7: "At most one bombardment per turn")."""
    problems = [f"one bombardment a turn ({RULE_STANDARD})"] if bombarded else []
    if not ships:
        problems.append("no ships bombard")
    for ship in ships:
        if ship.type not in rules.bombard_bht:
            kinds = ", ".join(sorted(t.value for t in rules.bombard_bht))
            problems.append(f"{ship.name}: only {kinds} bombard ({RULE_STANDARD}; {RULE_19_9_4})")
        elif not survived(ship):
            problems.append(f"{ship.name} is sinking: she fires no more")
        elif ship.name in fought:
            problems.append(
                f"{ship.name} fought a surface battle this turn: she may not bombard ({RULE_STANDARD})"
            )
        elif not firings.may_fire(ship, occasion, rules=rules):
            problems.append(
                f"{ship.name} has fired {rules.firings_limit} times: she must replenish ({RULE_19_8})"
            )
    return tuple(problems)


def resolve_expected(
    table: CombatTable, expected: Cell, dice: Dice, label: str, *, rule: str, head: str
) -> CrtResult:
    """A CRT number that is not one cell (19.9.4's sum) read as the table reads a cell: one 2d6 base
    roll, ``CombatTable.hits_for``; 21.8's critical check on 2+ hits from a base roll of 3, 7 or 11."""
    roll = dice.dice(label, "2d6", rule=f"{rule}: CRT {table.name}")
    hits = table.hits_for(expected, roll.total)
    critical = hits >= 2 and roll.total in CRITICAL_BASES
    shown = (
        "no result ('-': hits only on 2 or 12, seed 003, 15)" if expected is None else f"{_show(expected)}"
    )
    faces = "+".join(str(face) for face in roll.faces)
    text = f"{head}: CRT number {shown}: 2d6 {faces}={roll.total} -> {hits} hit(s)"
    text += "; critical hit check (seed 003, 21.8)" if critical else ""
    return CrtResult(hits, roll.total, expected is None, critical, text)


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def bombard(
    ships: Sequence[Ship],
    *,
    night: bool,
    table: CombatTable,
    dice: Dice,
    label: str,
    firings: Firings = NO_FIRINGS,
    rules: SurfaceRules = DEFAULT_RULES,
) -> Bombardment:
    """A bombardment (A.11.7; 19.9.4; 19.10.3): each BHT group (CAV/CA/CL at 8, DDs at 4) reads the CRT
    with its total gunnery, at -1 by night; the CRT numbers are added and resolved by one 2d6 base roll.
    CAV, CA and CL spend 8 Ammunition Factors (fewer: half gunnery); DDs and APDs count a firing (19.8).
    ``label`` names the bombardment: the roll's label and the 19.8 occasion. Ineligible ships: GameError."""
    problems = bombard_problems(ships, firings=firings, occasion=label, rules=rules)
    if problems:
        raise GameError("bombardment: " + "; ".join(problems))
    night_mod = rules.bombard_night if night else 0
    fired = [_bombard_fire(ship, rules) for ship in ships]
    by_bht: dict[int, list[tuple[str, int]]] = {}
    for ship, (factors, _, _) in zip(ships, fired, strict=True):
        by_bht.setdefault(rules.bombard_bht[ship.type] + night_mod, []).append((ship.name, factors))
    groups = tuple(
        _group(bht, members, table, night) for bht, members in sorted(by_bht.items(), reverse=True)
    )
    cells = [g.cell for g in groups if g.cell is not None]
    expected: Cell = sum(cells, Fraction(0)) if cells else None
    result = _bombard_roll(groups, expected, table, dice, label)
    counted = [s.name for s in ships if s.type in rules.counted_types]
    return Bombardment(
        groups=groups,
        expected=expected,
        result=result,
        ships=tuple(
            replace(ship, ammo=ship.ammo - ammo) for ship, (_, ammo, _) in zip(ships, fired, strict=True)
        ),
        ammo_used=frozen_map({ship.name: ammo for ship, (_, ammo, _) in zip(ships, fired, strict=True)}),
        firings=firings.record(counted, label),
        lines=(*(note for _, _, note in fired if note), *(g.text for g in groups), result.text),
    )


def _bombard_fire(ship: Ship, rules: SurfaceRules) -> tuple[int, int, str]:
    """Her gunnery and ammunition in a bombardment: it costs 8 (A.11.7); DDs and APDs count a firing."""
    gunnery = max(0, ship.gunnery)
    counted = ship.type in rules.counted_types
    return gun_factors(
        ship, declared=gunnery, gunnery=gunnery, bht=rules.bombard_ammo, counted=counted, rules=rules
    )


def _bombard_roll(
    groups: Sequence[BombardGroup], expected: Cell, table: CombatTable, dice: Dice, label: str
) -> CrtResult:
    if not any(g.factors for g in groups):
        return CrtResult(0, 0, False, False, "bombardment: no gunnery left, no roll -> 0 hits")
    head = f"bombardment ({' + '.join(_show(g.cell) for g in groups if g.cell is not None) or '-'})"
    return resolve_expected(table, expected, dice, label, rule=f"{RULE_STANDARD}; {RULE_19_9_4}", head=head)


def _group(bht: int, members: Sequence[tuple[str, int]], table: CombatTable, night: bool) -> BombardGroup:
    names = tuple(name for name, _ in members)
    factors = sum(f for _, f in members)
    if factors <= 0:
        return BombardGroup(bht, names, 0, None, f"{', '.join(names)}: no gunnery left at BHT {bht}: nothing")
    cell = table.cell(bht, factors)
    why = f" (night -1, {RULE_19_10_3})" if night else ""
    shown = "-" if cell is None else _show(cell)
    text = f"{', '.join(names)}: {factors} gunnery at BHT {bht}{why}: CRT {table.name} {shown}"
    return BombardGroup(bht, names, factors, cell, text)
