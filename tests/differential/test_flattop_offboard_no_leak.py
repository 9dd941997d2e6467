# SPDX-License-Identifier: GPL-3.0-or-later
"""Off-board flights through the differential harness (reference A.3): planes in an off-board
base's In Flight box, on their way in or home, are seen by nobody, so the enemy's letters are the
same whether they are there or not, until they land or appear.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Side
from mailbot.testing.differential import World, assert_no_leak, compare_worlds

from .test_flattop_combat_no_leak import ENV


def homebound(state: FlatTopState) -> FlatTopState:
    """The Allied AF7 (4 B-17) in Australia's In Flight box, landing there in three turns."""
    af7 = AirFormation(
        7, Side.ALLIED, None, (AirFactors("B-17", 4),), "Port-Moresby", state.turn, home="Australia",
        arrives=state.turn + 3,
    )  # fmt: skip
    return replace(state, air=(*state.air, af7))


def test_planes_flying_home_to_an_off_board_base_tell_the_enemy_nothing() -> None:
    """Reference A.3: at 1500 the B-17s "go to the Australia In-Flight box": off the map, unseen."""
    state = fw.zeros()
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=World(state), second=World(homebound(state)),
        letters=[["HOLD"], ["HOLD"]], observed=fw.observed,
    )  # fmt: skip
    assert_no_leak(verdict)
    assert "T3.orders" in verdict.compared, verdict.stopped
