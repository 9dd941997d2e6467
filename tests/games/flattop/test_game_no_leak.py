# SPDX-License-Identifier: GPL-3.0-or-later
"""No leaks through the plugin: what the Allies have not observed cannot change what they read.

Take a game after one turn (the Allies have searched and hold reports), then
change only facts the Allies never learnt: where the Japanese TFs are, their
ships' names and damage, extra Japanese TFs and AFs, the Japanese deception
policy and knowledge, the Japanese Ready boxes, and the referee's record of
which enemy units the Allies covered (11.2). The Allied view must be
byte-identical, and so must the answers to the same Allied letter: accepted
lines, and problems with their reasons, even for lines naming units or hexes
the enemy has or has not (seed 003's "limit on intelligence").
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Line, Setup
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.map.hexes import Hex, Terrain
from mailbot.games.flattop.observation.knowledge import Knowledge
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, AirFactors, AirFormation, Side, TaskForce

from .conftest import load_scenario_data, load_tables

GAME = FlatTopGame()
SEED = b"no leak".ljust(32, b"!")
LETTER = [
    "plot tf1 v-d26",
    "plot tf2 v-d26",  # the Japanese may or may not have a TF2
    "search af1 path v-e25",
    "search af2 from tf1 1 wildcat path v-e25 v-f24 if ships close 2",
    "land af3 tf1",
    "shadow af1 i-g17",
    "shadow af1 v-c26",
    "plot tf1 i-g17",
    "ready tf1 1 devastator",
    "search af4 from lae 1 zero path i-b19",
    "fly af5 from tf1 1 dauntless gp path v-e25 rendezvous v-e25 with af2",
    "fly af6 from tf1 1 dauntless normal",  # a second launch type from TF1
    "unready tf1 1 dauntless gp",
    "ready tf1 1 devastator torpedo",
    "intercept af1",
    "intercept af3",  # the Japanese may or may not have an AF3
    "land af1 v-c26",
    "hold",
]


def _first_turn() -> FlatTopState:
    data = {"tables": load_tables(), "scenarios": {"test-small": load_scenario_data("test-small")}}
    state = GAME.new_game(
        Setup("test-small", ("allied", "japanese"), data=data), dice=DiceStream(SEED, "", "s")
    )
    state = replace(state, weather=replace(state.weather, clouds=()))
    turns = [
        ["search af1 from tf1 2 wildcat path V-E25 V-E24 V-F23 I-F22 I-F21 I-F20 I-G20 I-G19"],
        ["search af1 path I-G18 I-G17+2"],  # by day, over the Japanese carriers: a sighting is near certain
    ]
    for number, texts in enumerate(turns, start=1):
        parsed = GAME.parse(state, "allied", [Line(i + 1, t) for i, t in enumerate(texts)])
        assert parsed.problems == ()
        dice = DiceStream(SEED, order_digest({"allied": list(parsed.normalised)}), f"T{number}.orders")
        state = GAME.resolve(state, {"allied": parsed.orders}, dice=dice).state
    return state


@pytest.fixture(scope="module")
def base() -> FlatTopState:
    return _first_turn()


SEA = [Hex(c, r) for c in range(8) for r in range(16, 28)]


def _sea(state: FlatTopState) -> list[Hex]:
    return [
        h
        for h in SEA
        if state.scenario.map.on_board(h) and state.scenario.map.terrain_of(h) is not Terrain.LAND
    ]


@st.composite
def changes(draw: st.DrawFn, state: FlatTopState) -> FlatTopState:
    sea = _sea(state)
    tfs = []
    for tf in state.task_forces:
        if tf.side is Side.JAPANESE:
            names = [draw(st.text("abcxyz", min_size=1, max_size=5)) for _ in tf.ships]
            ships = tuple(
                replace(s, name=n, hits=draw(st.integers(0, 1))) for s, n in zip(tf.ships, names, strict=True)
            )
            tfs.append(replace(tf, hex=draw(st.sampled_from(sea)), ships=ships))
        else:
            tfs.append(tf)
    if draw(st.booleans()):
        japanese = next(t for t in tfs if t.side is Side.JAPANESE)
        tfs.append(TaskForce(2, Side.JAPANESE, draw(st.sampled_from(sea)), japanese.ships[1:]))
    air = state.air
    if draw(st.booleans()):
        stacks = (AirFactors("Zero", draw(st.integers(1, 6))),)
        air = (*air, AirFormation(3, Side.JAPANESE, draw(st.sampled_from(sea)), stacks, "TF1", 1))
    bases = tuple(
        replace(b, boxes=AirBoxes(ready=(AirFactors("Zero", draw(st.integers(0, 9))),)))
        if b.side is Side.JAPANESE
        else b
        for b in state.bases
    )
    changed = replace(state, task_forces=tuple(tfs), air=air, bases=bases)
    japanese = changed.side(Side.JAPANESE)
    policy = draw(st.sampled_from(list(Deception)))
    changed = changed.with_side(replace(japanese, deception=policy, knowledge=Knowledge("japanese")))
    allied = changed.side(Side.ALLIED)
    return changed.with_side(
        replace(allied, seen=frozenset(draw(st.sets(st.sampled_from(["japanese TF1", "x"])))))
    )


def _answers(state: FlatTopState) -> str:
    parsed = GAME.parse(state, "allied", [Line(i + 1, t) for i, t in enumerate(LETTER)])
    answers: dict[str, Any] = {
        "accepted": [(a.line, a.normalised) for a in parsed.accepted],
        "problems": [(p.line, p.text, p.kind.value, p.reason) for p in parsed.problems],
        "view": GAME.view(state, (), "allied"),
        "help": list(GAME.order_help(state, "allied")),
    }
    return json.dumps(answers, sort_keys=True)


def test_the_base_state_has_allied_reports_and_flights(base: FlatTopState) -> None:
    assert base.side(Side.ALLIED).knowledge.sightings
    assert base.own_air(Side.ALLIED)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_unobserved_enemy_facts_change_nothing_the_allies_read(
    base: FlatTopState, data: st.DataObject
) -> None:
    changed = data.draw(changes(base))
    assert _answers(changed) == _answers(base)
