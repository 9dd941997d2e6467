# SPDX-License-Identifier: GPL-3.0-or-later
"""Order parsing: problems as data, normalised lines that parse unchanged, and turning
(seed 001: "When moving ships may normally change direction by one point per turn. Changing
direction by two points per turn is dangerous and causes Strain")."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.core.game import Line, ProblemKind
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.orders import LuckOrder, ManeuverOrder, TurnOrder
from mailbot.games.saltntar.state import State
from tests.games.saltntar.conftest import load_data, new_state, play, race, ship, texts

EAST = 3  # Quarter Reaching in a North wind
ORDER_WORDS = "TURN, LUCK, REEF, UNREEF, FURL, SET SAIL, ANCHOR, WEIGH"


def two_sides(data: dict[str, Any], **more: Any) -> State:
    ships = [
        ship("Swallow", "red", "cutter", heading=EAST),
        ship("Swift", "red", "cutter", at=(0, 4), heading=EAST),
        ship("Amazon", "blue", "cutter", at=(0, 8), heading=EAST),
    ]
    return new_state(data, race(*ships), wind=(1, 2), **more)


def parse(state: State, seat: str, *lines: str) -> Any:
    return SaltNTarGame().parse(state, seat, [Line(n, text) for n, text in enumerate(lines, start=1)])


def test_problems_carry_line_number_kind_and_reason(data: dict[str, Any]) -> None:
    state = two_sides(data)
    parsed = parse(
        state,
        "red",
        "TURN Swallow +1",
        "",
        "HOIST Swallow",
        "TURN Amazon +1",
        "TURN Sw +1",
        "TURN Swift 1",
        "TURN Swift +3",
        "TURN Swallow -1",
        "TURN Swift TO W",
        "REEF Nobody",
        "LUCK",
        "LUCK Swift",
        "TURN Swift +1 +1",
    )
    got = [(p.line, p.kind, p.reason) for p in parsed.problems]
    assert got == [
        (3, ProblemKind.INVALID, f"unknown order 'HOIST'; the orders are {ORDER_WORDS}"),
        (4, ProblemKind.ILLEGAL, "Amazon is not your ship"),
        (5, ProblemKind.AMBIGUOUS, "'Sw' could be Swallow, Swift"),
        (6, ProblemKind.AMBIGUOUS, "'1': write +1 or -1 for a change of heading, TO 1 for heading 1"),
        (7, ProblemKind.ILLEGAL, "a ship changes direction by at most two points a turn"),
        (8, ProblemKind.ILLEGAL, "a second TURN for Swallow: one change of heading a turn"),
        (9, ProblemKind.ILLEGAL, "W is 4 points from her heading E: at most 2 a turn"),
        (10, ProblemKind.INVALID, "no ship of yours called 'Nobody' (yours: Swallow, Swift)"),
        (12, ProblemKind.ILLEGAL, "a second LUCK: each side may roll one luck die a turn"),
        (13, ProblemKind.INVALID, "one change per turn (two numbers are for naval-combat turns)"),
    ]  # fmt: skip
    assert [p.text for p in parsed.problems][:2] == ["HOIST Swallow", "TURN Amazon +1"]
    assert parsed.normalised == ("TURN Swallow +1", "LUCK")


def test_a_ship_may_be_left_out_when_the_side_has_one(data: dict[str, Any]) -> None:
    parsed = parse(two_sides(data), "blue", "turn +2", "furl", "luck")
    assert parsed.normalised == ("TURN Amazon +2", "FURL Amazon", "LUCK")
    assert (
        parse(two_sides(data), "red", "turn +1").problems[0].reason
        == "name the ship: yours are Swallow, Swift"
    )


def test_comments_and_blank_lines_are_skipped(data: dict[str, Any]) -> None:
    parsed = parse(two_sides(data), "blue", "# my plan", "   ", "TURN Amazon -1   # tack")
    assert (parsed.normalised, parsed.problems) == (("TURN Amazon -1",), ())
    assert parsed.accepted[0].line == 3


LENIENT = {
    "turn swallow +1": "TURN Swallow +1",
    "TURN SWALLOW -2": "TURN Swallow -2",
    "Turn Swa 0": "TURN Swallow 0",
    "turn swift to ne": "TURN Swift TO 2",
    "TURN Swift to 4": "TURN Swift TO 4",
    "luck swallow": "LUCK Swallow",
    "reef swallow": "REEF Swallow",
    "set sail swift": None,  # refused: her sails are set
    "setsail swift": None,
    "anchor   swift": "ANCHOR Swift",
}


@pytest.mark.parametrize(("line", "normalised"), sorted(LENIENT.items()))
def test_parse_round_trip(data: dict[str, Any], line: str, normalised: str | None) -> None:
    """ "``parse`` of a normalised line must accept it unchanged" (the plugin contract)."""
    state = two_sides(data)
    first = parse(state, "red", line)
    if normalised is None:
        assert first.problems[0].kind == ProblemKind.ILLEGAL
        return
    assert first.normalised == (normalised,)
    again = parse(state, "red", normalised)
    assert again.normalised == (normalised,)
    assert again.orders == first.orders


def test_order_objects(data: dict[str, Any]) -> None:
    parsed = parse(two_sides(data), "red", "TURN Swift TO 1", "LUCK", "WEIGH Swallow", "REEF Swallow")
    assert parsed.orders == (
        TurnOrder("Swift", (-2,), "TURN Swift TO 1"),
        LuckOrder(None, "LUCK"),
        ManeuverOrder("Swallow", "reef", "REEF Swallow"),
    )
    assert parsed.problems[0].reason == "Swallow is not at anchor"


def test_one_point_turn_is_free_two_points_mark_strain(data: dict[str, Any]) -> None:
    """ "Changing direction by two points per turn is dangerous and causes Strain" """
    outcome = play(two_sides(data), {"red": ["TURN Swallow +1", "TURN Swift -2"]})
    assert outcome.state.ship("Swallow").strain == 0
    assert outcome.state.ship("Swift").strain == 1
    assert outcome.state.ship("Swift").heading == 1
    assert "two points of turning: mark 1 Strain" in texts(outcome, "move")[1]


def test_naval_combat_turns_move_in_halves(data: dict[str, Any]) -> None:
    """Naval combat: "first half move, possibly changing direction by one point ... second half of
    their move ... possibly changing direction by 1 point. Any ship that does a second change of
    direction must mark 1 Strain!" """
    state = two_sides(data, options={"combat": True})
    parsed = parse(state, "red", "TURN Swallow +2", "TURN Swift +1 -1")
    assert parsed.normalised == ("TURN Swallow +1 +1", "TURN Swift +1 -1")
    assert parse(state, "blue", "TURN Amazon -2 +1").problems[0].reason.startswith("one point per half move")
    initiative = {"initiative/T1/red": [6], "initiative/T1/blue": [1]}
    first = play(
        state,
        {"red": ["TURN Swallow +1", "TURN Swift +1 -1"], "blue": ["TURN Amazon 0 +1"]},
        rolls=initiative,
        next_wind=None,
    )
    # the missile step: nothing fired, the second halves as ordered ahead
    outcome = play(first.state, {}, next_wind=None)
    swallow, swift, amazon = outcome.state.ships
    assert (swallow.strain, swift.strain, amazon.strain) == (0, 1, 0)
    # Swallow: first half Broad Reaching to SE, 16''/2 = 8'': 2 cells and 2'' over;
    # second half (no change) another 8'': 16'' in all = 5 cells SE and 1'' over.
    assert (swallow.cell, swallow.progress) == ((5, -5), Fraction(1))
    # Amazon: 7'' East (2 cells, 1'' over), then turns SE: 8'' Broad Reaching: 2 cells and 2''
    # over (the 1'' made East does not count South-east: inches count one way only).
    assert (amazon.cell, amazon.progress, amazon.heading) == ((4, 6), Fraction(2), 4)


