# SPDX-License-Identifier: GPL-3.0-or-later
"""The dice duel: order reading, the two-step turn, combat, hidden information, storage and reports."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from mailbot.core.dice import FixedDice
from mailbot.core.game import Event, Line, Outcome, ProblemKind, Setup, StepKind
from mailbot.errors import GameError
from mailbot.games.duel import DuelGame
from mailbot.games.duel.state import DuelState, Phase, Split
from mailbot.registry import find_game

ROOT = Path(__file__).resolve().parents[3]
GAME = DuelGame()


def new(**options: Any) -> DuelState:
    return GAME.new_game(Setup("standard", ("north", "south"), options), dice=FixedDice())


def lines(*texts: str) -> list[Line]:
    return [Line(number, text) for number, text in enumerate(texts, start=1)]


def faces(turn: int, kind: str, seat: str, *values: int) -> dict[str, list[int]]:
    """FixedDice faces for one seat's dice, one label per die as the game rolls them."""
    return {f"{kind}/T{turn}/{seat}/die{index}": [value] for index, value in enumerate(values, start=1)}


def step(
    state: DuelState, letters: Mapping[str, Sequence[str]], dice: FixedDice | None = None
) -> Outcome[DuelState]:
    """One step as the moderator runs it: parse, parse the normalised lines again, resolve."""
    orders = {}
    for seat, texts in letters.items():
        parsed = GAME.parse(state, seat, lines(*texts))
        assert parsed.problems == ()
        again = GAME.parse(state, seat, lines(*parsed.normalised))
        assert again.normalised == parsed.normalised
        orders[seat] = again.orders
    dice = dice or FixedDice()
    outcome = GAME.resolve(state, orders, dice=dice)
    assert dice.leftover() == {}  # every face the test planned was rolled, and no more
    return outcome


def turn(
    state: DuelState,
    splits: Mapping[str, Sequence[str]],
    bids: Mapping[str, int],
    dice: Mapping[str, list[int]],
) -> tuple[Outcome[DuelState], Outcome[DuelState]]:
    """Both steps of a turn; ``dice`` maps labels to faces."""
    ordered = step(state, splits)
    bid_letters = {seat: [f"BID {bid}"] for seat, bid in bids.items()}
    return ordered, step(ordered.state, bid_letters, FixedDice(by_label=dice))


def hp(state: DuelState) -> dict[str, int]:
    return {seat.name: seat.hp for seat in state.seats}


# --- the plugin ------------------------------------------------------------------------------------


def test_registry_finds_the_plugin_by_name_and_alias() -> None:
    assert isinstance(find_game("duel"), DuelGame)
    assert isinstance(find_game("Dice-Duel"), DuelGame)
    assert GAME.hidden_information is True
    assert GAME.seats("standard", {}) == ("north", "south")


def test_options_set_hit_points_and_length() -> None:
    state = new(hp=4, turns=5)
    assert hp(state) == {"north": 4, "south": 4}
    assert state.turns == 5
    assert hp(new()) == {"north": 10, "south": 10}
    assert new().turns == 3


