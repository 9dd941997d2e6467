# SPDX-License-Identifier: GPL-3.0-or-later
"""A surface battle and its declarations (seed 003, 19; reference A.11.7).

:class:`Engagement` is one battle between two :class:`~mailbot.games.flattop.combat.surface.Combatant`
sides; here also who may fire at whom in each stage (only BB, CA and CAV gunnery may be aimed at
enemy BBs; torpedoes only from ships that survived gunnery), the check of a side's declared fire
(19: "Individual ships may not split their gunnery factors among different targets."), why a ship
stays silent and the fire a silent side is given by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from mailbot.errors import GameError
from mailbot.games.flattop.combat.damage import ShipHit
from mailbot.games.flattop.combat.intel import ship_words
from mailbot.games.flattop.combat.surface import (
    DEFAULT_RULES,
    NO_FIRINGS,
    RULE_19,
    RULE_19_8,
    RULE_19_11,
    RULE_STANDARD,
    SIZE_ORDER,
    Combatant,
    FireBht,
    Firings,
    Position,
    Stage,
    SurfaceRules,
    disabled,
    effective_bhts,
    frozen_map,
    round_bht,
    serial,
    survived,
    target_modifiers,
    torpedo_line_bht,
    unescorted,
)
from mailbot.games.flattop.observation.observe import DEAD_IN_WATER
from mailbot.games.flattop.units import Ship, Side


def _fire_bht(base: int, why: str, mods: Mapping[str, int]) -> FireBht:
    shown = "".join(f" {amount:+d} {name}" for name, amount in mods.items())
    value = base + sum(mods.values())
    return FireBht(base, frozen_map(mods), value, f"BHT {base} ({why}){shown} = {value}")


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
        frozen = [replace(c, labels=frozen_map(c.numbers)) for c in (first, second)]
        return cls(frozen[0], frozen[1], frozen_map(declared), night, turn, label)

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


def firers(
    c: Combatant, enemy: Combatant, *, turn: int, stage: Stage, breaker: Side | None = None
) -> tuple[Ship, ...]:
    """The ships of ``c`` that may fire in ``stage`` (any factors left or not)."""
    ships = [s for s in c.afloat if survived(s)]
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
class Round:
    """The round a side fires in: the ``turn``, the ``stage``, the side that breaks through
    (``breaker``), 19.8's record of firings and the ``occasion`` this round counts as, whether the
    BHT allows torpedoes (``torpedoes_ok``) and the rules."""

    turn: int
    stage: Stage = Stage.GUNNERY
    breaker: Side | None = None
    firings: Firings | None = None
    occasion: str = ""
    torpedoes_ok: bool = True
    rules: SurfaceRules = DEFAULT_RULES


@dataclass(frozen=True)
class _Context:
    c: Combatant
    enemy: Combatant
    at: Round


def check_allocation(fires: Sequence[Fire], c: Combatant, enemy: Combatant, at: Round) -> tuple[str, ...]:
    """What is wrong with a side's fire, in sentences for its owner (empty: nothing).

    Splitting a ship's fire (19), a ship that may not fire this round (screened, torpedo line in a
    gunnery round, already fired her torpedoes, crippled or anchored with torpedoes, 19.8's DD out of
    firings), a target that is screened or unknown, more factors than she has, guns other than BB, CA
    or CAV aimed at a BB (A.11.7), torpedoes at a BHT that allows none (``torpedoes_ok`` False).
    """
    ctx = _Context(c, enemy, at)
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
    at = ctx.at
    ship = ctx.c.ship(fire.ship)
    if ship is None or ship.sunk:
        return [f"no ship {fire.ship!r} afloat in this force"]
    problems = _firer_problems(ship, ctx)
    target = ctx.enemy.by_number(fire.target)
    allowed = targets(ctx.c, ctx.enemy, turn=at.turn, stage=at.stage, breaker=at.breaker)
    if target is None or target.sunk:
        problems.append(f"{fire.target}: no such enemy ship afloat")
    elif target not in allowed:
        problems.append(f"{fire.target} is screened: it cannot be attacked ({RULE_STANDARD})")
    elif at.stage is Stage.TORPEDO and not at.torpedoes_ok and not unescorted(ctx.enemy, turn=at.turn):
        problems.append(f"{fire.ship}: the BHT allows no torpedoes ({RULE_STANDARD})")
    elif _big_guns_only(ctx, target) and ship.type not in at.rules.big_guns:
        big = ", ".join(sorted(t.value for t in at.rules.big_guns))
        problems.append(f"{fire.ship}: only {big} gunnery may be aimed at {fire.target} ({RULE_STANDARD})")
    have = ship.torpedo if at.stage is Stage.TORPEDO else ctx.c.gunnery(ship)
    if fire.factors <= 0:
        problems.append(f"{fire.ship}: {fire.factors} factors")
    elif fire.factors > have:
        problems.append(f"{fire.ship} has {have} {_what(at.stage)} factors, not {fire.factors}")
    return problems


def _what(stage: Stage) -> str:
    return "torpedo" if stage is Stage.TORPEDO else "gunnery"


def _firer_problems(ship: Ship, ctx: _Context) -> list[str]:
    at = ctx.at
    eligible = firers(ctx.c, ctx.enemy, turn=at.turn, stage=at.stage, breaker=at.breaker)
    if ship not in eligible:
        return [_why_not(ship, ctx)]
    guns = at.stage is not Stage.TORPEDO
    if guns and at.firings is not None and not at.firings.may_fire(ship, at.occasion, rules=at.rules):
        return [f"{ship.name} has fired {at.rules.firings_limit} times: she must replenish ({RULE_19_8})"]
    return []


def why_silent(ship: Ship, c: Combatant, enemy: Combatant, at: Round) -> str | None:
    """Why ``ship`` may not fire in ``stage`` (her position, 19.8, sinking ...), or None: a FIRE or
    TORPEDO line for her is refused when it is read, not accepted and then ignored."""
    problems = _firer_problems(ship, _Context(c, enemy, at))
    return problems[0] if problems else None


def _big_guns_only(ctx: _Context, target: Ship) -> bool:
    """A.11.7: "Only BB, CA and CAV gunnery may be aimed at enemy BBs" (torpedoes go anywhere)."""
    return ctx.at.stage is not Stage.TORPEDO and target.type in ctx.at.rules.protected


def _why_not(ship: Ship, ctx: _Context) -> str:
    at = ctx.at
    where = ctx.c.position(ship.name).value
    if not survived(ship):
        return f"{ship.name} is sinking: she fires no more"
    if at.stage is Stage.TORPEDO:
        if ship.torpedoes_fired:
            return f"{ship.name} has fired her torpedoes"
        if disabled(ctx.c, ship, turn=at.turn):
            return f"{ship.name} is crippled, anchored or towing: no torpedo attack ({RULE_19_11})"
        return f"{ship.name} is in the {where} position: she fires no torpedoes"
    if at.stage is Stage.BREAKTHROUGH:
        return f"{ship.name} is in the {where} position: she does not fire in this breakthrough round"
    return f"{ship.name} is in the {where} position: she fires no guns ({RULE_STANDARD})"


def _preference(enemy: Combatant, ship: Ship, turn: int) -> tuple[bool, int, int]:
    """What the side knows: reported dead in the water last, then size, then the lower number."""
    seen_dead = ship_words(ship, turn=turn) == DEAD_IN_WATER
    return seen_dead, SIZE_ORDER.index(ship.type), serial(enemy.number(ship.name))


def default_allocation(c: Combatant, enemy: Combatant, at: Round) -> tuple[Fire, ...]:
    """A silent side's fire (DESIGN_DEFAULTS): biggest guns first, each at the biggest enemy ship she
    may aim at, from what the side was told (type, number, damage words). It passes check_allocation."""
    ctx = _Context(c, enemy, at)
    turn, stage, breaker, rules = at.turn, at.stage, at.breaker, at.rules
    aimable = targets(c, enemy, turn=turn, stage=stage, breaker=breaker)
    if stage is Stage.TORPEDO and not at.torpedoes_ok and not unescorted(enemy, turn=turn):
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
