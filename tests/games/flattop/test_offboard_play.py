# SPDX-License-Identifier: GPL-3.0-or-later
"""Off-board bases played through the engine (reference A.3): choosing the entry hex a launch
appears in (``VIA``), and landing at an off-board base by one of its entry hexes.

test-small.toml: Australia (off board, Allied, 4 B-17 ready) has the entry hexes 1A (V-A28,
delay 1) and 2A (V-A24, delay 2).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.games.flattop.units import AirFactors, Armament, Side
from mailbot.games.flattop.victory import totals

from .play import game_data, new, parse, play
from .test_rule_bugs import af_of, aloft, resolve, told


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def test_a3_a_launch_from_an_off_board_base_appears_in_the_entry_hex_it_names(data: dict[str, Any]) -> None:
    """Reference A.3: "Their planes enter and leave through Entry Hexes whose label includes a delay
    in turns". ``VIA 2A`` sends the B-17s by V-A24, two turns in flight; without VIA they take the
    base's first entry hex (1A). An entry hex of another base, or none, is refused with the list."""
    state = play(new(data), {}).state
    assert parse(state, "allied", "fly af7 from australia 4 b-17 via 2a").normalised == (
        "FLY AF7 FROM Australia 4 B-17 VIA 2A",
    )
    outcome = resolve(state, {"allied": ["fly af7 from australia 4 b-17 via v-a24"]})
    assert f"it appears at V-A24 at the end of turn {state.turn + 2}" in told(outcome.events, Side.ALLIED)
    (problem,) = parse(state, "allied", "fly af7 from australia 4 b-17 via 5N").problems
    assert problem.reason == "Australia has no entry hex 5N: its entry hexes are 1A (V-A28), 2A (V-A24)"
    (problem,) = parse(state, "allied", "fly af7 from port-moresby 1 catalina via 1A").problems
    assert "only an off-board base's planes come and go by an entry hex" in problem.reason


def test_a3_an_af_lands_at_an_off_board_base_by_its_entry_hex_after_the_delay(data: dict[str, Any]) -> None:
    """Reference A.3: "B-17s reach Entry Hex 1A at 1400. At 1500 they go to the Australia In-Flight
    box, and they land at 1600." The B-17s of AF7, two hexes from 1A (V-A28), fly there, leave the
    board, are seen by nobody while in flight, and land in Australia's Just Landed box at the end
    of the next turn (1A's delay of 1)."""
    state = play(new(data), {}).state
    state = aloft(state, Side.ALLIED, 7, "V-C28", AirFactors("B-17", 4))
    assert parse(state, "allied", "land af7 australia").normalised == ("LAND AF7 Australia",)
    left = resolve(state, {"allied": ["land af7 australia"]})
    assert (
        f"AF7 left the board at entry hex 1A (V-A28) for Australia; it lands there at the end of turn "
        f"{state.turn + 1}" in told(left.events, Side.ALLIED)
    )
    assert af_of(left.state, Side.ALLIED, 7).hex is None
    landed = resolve(left.state, {})
    assert "AF7 landed at Australia" in told(landed.events, Side.ALLIED)
    australia = next(b for b in landed.state.own_bases(Side.ALLIED) if b.name == "Australia")
    assert sum(s.count for s in australia.boxes.just_landed if s.plane == "B-17") == 4
    assert all(a.number != 7 for a in landed.state.own_air(Side.ALLIED))


def test_a3_via_chooses_the_entry_hex_an_af_leaves_by(data: dict[str, Any]) -> None:
    """``LAND AF7 Australia VIA 2A``: the AF flies to V-A24 instead of the nearer 1A, and lands the
    entry's two turns later."""
    state = play(new(data), {}).state
    state = aloft(state, Side.ALLIED, 7, "V-B25", AirFactors("B-17", 4))
    assert parse(state, "allied", "land af7 australia via 2a").normalised == ("LAND AF7 Australia VIA 2A",)
    left = resolve(state, {"allied": ["land af7 australia via 2a"]})
    text = told(left.events, Side.ALLIED)
    lands = f"it lands there at the end of turn {state.turn + 2}"
    assert f"left the board at entry hex 2A (V-A24) for Australia; {lands}" in text


def test_8_5_5_an_af_whose_range_runs_out_in_flight_to_an_off_board_base_is_lost_and_scored(
    data: dict[str, Any],
) -> None:
    """Standard 8.5.5; reference A.13: an AF "lost unnecessarily" (out of range) scores the enemy.
    B-17s whose last turn of range is this one leave by 2A (two turns in flight) and never land."""
    state = play(new(data), {}).state
    state = aloft(state, Side.ALLIED, 7, "V-B25", AirFactors("B-17", 4, armament=Armament.GP))
    b17 = state.rules.planes["B-17"].range
    state = replace(
        state,
        air=tuple(replace(a, takeoff_turn=state.turn - b17 + 1) if a.number == 7 else a for a in state.air),
    )
    left = resolve(state, {"allied": ["land af7 australia via 2a"]})
    lost = resolve(resolve(left.state, {}).state, {})
    assert "AF7 ran out of fuel on its way to Australia and is lost" in told(lost.events, Side.ALLIED)
    assert totals(lost.state.score.ledger)[Side.JAPANESE] > totals(state.score.ledger)[Side.JAPANESE]
