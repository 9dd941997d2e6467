# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 19: who opens a turn can be set by the scenario or the GM; letters state the threshold's source."""

from __future__ import annotations

import tomllib
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
DEFAULTS = tomllib.loads(
    (Path(__file__).resolve().parents[3] / "mailbot/games/wif/data/defaults.toml").read_text()
)
THREE: dict[str, Any] = {
    "sides": [
        {"name": "Axis", "powers": ["Germany", "Italy"]},
        {"name": "Japan", "powers": ["JPN"]},
        {"name": "Allies", "powers": ["CW", "USA", "USSR"]},
    ]
}


def new(options: Mapping[str, Any], data: Mapping[str, Any] | None = None) -> WifState:
    seats = GAME.seats("standard", data or {})
    handed = {"defaults": DEFAULTS, **(data or {})}  # as the edge hands data/defaults.toml in
    return GAME.new_game(Setup("standard", seats, dict(options), handed), dice=FixedDice())


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


def test_the_standard_scenario_plays_more_than_one_turn_and_says_so() -> None:
    """Issue 37: the standard scenario lasted one turn, so who opens turn 2 was never seen by mail.
    It now plays 6 (a design default of the scenario file), and the letters say where that is from."""
    state = new({})
    assert (state.turns, state.turns_from) == (6, "set by the scenario")
    out = end_turn(state)
    assert not out.finished and out.state.turn == 2
    assert any(e.text.startswith("Turn 2 begins: the Axis move first") for e in out.events)
    text, html = render(out.state, "Allies")
    assert "Turn 2 of 6 (set by the scenario), impulse 1" in text
    assert "game length: the seed ends turns, not games" in text and "game length" in html
    gm = new({"turns": 2})
    assert not any("game length" in note for note in GAME.view(gm, (), "Axis")["defaults"])


def test_the_initiative_marker_is_shown_in_every_letter() -> None:
    """seed 002: "If impulses end and your side had both the first and last impulse in the turn,
    move the initiative marker 1 space towards your opponents' end of the initiative track." The
    letters show where the marker stands, counted from its starting space."""
    state = new({"turns": 3, "first_rule": "same"})
    text, _ = render(state, "Axis")
    assert "Initiative marker: on its starting space (design default: the initiative marker counted" in text
    one = end_turn(state)  # Axis 40, Allies 80: the Allies have the last impulse, the Axis the first
    assert one.state.initiative == (0, 0)
    # Turn 2 (first_rule same: the Axis open again); the Axis have its first and last impulse.
    axis = impulse(one.state, [10, 10, 10, 10])  # Axis 40
    allies = impulse(axis.state, [1, 1, 1, 1])  # Allies 44
    closing = impulse(allies.state, [10, 10, 1, 9])  # Axis 74, last die 9: the turn ends
    assert closing.state.turn == 3 and closing.state.initiative == (1, 0)
    [moved] = [e for e in closing.events if e.kind == "initiative"]
    assert moved.text.endswith(
        "Initiative marker: 1 space from its starting space towards the Allies' end "
        "(design default: the initiative marker counted from its start)."
    )
    text, html = render(closing.state, "Allies")
    assert "Initiative marker: 1 space from its starting space towards the Allies' end" in text
    assert "Initiative marker: 1 space" in html


def test_a_last_die_not_nominated_names_its_default() -> None:
    state = new({})
    seat = state.mover.name
    parsed = GAME.parse(state, seat, [Line(1, "PASS Italy")])
    out = GAME.resolve(state, {seat: parsed.orders}, dice=FixedDice([3, 4]))
    [roll] = [e.text for e in out.events if e.kind == "turn-end-roll"]
    assert "last die: 4 (die 2 of 2; design default: the last die rolled is the last die)." in roll
    assert roll.endswith("No WEATHER sent: 2 d10 (design default: the weather number stands).")
