# SPDX-License-Identifier: GPL-3.0-or-later
"""Surface combat and bombardment (seed 003, 19, 19.8, 19.9.4, 19.10.3, 19.11; reference A.11.7).

Seed 003, 19: "Each participant reveals to his opponent the types of ships in his TF, but not the
names, and secretly numbers each type (BB #1, BB #2, CA #1, etc.) He also reveals which group
(gunnery, torpedo, screened) each ship is in, and gives an approximate damage report on any damaged
ships in his group, as in "Limited Intelligence" above. Also, each combatant will need to send his
desired BHT number (1 through 6.) ... Once ship types, attack positions and BHT's are known, each
combatant simply declares how many gunnery factors are attacking each ship (example: "19 factors
fire at BB #2".) Then the same is done for the torpedo round. After combat, each side may report its
total surviving gunnery factor at +/- 10%, rounding fractions up. If it appears that the ratio could
possibly be 3-1, then exact factors must be reported to determine if a breakthrough occurs.
Breakthroughs are handled in the same manner (minus torpedo rounds, of course) as the initial
battle. Note: When reporting gunnery factors remaining, report just the total, not its distribution
among ships. Individual ships may not split their gunnery factors among different targets."

19.8: "DD's and APD's can fire twice before requiring replenishing. This can be one surface combat
and one bombardment, or two of either." 19.9.4: "DDs may bombard but only with a BHT of 4. Their CRT
number is added to the CRT number of the other ships (for example, if a CA with a 5 gunnery factor
and 6 DD's are bombarding, add the CA's 1.5 and the DDs' 0.7 to make a 2.2 overall.)" 19.10.3:
"Bombardments on Night turns have a base BHT modifier of (-1.)" 19.11: "Surface combat against
anchored or crippled ships that are unescorted by non-crippled, non-anchored ships: Each side
selects BHT normally. Attacker uses his own declared BHT plus 50%; the defender (if able to respond)
does so with a BHT of half of the attacker's declaration, and his own BHT is ignored. Torpedo
attacks may always be made against such ships, regardless of BHT. If the target uses gunnery
against the torpedo line, he uses the average of the two BHT's as per normal rules. Crippled or
anchored ships may not launch torpedo attacks."

The standard procedure underneath (reference A.11.7): positions gunnery / torpedo / screen (screened
ships neither attack nor are attacked; crippled and anchored ships must screen); the round's BHT is
the SUM of the two secret numbers; only BB, CA and CAV gunnery may be aimed at enemy BBs; fire is
simultaneous; torpedoes only from ships that survived gunnery, only at a BHT of 10+ by day or 7+ at
night (else spent with no effect), at a fixed BHT (Japanese 15, Allied 10); a side with 3:1 in
surviving gunnery (Gunnery and Torpedo positions) fires a breakthrough round at the same BHT,
answered only by the enemy's Screen, whose ships are all exposed; each gunnery round costs
Ammunition Factors equal to the BHT, a ship with less fires half its Gunnery (rounded up) and is
emptied; bombardment by CAV, CA and CL at BHT 8 for 8 Ammunition Factors; target crippled +1,
anchored +1. Seed 003, Towing: the towing "pair" is "treated as an anchored target"
(:attr:`Combatant.towing`; ``map.towing`` decides who tows whom and the tower's halved gunnery,
handed in through :attr:`Combatant.gunnery_limits`).

The numbers are ``data/tables/surface.toml``: :class:`SurfaceRules` (its field defaults are the
shipped file's, a test holds them equal), ``design_defaults`` names the sections a letter must call
a design default, and :data:`DESIGN_DEFAULTS` the readings made in code. Everything is pure: every
roll comes from the ``Dice`` handed in, under a label built from the battle's label, the stage, the
firing side and the target's name.

This module holds the tables, the sides (:class:`Combatant`, what each reveals) and the BHTs. By
subject beside it: :mod:`.surface_battle` (one battle, who may fire at whom, the declarations),
:mod:`.surface_rounds` (gunnery, torpedo and breakthrough rounds, the +/-10% report) and
:mod:`.bombardment`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.combat.battle import TYPE_ORDER
from mailbot.games.flattop.combat.damage import Speed, speed
from mailbot.games.flattop.combat.intel import ship_words
from mailbot.games.flattop.tabledata import Source, Sourced, fraction, integer, parsed, rounded, table_sources
from mailbot.games.flattop.tabledata import rounding as rounding_word
from mailbot.games.flattop.units import Ship, ShipType, Side

RULE_19 = "seed 003, 19"
RULE_19_8 = "seed 003, 19.8; she replenishes an hour at anchor in a friendly harbour (supply.toml)"
RULE_19_9_4 = "seed 003, 19.9.4"
RULE_19_10_3 = "seed 003, 19.10.3"
RULE_19_11 = "seed 003, 19.11"
RULE_STANDARD = "reference A.11.7 (standard 19)"

#: "Biggest" for the default allocation: the order a silent side's guns pick targets in.
SIZE_ORDER: tuple[ShipType, ...] = (
    ShipType.BB, ShipType.CV, ShipType.CA, ShipType.CAV, ShipType.CVL, ShipType.CL, ShipType.AV,
    ShipType.DD, ShipType.APD, ShipType.AO, ShipType.AP, ShipType.PG, ShipType.SS,
)  # fmt: skip
#: The types a silent side puts in the gunnery line (default_positions); the rest screen.
LINE_TYPES = frozenset({ShipType.BB, ShipType.CA, ShipType.CAV, ShipType.CL, ShipType.DD, ShipType.APD})

#: Readings this module makes in code where the rules are silent (name: what and why).
DESIGN_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {
        "position": "a ship given no position screens (she neither fires nor is fired on)",
        "default_positions": "a silent side: BB, CA, CAV, CL, DD, APD in the gunnery line, the rest, "
        "every crippled, anchored or towing ship and every DD or APD out of 19.8 firings screen",
        "default_allocation": "a silent side: each ship fires all her factors at the biggest enemy ship "
        "she may aim at (BB, CV, CA, CAV, CVL, CL, AV, DD, APD, AO, AP, PG, SS; lowest number first), "
        "ships reported dead in the water last",
        "one_roll_per_target": "the factors a side aims at one ship add up to one CRT roll (19: '19 "
        "factors fire at BB #2')",
        "torpedoes_one_target": "a ship's torpedoes, like her guns, go at one target (19: 'the same is "
        "done for the torpedo round')",
        "modifiers_19_11": "19.11's BHTs still take the crippled/anchored target modifiers",
        "both_unescorted": "when both sides are crippled/anchored and unescorted, both use the normal "
        "BHT and every ship is exposed",
        "maximal_report": "DECEPTION maximal reports the highest surviving gunnery allowed",
        "firings": "19.8: a DD/APD's firings count per battle or bombardment, not per round",
        "bombard_dash": "a bombardment group reading '-' adds nothing to the CRT number; only when every "
        "group reads '-' does the seed's 2-or-12 rule apply",
        "bombard_ammo": "a bombarding ship short of ammunition fires half her gunnery, as in a gunnery round",
        "empty_magazines": "A.11.7 read as written: a ship with fewer Ammunition Factors than the BHT, none "
        "included, fires half her gunnery",
        "disclosure_words": "19's 'approximate damage report' uses Limited Intelligence 3's day words, "
        "by night too",
    }
)

_META = ("default", "source")


class Position(StrEnum):
    GUNNERY = "gunnery"
    TORPEDO = "torpedo"
    SCREEN = "screen"


class Stage(StrEnum):
    """The rounds of a surface battle: gunnery, torpedoes, then perhaps a breakthrough."""

    GUNNERY = "gunnery"
    TORPEDO = "torpedo"
    BREAKTHROUGH = "breakthrough"


# --- the table ----------------------------------------------------------------------------------


def frozen_map(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """A read-only copy, so a rules record or a round's result cannot be changed after the fact."""
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class SurfaceRules(Sourced):
    """``surface.toml`` parsed; the defaults are the shipped file (``test_surface`` holds them equal)."""

    declared_low: int = 1
    declared_high: int = 6
    big_guns: frozenset[ShipType] = frozenset({ShipType.BB, ShipType.CA, ShipType.CAV})
    protected: frozenset[ShipType] = frozenset({ShipType.BB})
    crippled_modifier: int = 1
    anchored_modifier: int = 1
    torpedo_day_min: int = 10
    torpedo_night_min: int = 7
    torpedo_bht: Mapping[Side, int] = field(
        default_factory=lambda: frozen_map({Side.JAPANESE: 15, Side.ALLIED: 10})
    )
    breakthrough_ratio: int = 3
    report_spread: Fraction = Fraction(1, 10)
    report_rounding: str = "up"
    short_share: Fraction = Fraction(1, 2)
    short_rounding: str = "up"
    counted_types: frozenset[ShipType] = frozenset({ShipType.DD, ShipType.APD})
    firings_limit: int = 2
    bombard_ammo: int = 8
    bombard_night: int = -1
    bombard_bht: Mapping[ShipType, int] = field(
        default_factory=lambda: frozen_map(
            {ShipType.CAV: 8, ShipType.CA: 8, ShipType.CL: 8, ShipType.DD: 4, ShipType.APD: 4}
        )
    )
    attacker_bonus: Fraction = Fraction(1, 2)
    defender_share: Fraction = Fraction(1, 2)
    attacker_rounding: str = "up"
    defender_rounding: str = "down"
    torpedo_line_rounding: str = "up"
    sources: Mapping[str, Source] = field(default_factory=dict, compare=False)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SurfaceRules:
        """``surface.toml``; a malformed table is a GameError (it ships with the code)."""
        rules = parsed("surface.toml", _read, data)
        if not 1 <= rules.declared_low <= rules.declared_high or rules.breakthrough_ratio < 1:
            raise GameError("surface.toml: declared BHTs must run 1..n and the breakthrough ratio be >= 1")
        return rules


