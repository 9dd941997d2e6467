# SPDX-License-Identifier: GPL-3.0-or-later
"""Orders of a surface battle's sub-steps (seed 003, 19; reference A.11.7).

    ENGAGE                          fight the enemy ships in the hex (AVOID: do not start it)
    POSITION Astoria GUNNERY        each ship's group: GUNNERY, TORPEDO or SCREEN
    BHT 4                           the secret number 1-6, sent sealed: SEAL BHT 4
    FIRE Astoria AT BB2             a ship's gunnery at one enemy ship (19: never split);
                                    BB #2 and BB#2 read the same
    TORPEDO Hammann AT CA#1         a torpedo-group ship's torpedoes

Enemy ships are named only by the numbers the side was told (``BB#2`` or ``BB #2``); own
ships by name, spaces written as hyphens. A standing ``SURFACE ENGAGE|AVOID`` in the hour's
orders answers the engage step in advance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mailbot.core.game import ProblemKind
from mailbot.games.flattop.orders.checks import OrderError, illegal, tokens
from mailbot.games.flattop.orders.types import BhtNumber, Engage, FireAt, Placement

POSITIONS = ("GUNNERY", "TORPEDO", "SCREEN")
_NUMBER_SIGN = re.compile(r"#\s*(\d)")  # "BB #2": the seed's numbering, not a comment


@dataclass(frozen=True)
class SurfaceContext:
    """What the side may name: its own ships in the battle, the enemy's numbers, the phase."""

    phase: str  # engage | bht | gunnery | torpedo | breakthrough
    own: dict[str, str]  # name key (upper, hyphens) -> ship name
    enemy: tuple[str, ...]  # the enemy's numbers as told, e.g. "BB #2"
    silent: Mapping[str, str] = field(default_factory=dict)  # ship name -> why she may not fire now


def label_key(word: str) -> str:
    """``BB #2``, ``BB#2`` and ``BB2`` are one label (``#`` would start a comment in a letter)."""
    return word.upper().replace(" ", "").replace("#", "")


def _own(ctx: SurfaceContext, word: str) -> str:
    name = ctx.own.get(word.upper())
    if name is None:
        raise illegal(f"{word} is not one of your ships in this battle")
    return name


def _enemy(ctx: SurfaceContext, words: Sequence[str]) -> str:
    wanted = label_key("".join(words))
    found = next((e for e in ctx.enemy if label_key(e) == wanted), None)
    if found is None:
        raise illegal(f"{' '.join(words)} is not an enemy ship you were told of ({', '.join(ctx.enemy)})")
    return found


def read_surface_line(ctx: SurfaceContext, text: str) -> Engage | Placement | BhtNumber | FireAt | None:
    words = tokens(_NUMBER_SIGN.sub(r"\1", text))
    if not words:
        return None
    head, rest = words[0], words[1:]
    if head == "SEAL" and rest[:1] == ["BHT"]:
        head, rest = "BHT", rest[1:]
    allowed = {
        "engage": ("ENGAGE", "AVOID", "POSITION"),
        "bht": ("BHT",),
        "gunnery": ("FIRE",),
        "breakthrough": ("FIRE",),
        "torpedo": ("TORPEDO", "TORP"),
    }[ctx.phase]
    if head not in allowed:
        raise OrderError(ProblemKind.INVALID, f"this step of the surface battle takes {', '.join(allowed)}")
    if head in ("ENGAGE", "AVOID"):
        if rest:
            raise OrderError(ProblemKind.INVALID, f"{head} stands alone")
        return Engage(head == "ENGAGE")
    if head == "POSITION":
        if len(rest) != 2 or rest[1] not in POSITIONS:
            raise OrderError(ProblemKind.INVALID, "POSITION reads POSITION <ship> GUNNERY|TORPEDO|SCREEN")
        return Placement(_own(ctx, rest[0]), rest[1].lower())
    if head == "BHT":
        if len(rest) != 1 or not rest[0].isdigit() or not 1 <= int(rest[0]) <= 6:
            raise OrderError(ProblemKind.INVALID, "the BHT number is 1 to 6 (SEAL BHT 4)")
        return BhtNumber(int(rest[0]))
    if len(rest) < 3 or rest[1] != "AT":
        raise OrderError(ProblemKind.INVALID, f"{head} reads {head} <your ship> AT <enemy number, e.g. BB#2>")
    ship = _own(ctx, rest[0])
    if ship in ctx.silent:  # e.g. a FIRE line for a ship in the torpedo position (A.11.7)
        raise illegal(f"{ctx.silent[ship]}: her {head} line cannot be used")
    return FireAt(ship, _enemy(ctx, rest[2:]), torpedo=head != "FIRE")
