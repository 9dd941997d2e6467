# SPDX-License-Identifier: GPL-3.0-or-later
"""Orders of the combat sub-steps (seed 003, 15 Limited Intelligence 1 and 3; 18.2.1).

The strike choice (``T<n>.strike``), after the precise makeup was given::

    TARGET AF3 A-CV1                   every armed factor of AF3 at ship CV1 of TF A
    TARGET AF3 A-CV1 4 Dauntless DIVE  4 Dauntless factors, dive bombing
    TARGET AF3 B-DD2 2 Avenger         (the load decides bombs or torpedoes)
    TARGET AF9 BASE                    the enemy base in the hex
    FIRST AF5 AF3                      18.2.1: the order the AFs attack in
    NOATTACK AF3                       AF3 makes no attack (it keeps its load)
    PRIORITY CV CVL BB                 the rest by these types (also a standing order)

The loss ranking (``T<n>.losses``), when the attacker chooses which planes die::

    RANK A-CV1 Zero Val Kate           the types in order of elimination
    RANK Zero Val                      for every place (also a standing order)

Unnamed AFs, and a side that sends nothing, follow its standing PRIORITY (the
default order is :data:`battle.DEFAULT_PRIORITY`): all of an AF's armed factors at
the first ship of the first type found in the hex, or at the base if there is no
ship. A refusal names only labels the side was given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mailbot.core.game import Accepted, Line, Parsed, Problem, ProblemKind
from mailbot.games.flattop.combat.battle import Battle, Strike
from mailbot.games.flattop.orders.checks import OrderError, illegal, tokens
from mailbot.games.flattop.orders.types import (
    First,
    FtOrder,
    NoAttack,
    Priority,
    Rank,
    TargetOrder,
    priority_text,
    rank_text,
    surface_text,
)
from mailbot.games.flattop.units import AirFormation, ShipType, Side

KINDS = {"DIVE": "dive", "LEVEL": "level", "TORPEDO": "torpedo", "TORP": "torpedo"}
SHIP_TYPES = tuple(t.value for t in ShipType)


CombatOrder = Priority | Rank | TargetOrder | First | NoAttack


def combat_text(order: CombatOrder) -> str:
    match order:
        case Priority():
            return priority_text(order)
        case Rank():
            return rank_text(order)
        case TargetOrder(af, target, count, plane, kind):
            size = f" {count} {plane}" if count is not None and plane else ""
            how = f" {kind.upper()}" if kind else ""
            return f"TARGET AF{af} {target}{size}{how}"
        case First(afs):
            return "FIRST " + " ".join(f"AF{n}" for n in afs)
        case NoAttack(af):
            return f"NOATTACK AF{af}"
    raise AssertionError(order)


def read_priority(words: Sequence[str]) -> Priority:
    if words == ["NONE"]:
        return Priority(())
    bad = [w for w in words if w not in SHIP_TYPES]
    if not words or bad:
        raise OrderError(
            ProblemKind.INVALID,
            f"PRIORITY lists ship types ({' '.join(SHIP_TYPES)}) or NONE"
            + (f": {' '.join(bad)} is not one" if bad else ""),
        )
    return Priority(tuple(dict.fromkeys(words)))


def read_rank(words: Sequence[str], planes: Sequence[str], labels: Sequence[str] = ()) -> Rank:
    """``RANK [label] plane ...``; plane names are matched without regard to case."""
    label = words[0] if words and words[0] in labels else None
    names = list(words[1:] if label else words)
    by_key = {p.upper(): p for p in planes}
    bad = [w for w in names if w not in by_key]
    if not names or bad:
        raise OrderError(
            ProblemKind.INVALID, "RANK lists plane types in order of elimination, e.g. RANK Zero Val Kate"
        )
    return Rank(tuple(dict.fromkeys(by_key[w] for w in names)), label)


@dataclass(frozen=True)
class StrikeContext:
    """What the attacking side may name in its strike letter: its striking AFs and their targets."""

    side: Side
    battle: Battle
    air: dict[int, AirFormation]
    planes: tuple[str, ...]

    def strike(self, word: str) -> Strike:
        if not (word.startswith("AF") and word[2:].isdigit()):
            raise OrderError(ProblemKind.INVALID, f"{word!r} is not an AF like AF3")
        number = int(word[2:])
        found = next((s for s in self.battle.strikes_of(self.side) if s.af == number), None)
        if found is None:
            raise illegal(f"AF{number} is not one of your AFs attacking this turn")
        return found

    def labels(self, strike: Strike) -> tuple[str, ...]:
        target = self.battle.target_of(self.side, strike.hex)
        if target is None:
            return ()
        return tuple(s.label for s in target.ships) + (("BASE",) if target.base else ())

    def armed(self, af: int) -> dict[str, int]:
        formation = self.air.get(af)
        loads: dict[str, int] = {}
        for stack in formation.stacks if formation else ():
            if stack.armament is not None:
                loads[stack.plane.upper()] = loads.get(stack.plane.upper(), 0) + stack.count
        return loads


def _target(ctx: StrikeContext, words: list[str]) -> TargetOrder:
    if len(words) < 2:
        raise OrderError(
            ProblemKind.INVALID, "TARGET reads TARGET <AF> <ship label or BASE> [n plane] [DIVE|LEVEL]"
        )
    strike = ctx.strike(words[0])
    labels = ctx.labels(strike)
    if words[1] not in labels:
        raise illegal(f"{words[1]} is not a target in AF{strike.af}'s hex (targets: {' '.join(labels)})")
    rest = words[2:]
    kind = KINDS.get(rest[-1]) if rest else None
    rest = rest[:-1] if kind else rest
    if not rest:
        return TargetOrder(strike.af, words[1], kind=kind)
    if len(rest) != 2 or not rest[0].isdigit():
        raise OrderError(ProblemKind.INVALID, "after the target: a number of factors and a plane type")
    armed = ctx.armed(strike.af)
    if rest[1] not in armed:
        raise illegal(f"AF{strike.af} has no armed {rest[1].title()} factors")
    count = int(rest[0])
    if not 1 <= count <= armed[rest[1]]:
        raise illegal(f"AF{strike.af} has {armed[rest[1]]} armed {rest[1].title()} factor(s)")
    plane = next(p for p in ctx.planes if p.upper() == rest[1])
    return TargetOrder(strike.af, words[1], count, plane, kind)


def _first(ctx: StrikeContext, words: list[str]) -> First:
    if not words:
        raise OrderError(ProblemKind.INVALID, "FIRST names your attacking AFs in order, e.g. FIRST AF5 AF3")
    return First(tuple(dict.fromkeys(ctx.strike(w).af for w in words)))


def normalise_text(order: FtOrder) -> str:
    """The echo of a sub-step order (no hex in any of them, so no map is needed)."""
    if isinstance(order, Priority | Rank | TargetOrder | First | NoAttack):
        return combat_text(order)
    return surface_text(order)


def read_strike_line(ctx: StrikeContext, text: str) -> CombatOrder | None:
    words = tokens(text)
    if not words:
        return None
    head, rest = words[0], words[1:]
    if head == "TARGET":
        return _target(ctx, rest)
    if head == "FIRST":
        return _first(ctx, rest)
    if head in ("NOATTACK", "NO-ATTACK"):
        if len(rest) != 1:
            raise OrderError(ProblemKind.INVALID, "NOATTACK reads NOATTACK <AF>")
        return NoAttack(ctx.strike(rest[0]).af)
    if head == "PRIORITY":
        return read_priority(rest)
    if head == "RANK":
        return read_rank(rest, ctx.planes)
    raise OrderError(
        ProblemKind.INVALID, f"{head!r} is not a strike order (TARGET, FIRST, NOATTACK, PRIORITY, RANK)"
    )


def read_losses_line(battle: Battle, side: Side, planes: Sequence[str], text: str) -> CombatOrder | None:
    words = tokens(text)
    if not words:
        return None
    if words[0] != "RANK":
        raise OrderError(ProblemKind.INVALID, "this step takes RANK lines, e.g. RANK A-CV1 Zero Val Kate")
    labels = [c.label for c in battle.losses if c.side is side]
    return read_rank(words[1:], planes, labels)


def parse_combat(lines: Sequence[Line], read: Callable[[str], FtOrder | None]) -> Parsed[FtOrder]:
    """Each line through ``read``; problems as data."""
    accepted: list[Accepted[FtOrder]] = []
    problems: list[Problem] = []
    for line in lines:
        try:
            order = read(line.text)
        except OrderError as error:
            problems.append(Problem(line.number, line.text, error.kind, error.reason))
            continue
        if order is not None:
            accepted.append(Accepted(line.number, normalise_text(order), order))
    return Parsed(tuple(accepted), tuple(problems))
