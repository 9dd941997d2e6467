# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarine orders (seed 003, 27, an optional rule: a game plays them with the option
``submarines`` on): reading and checking them against the side's own TFs. Their effect is
:mod:`mailbot.games.flattop.hour.sub_phase`.

    DEPTH TF12 SURFACE|PERISCOPE|DEEP  the submarine TF changes depth during this hour's movement
                                       (27.2.2); it stays there until told otherwise. It moves by
                                       the depth it started the hour at (27.2.1)
    SUBATTACK TF12 [3]                 each of its submarines attacks the enemy ships in its hex in
                                       this Combat Phase with 1-4 torpedo factors (27.9.1; default:
                                       four, or what is left before a reload); at night the targets
                                       are random (27.8)
    ASW TF3                            TF3's ships attack a submarine they observe in their hex
                                       (27.9: gunnery, and depth charges from DDs, APDs and PGs)
    DIVE TF12 PERISCOPE|DEEP           for this hour: the submarine dives so deep upon receiving an
                                       attack (27.6.4)

A submarine TF is a TF whose ships afloat are all SS. Refusals speak only of the side's own units
and of the game's options, so they reveal nothing of the enemy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mailbot.core.game import ProblemKind
from mailbot.errors import GameError
from mailbot.games.flattop.combat.sub_moves import depth_problem
from mailbot.games.flattop.combat.sub_sequence import asw_capacity
from mailbot.games.flattop.combat.submarines import Depth, SubmarineRules
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.orders.checks import OrderError, Own, illegal, is_submarine
from mailbot.games.flattop.orders.types import Asw, Dive, SetDepth, SubAttack
from mailbot.games.flattop.units import Side, TaskForce

DEPTHS = {
    "SURFACE": Depth.SURFACE, "SURFACED": Depth.SURFACE,
    "PERISCOPE": Depth.PERISCOPE, "PERI": Depth.PERISCOPE,
    "DEEP": Depth.DEEP,
}  # fmt: skip
NOT_IN_PLAY = "submarines are not in play in this game (seed 003, 27 is an optional rule)"
#: order help lines for a game with submarines (for ``view.order_help``)
HELP = (
    "Submarines (seed 003, 27):",
    "  DEPTH TF<n> SURFACE|PERISCOPE|DEEP",
    "                    (during movement; it stays there)",
    "  SUBATTACK TF<n> [1-4]  (torpedo attack on enemy ships in its hex)",
    "  DIVE TF<n> PERISCOPE|DEEP  (this hour, when attacked)",
    "  ASW TF<n>         (a surface TF attacks a submarine seen in its hex)",
)
_YES = frozenset({"on", "yes", "true", "1"})
_NO = frozenset({"off", "no", "false", "0", ""})


def submarines_option(options: Mapping[str, Any]) -> bool:
    """The game option ``submarines`` (seed 003, 27: "Optional, of course"): off unless turned on."""
    value = options.get("submarines", False)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _YES | _NO:
        return text in _YES
    raise GameError(f"option submarines must be on or off, not {value!r}")


@dataclass(frozen=True)
class SubHour:
    """This hour's submarine combat orders and the TFs that moved, kept in the state from the
    orders to the Combat Phase (a strike's choice sub-step may come in between)."""

    turn: int
    attacks: tuple[tuple[Side, SubAttack], ...] = ()
    asw: tuple[tuple[Side, Asw], ...] = ()
    dives: tuple[tuple[Side, Dive], ...] = ()
    moved: tuple[tuple[Side, int], ...] = ()  # TFs that moved a hex this hour (27.5.1, 27.5.2, 27.6.8)
    # (the AF's side, the AF, the enemy submarine TF) this hour: found by a low AF's "sub search"
    # (27.5.3) or shadowed; the sequence table's "-2 if the AF has spotted or shadowed the sub"
    spotters: tuple[tuple[Side, int, int], ...] = ()

    def has_moved(self, side: Side, tf: int) -> bool:
        return (side, tf) in self.moved

    def dive_of(self, side: Side, tf: int) -> Depth | None:
        return next((d.depth for s, d in self.dives if s is side and d.tf == tf), None)

    def attack_of(self, side: Side, tf: int) -> SubAttack | None:
        return next((a for s, a in self.attacks if s is side and a.tf == tf), None)

    def spotters_of(self, side: Side, sub_tf: int) -> tuple[int, ...]:
        """The AFs of ``side`` that spotted or shadowed the enemy submarine TF ``sub_tf`` this hour."""
        return tuple(af for s, af, tf in self.spotters if s is side and tf == sub_tf)


