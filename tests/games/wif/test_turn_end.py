# SPDX-License-Identifier: GPL-3.0-or-later
"""World in Flames last impulse test (seed 002, 12.): conformance tables and the plugin contract."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Line, Outcome, ProblemKind, Setup
from mailbot.games.wif import WifTurnEndGame
from mailbot.games.wif.rules import apply_impulse, threshold
from mailbot.games.wif.state import STANDARD_SCENARIO, WifState
from mailbot.registry import find_game

ROOT = Path(__file__).resolve().parents[3]
GAME = WifTurnEndGame()
DEFAULTS = tomllib.loads(
    (Path(__file__).resolve().parents[3] / "mailbot/games/wif/data/defaults.toml").read_text()
)


def new(options: Mapping[str, Any] | None = None, data: Mapping[str, Any] | None = None) -> WifState:
    seats = GAME.seats("standard", data or {})
    handed = {"defaults": DEFAULTS, **(data or {})}  # as the edge hands data/defaults.toml in
    return GAME.new_game(Setup("standard", seats, dict(options or {}), handed), dice=FixedDice())


def lines(*texts: str) -> list[Line]:
    return [Line(number, text) for number, text in enumerate(texts, start=1)]


def impulse(state: WifState, seat: str, orders: Sequence[str], faces: Sequence[int]) -> Outcome[WifState]:
    """One impulse as the moderator runs it: parse, re-parse the normalised lines, resolve."""
    parsed = GAME.parse(state, seat, lines(*orders))
    assert parsed.problems == ()
    again = GAME.parse(state, seat, lines(*parsed.normalised))
    dice = FixedDice(faces)
    outcome = GAME.resolve(state, {seat: again.orders}, dice=dice)
    assert dice.leftover() == {}
    return outcome


def test_registry_finds_the_plugin_by_name_and_alias() -> None:
    assert isinstance(find_game("wif-turn-end"), WifTurnEndGame)
    assert isinstance(find_game("WIF"), WifTurnEndGame)


def test_seed_002_worked_example_march_april_1943() -> None:
    # seed 002, "Example: It is March/April 1943 and everyone is at war." (one turn: the game
    # ends with it, so the example's turn end is also the end of the game)
    state = new({"turns": 1})
    # "The circled impulse marker number is a "2" ... The Axis move first and do not pass;
    # their two die rolls are 8 and 4 for a total of 12."
    out = impulse(state, "Axis", ["WEATHER 2"], [8, 4])
    assert out.state.total == 12
    # "The Allies move second and do not pass; their rolls are 5 and 3, ... a running total of 20."
    out = impulse(out.state, "Allies", [], [5, 3])
    assert out.state.total == 20
    # "For the Axis, Italy passes but Germany and Japan do not; their rolls are 3 and 4,
    # with +1 added to each, totalling to 29."
    out = impulse(out.state, "Axis", ["PASS Italy"], [3, 4])
    assert out.state.total == 29
    # "The Allies do not pass, and are delighted to roll a 1 and 5, totalling 35."
    out = impulse(out.state, "Allies", [], [1, 5])
    assert out.state.total == 35
    # "The third weather roll is a "2", increasing the marker number to "3". The Axis all
    # move and then roll a 3, 6, and 7, totalling 51. The turn is almost over."
    out = impulse(out.state, "Axis", ["WEATHER 3"], [3, 6, 7])
    assert (out.state.total, out.finished) == (51, False)
    # "They roll a 3, 1 and on the last die, a 6, ending the turn."
    out = impulse(out.state, "Allies", ["LAST 3"], [3, 1, 6])
    assert out.finished
    assert out.state.log[-1].roll.after == 61
    assert out.result == "Turn 1 ended after 6 impulses (turn-end number 61)."
    # The Axis had the first impulse, the Allies the last: the initiative marker stays.
    assert out.state.initiative == (0, 0)
    assert [e.kind for e in out.events] == ["turn-end-roll", "turn-ends", "game-over"]
    assert GAME.step(out.state) is None


def test_italy_pass_event_shows_dice_and_bonus_to_everyone() -> None:
    out = impulse(new(), "Axis", ["PASS ita"], [3, 4])
    roll = out.events[0]
    assert roll.audience == frozenset({"*"})
    assert "Italy passes (+1)" in roll.text
    assert "2d10 3+4, +1 on each die = +9" in roll.text
    assert roll.data["faces"] == [3, 4]


def test_the_report_names_the_last_die_by_its_face_and_place() -> None:
    """A trial read "last die: die 2, a 8": the face first, then which die it was; the face as
    rolled (seed 002: the plusses of passing "do not affect the reading of the 'last die'")."""
    nominated = impulse(new(), "Axis", ["PASS Germany", "LAST 1"], [8, 4]).events[0].text
    assert "; last die: 8 (die 1 of 2)." in nominated and ", a 8" not in nominated
    silent = impulse(new(), "Axis", [], [3, 8]).events[0].text
    assert "; last die: 8 (die 2 of 2; design default: the last die rolled is the last die)." in silent
    one = impulse(new(), "Axis", ["WEATHER 1"], [7]).events[0].text
    assert one.endswith("; last die: 7.")


@pytest.mark.parametrize(
    ("before", "dice", "last", "ends"),
    [
        (45, (9, 2), 2, False),  # seed 002: "if the 'last die' reads 1, 2, or 3, you keep on playing"
        (45, (9, 3), 2, False),
        (45, (9, 4), 2, True),  # "the last die is 4 or greater, then the turn ends immediately"
        (45, (2, 9), 1, False),  # the nominated last die need not be the last one rolled
        (45, (9, 2), 1, True),
        (40, (6, 8), 2, False),  # 54: the total has not reached 55
        (40, (7, 8), 2, True),  # 55: "reaches or exceeds 55"
    ],
)
def test_last_die_rule(before: int, dice: tuple[int, int], last: int, ends: bool) -> None:
    assert apply_impulse(before, dice, 0, last, 55).ends_turn is ends


def test_pass_bonus_does_not_change_the_last_die_reading() -> None:
    # seed 002: "the plusses due to passing do not affect the reading of the 'last die'"
    state = WifState(sides=new().sides, turns=1, total=50, initiative=(0, 0))
    out = impulse(state, "Axis", ["PASS Germany Japan"], [5, 2])  # 2+4 = 6 on the last die
    assert out.state.total == 50 + 7 + 8
    assert not out.finished
    assert [e.kind for e in out.events] == ["turn-end-roll", "turn-continues", "next-impulse"]
    assert "unmodified 2" in out.events[1].text


def test_neutral_power_passing_adds_nothing() -> None:
    # seed 002: "However, a major power which is neutral and passes adds nothing."
    state = new({"neutral": ["US"]})
    out = impulse(state, "Axis", [], [1, 1])
    out = impulse(out.state, "Allies", ["PASS USA USSR"], [1, 1])
    assert out.state.total == 2 + 2 + 2 * 2  # USSR's +2 on each die, nothing for the USA
    assert "USA passes (neutral: adds nothing)" in out.events[0].text


def test_neutral_and_war_declarations_take_effect_before_the_dice() -> None:
    out = impulse(new(), "Axis", ["NEUTRAL Italy", "PASS Italy"], [1, 1])
    assert out.state.total == 2
    assert out.state.neutral == ("Italy",)
    out = impulse(out.state, "Allies", [], [1, 1])
    out = impulse(out.state, "Axis", ["at war Italy", "PASS ITA"], [1, 1])
    assert out.state.neutral == ()
    assert out.state.total == 4 + 2 + 2


def test_initiative_marker_moves_when_one_side_has_first_and_last_impulse() -> None:
    state = new({"turns": 2})
    out = impulse(state, "Axis", [], [10, 10])
    out = impulse(out.state, "Allies", [], [10, 10])
    out = impulse(out.state, "Axis", [], [10, 10])
    # seed 002: "If impulses end and your side had both the first and last impulse in the
    # turn, move the initiative marker 1 space towards your opponents' end of the initiative track."
    assert out.state.initiative == (1, 0)
    initiative = next(e for e in out.events if e.kind == "initiative")
    assert "towards the Allies' end" in initiative.text
    # Turn 2 opens with the side after the last mover, from a fresh turn-end number.
    assert (out.state.turn, out.state.impulse, out.state.total) == (2, 1, 0)
    step = GAME.step(out.state)
    assert step is not None
    assert (step.key, step.owing) == ("T2.I1", frozenset({"Allies"}))


def test_impulses_alternate_between_the_sides() -> None:
    state = new({"first": "Allies"})
    owing = []
    for _ in range(4):
        step = GAME.step(state)
        assert step is not None
        owing.append(next(iter(step.owing)))
        state = impulse(state, owing[-1], [], [1, 1]).state
    assert owing == ["Allies", "Axis", "Allies", "Axis"]


THREE_SIDES: dict[str, Any] = {
    "sides": [
        {"name": "Axis", "powers": ["Germany", "Italy"]},
        {"name": "Japan", "powers": ["JPN"]},
        {"name": "Allies", "powers": ["CW", "USA", "USSR"]},
    ]
}


def test_more_than_two_sides_need_27_5_per_side() -> None:
    # seed 002, "Note": "27.5 is 5 (expected number of impulses ...) times 5.5 (average
    # result of a d10 die roll)": 27.5 a side, so 82.5 for three: a total of 83 ends a turn.
    assert [threshold(n) for n in (2, 3, 4)] == [55, 83, 110]
    state = new(data=THREE_SIDES)
    assert state.threshold == 83
    out = impulse(state, "Axis", ["WEATHER 4"], [10, 10, 10, 10])
    out = impulse(out.state, "Japan", [], [10, 10, 10, 10])
    out = impulse(out.state, "Allies", [], [1, 1, 10, 10])
    assert (out.state.total, out.finished) == (102, True)
    short = WifState(sides=state.sides, turns=1, total=72, initiative=(0, 0, 0))
    assert not impulse(short, "Axis", [], [5, 5]).finished  # 82 < 82.5
    assert impulse(short, "Axis", [], [5, 6]).finished


@pytest.mark.parametrize(
    ("text", "kind", "reason"),
    [
        ("PASS Germany Prussia", ProblemKind.INVALID, "unknown major power 'prussia'"),
        ("PASS China", ProblemKind.AMBIGUOUS, "write NC or CC"),
        ("PASS USA", ProblemKind.ILLEGAL, "USA is not a major power of the Axis"),
        ("PASS", ProblemKind.INVALID, "PASS names major powers"),
        ("WEATHER 5", ProblemKind.ILLEGAL, "1 to 4"),
        ("WEATHER 0", ProblemKind.ILLEGAL, "not 0"),
        ("WEATHER two", ProblemKind.INVALID, "WEATHER takes one number"),
        ("LAST 3", ProblemKind.ILLEGAL, "only 2 dice are rolled"),
        ("ATTACK Paris", ProblemKind.INVALID, "not an impulse-end order"),
    ],
)
def test_parse_problems_carry_line_number_kind_and_reason(text: str, kind: ProblemKind, reason: str) -> None:
    parsed = GAME.parse(new(), "Axis", lines("WEATHER 2", text))
    assert parsed.normalised == ("WEATHER 2",)
    [problem] = parsed.problems
    assert (problem.line, problem.text, problem.kind) == (2, text, kind)
    assert reason in problem.reason


def test_parse_refuses_repeats_and_checks_last_against_a_later_weather_line() -> None:
    parsed = GAME.parse(new(), "Axis", lines("LAST 3", "PASS GER", "pass germany", "WEATHER 3", "W 2"))
    assert parsed.normalised == ("LAST 3", "PASS Germany", "WEATHER 3")
    assert [(p.line, p.reason) for p in parsed.problems] == [
        (3, "Germany already passes on line 2"),
        (5, "WEATHER was already given on line 4"),
    ]


@pytest.mark.parametrize(
    "text", ["Last die: 2", "LAST DIE 2", "last die 2", "LAST: 2", "last-die 2", "LASTDIE: 2", "last die = 2"]
)
def test_the_seeds_own_words_last_die_name_the_last_die(text: str) -> None:
    """seed 002: 'the player should specify which is the "last die"': a trial's `Last die: 3` and
    `LAST DIE 2` were refused ("LAST takes one number") while `LAST: 2` was read."""
    parsed = GAME.parse(new(), "Axis", lines(text))
    assert parsed.problems == ()
    assert parsed.normalised == ("LAST 2",)


def test_the_side_not_moving_sends_nothing() -> None:
    parsed = GAME.parse(new(), "Allies", lines("PASS CW"))
    assert parsed.accepted == ()
    assert parsed.problems[0].reason == "this is the Axis impulse: the Allies send nothing now"
    assert GAME.default_orders(new(), "Axis") == ()


def test_parse_round_trip_of_normalised_lines() -> None:
    messy = lines("pass ger, ita", "w 3", "Last: 2", "neutral jap", "war JPN")
    parsed = GAME.parse(new(), "Axis", messy)
    assert parsed.problems == ()
    assert parsed.normalised == ("PASS Germany Italy", "WEATHER 3", "LAST 2", "NEUTRAL Japan", "WAR Japan")
    again = GAME.parse(new(), "Axis", lines(*parsed.normalised))
    assert again.normalised == parsed.normalised
    assert again.orders == parsed.orders
    allies = GAME.parse(new({"first": "Allies"}), "Allies", lines("PASS nat china, comm china US su cw fra"))
    assert allies.normalised == ("PASS Nationalist China Communist China USA USSR CW France",)
    assert GAME.parse(new({"first": "Allies"}), "Allies", lines(*allies.normalised)).orders == allies.orders


def test_dump_and_load_round_trip_through_json() -> None:
    state = new({"turns": 2, "neutral": ["USA"]})
    for seat, faces in [("Axis", [10, 10]), ("Allies", [10, 10]), ("Axis", [10, 10]), ("Allies", [2, 3])]:
        state = impulse(state, seat, ["PASS GER"] if seat == "Axis" else [], faces).state
    data = json.loads(json.dumps(GAME.dump(state)))
    assert GAME.load(data) == state
    assert GAME.dump(GAME.load(data)) == data


def test_standard_scenario_file_matches_the_built_in_default() -> None:
    with (ROOT / "mailbot/games/wif/data/scenarios/standard.toml").open("rb") as handle:
        assert tomllib.load(handle) == STANDARD_SCENARIO
    assert GAME.seats("standard", {}) == ("Axis", "Allies")
    assert GAME.seats("standard", {"scenarios": {"standard": THREE_SIDES}}) == ("Axis", "Japan", "Allies")


def test_view_is_the_same_for_everyone_but_the_help() -> None:
    out = impulse(new(), "Axis", ["PASS Italy"], [3, 4])
    axis = GAME.view(out.state, out.events, "Axis")
    allies = GAME.view(out.state, out.events, "Allies")
    assert axis["happened"] == allies["happened"] == [e.text for e in out.events]
    assert allies["your_move"]
    assert not axis["your_move"]
    assert allies["help"][-3:] == ["ORDERS", "WEATHER 2", "END"]
    assert axis["impulses"][0]["dice"] == "3+4"
    assert GAME.view(out.state, out.events, None)["seat"] == "referee"


def test_report_templates_render_a_seats_view() -> None:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
    )
    state = new({"first": "Allies"})
    out = impulse(state, "Allies", ["PASS nc cc"], [3, 4])
    view = GAME.view(out.state, out.events, "Axis")
    text = env.get_template("wif/templates/report.txt.j2").render(r=view)
    html = env.get_template("wif/templates/report.html.j2").render(r=view)
    assert "Nationalist China passes (+1)" in text
    assert "Turn-end number: 11" in text
    assert "WEATHER 2" in text
    assert "Axis&#39; major" not in html
    assert "<td>3+4</td>" in html
    assert "the <strong>Axis</strong> move (that is you)" in html


def test_every_roll_is_labelled_with_its_rule_and_pass_modifiers() -> None:
    state = impulse(new(), "Axis", [], [1, 1]).state
    dice = FixedDice([3, 4])
    GAME.resolve(
        state, {"Allies": GAME.parse(state, "Allies", lines("PASS CW ussr", "LAST 1")).orders}, dice=dice
    )
    [roll] = dice.log
    assert roll.label == "turn-end/T1/I2/Allies"
    assert roll.rule == "seed 002, 12. Last impulse test"
    assert dict(roll.modifiers) == {"CW passes (+2 x 2 dice)": 4, "USSR passes (+2 x 2 dice)": 4}
    assert roll.total == 3 + 4 + 8