@pytest.mark.parametrize("options", [{"hp": 0}, {"hp": "ten"}, {"turns": True}, {"turns": 100}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(GameError, match="duel option"):
        new(**options)


def test_seats_must_be_north_and_south() -> None:
    with pytest.raises(GameError, match="north and south"):
        GAME.new_game(Setup("standard", ("east", "west")), dice=FixedDice())


def test_each_turn_is_an_orders_step_then_a_short_sealed_bid_step() -> None:
    state = new()
    first = GAME.step(state)
    assert first is not None
    assert (first.key, first.turn, first.kind) == ("T1.orders", 1, StepKind.ORDERS)
    assert first.owing == frozenset({"north", "south"})
    assert (first.duration, first.seal_labels) == (None, ())

    ordered = step(state, {"north": ["ATTACK 2", "DEFEND 1"], "south": ["ATTACK 1", "DEFEND 2"]})
    bid = GAME.step(ordered.state)
    assert bid is not None
    assert (bid.key, bid.turn, bid.kind) == ("T1.bid", 1, StepKind.SEALED)
    assert bid.seal_labels == ("bid",)
    assert bid.duration == timedelta(hours=12)
    assert bid.owing == frozenset({"north", "south"})
    assert not ordered.finished

    dice = faces(1, "attack", "north", 1, 1) | faces(1, "defend", "south", 1, 1)
    dice |= faces(1, "attack", "south", 1) | faces(1, "defend", "north", 1)
    played = step(ordered.state, {"north": ["BID 0"], "south": ["BID 0"]}, FixedDice(by_label=dice))
    following = GAME.step(played.state)
    assert following is not None
    assert (following.key, following.kind) == ("T2.orders", StepKind.ORDERS)


# --- reading orders --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("texts", "normalised"),
    [
        (["ATTACK 2", "DEFEND 1"], ("ATTACK 2", "DEFEND 1")),
        (["attack 3"], ("ATTACK 3", "DEFEND 0")),  # unspent dice are wasted, and the echo says so
        (["ATTACK 2"], ("ATTACK 2", "DEFEND 0")),
        (["def: 0", "Att 1"], ("DEFEND 0", "ATTACK 1")),
        (["  DEFENCE 2 ", "", "ATK 1"], ("DEFEND 2", "ATTACK 1")),
        (["ATTACK 03"], ("ATTACK 3", "DEFEND 0")),
    ],
)
def test_good_orders_are_echoed_normalised(texts: list[str], normalised: tuple[str, ...]) -> None:
    parsed = GAME.parse(new(), "north", lines(*texts))
    assert parsed.problems == ()
    assert parsed.normalised == normalised


def test_an_implied_defend_carries_the_attack_line_number() -> None:
    parsed = GAME.parse(new(), "north", lines("hello", "ATTACK 2"))
    assert [(a.line, a.normalised) for a in parsed.accepted] == [(2, "ATTACK 2"), (2, "DEFEND 0")]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["CHARGE 2"], [(1, ProblemKind.INVALID, "not a duel order")]),
        (["ATTACK"], [(1, ProblemKind.INVALID, "ATTACK takes one number, 1 to 3")]),
        (["ATTACK two"], [(1, ProblemKind.INVALID, "ATTACK takes one number")]),
        (["ATTACK 1 2"], [(1, ProblemKind.INVALID, "ATTACK takes one number")]),
        (["ATTACK -1"], [(1, ProblemKind.INVALID, "ATTACK takes one number")]),
        (["ATTACK 0"], [(1, ProblemKind.ILLEGAL, "ATTACK is 1 to 3 dice rolled at your opponent, not 0")]),
        (["ATTACK 4"], [(1, ProblemKind.ILLEGAL, "not 4")]),
        (
            ["ATTACK " + "9" * 5000],
            [(1, ProblemKind.ILLEGAL, "ATTACK is 1 to 3 dice rolled at your opponent, not so many")],
        ),
        (
            ["ATTACK 1", "DEFEND 4"],
            [
                (1, ProblemKind.ILLEGAL, "count only together, and line 2 was refused"),
                (2, ProblemKind.ILLEGAL, "DEFEND is 0 to 3 dice that cancel hits, not 4"),
            ],
        ),
        (
            ["ATTACK 2", "DEFEND 2"],
            [
                (1, ProblemKind.ILLEGAL, "ATTACK 2 + DEFEND 2 is 4 dice: you have 3 a turn"),
                (2, ProblemKind.ILLEGAL, "ATTACK 2 + DEFEND 2 is 4 dice: you have 3 a turn"),
            ],
        ),
        (["DEFEND 3"], [(1, ProblemKind.ILLEGAL, "DEFEND needs an ATTACK line too")]),
        (["BID 2"], [(1, ProblemKind.ILLEGAL, "bids are sealed after the orders, in step T1.bid")]),
    ],
)
def test_bad_orders_are_refused_with_line_and_reason(
    texts: list[str], expected: list[tuple[int, ProblemKind, str]]
) -> None:
    parsed = GAME.parse(new(), "north", lines(*texts))
    assert parsed.accepted == ()
    assert [(p.line, p.kind) for p in parsed.problems] == [(line, kind) for line, kind, _ in expected]
    for problem, (_, _, reason) in zip(parsed.problems, expected, strict=True):
        assert reason in problem.reason
    assert [p.text for p in parsed.problems] == [text.strip() for text in texts]