DEFAULT_RULES = SurfaceRules()


def surface_rules(tables: Mapping[str, Any]) -> SurfaceRules:
    """The surface rules of a game: ``tables`` holds every data table by file stem."""
    if "surface" not in tables:
        raise GameError("the surface combat table (surface.toml) is missing")
    return SurfaceRules.from_mapping(tables["surface"])


def _read(data: Mapping[str, Any]) -> SurfaceRules:
    aim, torpedo, ammo, bombard = data["aim"], data["torpedo"], data["ammunition"], data["bombardment"]
    unescorted, rounding = data["unescorted"], data["unescorted"]["rounding"]
    groups = {
        ShipType(str(kind)): integer(group["bht"])
        for group in bombard["groups"].values()
        for kind in group["types"]
    }
    return SurfaceRules(
        declared_low=integer(data["declared"]["lowest"]),
        declared_high=integer(data["declared"]["highest"]),
        big_guns=_types(aim["big_guns"]),
        protected=_types(aim["protected"]),
        crippled_modifier=integer(data["modifiers"]["crippled"]),
        anchored_modifier=integer(data["modifiers"]["anchored"]),
        torpedo_day_min=integer(torpedo["day_min_bht"]),
        torpedo_night_min=integer(torpedo["night_min_bht"]),
        torpedo_bht=frozen_map({side: integer(torpedo["bht"][side.value]) for side in Side}),
        breakthrough_ratio=integer(data["breakthrough"]["ratio"]),
        report_spread=fraction(data["report"]["spread"]),
        report_rounding=rounding_word(data["report"]["rounding"]),
        short_share=fraction(ammo["short_share"]),
        short_rounding=rounding_word(ammo["short_rounding"]),
        counted_types=_types(ammo["counted"]["types"]),
        firings_limit=integer(ammo["counted"]["firings"]),
        bombard_ammo=integer(bombard["ammo"]),
        bombard_night=integer(bombard["night"]["modifier"]),
        bombard_bht=frozen_map(groups),
        attacker_bonus=fraction(unescorted["attacker_bonus"]),
        defender_share=fraction(unescorted["defender_share"]),
        attacker_rounding=rounding_word(rounding["attacker"]),
        defender_rounding=rounding_word(rounding["defender"]),
        torpedo_line_rounding=rounding_word(rounding["torpedo_line"]),
        sources=frozen_map(table_sources(data)),
    )


