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
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.battle import TYPE_ORDER
from mailbot.games.flattop.combat.crt import CRITICAL_BASES, Cell, CombatTable, CrtResult
from mailbot.games.flattop.combat.damage import DamageRules, HitKind, ShipHit, Speed, hit_ship, speed
from mailbot.games.flattop.combat.intel import ship_words
from mailbot.games.flattop.observation.observe import DEAD_IN_WATER
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.tabledata import Source, fraction, integer, rounded, table_sources
from mailbot.games.flattop.tabledata import rounding as rounding_word
from mailbot.games.flattop.units import Armament, Ship, ShipType, Side

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


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class SurfaceRules:
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
        default_factory=lambda: _frozen({Side.JAPANESE: 15, Side.ALLIED: 10})
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
        default_factory=lambda: _frozen(
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
        try:
            rules = _read(data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameError(f"surface.toml is malformed ({error!r})") from error
        if not 1 <= rules.declared_low <= rules.declared_high or rules.breakthrough_ratio < 1:
            raise GameError("surface.toml: declared BHTs must run 1..n and the breakthrough ratio be >= 1")
        return rules

    @property
    def design_defaults(self) -> tuple[str, ...]:
        """The sections that are design defaults (e.g. ``unescorted.rounding``): letters say so."""
        return tuple(name for name, src in self.sources.items() if src.default)


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
        torpedo_bht=_frozen({side: integer(torpedo["bht"][side.value]) for side in Side}),
        breakthrough_ratio=integer(data["breakthrough"]["ratio"]),
        report_spread=fraction(data["report"]["spread"]),
        report_rounding=rounding_word(data["report"]["rounding"]),
        short_share=fraction(ammo["short_share"]),
        short_rounding=rounding_word(ammo["short_rounding"]),
        counted_types=_types(ammo["counted"]["types"]),
        firings_limit=integer(ammo["counted"]["firings"]),
        bombard_ammo=integer(bombard["ammo"]),
        bombard_night=integer(bombard["night"]["modifier"]),
        bombard_bht=_frozen(groups),
        attacker_bonus=fraction(unescorted["attacker_bonus"]),
        defender_share=fraction(unescorted["defender_share"]),
        attacker_rounding=rounding_word(rounding["attacker"]),
        defender_rounding=rounding_word(rounding["defender"]),
        torpedo_line_rounding=rounding_word(rounding["torpedo_line"]),
        sources=_frozen(table_sources(data)),
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
        return replace(self, ships=mine, labels=_frozen(self.numbers))


def disabled(c: Combatant, ship: Ship, *, turn: int) -> bool:
    """Crippled (21.8.1: two half-speed restrictions count), anchored, or in a towing pair."""
    return _crippled(ship, turn) or _anchored(c, ship)


def _anchored(c: Combatant, ship: Ship) -> bool:
    return ship.anchored or ship.name in c.towing


def _crippled(ship: Ship, turn: int) -> bool:
    return ship.crippled or (not ship.sunk and speed(ship, turn) is Speed.STOPPED)


def _by_number_order(c: Combatant) -> list[Ship]:
    def key(ship: Ship) -> tuple[int, int]:
        return TYPE_ORDER.index(ship.type), _serial(c.number(ship.name))

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


def _fire_bht(base: int, why: str, mods: Mapping[str, int]) -> FireBht:
    shown = "".join(f" {amount:+d} {name}" for name, amount in mods.items())
    value = base + sum(mods.values())
    return FireBht(base, _frozen(mods), value, f"BHT {base} ({why}){shown} = {value}")


# --- the battle -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Engagement:
    """A surface battle: both sides, their secret numbers (19), day or night, the turn, and its label
    (the root of every roll label, and the occasion a DD's firing counts as under 19.8)."""

    first: Combatant
    second: Combatant
    declared: Mapping[Side, int]
    night: bool
    turn: int
    label: str

    def __post_init__(self) -> None:
        if self.first.side is self.second.side:
            raise GameError("a surface battle needs both sides")
        names = [s.name for s in (*self.first.ships, *self.second.ships)]
        if len(names) != len(set(names)):
            raise GameError("a surface battle needs distinct ship names")
        if set(self.declared) != set(Side):
            raise GameError(f"{RULE_19}: each side sends his BHT number")

    @classmethod
    def start(
        cls,
        first: Combatant,
        second: Combatant,
        declared: Mapping[Side, int],
        *,
        night: bool,
        turn: int,
        label: str,
    ) -> Engagement:
        """The battle with each side's numbering frozen as it stands now."""
        frozen = [replace(c, labels=_frozen(c.numbers)) for c in (first, second)]
        return cls(frozen[0], frozen[1], _frozen(declared), night, turn, label)

    def side(self, side: Side) -> Combatant:
        return self.first if self.first.side is side else self.second

    def enemy(self, side: Side) -> Combatant:
        return self.second if self.first.side is side else self.first

    def bht(self, rules: SurfaceRules = DEFAULT_RULES) -> int:
        return round_bht(self.declared[self.first.side], self.declared[self.second.side], rules=rules)

    def unescorted(self, side: Side) -> bool:
        return unescorted(self.side(side), turn=self.turn)

    def fire_bht(
        self, firer: Side, target: Ship, *, stage: Stage, rules: SurfaceRules = DEFAULT_RULES
    ) -> FireBht:
        """The BHT ``firer`` fires at ``target`` with: the sum; 19.11's; or the torpedo BHT."""
        enemy = self.enemy(firer)
        mods = target_modifiers(enemy, target, turn=self.turn, rules=rules)
        if stage is Stage.TORPEDO:
            return _fire_bht(rules.torpedo_bht[firer], f"{firer.value} torpedoes, {RULE_STANDARD}", mods)
        mine, theirs = self.declared[firer], self.declared[enemy.side]
        me_helpless, them_helpless = self.unescorted(firer), self.unescorted(enemy.side)
        if them_helpless and not me_helpless:
            attack, _ = effective_bhts(mine, theirs, target_unescorted=True, rules=rules)
            return _fire_bht(attack, f"declared {mine} plus 50%, {RULE_19_11}", mods)
        if me_helpless and not them_helpless:
            if enemy.position(target.name) is Position.TORPEDO:
                line = torpedo_line_bht(theirs, mine, rules=rules)
                return _fire_bht(
                    line, f"average of {theirs} and {mine} at the torpedo line, {RULE_19_11}", mods
                )
            _, defence = effective_bhts(theirs, mine, target_unescorted=True, rules=rules)
            return _fire_bht(defence, f"half the attacker's {theirs}, {RULE_19_11}", mods)
        return _fire_bht(self.bht(rules), f"{mine} + {theirs}, {RULE_STANDARD}", mods)

    def after(self, result: RoundResult) -> Engagement:
        """The battle with the ships as the round left them."""
        return replace(
            self, first=self.first.with_ships(result.ships), second=self.second.with_ships(result.ships)
        )


def _survived(ship: Ship) -> bool:
    return not ship.sunk and not ship.destroyed


def firers(
    c: Combatant, enemy: Combatant, *, turn: int, stage: Stage, breaker: Side | None = None
) -> tuple[Ship, ...]:
    """The ships of ``c`` that may fire in ``stage`` (any factors left or not)."""
    ships = [s for s in c.afloat if _survived(s)]
    if stage is Stage.TORPEDO:
        # 19.11: "Crippled or anchored ships may not launch torpedo attacks"; a tow ship fires none.
        line = (s for s in ships if c.position(s.name) is Position.TORPEDO)
        return tuple(s for s in line if not disabled(c, s, turn=turn) and not s.torpedoes_fired)
    if stage is Stage.BREAKTHROUGH:
        wanted = (Position.GUNNERY, Position.TORPEDO) if c.side is breaker else (Position.SCREEN,)
        return tuple(s for s in ships if c.position(s.name) in wanted)
    if unescorted(c, turn=turn):
        # 19.11: the helpless side answers "if able to respond", with any ship (they all screen).
        return tuple(ships)
    return tuple(s for s in ships if c.position(s.name) is Position.GUNNERY)


def targets(
    c: Combatant, enemy: Combatant, *, turn: int, stage: Stage, breaker: Side | None = None
) -> tuple[Ship, ...]:
    """The enemy ships ``c`` may aim at: the gunnery and torpedo lines; every ship when the enemy is
    unescorted (19.11) or ``c`` breaks through (A.11.7: the screened ships "are then exposed")."""
    if unescorted(enemy, turn=turn) or (stage is Stage.BREAKTHROUGH and c.side is breaker):
        return enemy.afloat
    return tuple(s for s in enemy.afloat if enemy.position(s.name) in (Position.GUNNERY, Position.TORPEDO))


# --- declarations --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fire:
    """One ship's fire: ``factors`` at the enemy ship numbered ``target`` ("BB #2")."""

    ship: str
    target: str
    factors: int


@dataclass(frozen=True)
class _Context:
    c: Combatant
    enemy: Combatant
    turn: int
    stage: Stage
    breaker: Side | None
    firings: Firings | None
    occasion: str
    torpedoes_ok: bool
    rules: SurfaceRules


def check_allocation(
    fires: Sequence[Fire],
    c: Combatant,
    enemy: Combatant,
    *,
    turn: int,
    stage: Stage = Stage.GUNNERY,
    breaker: Side | None = None,
    firings: Firings | None = None,
    occasion: str = "",
    torpedoes_ok: bool = True,
    rules: SurfaceRules = DEFAULT_RULES,
) -> tuple[str, ...]:
    """What is wrong with a side's fire, in sentences for its owner (empty: nothing).

    Splitting a ship's fire (19), a ship that may not fire this round (screened, torpedo line in a
    gunnery round, already fired her torpedoes, crippled or anchored with torpedoes, 19.8's DD out of
    firings), a target that is screened or unknown, more factors than she has, guns other than BB, CA
    or CAV aimed at a BB (A.11.7), torpedoes at a BHT that allows none (``torpedoes_ok`` False).
    """
    ctx = _Context(c, enemy, turn, stage, breaker, firings, occasion, torpedoes_ok, rules)
    problems: list[str] = []
    by_ship: dict[str, list[Fire]] = {}
    for fire in fires:
        by_ship.setdefault(fire.ship, []).append(fire)
    for name, mine in by_ship.items():
        if len({f.target for f in mine}) > 1:
            problems.append(f"{name} splits her fire: a ship fires at one target ({RULE_19})")
        elif len(mine) > 1:
            problems.append(f"{name} is given more than one fire: one line per ship")
    for fire in fires:
        problems += _fire_problems(fire, ctx)
    return tuple(dict.fromkeys(problems))


def _fire_problems(fire: Fire, ctx: _Context) -> list[str]:
    ship = ctx.c.ship(fire.ship)
    if ship is None or ship.sunk:
        return [f"no ship {fire.ship!r} afloat in this force"]
    problems = _firer_problems(ship, ctx)
    target = ctx.enemy.by_number(fire.target)
    allowed = targets(ctx.c, ctx.enemy, turn=ctx.turn, stage=ctx.stage, breaker=ctx.breaker)
    if target is None or target.sunk:
        problems.append(f"{fire.target}: no such enemy ship afloat")
    elif target not in allowed:
        problems.append(f"{fire.target} is screened: it cannot be attacked ({RULE_STANDARD})")
    elif ctx.stage is Stage.TORPEDO and not ctx.torpedoes_ok and not unescorted(ctx.enemy, turn=ctx.turn):
        problems.append(f"{fire.ship}: the BHT allows no torpedoes ({RULE_STANDARD})")
    elif _big_guns_only(ctx, target) and ship.type not in ctx.rules.big_guns:
        big = ", ".join(sorted(t.value for t in ctx.rules.big_guns))
        problems.append(f"{fire.ship}: only {big} gunnery may be aimed at {fire.target} ({RULE_STANDARD})")
    have = ship.torpedo if ctx.stage is Stage.TORPEDO else ctx.c.gunnery(ship)
    if fire.factors <= 0:
        problems.append(f"{fire.ship}: {fire.factors} factors")
    elif fire.factors > have:
        problems.append(f"{fire.ship} has {have} {_what(ctx.stage)} factors, not {fire.factors}")
    return problems


def _what(stage: Stage) -> str:
    return "torpedo" if stage is Stage.TORPEDO else "gunnery"


def _firer_problems(ship: Ship, ctx: _Context) -> list[str]:
    eligible = firers(ctx.c, ctx.enemy, turn=ctx.turn, stage=ctx.stage, breaker=ctx.breaker)
    if ship not in eligible:
        return [_why_not(ship, ctx)]
    guns = ctx.stage is not Stage.TORPEDO
    if guns and ctx.firings is not None and not ctx.firings.may_fire(ship, ctx.occasion, rules=ctx.rules):
        return [f"{ship.name} has fired {ctx.rules.firings_limit} times: she must replenish ({RULE_19_8})"]
    return []


def why_silent(
    ship: Ship,
    c: Combatant,
    enemy: Combatant,
    *,
    turn: int,
    stage: Stage,
    breaker: Side | None = None,
    firings: Firings | None = None,
    occasion: str = "",
    rules: SurfaceRules = DEFAULT_RULES,
) -> str | None:
    """Why ``ship`` may not fire in ``stage`` (her position, 19.8, sinking ...), or None: a FIRE or
    TORPEDO line for her is refused when it is read, not accepted and then ignored."""
    ctx = _Context(c, enemy, turn, stage, breaker, firings, occasion, True, rules)
    problems = _firer_problems(ship, ctx)
    return problems[0] if problems else None


def _big_guns_only(ctx: _Context, target: Ship) -> bool:
    """A.11.7: "Only BB, CA and CAV gunnery may be aimed at enemy BBs" (torpedoes go anywhere)."""
    return ctx.stage is not Stage.TORPEDO and target.type in ctx.rules.protected


def _why_not(ship: Ship, ctx: _Context) -> str:
    where = ctx.c.position(ship.name).value
    if not _survived(ship):
        return f"{ship.name} is sinking: she fires no more"
    if ctx.stage is Stage.TORPEDO:
        if ship.torpedoes_fired:
            return f"{ship.name} has fired her torpedoes"
        if disabled(ctx.c, ship, turn=ctx.turn):
            return f"{ship.name} is crippled, anchored or towing: no torpedo attack ({RULE_19_11})"
        return f"{ship.name} is in the {where} position: she fires no torpedoes"
    if ctx.stage is Stage.BREAKTHROUGH:
        return f"{ship.name} is in the {where} position: she does not fire in this breakthrough round"
    return f"{ship.name} is in the {where} position: she fires no guns ({RULE_STANDARD})"


def _preference(enemy: Combatant, ship: Ship, turn: int) -> tuple[bool, int, int]:
    """What the side knows: reported dead in the water last, then size, then the lower number."""
    seen_dead = ship_words(ship, turn=turn) == DEAD_IN_WATER
    return seen_dead, SIZE_ORDER.index(ship.type), _serial(enemy.number(ship.name))


def _serial(number: str) -> int:
    """``"BB #2"`` -> 2."""
    return int(number.partition(" #")[2] or 0)


def default_allocation(
    c: Combatant,
    enemy: Combatant,
    *,
    turn: int,
    stage: Stage = Stage.GUNNERY,
    breaker: Side | None = None,
    firings: Firings | None = None,
    occasion: str = "",
    torpedoes_ok: bool = True,
    rules: SurfaceRules = DEFAULT_RULES,
) -> tuple[Fire, ...]:
    """A silent side's fire (DESIGN_DEFAULTS): biggest guns first, each at the biggest enemy ship she
    may aim at, from what the side was told (type, number, damage words). It passes check_allocation."""
    ctx = _Context(c, enemy, turn, stage, breaker, firings, occasion, torpedoes_ok, rules)
    aimable = targets(c, enemy, turn=turn, stage=stage, breaker=breaker)
    if stage is Stage.TORPEDO and not torpedoes_ok and not unescorted(enemy, turn=turn):
        return ()
    ranked = sorted(aimable, key=lambda s: _preference(enemy, s, turn))
    chosen: list[Fire] = []
    shooters = firers(c, enemy, turn=turn, stage=stage, breaker=breaker)
    for ship in sorted(shooters, key=lambda s: (-_factors(c, s, stage), s.name)):
        factors = _factors(c, ship, stage)
        if factors <= 0 or _firer_problems(ship, ctx):
            continue
        big = stage is Stage.TORPEDO or ship.type in rules.big_guns
        target = next((t for t in ranked if big or t.type not in rules.protected), None)
        if target is not None:
            chosen.append(Fire(ship.name, enemy.number(target.name), factors))
    return tuple(chosen)


def _factors(c: Combatant, ship: Ship, stage: Stage) -> int:
    return ship.torpedo if stage is Stage.TORPEDO else c.gunnery(ship)


# --- the rounds --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundResult:
    """One round: hits by target name, the referee's lines (every roll), every ship of both sides
    after it, ammunition spent by ship name, the 19.8 firings after it, and each ship's damage."""

    hits: Mapping[str, int]
    rolls: tuple[str, ...]
    ships: tuple[Ship, ...]
    ammo_used: Mapping[str, int]
    firings: Firings = NO_FIRINGS
    ship_hits: tuple[ShipHit, ...] = ()


@dataclass(frozen=True)
class _Shot:
    """The fire one side aims at one target: factors added up, one CRT roll."""

    side: Side
    target: Ship
    factors: int
    bht: FireBht


def gun_factors(
    ship: Ship,
    *,
    declared: int,
    gunnery: int,
    bht: int,
    counted: bool,
    rules: SurfaceRules = DEFAULT_RULES,
) -> tuple[int, int, str]:
    """(factors fired, ammunition spent, note) for ``declared`` of her ``gunnery`` factors at ``bht``
    (A.11.7): the round costs BHT Ammunition Factors; with fewer left her Gunnery is halved (rounded
    up) for the round and she is emptied. DDs and APDs (``counted``) keep no ammunition record (19.8)."""
    cost = max(0, bht)
    if counted or ship.ammo >= cost:
        return declared, 0 if counted else cost, ""
    halved = rounded(gunnery * rules.short_share, rules.short_rounding)
    fired = min(declared, halved)
    note = (
        f"{ship.name} has {ship.ammo} Ammunition Factors for BHT {bht}: gunnery {gunnery} halved to "
        f"{halved}, fires {fired}, ammunition -> 0 ({RULE_STANDARD})"
    )
    return fired, ship.ammo, note


def _check_side(battle: Engagement, side: Side, fires: Sequence[Fire], **more: Any) -> None:
    problems = check_allocation(fires, battle.side(side), battle.enemy(side), turn=battle.turn, **more)
    if problems:
        raise GameError(f"{side.value} surface fire: " + "; ".join(problems))


def _check_positions(battle: Engagement) -> None:
    for c in (battle.first, battle.second):
        problems = check_positions(c, turn=battle.turn)
        if problems:
            raise GameError(f"{c.side.value} positions: " + "; ".join(problems))


@dataclass(frozen=True)
class _Aimed:
    """One ship's gunnery fire, priced: the shot, the ship after her ammunition, what she spent."""

    shot: _Shot
    ship: Ship
    ammo: int
    note: str


def _aim(
    battle: Engagement, side: Side, fire: Fire, ship: Ship, *, stage: Stage, rules: SurfaceRules
) -> _Aimed:
    target = battle.enemy(side).by_number(fire.target)
    if target is None:  # check_allocation refuses this first
        raise GameError(f"{fire.target}: no such enemy ship")
    bht = battle.fire_bht(side, target, stage=stage, rules=rules)
    gunnery = battle.side(side).gunnery(ship)
    counted = ship.type in rules.counted_types
    fired, ammo, note = gun_factors(
        ship, declared=fire.factors, gunnery=gunnery, bht=bht.base, counted=counted, rules=rules
    )
    return _Aimed(_Shot(side, target, fired, bht), replace(ship, ammo=ship.ammo - ammo), ammo, note)


def gunnery_round(
    battle: Engagement,
    fires: Mapping[Side, Sequence[Fire]],
    *,
    table: CombatTable,
    damage: DamageRules,
    dice: Dice,
    firings: Firings = NO_FIRINGS,
    breaker: Side | None = None,
    rules: SurfaceRules = DEFAULT_RULES,
) -> RoundResult:
    """A gunnery round, or the breakthrough round when ``breaker`` is given: both sides fire at once,
    each target taking one CRT roll for the factors aimed at her, then the hits land (``damage.hit_ship``,
    HitKind.GUNNERY). Positions (first round) and fire that check_positions / check_allocation refuse
    are a GameError: check orders first."""
    stage = Stage.BREAKTHROUGH if breaker is not None else Stage.GUNNERY
    if stage is Stage.GUNNERY:
        _check_positions(battle)
    ships = {s.name: s for c in (battle.first, battle.second) for s in c.ships}
    aimed: list[_Aimed] = []
    for c in (battle.first, battle.second):
        mine = tuple(fires.get(c.side, ()))
        more = {"stage": stage, "breaker": breaker, "firings": firings, "occasion": battle.label}
        _check_side(battle, c.side, mine, rules=rules, **more)
        aimed += [_aim(battle, c.side, f, ships[f.ship], stage=stage, rules=rules) for f in mine]
    ships |= {a.ship.name: a.ship for a in aimed}
    shots = _merged([a.shot for a in aimed])
    result = _resolve(battle, shots, ships, HitKind.GUNNERY, stage, table=table, damage=damage, dice=dice)
    counted = [a.ship.name for a in aimed if a.ship.type in rules.counted_types]
    return replace(
        result,
        rolls=(*(a.note for a in aimed if a.note), *result.rolls),
        ammo_used=_frozen({a.ship.name: a.ammo for a in aimed}),
        firings=firings.record(counted, battle.label),
    )


def _merged(shots: Sequence[_Shot]) -> list[_Shot]:
    """One shot per (side, target): 19's "19 factors fire at BB #2" is one attack."""
    merged: dict[tuple[Side, str], _Shot] = {}
    for shot in shots:
        key = (shot.side, shot.target.name)
        if key in merged:
            merged[key] = replace(merged[key], factors=merged[key].factors + shot.factors)
        else:
            merged[key] = shot
    return [merged[key] for key in sorted(merged)]


def _resolve(
    battle: Engagement,
    shots: Sequence[_Shot],
    ships: dict[str, Ship],
    kind: HitKind,
    stage: Stage,
    *,
    table: CombatTable,
    damage: DamageRules,
    dice: Dice,
) -> RoundResult:
    """Roll every shot against the ships as they were (simultaneous fire), then land the hits."""
    lines: list[str] = []
    landed: list[_Landed] = []
    for shot in shots:
        label = f"{battle.label}/{stage.value}/{shot.side.value}/{shot.target.name}"
        crt = table.roll(shot.bht.value, shot.factors, dice, label, f"{RULE_19} surface {stage.value}")
        number = battle.enemy(shot.side).number(shot.target.name)
        lines.append(f"{shot.side.value} at {number} ({shot.target.name}): {shot.bht.text}; {crt.text}")
        landed.append(_Landed(shot.target.name, crt, label))
    ship_hits = [_land(one, ships, kind, damage=damage, dice=dice, turn=battle.turn) for one in landed]
    done = tuple(hit for hit in ship_hits if hit is not None)
    order = [s.name for c in (battle.first, battle.second) for s in c.ships]
    return RoundResult(
        hits=_frozen({one.target: one.crt.hits for one in landed}),
        rolls=tuple(lines) + tuple(fact for hit in done for fact in hit.facts),
        ships=tuple(ships[n] for n in order),
        ammo_used=_frozen({}),
        ship_hits=done,
    )


@dataclass(frozen=True)
class _Landed:
    target: str
    crt: CrtResult
    label: str


def _land(
    one: _Landed, ships: dict[str, Ship], kind: HitKind, *, damage: DamageRules, dice: Dice, turn: int
) -> ShipHit | None:
    """One roll's hits on her (``damage.hit_ship``); ``ships`` takes the ship after them."""
    if one.crt.hits <= 0:
        return None
    armament = Armament.TORPEDO if kind is HitKind.TORPEDO else None
    hit = hit_ship(
        ships[one.target],
        one.crt.hits,
        kind,
        armament=armament,
        critical_check=one.crt.critical_check,
        rules=damage,
        dice=dice,
        label=one.label,
        turn=turn,
    )
    ships[one.target] = hit.after
    return hit


def torpedo_round(
    battle: Engagement,
    fires: Mapping[Side, Sequence[Fire]],
    *,
    table: CombatTable,
    damage: DamageRules,
    dice: Dice,
    rules: SurfaceRules = DEFAULT_RULES,
) -> RoundResult:
    """The torpedo round (A.11.7): ships that survived gunnery, in the torpedo position, not crippled,
    anchored or towing (19.11), at the side's fixed torpedo BHT; only at a round BHT of 10+ by day or 7+
    at night, else every such ship's torpedoes are spent with no effect; against unescorted ships
    always (19.11). Call it with the battle as the gunnery round left it (``Engagement.after``)."""
    ok = torpedoes_allowed(battle.bht(rules), night=battle.night, rules=rules)
    ships = {s.name: s for c in (battle.first, battle.second) for s in c.ships}
    shots: list[_Shot] = []
    notes: list[str] = []
    for c in (battle.first, battle.second):
        mine = tuple(fires.get(c.side, ()))
        _check_side(battle, c.side, mine, stage=Stage.TORPEDO, torpedoes_ok=ok, rules=rules)
        spent, note = _spent(battle, c, mine, ok=ok, rules=rules)
        notes += [note] if note else []
        ships |= {name: replace(ships[name], torpedoes_fired=True) for name in spent}
        shots += [_torpedo_shot(battle, c.side, fire, rules) for fire in mine]
    result = _resolve(
        battle, _merged(shots), ships, HitKind.TORPEDO, Stage.TORPEDO, table=table, damage=damage, dice=dice
    )
    return replace(result, rolls=(*notes, *result.rolls))


def _spent(
    battle: Engagement, c: Combatant, fires: Sequence[Fire], *, ok: bool, rules: SurfaceRules
) -> tuple[tuple[str, ...], str]:
    """The ships whose torpedoes are gone: those that fire; when the BHT allows none (and the enemy is
    not helpless, 19.11), every ship of the torpedo line, "spent with no effect" (A.11.7)."""
    if ok or battle.unescorted(battle.enemy(c.side).side):
        return tuple(f.ship for f in fires), ""
    launchers = firers(c, battle.enemy(c.side), turn=battle.turn, stage=Stage.TORPEDO)
    if not launchers:
        return (), ""
    when = "night" if battle.night else "day"
    note = (
        f"{c.side.value}: BHT {battle.bht(rules)} allows no torpedoes by {when}: {len(launchers)} ship(s) "
        f"spend them with no effect ({RULE_STANDARD})"
    )
    return tuple(s.name for s in launchers), note


def _torpedo_shot(battle: Engagement, side: Side, fire: Fire, rules: SurfaceRules) -> _Shot:
    target = battle.enemy(side).by_number(fire.target)
    if target is None:  # check_allocation refuses this first
        raise GameError(f"{fire.target}: no such enemy ship")
    return _Shot(side, target, fire.factors, battle.fire_bht(side, target, stage=Stage.TORPEDO, rules=rules))


def surviving_gunnery(c: Combatant) -> int:
    """A.11.7: the gunnery of the ships afloat in the Gunnery and Torpedo positions."""
    line = (Position.GUNNERY, Position.TORPEDO)
    return sum(c.gunnery(s) for s in c.afloat if _survived(s) and c.position(s.name) in line)


def breakthrough_possible(a: Combatant, b: Combatant, *, rules: SurfaceRules = DEFAULT_RULES) -> Side | None:
    """The side whose surviving gunnery is at least 3 times the other's (A.11.7; seed 003, 19 "3-1")."""
    mine, theirs = surviving_gunnery(a), surviving_gunnery(b)
    if mine > 0 and mine >= rules.breakthrough_ratio * theirs:
        return a.side
    if theirs > 0 and theirs >= rules.breakthrough_ratio * mine:
        return b.side
    return None


# --- reports: 19's +/-10% ------------------------------------------------------------------------------


def gunnery_bounds(true_total: int, *, rules: SurfaceRules = DEFAULT_RULES) -> tuple[int, int]:
    """19: "+/- 10%, rounding fractions up": the figures a side may report for ``true_total``."""
    spread = rounded(true_total * rules.report_spread, rules.report_rounding)
    return max(0, true_total - spread), true_total + spread


def reported_gunnery(
    true_total: int,
    policy: Deception,
    dice: Dice,
    label: str,
    *,
    exact: bool,
    rules: SurfaceRules = DEFAULT_RULES,
) -> int:
    """The surviving gunnery a side reports (19): exact when 3-1 could be possible, else within +/-10%
    under its DECEPTION policy (truthful: exact; maximal: the highest; random: uniform, one roll)."""
    if true_total < 0:
        raise GameError(f"surviving gunnery {true_total}")
    low, high = gunnery_bounds(true_total, rules=rules)
    if exact or policy is Deception.TRUTHFUL or low == high:
        return true_total
    if policy is Deception.MAXIMAL:
        return high
    roll = dice.roll(label, high - low + 1, rule=f"{RULE_19} surviving gunnery +/-10%")
    return low + roll.total - 1


def possible_totals(reported: int, *, rules: SurfaceRules = DEFAULT_RULES) -> tuple[int, int]:
    """The least and greatest true totals a +/-10% report of ``reported`` may stand for."""
    # A true total T is reported within T +/- ceil(T/10): T <= 2 x reported + 2 covers them all.
    fits = [t for t in range(2 * max(reported, 0) + 3) if _within(reported, t, rules)]
    return min(fits), max(fits)


def _within(reported: int, true_total: int, rules: SurfaceRules) -> bool:
    low, high = gunnery_bounds(true_total, rules=rules)
    return low <= reported <= high


def could_be_breakthrough(reported_a: int, reported_b: int, *, rules: SurfaceRules = DEFAULT_RULES) -> bool:
    """19: "If it appears that the ratio could possibly be 3-1, then exact factors must be reported"."""
    low_a, high_a = possible_totals(reported_a, rules=rules)
    low_b, high_b = possible_totals(reported_b, rules=rules)
    ratio = rules.breakthrough_ratio
    return (high_a > 0 and high_a >= ratio * low_b) or (high_b > 0 and high_b >= ratio * low_a)


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
        elif not _survived(ship):
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
        ammo_used=_frozen({ship.name: ammo for ship, (_, ammo, _) in zip(ships, fired, strict=True)}),
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