# --- reading --------------------------------------------------------------------------------


def _rules(own: Own) -> SubmarineRules:
    if own.submarines is None:
        raise illegal(NOT_IN_PLAY)
    return own.submarines


def _tf_number(word: str) -> int:
    if not (word.startswith("TF") and word[2:].isdigit()):
        raise OrderError(ProblemKind.INVALID, f"{word!r} is not a TF like TF12")
    return int(word[2:])


def _sub_tf(own: Own, word: str) -> TaskForce:
    tf = own.tf(_tf_number(word))
    if not is_submarine(tf):
        raise illegal(f"TF{tf.number} is not a submarine TF (every ship afloat an SS)")
    return tf


def _depth(word: str, allowed: Sequence[Depth], usage: str) -> Depth:
    depth = DEPTHS.get(word)
    if depth is None or depth not in allowed:
        raise OrderError(ProblemKind.INVALID, usage)
    return depth


def _end_hex(own: Own, tf: TaskForce) -> Hex:
    """Where the TF ends this hour's movement if it moves as plotted (this letter's PLOT first)."""
    plot = own.plots.get(tf.number)
    legs = plot.legs if plot is not None else tf.plot
    return legs[0][-1] if legs and legs[0] else tf.hex


def _check_depth(own: Own, tf: TaskForce, depth: Depth, rules: SubmarineRules) -> None:
    """27.1: "The deep level may not be used in partial land hexes" (the hex after this hour's plot;
    the turn checks it again where the submarine really is)."""
    problem = depth_problem(depth, own.scenario.map.terrain_of(_end_hex(own, tf)), rules)
    if problem:
        raise illegal(f"TF{tf.number}: {problem}")


_DEPTH_HELP = "DEPTH reads DEPTH <submarine TF> SURFACE, PERISCOPE or DEEP"
_DIVE_HELP = "DIVE reads DIVE <submarine TF> PERISCOPE or DEEP (the depth it dives to when attacked)"


def read_depth(own: Own, words: Sequence[str]) -> SetDepth:
    if len(words) != 2:
        raise OrderError(ProblemKind.INVALID, _DEPTH_HELP)
    rules = _rules(own)
    tf = _sub_tf(own, words[0])
    depth = _depth(words[1], tuple(Depth), _DEPTH_HELP)
    _check_depth(own, tf, depth, rules)
    return SetDepth(tf.number, depth)


def read_dive(own: Own, words: Sequence[str]) -> Dive:
    if len(words) != 2:
        raise OrderError(ProblemKind.INVALID, _DIVE_HELP)
    rules = _rules(own)
    tf = _sub_tf(own, words[0])
    depth = _depth(words[1], (Depth.PERISCOPE, Depth.DEEP), _DIVE_HELP)
    _check_depth(own, tf, depth, rules)
    return Dive(tf.number, depth)


def read_subattack(own: Own, words: Sequence[str]) -> SubAttack:
    """``SUBATTACK TF12 [n] [FACTORS]``: 27.9.1 "A submarine has four attack factors"."""
    rest = [w for w in words if w not in ("FACTOR", "FACTORS")]
    if len(rest) not in (1, 2):
        raise OrderError(ProblemKind.INVALID, "SUBATTACK reads SUBATTACK <submarine TF> [attack factors]")
    rules = _rules(own)
    tf = _sub_tf(own, rest[0])
    if len(rest) == 1:
        return SubAttack(tf.number)
    most = rules.attack_factors
    if not rest[1].isdigit() or not 1 <= int(rest[1]) <= most:
        raise OrderError(
            ProblemKind.INVALID, f"a submarine fires 1 to {most} attack factors in an attack (27.9.1)"
        )
    return SubAttack(tf.number, int(rest[1]))


def read_asw(own: Own, words: Sequence[str]) -> Asw:
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "ASW reads ASW <TF> (its ships attack a submarine they see)")
    rules = _rules(own)
    tf = own.tf(_tf_number(words[0]))
    if is_submarine(tf):
        raise illegal(f"TF{tf.number} is a submarine TF: submarines attack with SUBATTACK")
    if not any(s.gunnery > 0 or asw_capacity(s.type, rules) for s in tf.afloat):
        raise illegal(f"TF{tf.number} has no ship with gunnery or ASW weapons (27.9)")
    return Asw(tf.number)