def _types(values: Any) -> frozenset[ShipType]:
    return frozenset(ShipType(str(v)) for v in values)


# --- 19.8: DD and APD firings ---------------------------------------------------------------------


@dataclass(frozen=True)
class Firing:
    """A DD or APD fired her guns at ``occasion`` (a surface battle's or a bombardment's label)."""

    ship: str
    occasion: str


@dataclass(frozen=True)
class Firings:
    """19.8: "DD's and APD's can fire twice before requiring replenishing." The game state holds it."""

    fired: tuple[Firing, ...] = ()

    def count(self, name: str) -> int:
        return len({f.occasion for f in self.fired if f.ship == name})

    def has_fired(self, name: str, occasion: str) -> bool:
        return Firing(name, occasion) in self.fired

    def may_fire(self, ship: Ship, occasion: str, *, rules: SurfaceRules = DEFAULT_RULES) -> bool:
        """Ships with an ammunition record always; a DD or APD again in the same battle, or if she
        has fired fewer times than the limit since she last replenished."""
        if ship.type not in rules.counted_types or self.has_fired(ship.name, occasion):
            return True
        return self.count(ship.name) < rules.firings_limit

    def record(self, names: Iterable[str], occasion: str) -> Firings:
        new = tuple(Firing(name, occasion) for name in sorted(set(names)))
        return Firings(self.fired + tuple(f for f in new if f not in self.fired))

    def replenish(self, name: str) -> Firings:
        return Firings(tuple(f for f in self.fired if f.ship != name))


