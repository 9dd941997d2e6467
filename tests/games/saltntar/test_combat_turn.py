# SPDX-License-Identifier: GPL-3.0-or-later
"""The naval-combat turn as three steps (seed 001, "Game Turn in Naval Combat"), issue 19."""

from __future__ import annotations

from typing import Any

from mailbot.core.game import Line, ProblemKind
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import CLOSE, FIRE, OPENING, REEFED, State
from tests.games.saltntar.conftest import new_state, play, race, ship, texts

GAME = SaltNTarGame()
EAST = 3


def battle(data: dict[str, Any]) -> State:
    ships = [
        ship("Wolf", "red", "cutter", heading=EAST),
        ship("Bear", "blue", "cutter", at=(0, 3), heading=EAST),
    ]
    return new_state(data, race(*ships), wind=(1, 2), options={"combat": True})


def parse(state: State, seat: str, *lines: str) -> Any:
    return GAME.parse(state, seat, [Line(n, text) for n, text in enumerate(lines, start=1)])


def test_three_steps_a_turn(data: dict[str, Any]) -> None:
    state = battle(data)
    keys = []
    for n in range(4):
        step = GAME.step(state)
        assert step is not None
        keys.append(step.key)
        if n == 3:
            break
        rolls = {"initiative/T1/red": [5], "initiative/T1/blue": [2]} if state.phase == OPENING else {}
        state = play(state, rolls=rolls, next_wind=3 if state.phase == CLOSE else None).state
    assert keys == ["T1.orders", "T1.fire", "T1.close", "T2.orders"]


def test_initiative_is_rolled_and_half_moves_go_in_reverse_order(data: dict[str, Any]) -> None:
    """ "In case of initiative being used, sides move in reverse order of initiative. The side with the
    highest initiative moves last." Ties roll again (a design default)."""
    rolls = {
        "initiative/T1/red": [4, 6],
        "initiative/T1/blue": [4],
        "initiative/T1/blue/again1": [2],
    }
    rolls["initiative/T1/red/again1"] = [rolls["initiative/T1/red"].pop()]
    outcome = play(battle(data), {"red": ["LUCK"]}, rolls={**rolls, "luck/T1/red": [3]}, next_wind=None)
    assert outcome.state.initiative == ("red", "blue")
    assert outcome.state.phase == FIRE
    moves = texts(outcome, "move")
    assert moves[0].startswith("Bear: first half") and moves[1].startswith("Wolf: first half")
    assert "design default" in texts(outcome, "initiative")[0]


def test_missiles_are_recorded_in_initiative_order_then_the_second_half(data: dict[str, Any]) -> None:
    """ "Both sides may launch missile attacks, magic spells in the order of initiative." """
    state = play(
        battle(data), rolls={"initiative/T1/red": [1], "initiative/T1/blue": [6]}, next_wind=None
    ).state
    letters = {"red": ["FIRE Wolf Bear 20 archers", "TURN Wolf +1"], "blue": ["SPELL Bear fog on Wolf"]}
    outcome = play(state, letters, next_wind=None)
    recorded = texts(outcome, "declaration")
    assert recorded == [
        "blue: SPELL Bear fog on Wolf (recorded; the group's combat system resolves it).",
        "red: FIRE Wolf Bear 20 archers (recorded; the group's combat system resolves it).",
    ]
    assert outcome.state.ship("Wolf").heading == EAST + 1
    assert outcome.state.phase == CLOSE


def test_a_second_change_of_direction_marks_strain(data: dict[str, Any]) -> None:
    """ "Any ship that does a second change of direction must mark 1 Strain!" """
    first = play(
        battle(data),
        {"red": ["TURN Wolf +1"]},
        rolls={"initiative/T1/red": [1], "initiative/T1/blue": [6]},
        next_wind=None,
    )
    second = play(first.state, {"red": ["TURN Wolf -1"]}, next_wind=None)
    assert second.state.ship("Wolf").strain == 1
    wolf = next(text for text in texts(second, "move") if text.startswith("Wolf"))
    assert "a second change of direction: mark 1 Strain" in wolf


def test_ramming_boarding_and_results_are_recorded_and_maneuvers_close_the_turn(data: dict[str, Any]) -> None:
    state = play(
        battle(data), rolls={"initiative/T1/red": [6], "initiative/T1/blue": [1]}, next_wind=None
    ).state
    state = play(state, next_wind=None).state
    letters = {
        "red": ["RAM Wolf Bear amidships", "RESULT Bear holed below the waterline", "REEF Wolf"],
        "blue": ["BOARD Bear Wolf", "ACTION Bear cut the grapnels"],
    }
    outcome = play(state, letters)
    assert texts(outcome, "declaration") == [
        "red: RAM Wolf Bear amidships (recorded; the group's combat system resolves it).",
        "blue: BOARD Bear Wolf (recorded; the group's combat system resolves it).",
        "blue: ACTION Bear cut the grapnels (recorded; the group's combat system resolves it).",
    ]
    assert texts(outcome, "result") == ["Result recorded for red: Bear holed below the waterline."]
    assert outcome.state.ship("Wolf").rig == REEFED
    assert (outcome.state.turn, outcome.state.phase) == (2, OPENING)


def test_each_step_takes_its_own_orders(data: dict[str, Any]) -> None:
    state = battle(data)
    problem = parse(state, "red", "FIRE Wolf Bear").problems[0]
    assert (problem.kind, problem.reason) == (
        ProblemKind.ILLEGAL,
        "FIRE belongs to the missile step (missiles, spells, second half move); this is the opening step "
        "(luck, first half move)",
    )
    assert parse(state, "red", "REEF Wolf").problems[0].reason.startswith("REEF belongs to the closing step")
    fire = play(state, rolls={"initiative/T1/red": [6], "initiative/T1/blue": [1]}, next_wind=None).state
    assert parse(fire, "red", "TURN Wolf +2").problems[0].reason.startswith("the second half move turns one")
    assert parse(fire, "red", "LUCK").problems[0].kind is ProblemKind.ILLEGAL
    close = play(fire, next_wind=None).state
    assert parse(close, "red", "RAM Wolf Wolf").problems[0].reason == "Wolf cannot ram herself"
    assert parse(close, "red", "RAM Wolf Xanadu").problems[0].kind is ProblemKind.INVALID
    good = parse(close, "red", "ram wolf bear", "result   all  quiet")
    assert good.normalised == ("RAM Wolf Bear", "RESULT all quiet")
    assert parse(close, "red", *good.normalised).normalised == good.normalised


def test_the_letters_of_each_step(data: dict[str, Any]) -> None:
    state = play(
        battle(data), rolls={"initiative/T1/red": [6], "initiative/T1/blue": [1]}, next_wind=None
    ).state
    view = GAME.view(state, (), "red")
    assert view["orders"][:2] == ["# TURN Wolf 0", "# FIRE Wolf <target and weapons>"]
    assert view["help"][0].startswith("Turn 1. Missile step")
    assert view["initiative"] == ["red", "blue"]
    assert any(note.startswith("initiative in naval combat: 1d6") for note in view["defaults"])
    assert GAME.load(GAME.dump(state)) == state
