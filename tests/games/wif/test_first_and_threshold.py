# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 19: who opens a turn can be set by the scenario or the GM; letters state the threshold's source."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Line, Outcome, Setup
from mailbot.errors import GameError
from mailbot.games.wif import WifTurnEndGame
from mailbot.games.wif.state import STANDARD_SCENARIO, WifState

ROOT = Path(__file__).resolve().parents[3]
GAME = WifTurnEndGame()
THREE: dict[str, Any] = {
    "sides": [
        {"name": "Axis", "powers": ["Germany", "Italy"]},
        {"name": "Japan", "powers": ["JPN"]},
        {"name": "Allies", "powers": ["CW", "USA", "USSR"]},
    ]
}


def new(options: Mapping[str, Any], data: Mapping[str, Any] | None = None) -> WifState:
    seats = GAME.seats("standard", data or {})
    return GAME.new_game(Setup("standard", seats, dict(options), dict(data or {})), dice=FixedDice())


def impulse(state: WifState, faces: Sequence[int]) -> Outcome[WifState]:
    seat = state.mover.name
    parsed = GAME.parse(state, seat, [Line(1, f"WEATHER {len(faces)}")])
    return GAME.resolve(state, {seat: parsed.orders}, dice=FixedDice(faces))


def end_turn(state: WifState) -> Outcome[WifState]:
    """Four 10s at weather 4 reach 55 with a last die of 10 in one impulse (83 in three)."""
    out = impulse(state, [10, 10, 10, 10])
    while out.state.turn == state.turn and not out.finished:
        out = impulse(out.state, [10, 10, 10, 10])
    return out


def render(state: WifState, seat: str | None) -> tuple[str, str]:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
    )
    view = GAME.view(state, (), seat)
    text = env.get_template("wif/templates/report.txt.j2").render(r=view)
    return text, env.get_template("wif/templates/report.html.j2").render(r=view)


def test_by_default_the_side_after_the_last_mover_opens_and_the_letter_says_it_is_a_default() -> None:
    out = end_turn(new({"turns": 2}))  # Axis 40, Allies 80: the Allies end turn 1
    assert out.state.mover.name == "Axis"
    assert "design default" in out.state.first_from
    assert any("Turn 2 begins: the Axis move first (design default" in e.text for e in out.events)
    text, html = render(out.state, "Axis")
    for rendered in (text, html):
        assert "Design defaults in this game (not in seed 002)" in rendered


def test_the_gm_sets_the_first_side_of_every_turn() -> None:
    state = new({"turns": 3, "first_by_turn": ["Allies", "Allies", "Axis"]})
    assert state.mover.name == "Allies"
    assert state.first_from == "first_by_turn, set by the GM when the game was created"
    out = end_turn(state)
    assert out.state.mover.name == "Allies"  # the Allies ended turn 1 and still open turn 2
    assert "first_by_turn, set by the GM" in out.state.first_from
    out = end_turn(out.state)
    assert out.state.mover.name == "Axis"


def test_the_scenario_keeps_the_same_side_first() -> None:
    data = STANDARD_SCENARIO | {"first": "Allies", "first_rule": "same"}
    state = new({"turns": 2}, data)
    assert (state.mover.name, state.first_from) == ("Allies", "set by the scenario")
    out = end_turn(state)
    assert out.state.mover.name == "Allies"
    assert "first_rule same" in out.state.first_from
    assert GAME.load(GAME.dump(out.state)) == out.state


def test_a_table_of_turns_and_bad_values() -> None:
    state = new({"turns": 3, "first_by_turn": {"3": "Allies"}})
    assert state.first_by_turn == ("", "", "Allies")
    assert state.mover.name == "Axis"
    with pytest.raises(GameError):
        new({"turns": 2, "first_by_turn": ["Soviets"]})
    with pytest.raises(GameError):
        new({"turns": 2, "first_by_turn": {"5": "Axis"}})
    with pytest.raises(GameError):
        new({"first_rule": "initiative"})


def test_the_two_side_threshold_is_quoted_from_the_seed() -> None:
    state = new({})
    assert state.threshold == 55
    text, html = render(state, "Axis")
    assert "The turn can end at 55: seed 002: 'When the turn end number total reaches or exceeds 55'." in text
    assert "seed 002" in html


def test_the_three_side_threshold_is_stated_as_a_reading_of_the_note() -> None:
    state = new({}, THREE)
    assert state.threshold == 83
    assert "27.5 x 3 sides = 82.5" in state.threshold_source
    for rendered in render(state, None):
        assert "a reading of seed 002" in rendered
        assert "turn-end number 83" in rendered  # listed among the design defaults


def test_the_scenario_or_gm_may_set_the_threshold() -> None:
    state = new({"threshold": 90}, THREE)
    assert (state.threshold, state.threshold_source) == (90, "set by the GM when the game was created")
    with pytest.raises(GameError):
        new({"threshold": 0})