@pytest.mark.parametrize(
    ("line", "normalised"),
    [
        ("turn swallow to starboard", "TURN Swallow +1"),  # a trial's line, refused before
        ("TURN Swallow starboard", "TURN Swallow +1"),
        ("turn swallow to port", "TURN Swallow -1"),
        ("turn swallow two points to port", "TURN Swallow -2"),
        ("TURN Swallow 2 points to starboard", "TURN Swallow +2"),
        ("turn swallow clockwise", "TURN Swallow +1"),  # seed 001's own words, for the wind
        ("turn swallow counter clockwise", "TURN Swallow -1"),
        ("turn swallow one point counter-clockwise", "TURN Swallow -1"),
    ],
)
def test_a_change_of_heading_in_words(data: dict[str, Any], line: str, normalised: str) -> None:
    """Starboard is clockwise on the compass: heading E (3), to starboard is SE (4)."""
    parsed = parse(two_sides(data), "red", line)
    assert (parsed.normalised, parsed.problems) == ((normalised,), ())
    assert parse(two_sides(data), "red", normalised).normalised == (normalised,)


def test_a_change_in_words_needs_no_ship_when_the_side_has_one(data: dict[str, Any]) -> None:
    assert parse(two_sides(data), "blue", "turn to starboard").normalised == ("TURN Amazon +1",)
    assert parse(two_sides(data), "blue", "TURN port").normalised == ("TURN Amazon -1",)


def test_a_change_in_words_not_understood_is_answered_with_the_accepted_form(data: dict[str, Any]) -> None:
    [problem] = parse(two_sides(data), "red", "turn swallow hard to starboard").problems
    assert problem.kind is ProblemKind.INVALID
    assert problem.reason == (
        "'hard to starboard' is not a change of heading: "
        "TURN <ship> +1 (one point to starboard, clockwise), -1 (to port), +2, -2, 0 or TO <point>"
    )
    [problem] = parse(two_sides(data), "red", "turn swallow three points to port").problems
    assert "TURN <ship> +1 (one point to starboard" in problem.reason
    [problem] = parse(two_sides(data), "red", "turn swallow 3 points to port").problems
    assert problem.reason == "a ship changes direction by at most two points a turn"


def test_naval_combat_halves_may_be_written_in_words(data: dict[str, Any]) -> None:
    state = two_sides(data, options={"combat": True})
    assert parse(state, "red", "TURN Swallow to starboard to port").normalised == ("TURN Swallow +1 -1",)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6))
def test_parse_never_raises(lines: list[str]) -> None:
    state = two_sides(load_data())
    parsed = parse(state, "red", *lines)
    assert len(parsed.accepted) + len(parsed.problems) <= len(lines)
