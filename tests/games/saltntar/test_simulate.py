# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 19's "Done when": in simulated three-ship races with every side always taking luck rolls,
at least half end with a winner (the measured figures are in the README)."""

from __future__ import annotations

import random
from typing import Any

from mailbot.games.saltntar.simulate import captain, format_report, race_scenario, simulate
from tests.games.saltntar.conftest import new_state


def test_three_ship_races_with_luck_always_mostly_end_with_a_winner(data: dict[str, Any]) -> None:
    stats = simulate(data, 60, 3, True, random.Random(19))
    assert stats.recovery == "reefed"
    assert stats.winner_share >= 0.5
    report = format_report(stats)
    assert report[-2] == f"share with a winner: {stats.winner_share:.3f}"
    assert report[-1] == f"share of ships sunk: {stats.sunk_share:.3f}"


def test_the_seed_as_written_sinks_more_ships(data: dict[str, Any]) -> None:
    as_written = simulate(data, 60, 3, True, random.Random(5), recovery="none", distance=60)
    recovering = simulate(data, 60, 3, True, random.Random(5), recovery="reefed", distance=60)
    assert as_written.sunk_share > recovering.sunk_share


def test_repeatable_with_a_seed(data: dict[str, Any]) -> None:
    first = simulate(data, 5, 2, False, random.Random(3), distance=10)
    assert first.results == simulate(data, 5, 2, False, random.Random(3), distance=10).results


def test_the_captain_takes_luck_and_reefs_when_strained(data: dict[str, Any]) -> None:
    state = new_state(data, race_scenario(1, 10, 20), wind=(1, 2))
    state.ships[0].strain = 1
    lines = captain(state, "side0", True)
    assert lines[0] == "LUCK" and "REEF S0" in lines