NO_FIRINGS = Firings()


# --- the sides ------------------------------------------------------------------------------------


def numbering(ships: Sequence[Ship]) -> dict[str, str]:
    """Ship name -> "BB #1": per type, in the seed's type order, then hits, then name (never shown)."""
    ranked = sorted(
        (s for s in ships if not s.sunk), key=lambda s: (TYPE_ORDER.index(s.type), s.hits, s.name)
    )
    seen: dict[ShipType, int] = {}
    labels: dict[str, str] = {}
    for ship in ranked:
        seen[ship.type] = seen.get(ship.type, 0) + 1
        labels[ship.name] = f"{ship.type.value} #{seen[ship.type]}"
    return labels


@dataclass(frozen=True)
class Combatant:
    """One side in a surface battle. ``positions`` by ship name (missing: screen); ``towing`` names
    both ships of every towing pair ("treated as an anchored target", seed 003 Towing);
    ``gunnery_limits`` caps a ship's gunnery (a tow ship's half, from ``map.towing.tow_gunnery``);
    ``labels`` freezes the numbering at the start of the battle (:meth:`with_ships` keeps it)."""

    side: Side
    ships: tuple[Ship, ...]
    positions: Mapping[str, Position]
    towing: frozenset[str] = frozenset()
    gunnery_limits: Mapping[str, int] = field(default_factory=dict)
    labels: Mapping[str, str] | None = None

    @property
    def numbers(self) -> Mapping[str, str]:
        return self.labels if self.labels is not None else numbering(self.ships)

    @property
    def afloat(self) -> tuple[Ship, ...]:
        return tuple(s for s in self.ships if not s.sunk)

    def position(self, name: str) -> Position:
        return self.positions.get(name, Position.SCREEN)

    def ship(self, name: str) -> Ship | None:
        return next((s for s in self.ships if s.name == name), None)

    def by_number(self, label: str) -> Ship | None:
        name = next((n for n, shown in self.numbers.items() if shown == label), None)
        return None if name is None else self.ship(name)

    def number(self, name: str) -> str:
        return self.numbers.get(name, "?")

    def gunnery(self, ship: Ship) -> int:
        """Her gunnery in this battle: her Gunnery Factor, capped by a limit handed in (towing)."""
        return max(0, min(ship.gunnery, self.gunnery_limits.get(ship.name, ship.gunnery)))

    def with_ships(self, ships: Iterable[Ship]) -> Combatant:
        """The same side with the ships of ``ships`` that are hers replaced; numbering kept."""
        by_name = {s.name: s for s in ships}
        mine = tuple(by_name.get(s.name, s) for s in self.ships)
        return replace(self, ships=mine, labels=frozen_map(self.numbers))


def disabled(c: Combatant, ship: Ship, *, turn: int) -> bool:
    """Crippled (21.8.1: two half-speed restrictions count), anchored, or in a towing pair."""
    return _crippled(ship, turn) or _anchored(c, ship)


def _anchored(c: Combatant, ship: Ship) -> bool:
    return ship.anchored or ship.name in c.towing


def _crippled(ship: Ship, turn: int) -> bool:
    return ship.crippled or (not ship.sunk and speed(ship, turn) is Speed.STOPPED)


def _by_number_order(c: Combatant) -> list[Ship]:
    def key(ship: Ship) -> tuple[int, int]:
        return TYPE_ORDER.index(ship.type), serial(c.number(ship.name))

    return sorted((s for s in c.afloat if s.name in c.numbers), key=key)


def disclosure(c: Combatant, *, turn: int) -> tuple[str, ...]:
    """What the OTHER side is told (19): "BB #1 (gunnery, smoking)", in number order; names never.
    The damage words are Limited Intelligence 3's day words (``intel.ship_words``)."""
    lines = []
    for ship in _by_number_order(c):
        words = ship_words(ship, turn=turn)
        lines.append(f"{c.number(ship.name)} ({c.position(ship.name).value}{', ' + words if words else ''})")
    return tuple(lines)


