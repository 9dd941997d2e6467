# SPDX-License-Identifier: GPL-3.0-or-later
"""Strain recovery (issue 19): a marked, configurable design default, not in seed 001."""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.recovery import open_turn
from mailbot.games.saltntar.state import REEFED, State
from tests.games.saltntar.conftest import new_state, play, race, ship, texts

EAST = 3


def strained(data: dict[str, Any], strain: int = 1, **options: Any) -> State:
    state = new_state(data, race(ship("Hull", "a", "cutter", heading=EAST)), wind=(1, 2), options=options)
    state.ships[0].strain = strain
    open_turn(state)  # the Strain was marked in an earlier turn
    return state


def test_the_shipped_rule_is_marked_a_design_default(data: dict[str, Any]) -> None:
    table = data["tables"]["strain_recovery"]
    assert (table["default"], table["rule"], table["amount"]) == (True, "reefed", 1)
    view = SaltNTarGame().view(strained(data), (), "a")
    assert any(note.startswith("Strain recovery: one Strain is removed") for note in view["defaults"])


def test_a_reefed_ship_without_new_strain_recovers_one(data: dict[str, Any]) -> None:
    state = strained(data, 2)
    state.ships[0].rig = REEFED
    outcome = play(state, rolls={"strain/T1/Hull": [1]})  # 1 + 2: no effect
    assert outcome.state.ship("Hull").strain == 1
    assert texts(outcome, "recovery") == [
        "Hull recovers 1 Strain (design default: one Strain is removed after a turn without new Strain "
        "sailed reefed, furled, at anchor or dismasted): Strain now 1."
    ]
    assert outcome.state.ship("Hull").strain_start == 1  # the next turn counts from here


def test_full_sail_keeps_its_strain(data: dict[str, Any]) -> None:
    outcome = play(strained(data), rolls={"strain/T1/Hull": [1]})
    assert outcome.state.ship("Hull").strain == 1
    assert texts(outcome, "recovery") == []


def test_new_strain_this_turn_means_no_recovery(data: dict[str, Any]) -> None:
    state = strained(data)
    state.ships[0].rig = REEFED
    outcome = play(state, rolls={"strain/T1/Hull": [5]})  # 5 + 1 = 6: creak, 1 extra Strain
    assert outcome.state.ship("Hull").strain == 2


@pytest.mark.parametrize(("rule", "left"), [("none", 1), ("any", 0), ("reefed", 1)])
def test_the_rule_is_a_game_option(data: dict[str, Any], rule: str, left: int) -> None:
    state = strained(data, strain_recovery=rule)
    outcome = play(state, rolls={"strain/T1/Hull": [1]})
    assert outcome.state.ship("Hull").strain == left
    loaded = SaltNTarGame().load(SaltNTarGame().dump(outcome.state))
    assert loaded.rules.recovery.rule == rule


def test_the_seed_as_written_says_so_in_the_letter(data: dict[str, Any]) -> None:
    view = SaltNTarGame().view(strained(data, strain_recovery="none"), (), "a")
    assert "Strain recovery: none, as the seed is written (Strain never clears)" in view["defaults"]
