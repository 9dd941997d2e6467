# SPDX-License-Identifier: GPL-3.0-or-later
"""The weather summary's storm line (standard 6.5, the by-e-mail report): for any storms and own
units on the Coral Sea board it reads as when every storm-unit pair had its hex id written."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.games.flattop.map.hexes import Hex, distance
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.view_weather import WEATHER_RADIUS, Unit, _storm_line

from .play import game_data, new


@cache
def coral_sea() -> tuple[FlatTopState, tuple[Hex, ...]]:
    state = new(game_data(), "coral-sea-demo")
    return state, tuple(state.scenario.map.layout.hexes())


def written_out(state: FlatTopState, storms: frozenset[Hex], units: list[Unit], whose: str) -> str:
    """The line as first written: every pair with its storm's hex id, the nearest by (distance,
    unit, hex id)."""
    if not storms:
        return "Storm hexes: none on the board."
    head = f"Storm hexes: {len(storms)} on the board"
    pairs = [(distance(u.hex, s), u.name, state.scenario.map.hex_id(s)) for s in storms for u in units]
    near = {where for d, _, where in pairs if d <= WEATHER_RADIUS}
    if not near:
        return f"{head}, none within {WEATHER_RADIUS} hexes of {whose}."
    d, unit, where = min(pairs)
    nearest = f"{unit} is in one ({where})" if d == 0 else f"the nearest is {where}, {d} hexes from {unit}"
    return f"{head}, {len(near)} within {WEATHER_RADIUS} hexes of {whose}; {nearest}."


indexes = st.integers(min_value=0, max_value=10**6)
names = st.sampled_from(["TF1", "TF11", "AF2", "Rabaul", "Port Moresby"])


@settings(max_examples=300, deadline=None)
@given(st.lists(indexes, max_size=60), st.lists(st.tuples(names, indexes), min_size=1), st.booleans())
def test_the_storm_line_reads_as_written_out(
    storm_at: list[int], unit_at: list[tuple[str, int]], near: bool
) -> None:
    state, board = coral_sea()
    span = 40 if near else len(board)  # storms crowd the units, or lie anywhere on the board
    storms = frozenset(board[i % span] for i in storm_at)
    units = [Unit(name, board[i % span]) for name, i in unit_at]
    assert _storm_line(state, storms, units, "your units") == written_out(state, storms, units, "your units")


@settings(max_examples=100, deadline=None)
@given(indexes, st.integers(min_value=0, max_value=3), st.lists(st.booleans(), min_size=24, max_size=24))
def test_storms_tied_for_nearest_across_a_section_line_are_named_as_written_out(
    at: int, radius: int, kept: list[bool]
) -> None:
    """A unit on a section line with storms all round it at one distance: the tie between them is
    broken by the hex ids as they read, which across a section line is not the board's order."""
    state, board = coral_sea()
    shared = [h for h in board if state.scenario.map.is_shared(h)]
    unit = shared[at % len(shared)]
    ring = [h for h in board if distance(h, unit) == radius]
    storms = frozenset(h for n, h in enumerate(ring) if kept[n % len(kept)]) or frozenset(ring)
    units = [Unit("TF1", unit)]
    assert _storm_line(state, storms, units, "your units") == written_out(state, storms, units, "your units")
