# SPDX-License-Identifier: GPL-3.0-or-later
"""The impulses-per-turn simulator: plausible figures and the report's fixed last line."""

from __future__ import annotations

import random
import re

from mailbot.games.wif.simulate import (
    always_pass,
    format_report,
    pass_near_end,
    simulate_turn_end,
    weather_cycle,
)


def test_two_dice_give_about_five_or_six_impulses_a_turn() -> None:
    # seed 002, "Note": 55 is "5 (expected number of impulses ...) times 5.5 (average result
    # of a d10 die roll)" per side pair, so two dice an impulse should end turns near 5-6 impulses.
    stats = simulate_turn_end(2, 5000, random.Random(2))
    assert stats.turns == sum(stats.histogram.values()) == 5000
    assert 5.3 < stats.mean < 6.3
    assert 0.8 < stats.stdev < 1.5
    assert min(stats.histogram) >= 3  # 3 impulses of 2d10 can reach 55 only with 10s


def test_more_dice_and_passing_shorten_turns() -> None:
    one = simulate_turn_end(1, 3000, random.Random(3)).mean
    four = simulate_turn_end(4, 3000, random.Random(3)).mean
    passing = simulate_turn_end(2, 3000, random.Random(3), passes=always_pass(2)).mean
    plain = simulate_turn_end(2, 3000, random.Random(3)).mean
    late = simulate_turn_end(2, 3000, random.Random(3), passes=pass_near_end(4, 35)).mean
    assert four < plain < one
    assert passing < plain
    assert late < plain


def test_three_sides_take_longer_and_patterns_vary_the_dice() -> None:
    assert simulate_turn_end(2, 2000, random.Random(4), sides=3).threshold == 83
    mixed = simulate_turn_end(weather_cycle(1, 3), 2000, random.Random(4))
    assert mixed.dice == "varying dice per impulse"


def test_report_ends_with_the_mean_line() -> None:
    stats = simulate_turn_end(2, 1000, random.Random(5))
    report = format_report(stats)
    assert re.fullmatch(r"mean impulses per turn: \d+\.\d{3}", report[-1])
    assert report[-1] == f"mean impulses per turn: {stats.mean:.3f}"
    assert report[-2].startswith("standard deviation: ")
    assert any(
        line.strip().startswith(str(max(stats.histogram, key=stats.histogram.__getitem__))) for line in report
    )


def test_same_seed_same_figures() -> None:
    assert simulate_turn_end(2, 500, random.Random(9)) == simulate_turn_end(2, 500, random.Random(9))
