# SPDX-License-Identifier: GPL-3.0-or-later
"""Towing through whole game hours (seed 003, Towing; rules: ``map.towing``).

"A ship may tow any other ship up to one class above itself. Thus a DD can tow a CL but not a BB.
If towing a ship one class above, the pair moves one hex every three turns instead of one every
two." The TF with the pair moves at the pair's pace; the pair is "treated as an anchored target";
at Condition 3 the towed ship shows "in tow" (7.12.3)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side, TaskForce

from .play import game_data, new, parse, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def tf1(state: FlatTopState) -> TaskForce:
    return next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)


def crippled_cruiser(data: dict[str, Any]) -> FlatTopState:
    """The Allied TF1 with Astoria (CA, damage factor 6) crippled at 5 hits."""
    state = new(data)
    ships = tuple(replace(s, hits=5) if s.name == "Astoria" else s for s in tf1(state).ships)
    return replace(
        state, task_forces=tuple(replace(t, ships=ships) if t is tf1(state) else t for t in state.task_forces)
    )


def test_a_destroyer_tows_a_crippled_cruiser_one_hex_every_three_turns(data: dict[str, Any]) -> None:
    state = crippled_cruiser(data)
    start = tf1(state).hex
    hour = play(state, {"allied": ["TOW Hammann Astoria"]})
    (pair,) = hour.state.tows
    assert (pair.tower, pair.towed, pair.interval) == ("Hammann", "Astoria", 3)
    assert tf1(hour.state).hex == start  # it holds the turn the tow is taken up
    state = play(hour.state, {"allied": ["PLOT TF1 V-E25 V-E24"]}).state  # the plot waits for the pair
    hexes = [tf1(state).hex]
    for _ in range(2):
        state = play(state, {}).state
        hexes.append(tf1(state).hex)
    name = state.scenario.map.hex_id
    assert [name(h) for h in hexes] == ["V-E26", "V-E26", "V-E25"]  # one hex at turn 4 (1 + 3)
    assert {s.name for s in tf1(state).ships} >= {"Astoria", "Hammann"}


def test_who_may_tow_whom(data: dict[str, Any]) -> None:
    """A DD tows a CL (one class up) but not a CV/BB; only ships able to make two hexes tow."""
    state = crippled_cruiser(data)
    told = [e.text for e in play(state, {"allied": ["TOW Hammann Yorktown"]}).events if e.kind == "ft.tow"]
    assert told and "Yorktown" in told[0] and "took" not in told[0]
    (problem,) = parse(state, "allied", "TOW Hammann Hammann").problems
    assert problem.reason == "a ship cannot tow herself"
    (problem,) = parse(state, "allied", "TOW Hammann Nowhere").problems
    assert problem.reason == "you have no ship NOWHERE afloat"


def test_a_tow_can_be_cast_off(data: dict[str, Any]) -> None:
    state = play(crippled_cruiser(data), {"allied": ["TOW Hammann Astoria"]}).state
    assert play(state, {"allied": ["CASTOFF Hammann"]}).state.tows == ()


def test_tow_ships_may_not_launch_or_recover_aircraft(data: dict[str, Any]) -> None:
    """Seed 003, Towing: "Tow ships may not launch or recover aircraft." (Yorktown, a CV, tows the
    crippled Astoria: class 1 may tow class 2.)"""
    state = play(crippled_cruiser(data), {"allied": ["TOW Yorktown Astoria"]}).state
    assert [p.tower for p in state.tows] == ["Yorktown"]
    (problem,) = parse(state, "allied", "SEARCH AF2 FROM TF1 1 Wildcat PATH V-E25").problems
    assert problem.reason == "TF1 has a plane-carrying ship towing: tow ships may not launch aircraft"