def check_positions(c: Combatant, *, turn: int) -> tuple[str, ...]:
    """Positions naming no ship of the side; crippled, anchored and towing ships not screening."""
    problems = [f"no ship {name!r} in this force" for name in sorted(c.positions) if c.ship(name) is None]
    for ship in c.afloat:
        if disabled(c, ship, turn=turn) and c.position(ship.name) is not Position.SCREEN:
            problems.append(f"{ship.name} is crippled, anchored or towing: she must screen ({RULE_STANDARD})")
    return tuple(problems)


def default_positions(
    c: Combatant,
    *,
    turn: int,
    firings: Firings = NO_FIRINGS,
    occasion: str = "",
    rules: SurfaceRules = DEFAULT_RULES,
) -> dict[str, Position]:
    """A silent side (DESIGN_DEFAULTS): BB, CA, CAV, CL, DD, APD with guns in the gunnery line; a DD
    or APD that has used her 19.8 firings screens (in the line she could only be shot at)."""
    return {
        ship.name: Position.GUNNERY
        if ship.type in LINE_TYPES
        and c.gunnery(ship) > 0
        and not disabled(c, ship, turn=turn)
        and firings.may_fire(ship, occasion, rules=rules)
        else Position.SCREEN
        for ship in c.afloat
    }


# --- BHTs ------------------------------------------------------------------------------------------


def round_bht(a: int, b: int, *, rules: SurfaceRules = DEFAULT_RULES) -> int:
    """Reference A.11.7: "The sum of the two dice is the BHT"; each number 1-6 (seed 003, 19)."""
    for number in (a, b):
        if isinstance(number, bool) or not rules.declared_low <= number <= rules.declared_high:
            raise GameError(
                f"a surface BHT number is {rules.declared_low} through {rules.declared_high}, "
                f"not {number!r} ({RULE_19})"
            )
    return a + b


def unescorted(c: Combatant, *, turn: int) -> bool:
    """19.11: the side's ships afloat are all crippled or anchored (towing pairs count as anchored)."""
    ships = c.afloat
    return bool(ships) and all(disabled(c, ship, turn=turn) for ship in ships)


def effective_bhts(
    attacker_bht: int, defender_bht: int, *, target_unescorted: bool, rules: SurfaceRules = DEFAULT_RULES
) -> tuple[int, int]:
    """(attacker's BHT, defender's BHT). Normally both the sum; 19.11: "Attacker uses his own declared
    BHT plus 50%; the defender ... does so with a BHT of half of the attacker's declaration, and his own
    BHT is ignored" (attacker rounds up, defender down: ``unescorted.rounding``, a design default)."""
    total = round_bht(attacker_bht, defender_bht, rules=rules)
    if not target_unescorted:
        return total, total
    attack = rounded(attacker_bht * (1 + rules.attacker_bonus), rules.attacker_rounding)
    defence = rounded(attacker_bht * rules.defender_share, rules.defender_rounding)
    return attack, defence


def torpedo_line_bht(attacker_bht: int, defender_bht: int, *, rules: SurfaceRules = DEFAULT_RULES) -> int:
    """19.11: "If the target uses gunnery against the torpedo line, he uses the average of the two
    BHT's as per normal rules": the two declared numbers, averaged (rounded up, design default)."""
    round_bht(attacker_bht, defender_bht, rules=rules)  # both must be declarable numbers
    return rounded(Fraction(attacker_bht + defender_bht, 2), rules.torpedo_line_rounding)


def torpedoes_allowed(bht: int, *, night: bool, rules: SurfaceRules = DEFAULT_RULES) -> bool:
    """Reference A.11.7: torpedoes only if the BHT is >= 10 by day or >= 7 at night."""
    return bht >= (rules.torpedo_night_min if night else rules.torpedo_day_min)


@dataclass(frozen=True)
class FireBht:
    base: int  # before target modifiers: what a gunnery round costs in ammunition
    modifiers: Mapping[str, int]
    value: int
    text: str


def target_modifiers(c: Combatant, ship: Ship, *, turn: int, rules: SurfaceRules) -> dict[str, int]:
    """Reference A.11.7: target crippled +1, target anchored +1 (a towing pair is anchored)."""
    mods: dict[str, int] = {}
    if _crippled(ship, turn):
        mods["target crippled"] = rules.crippled_modifier
    if _anchored(c, ship):
        mods["target anchored" if ship.anchored else "target a towing pair (Towing)"] = (
            rules.anchored_modifier
        )
    return mods


def survived(ship: Ship) -> bool:
    """Still in the fight: neither sunk nor destroyed."""
    return not ship.sunk and not ship.destroyed


def serial(number: str) -> int:
    """``"BB #2"`` -> 2."""
    return int(number.partition(" #")[2] or 0)