def test_two_attack_lines_are_ambiguous() -> None:
    parsed = GAME.parse(new(), "north", lines("ATTACK 2", "DEFEND 1", "ATTACK 1"))
    assert parsed.accepted == ()
    kinds = [(p.line, p.kind) for p in parsed.problems]
    assert kinds == [(1, ProblemKind.AMBIGUOUS), (2, ProblemKind.ILLEGAL), (3, ProblemKind.AMBIGUOUS)]
    assert parsed.problems[0].reason.startswith("ATTACK is given on lines 1, 3")
    assert "line 1 was refused" in parsed.problems[1].reason


def test_a_stray_line_does_not_spoil_good_orders() -> None:
    parsed = GAME.parse(new(), "north", lines("ATTACK 1", "good luck!", "DEFEND 2"))
    assert parsed.normalised == ("ATTACK 1", "DEFEND 2")
    assert [(p.line, p.kind) for p in parsed.problems] == [(2, ProblemKind.INVALID)]


def bid_state() -> DuelState:
    return step(new(), {"north": ["ATTACK 2"], "south": ["ATTACK 2"]}).state


@pytest.mark.parametrize(
    ("texts", "normalised"),
    [(["BID 2"], ("BID 2",)), (["bid 0"], ("BID 0",)), (["SEAL bid 3"], ("BID 3",))],
)
def test_the_bid_step_reads_bids(texts: list[str], normalised: tuple[str, ...]) -> None:
    parsed = GAME.parse(bid_state(), "south", lines(*texts))
    assert parsed.problems == ()
    assert parsed.normalised == normalised


@pytest.mark.parametrize(
    ("texts", "kinds", "reason"),
    [
        (["BID 4"], [ProblemKind.ILLEGAL], "BID is 0 to 3 hit points bid for the initiative, not 4"),
        (["BID"], [ProblemKind.INVALID], "BID takes one number, 0 to 3"),
        (["ATTACK 2"], [ProblemKind.ILLEGAL], "turn 1's ATTACK and DEFEND are already in"),
        (["BID 1", "BID 2"], [ProblemKind.AMBIGUOUS] * 2, "BID is given on lines 1, 2"),
        (["pass"], [ProblemKind.INVALID], "not a duel order: use BID n"),
    ],
)
def test_the_bid_step_refuses_other_lines(texts: list[str], kinds: list[ProblemKind], reason: str) -> None:
    parsed = GAME.parse(bid_state(), "north", lines(*texts))
    assert parsed.accepted == ()
    assert [p.kind for p in parsed.problems] == kinds
    assert all(reason in p.reason for p in parsed.problems)


@pytest.mark.parametrize(
    "texts",
    [
        ["ATTACK 2", "DEFEND 1"],
        ["attack 3"],
        ["def 2", "att 1"],
        ["ATTACK 1", "DEFEND 0"],
        ["noise", "ATTACK 2", "ATTACK 2"],
    ],
)
def test_normalised_lines_parse_back_unchanged(texts: list[str]) -> None:
    state = new()
    first = GAME.parse(state, "north", lines(*texts))
    again = GAME.parse(state, "north", lines(*first.normalised))
    assert again.problems == ()
    assert again.normalised == first.normalised
    assert again.orders == first.orders


def test_default_orders_parse_back_unchanged() -> None:
    for state in (new(), bid_state()):
        for seat in ("north", "south"):
            defaults = tuple(GAME.default_orders(state, seat))
            parsed = GAME.parse(state, seat, lines(*defaults))
            assert parsed.problems == ()
            assert parsed.normalised == defaults
    assert tuple(GAME.default_orders(new(), "north")) == ("ATTACK 1", "DEFEND 2")
    assert tuple(GAME.default_orders(bid_state(), "north")) == ("BID 0",)


def test_letters_from_strangers_are_refused_whole() -> None:
    parsed = GAME.parse(new(), "east", lines("ATTACK 2"))
    assert [(p.line, p.kind) for p in parsed.problems] == [(1, ProblemKind.ILLEGAL)]
    assert "holds no seat" in parsed.problems[0].reason


# --- combat ----------------------------------------------------------------------------------------


