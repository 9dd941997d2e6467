# SPDX-License-Identifier: GPL-3.0-or-later
"""How many impulses a turn lasts under the last impulse test (seed 002, "Background/Purpose").

The seed claims the rule "decreases the variability on number of impulses
per turn, all without altering the expected number". This module measures
it with the very functions the moderator uses (:mod:`mailbot.games.wif.rules`).
The random source is an argument (a ``random.Random`` the caller seeded), never
the global one.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mailbot.core.simulation import Option, Simulation
from mailbot.games.wif.rules import DIE_SIDES, apply_impulse, threshold

#: dice per impulse: a fixed circled weather number, or one chosen per impulse (impulse number, rng)
DiceCount = int | Callable[[int, random.Random], int]
#: the pass bonus on each die: (impulse number, moving side's index, turn-end number so far) -> bonus
PassPattern = Callable[[int, int, int], int]


def no_passes(impulse: int, side: int, total: int) -> int:
    return 0


def always_pass(bonus: int) -> PassPattern:
    """Every impulse some powers pass, worth ``bonus`` on each die (e.g. 1 for Italy alone)."""

    def pattern(impulse: int, side: int, total: int) -> int:
        return bonus

    return pattern


def pass_near_end(bonus: int, from_total: int) -> PassPattern:
    """Powers pass once the turn-end number reaches ``from_total``: pushing for the turn's end."""

    def pattern(impulse: int, side: int, total: int) -> int:
        return bonus if total >= from_total else 0

    return pattern


def weather_cycle(*counts: int) -> Callable[[int, random.Random], int]:
    """Dice per impulse taken in turn from ``counts`` (e.g. a turn of changing weather)."""

    def pattern(impulse: int, rng: random.Random) -> int:
        return counts[(impulse - 1) % len(counts)]

    return pattern


@dataclass(frozen=True)
class Stats:
    turns: int
    sides: int
    threshold: int
    dice: str  # how the dice per impulse were chosen, for the report
    histogram: Mapping[int, int]  # impulses in a turn -> how many turns

    @property
    def mean(self) -> float:
        return sum(n * k for n, k in self.histogram.items()) / self.turns

    @property
    def stdev(self) -> float:
        mean = self.mean
        return math.sqrt(sum(k * (n - mean) ** 2 for n, k in self.histogram.items()) / self.turns)


def _dice_for(dice_count: DiceCount, impulse: int, rng: random.Random) -> int:
    return dice_count if isinstance(dice_count, int) else dice_count(impulse, rng)


def _one_turn(dice_count: DiceCount, passes: PassPattern, sides: int, needed: int, rng: random.Random) -> int:
    """Impulses in one turn; the last die rolled is always the nominated last die."""
    total, impulse = 0, 1
    while True:
        count = _dice_for(dice_count, impulse, rng)
        faces = [rng.randint(1, DIE_SIDES) for _ in range(count)]
        bonus = passes(impulse, (impulse - 1) % sides, total)
        result = apply_impulse(total, faces, bonus, count, needed)
        if result.ends_turn:
            return impulse
        total, impulse = result.after, impulse + 1


def simulate_turn_end(
    dice_count: DiceCount,
    turns: int,
    rng: random.Random,
    *,
    passes: PassPattern = no_passes,
    sides: int = 2,
) -> Stats:
    """Play ``turns`` turns and count the impulses of each."""
    needed = threshold(sides)
    histogram = Counter(_one_turn(dice_count, passes, sides, needed, rng) for _ in range(turns))
    described = f"{dice_count} d10 per impulse" if isinstance(dice_count, int) else "varying dice per impulse"
    return Stats(turns, sides, needed, described, dict(sorted(histogram.items())))


def format_report(stats: Stats) -> list[str]:
    """Histogram, standard deviation and, as the last line, the mean impulses per turn."""
    lines = [
        f"last impulse test: {stats.turns} turns, {stats.sides} sides, turn ends at {stats.threshold}, "
        f"{stats.dice}",
        "impulses    turns    share",
    ]
    widest = max(stats.histogram.values())
    for impulses, turns in stats.histogram.items():
        bar = "#" * max(1, round(40 * turns / widest))
        lines.append(f"{impulses:8d} {turns:8d} {turns / stats.turns:8.2%}  {bar}")
    lines.append(f"standard deviation: {stats.stdev:.3f}")
    lines.append(f"mean impulses per turn: {stats.mean:.3f}")
    return lines


def _run(options: Mapping[str, Any], rng: random.Random, _data: Mapping[str, Any]) -> list[str]:
    bonus = int(options["pass_bonus"])
    passes = always_pass(bonus) if bonus else no_passes
    stats = simulate_turn_end(
        int(options["dice"]), int(options["turns"]), rng, passes=passes, sides=int(options["sides"])
    )
    return format_report(stats)


SIMULATION = Simulation(
    "wif-turn-end",
    "World in Flames last impulse test (seed 002): impulses per turn.",
    (
        Option("dice", int, 2, "d10s per impulse (circled weather number).", low=1, high=4),
        Option("turns", int, 100_000, "Turns to play.", low=1),
        Option("pass_bonus", int, 0, "Pass bonus on each die, every impulse.", low=0),
        Option("sides", int, 2, "Sides taking impulses.", low=2),
    ),
    _run,
)
