# SPDX-License-Identifier: GPL-3.0-or-later
"""How many convoys the linear time rule selects (seed 000), measured rather than claimed.

seed 000 claims the simple rule's count "will vary between 15 and 25", that
with the enhanced algorithm "The number of YES:es will be 20 in 95% of games
played", and "perhaps no convoys in 1943 at all in 0.5% of the games". This
module plays the sheet with the moderator's own :func:`sheet_row`; the random
source is an argument (a seeded ``random.Random``), never the global one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mailbot.core.simulation import Option, Simulation
from mailbot.games.atlantic_storm.timeline import (
    CONVOYS,
    DICE,
    SIDES,
    YEARS,
    SheetRow,
    columns_after,
    sheet_row,
)


@dataclass(frozen=True)
class Stats:
    games: int
    enhanced: bool
    histogram: Mapping[int, int]  # convoys selected in a game -> games
    by_year: Mapping[int, int]  # year -> convoys selected in it over all games
    no_1943: int  # games with no convoy selected in 1943 (C29-C40)

    @property
    def mean(self) -> float:
        return sum(n * k for n, k in self.histogram.items()) / self.games

    def share(self, low: int, high: int) -> float:
        return sum(k for n, k in self.histogram.items() if low <= n <= high) / self.games


def play_sheet(enhanced: bool, rng: random.Random) -> list[SheetRow]:
    """One game's forty rows."""
    rows: list[SheetRow] = []
    for _ in range(CONVOYS):
        balance, remaining = columns_after(rows)
        roll = sum(rng.randint(1, SIDES) for _ in range(DICE))
        rows.append(sheet_row(balance, remaining, roll, enhanced=enhanced))
    return rows


def simulate(games: int, enhanced: bool, rng: random.Random) -> Stats:
    histogram: Counter[int] = Counter()
    by_year: Counter[int] = Counter()
    no_1943 = 0
    last_year = YEARS[-1]
    for _ in range(games):
        chosen = [row.convoy for row in play_sheet(enhanced, rng) if row.selected]
        histogram[len(chosen)] += 1
        by_year.update(next(y.year for y in YEARS if y.first <= c <= y.last) for c in chosen)
        no_1943 += not any(c >= last_year.first for c in chosen)
    return Stats(games, enhanced, dict(sorted(histogram.items())), dict(sorted(by_year.items())), no_1943)


def format_report(stats: Stats) -> list[str]:
    """The distribution of selected convoys; the last three lines are the seed's three claims."""
    mode = "enhanced selection algorithm" if stats.enhanced else "simple rule (3d6 3-10)"
    lines = [f"linear time, {mode}: {stats.games} games", "selected   games    share"]
    widest = max(stats.histogram.values())
    for selected, games in stats.histogram.items():
        bar = "#" * max(1, round(40 * games / widest))
        lines.append(f"{selected:8d} {games:7d} {games / stats.games:8.2%}  {bar}")
    lines.append(f"mean selected: {stats.mean:.3f}")
    for year in YEARS:
        size = year.last - year.first + 1
        mean = stats.by_year.get(year.year, 0) / stats.games
        lines.append(
            f"{year.year} (C{year.first}-C{year.last}): {mean:.2f} of {size} convoys selected on average"
        )
    lines.append(f"share exactly 20: {stats.share(20, 20):.4f}")
    lines.append(f"share 15-25: {stats.share(15, 25):.4f}")
    lines.append(f"share no 1943 convoys: {stats.no_1943 / stats.games:.4f}")
    return lines


def _run(options: Mapping[str, Any], rng: random.Random, _data: Mapping[str, Any]) -> list[str]:
    return format_report(simulate(int(options["games"]), bool(options["enhanced"]), rng))


SIMULATION = Simulation(
    "atlantic-storm",
    "Atlantic Storm linear time (seed 000): how many convoys a campaign selects.",
    (
        Option("games", int, 100_000, "Campaigns to play.", low=1),
        Option("enhanced", bool, False, "Use the enhanced selection algorithm."),
    ),
    _run,
)