def test_a_whole_game_to_a_winner() -> None:
    state = new(hp=4)
    splits = {"north": ["ATTACK 3"], "south": ["ATTACK 1", "DEFEND 2"]}
    # Turn 1: north outbids south and strikes first: 3 hits, 1 cancelled; south answers with 1 hit.
    dice = faces(1, "attack", "north", 6, 4, 5) | faces(1, "defend", "south", 1, 5)
    dice |= faces(1, "attack", "south", 4)
    _, played = turn(state, splits, {"north": 1, "south": 0}, dice)
    assert hp(played.state) == {"north": 2, "south": 2}
    assert not played.finished
    assert played.events[-1].kind == "turn-begins"

    # Turn 2: equal bids, both strike at once; south falls, but its strike still lands.
    dice = faces(2, "attack", "north", 6, 6, 1) | faces(2, "defend", "south", 2, 2)
    dice |= faces(2, "attack", "south", 6)
    _, played = turn(played.state, splits, {"north": 0, "south": 0}, dice)
    assert hp(played.state) == {"north": 1, "south": 0}
    assert played.finished
    assert played.result == "north wins: south fell in turn 2 (north has 1 HP left)."
    assert played.state.result == played.result
    assert played.events[-1] == Event("game-over", played.result)
    assert GAME.step(played.state) is None
    assert played.state.log[-1].rounds == (("north", "south"),)

    # A finished game resolves to itself.
    again = GAME.resolve(played.state, {}, dice=FixedDice())
    assert (again.state, again.events, again.finished) == (played.state, (), True)


def test_after_the_last_turn_more_hit_points_win() -> None:
    state = new(turns=1)
    dice = faces(1, "attack", "north", 4, 1) | faces(1, "defend", "south", 1)
    dice |= faces(1, "attack", "south", 1) | faces(1, "defend", "north", 1)
    splits = {"north": ["ATTACK 2", "DEFEND 1"], "south": ["ATTACK 1", "DEFEND 1"]}
    _, played = turn(state, splits, {"north": 0, "south": 0}, dice)
    assert played.finished
    assert played.result == "north wins on hit points after 1 turn, 10 to 9 (south)."


def test_bids_cost_hit_points_and_the_higher_bid_strikes_first() -> None:
    dice = faces(1, "attack", "south", 1) | faces(1, "defend", "north", 1)
    dice |= faces(1, "attack", "north", 1, 1) | faces(1, "defend", "south", 1)
    splits = {"north": ["ATTACK 2", "DEFEND 1"], "south": ["ATTACK 1", "DEFEND 1"]}
    _, played = turn(new(), splits, {"north": 1, "south": 3}, dice)
    assert hp(played.state) == {"north": 9, "south": 7}  # no hits: only the bids were paid
    record = played.state.log[-1]
    assert record.rounds == (("south",), ("north",))
    assert [s.attacker for s in record.strikes] == ["south", "north"]
    initiative = next(e for e in played.events if e.kind == "initiative")
    assert initiative.audience == frozenset({"*"})
    assert initiative.text == "Turn 1 bids: north 1 (HP 10 -> 9), south 3 (HP 10 -> 7); south strikes first."


def test_dice_labels_and_rules_name_turn_seat_and_die() -> None:
    ordered = step(new(), {"north": ["ATTACK 2", "DEFEND 1"], "south": ["ATTACK 1", "DEFEND 2"]})
    dice = FixedDice(
        by_label=faces(1, "attack", "north", 4, 4)
        | faces(1, "defend", "south", 5, 1)
        | faces(1, "attack", "south", 6)
        | faces(1, "defend", "north", 6)
    )
    step(ordered.state, {"north": ["BID 1"], "south": ["BID 0"]}, dice)
    assert [roll.label for roll in dice.log] == [
        "attack/T1/north/die1",
        "attack/T1/north/die2",
        "defend/T1/south/die1",
        "defend/T1/south/die2",
        "attack/T1/south/die1",
        "defend/T1/north/die1",
    ]
    assert {roll.rule for roll in dice.log} == {
        "duel: an attack d6 hits on 4+",
        "duel: a defence d6 cancels one hit on 5+",
    }


def test_a_seat_felled_before_its_strike_does_not_strike() -> None:
    # north bids higher and kills south (2 HP) first: south's attack dice are never rolled.
    dice = faces(1, "attack", "north", 6, 6, 6)
    _, played = turn(
        new(hp=2), {"north": ["ATTACK 3"], "south": ["ATTACK 3"]}, {"north": 1, "south": 0}, dice
    )
    assert hp(played.state) == {"north": 1, "south": 0}
    assert played.state.log[-1].silenced == ("south",)
    assert [s.attacker for s in played.state.log[-1].strikes] == ["north"]
    silenced = next(e for e in played.events if e.kind == "silenced")
    assert silenced.text == "south is down before its strike comes and does not strike."
    assert played.result.startswith("north wins: south fell in turn 1")


