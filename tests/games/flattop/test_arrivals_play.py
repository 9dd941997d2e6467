# SPDX-License-Identifier: GPL-3.0-or-later
"""Arrival schedules in play (issue 17 "A whole scenario"; ``map.arrivals``): Crace's force
enters the Coral Sea scenario at D1 1200 from the south edge, in the letter that asks for that
hour's orders, and only its owner hears of it."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import load_scenario_data
from .play import game_data, new, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    tree = game_data()
    tree["scenarios"]["coral-sea"] = load_scenario_data("coral-sea")
    return tree


def test_a_task_force_arrives_on_its_hour_and_only_its_side_hears_of_it(data: dict[str, Any]) -> None:
    state = new(data, "coral-sea")
    before = {(t.side, t.number) for t in state.task_forces}
    heard: list[tuple[frozenset[str], str]] = []
    while state.time.label != "D1 1200":
        outcome = play(state, {})
        while outcome.state.pending.surface is not None or outcome.state.pending.battle is not None:
            outcome = play(outcome.state, {})
        heard += [(e.audience, e.text) for e in outcome.events if e.kind == "ft.arrival"]
        state = outcome.state
    new_tfs = {(t.side, t.number) for t in state.task_forces} - before
    assert new_tfs, "Crace's force is on the map for the D1 1200 orders"
    assert heard and all(audience == frozenset({"allied"}) for audience, _ in heard)