def test_bidding_your_last_hit_points_fells_you_before_any_strike() -> None:
    _, played = turn(new(hp=3), {"north": ["ATTACK 3"], "south": ["ATTACK 3"]}, {"north": 3, "south": 0}, {})
    assert hp(played.state) == {"north": 0, "south": 3}
    assert played.state.log[-1].strikes == ()  # nobody strikes at a seat that is down
    assert played.result == "south wins: north fell in turn 1 (south has 3 HP left)."


def test_silent_seats_get_the_default_orders() -> None:
    ordered = step(new(), {"north": ["ATTACK 3"]})  # south sent nothing
    assert ordered.state.seat("south").pending == Split(attack=1, defend=2)
    dice = faces(1, "attack", "north", 1, 1, 1) | faces(1, "defend", "south", 1, 1)
    dice |= faces(1, "attack", "south", 1)
    played = step(ordered.state, {}, FixedDice(by_label=dice))  # and no bids: both bid 0
    assert played.state.log[-1].rounds == (("north", "south"),)


# --- hidden information ----------------------------------------------------------------------------


def view_json(state: DuelState, events: Sequence[Event], seat: str | None) -> str:
    return json.dumps(GAME.view(state, events, seat), sort_keys=True)


def play_with_south(split: Sequence[str], south_dice: Mapping[str, list[int]]) -> list[Outcome[DuelState]]:
    north_dice = faces(1, "attack", "north", 4, 4) | faces(1, "defend", "north", 1)
    ordered, played = turn(
        new(),
        {"north": ["ATTACK 2", "DEFEND 1"], "south": split},
        {"north": 1, "south": 1},
        {**north_dice, **south_dice},
    )
    return [ordered, played]


def test_a_seat_cannot_tell_the_opponents_split_when_the_hits_are_the_same() -> None:
    # south attacks with 2 and defends with 1, or attacks with 1 and defends with 2: either way
    # it scores 1 hit and cancels none of north's 2 hits.
    heavy = play_with_south(
        ["ATTACK 2", "DEFEND 1"], faces(1, "attack", "south", 5, 1) | faces(1, "defend", "south", 2)
    )
    light = play_with_south(
        ["ATTACK 1", "DEFEND 2"], faces(1, "attack", "south", 5) | faces(1, "defend", "south", 2, 3)
    )
    for a, b in zip(heavy, light, strict=True):
        assert a.state != b.state
        assert view_json(a.state, a.events, "north") == view_json(b.state, b.events, "north")
        # south and the referee do see the difference
        assert view_json(a.state, a.events, "south") != view_json(b.state, b.events, "south")
        assert view_json(a.state, a.events, None) != view_json(b.state, b.events, None)


def test_the_split_is_shown_to_its_own_seat_and_the_referee_only() -> None:
    ordered = step(new(), {"north": ["ATTACK 2"], "south": ["ATTACK 1", "DEFEND 1"]})
    north = GAME.view(ordered.state, ordered.events, "north")
    referee = GAME.view(ordered.state, ordered.events, None)
    assert north["your_orders"] == "ATTACK 2, DEFEND 0"
    assert north["pending"] == []
    assert "DEFEND 1" not in json.dumps(north)
    assert referee["pending"] == ["north: ATTACK 2, DEFEND 0", "south: ATTACK 1, DEFEND 1"]
    private = [e for e in ordered.events if e.kind == "orders"]
    assert {e.audience for e in private} == {frozenset({"north"}), frozenset({"south"})}


def test_strikes_are_told_in_detail_to_the_striker_and_in_outline_to_the_struck() -> None:
    _, played = play_with_south(
        ["ATTACK 2", "DEFEND 1"], faces(1, "attack", "south", 5, 1) | faces(1, "defend", "south", 2)
    )
    by_audience = {(e.kind, tuple(sorted(e.audience))): e.text for e in played.events}
    assert by_audience["attack", ("north",)] == (
        "Turn 1, your attack on south: 2 dice 4 4 -> 2 hits (4+); south's defence cancelled 0; "
        "south loses 2 HP (9 -> 7)."
    )
    assert by_audience["defence", ("north",)] == (
        "Turn 1, south's attack on you: 1 hit; your defence, 1 die 1, cancelled 0 (5+); "
        "you lose 1 HP (9 -> 8)."
    )
    referee = [e for e in played.events if e.kind == "strike"]
    assert all(
        e.audience == frozenset() and e.visible_to(None) and not e.visible_to("north") for e in referee
    )
    assert "south attacks north: ATTACK 2 rolls 5 1 = 1 hit; DEFEND 1 rolls 1" in referee[1].text
    told = GAME.view(played.state, played.events, None)["happened"]
    assert told[1].startswith("[north only] Turn 1, your attack on south: 2 dice 4 4")
    assert told[3].startswith("[referee only] Turn 1, north attacks south: ATTACK 2 rolls 4 4")


def test_the_view_shows_hit_points_turn_and_a_prefilled_template() -> None:
    state = new(hp=7)
    view = GAME.view(state, (), "south")
    assert view["you"] == {"name": "south", "hp": 7, "max_hp": 7}
    assert view["opponent"] == {"name": "north", "hp": 7, "max_hp": 7}
    assert view["turn"] == 1
    assert view["template"] == ["ORDERS", "ATTACK 2", "DEFEND 1", "END"]
    assert GAME.view(bid_state(), (), "south")["template"] == ["SEAL bid 0"]
    assert GAME.view(state, (), None)["you"] is None


def test_order_help_for_each_step_kind() -> None:
    orders = list(GAME.order_help(new(), "north"))
    assert any("ATTACK n" in line for line in orders)
    assert orders[-5:] == ["Template:", "ORDERS", "ATTACK 2", "DEFEND 1", "END"]
    bids = list(GAME.order_help(bid_state(), "north"))
    assert any("SEAL bid n" in line for line in bids)
    assert bids[-2:] == ["Template:", "SEAL bid 0"]
    assert GAME.order_help(new(), "east")[0].endswith("nothing to send from you.")


# --- storage and reports ---------------------------------------------------------------------------


def sample_states() -> list[DuelState]:
    ordered, played = turn(
        new(hp=5, turns=2),
        {"north": ["ATTACK 3"], "south": ["ATTACK 1", "DEFEND 2"]},
        {"north": 2, "south": 0},
        faces(1, "attack", "north", 6, 6, 6)
        | faces(1, "defend", "south", 6, 1)
        | faces(1, "attack", "south", 6),
    )
    ordered2, played2 = turn(
        played.state,
        {"north": ["ATTACK 3"], "south": ["ATTACK 3"]},
        {"north": 0, "south": 0},
        faces(2, "attack", "north", 6, 6, 6) | faces(2, "attack", "south", 6, 6, 6),
    )
    assert played2.finished
    return [new(), ordered.state, played.state, ordered2.state, played2.state]


@pytest.mark.parametrize("index", range(5))
def test_dump_and_load_round_trip_through_json(index: int) -> None:
    state = sample_states()[index]
    stored = json.loads(json.dumps(GAME.dump(state)))
    loaded = GAME.load(stored)
    assert loaded == state
    assert GAME.dump(loaded) == stored
    assert loaded.phase in (Phase.ORDERS, Phase.BID)


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


@pytest.mark.parametrize("seat", ["north", "south", None])
@pytest.mark.parametrize("kind", ["txt", "html"])
def test_templates_render_for_every_seat(env: Environment, seat: str | None, kind: str) -> None:
    template = env.get_template(f"duel/templates/report.{kind}.j2")
    for state in sample_states():
        text = template.render(r=GAME.view(state, (), seat))
        assert "Dice duel" in text
    ordered = step(new(), {"north": ["ATTACK 2"], "south": ["ATTACK 1"]})
    text = template.render(r=GAME.view(ordered.state, ordered.events, seat))
    assert ("ATTACK 2, DEFEND 0" in text) == (seat in ("north", None))
    assert ("ATTACK 1, DEFEND 0" in text) == (seat in ("south", None))


def test_the_html_report_escapes_whatever_the_environment(env: Environment) -> None:
    plain = Environment(loader=FileSystemLoader(str(ROOT / "mailbot" / "games")), undefined=StrictUndefined)
    view = {**GAME.view(new(), (), "north"), "title": "<b>duel</b>"}
    for environment in (env, plain):
        html = environment.get_template("duel/templates/report.html.j2").render(r=view)
        assert "&lt;b&gt;duel&lt;/b&gt;" in html
        assert "<b>duel</b>" not in html
