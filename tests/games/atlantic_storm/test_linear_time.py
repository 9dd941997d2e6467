# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm "linear time" (seed 000): the sheet, the hands, the Force deck, the plugin contract."""

from __future__ import annotations

import itertools
import json
import random
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import jinja2
import pytest

from mailbot.core.dice import DiceStream, FixedDice, Roll, verify_log
from mailbot.core.game import EVERYONE, Line, Outcome, ProblemKind, Setup
from mailbot.games.atlantic_storm import AtlanticStormGame
from mailbot.games.atlantic_storm.deck import read_parts
from mailbot.games.atlantic_storm.orders import parse_lines
from mailbot.games.atlantic_storm.simulate import format_report, simulate
from mailbot.games.atlantic_storm.state import StormState
from mailbot.games.atlantic_storm.timeline import hand_size, modifier, next_columns, seed_round, sheet_row
from mailbot.registry import Registry, builtin_modules, find_game
from mailbot.render.templates import wrap72
from mailbot.testing import contract

ROOT = Path(__file__).resolve().parents[3]
GAME = AtlanticStormGame()
SEATS = ("P1", "P2", "P3")
REGISTRY = Registry(builtin_modules())
STORM = REGISTRY.find("atlantic-storm")
REPORTS = contract.report_env(REGISTRY)
NO = 18  # an unmodified 3d6 that never selects, whatever the modifier (at most +4)


def _faces(total: int) -> tuple[int, int, int]:
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return first, second, total - first - second


class ConvoyDice(DiceStream):
    """Real verifiable dice for the shuffles; scripted 3d6 totals for the convoy examinations."""

    def __init__(self, totals: Mapping[int, int], default: int = NO) -> None:
        super().__init__(b"atlantic storm test seed", "0" * 64, "test")
        self.totals = totals
        self.default = default

    def roll(
        self,
        label: str,
        sides: int,
        count: int = 1,
        *,
        rule: str = "",
        modifiers: Mapping[str, int] | None = None,
    ) -> Roll:
        if not label.startswith("convoy/C"):
            return super().roll(label, sides, count, rule=rule, modifiers=modifiers)
        faces = _faces(self.totals.get(int(label.removeprefix("convoy/C")), self.default))
        return FixedDice(faces).roll(label, sides, count, rule=rule, modifiers=modifiers)


def deck_data() -> dict[str, Any]:
    with (ROOT / "mailbot/games/atlantic_storm/data/decks.toml").open("rb") as handle:
        return tomllib.load(handle) | {"defaults": defaults_data()}


def defaults_data() -> dict[str, Any]:
    """data/defaults.toml, as the edge hands it in (``Setup.data["defaults"]``)."""
    with (ROOT / "mailbot/games/atlantic_storm/data/defaults.toml").open("rb") as handle:
        return tomllib.load(handle)


def new(
    totals: Mapping[int, int], *, enhanced: bool = False, data: Mapping[str, Any] | None = None
) -> StormState:
    setup = Setup("standard", SEATS, {"enhanced": enhanced}, data or deck_data())
    return GAME.new_game(setup, dice=ConvoyDice(totals))


def lines(*texts: str) -> list[Line]:
    return [Line(number, text) for number, text in enumerate(texts, start=1)]


def play(
    state: StormState, totals: Mapping[int, int], letters: Mapping[str, Sequence[str]] | None = None
) -> Outcome[StormState]:
    """A step as the moderator runs it: parse each letter, re-parse the normalised lines, resolve."""
    orders = {}
    for seat in SEATS:
        parsed = GAME.parse(state, seat, lines(*(letters or {}).get(seat, GAME.default_orders(state, seat))))
        assert parsed.problems == ()
        orders[seat] = GAME.parse(state, seat, lines(*parsed.normalised)).orders
    return GAME.resolve(state, orders, dice=ConvoyDice(totals))


def all_cards(state: StormState) -> list[str]:
    piles = state.piles
    return [*piles.draw, *piles.discard, *piles.removed, *(c for s in SEATS for c in piles.hand(s))]


# seed 000, the worked sheet: "2S-E 40-E 4(2S-E)/(40-E) DRMODIF 3d6+m yes/no ... the middle
# section is removed". Column 5 is the MODIFIED roll, so the unmodified 3d6 here is
# column 5 minus column 4 (e.g. "-1 5 -4/5 -1 12 NO": 13 - 1 = 12).
SEED_ROWS = [
    # (2S-E, 40-E, unmodified 3d6) -> (4(2S-E)/(40-E), DR modif, 3d6+modif, Yes/No)
    ((0, 40, 10), ("0/40", 0, 10, "YES")),  # the table prints "0"; the text: "0", "40", "0/40" and "0"
    ((1, 39, 9), ("4/39", 0, 9, "YES")),
    ((2, 38, 12), ("8/38", 0, 12, "NO")),
    ((0, 6, 11), ("0/6", 0, 11, "NO")),
    ((-1, 5, 13), ("-4/5", -1, 12, "NO")),
    ((-2, 4, 11), ("-8/4", -2, 9, "YES")),
    ((-1, 3, 10), ("-4/3", -1, 9, "YES")),
    ((0, 2, 5), ("0/2", 0, 5, "YES")),
    ((1, 1, 10), ("4/1", 4, 14, "NO")),
]


@pytest.mark.parametrize(("inputs", "expected"), SEED_ROWS)
def test_seed_000_worked_sheet_rows(
    inputs: tuple[int, int, int], expected: tuple[str, int, int, str]
) -> None:
    row = sheet_row(*inputs)
    assert (row.fraction, row.modifier, row.modified, "YES" if row.selected else "NO") == expected


def test_seed_000_worked_sheet_columns_follow_from_the_row_above() -> None:
    # seed 000: "In the first column add 1 to the value above if the previous examination gave
    # "Yes", subtract 1 if it gave "No" ... In the 2:nd column, always subtract 1"
    top, bottom = SEED_ROWS[:3], SEED_ROWS[3:]
    for block in (top, bottom):
        for (inputs, _), (following, _) in itertools.pairwise(block):
            assert next_columns(sheet_row(*inputs)) == following[:2]
    assert next_columns(sheet_row(*top[-1][0])) == (1, 37)  # the row "1 37 4/37 0" that follows
    assert modifier(1, 37) == 0
    # "When examining convoy 14, the second column should have the value 27 ... The sum of them
    # should always be 41."
    assert sheet_row(0, 27, 10).convoy == 14
    assert [sheet_row(*inputs).convoy for inputs, _ in bottom] == [35, 36, 37, 38, 39, 40]


def test_seed_000_first_rows_replayed_by_the_moderator() -> None:
    state = new({1: 10, 2: 9, 3: 12, 4: 10}, enhanced=True)
    step = GAME.step(state)
    assert step is not None
    assert (step.key, step.owing) == ("C1.play", frozenset(SEATS))
    out = play(state, {2: 9, 3: 12, 4: 10})
    assert out.state.current == 2
    out = play(out.state, {3: 12, 4: 10})
    assert out.state.current == 4
    sheet = [
        (r.balance, r.remaining, r.fraction, r.modifier, r.modified, r.selected) for r in out.state.sheet
    ]
    assert sheet == [
        (0, 40, "0/40", 0, 10, True),
        (1, 39, "4/39", 0, 9, True),
        (2, 38, "8/38", 0, 12, False),
        (1, 37, "4/37", 0, 10, True),
    ]
    rows = [e for e in out.events if e.kind == "examination"]
    assert [e.audience for e in rows] == [EVERYONE, EVERYONE]
    assert rows[0].text == "C3 (1940): 2S-E 2, 40-E 38, 8/38 -> DR modif +0; 3d6 6+5+1 = 12, 12+0 = 12: NO."
    assert rows[1].data["fraction"] == "4/37"


@pytest.mark.parametrize(
    ("numerator", "denominator", "rounded"),
    [
        (-3, 7, 0),  # seed 000: "-3/7 => 0"
        (-4, 7, -1),  # seed 000: "-4/7 => -1"
        (1, 2, 1),  # "halves rounded up if bigger than 0"
        (-1, 2, -1),  # "down to the nearest integer if less than 0"
        (3, 2, 2),
        (-3, 2, -2),
        (8, 16, 1),  # reachable: 2S-E = 2 with 16 left (C25 after 13 of 24 selected)
        (-8, 16, -1),
        (4, 39, 0),
        (-8, 33, 0),
        (0, 40, 0),
        (16, 4, 4),
    ],
)
def test_seed_rounding(numerator: int, denominator: int, rounded: int) -> None:
    assert seed_round(numerator, denominator) == rounded


def test_modifier_below_three_still_selects() -> None:
    # seed 000: "add the col4 modifier to the die roll. If the modifier is -1 and the unmodified
    # die roll is 11, the examined convoy should be selected"; a 3 with -2 is read as selected too.
    assert sheet_row(-1, 3, 11).selected
    assert sheet_row(-2, 4, 3).modified == 1
    assert sheet_row(-2, 4, 3).selected
    assert not sheet_row(-2, 4, 11, enhanced=False).selected


def test_hand_sizes_by_year() -> None:
    # seed 000: "3 cards for 1940 (convoy 1 to 4), 4 cards 1941 (C5-C16), 5 cards C17 to C28
    # and 6 cards 1943 (convoy 29 to 40)."
    assert [hand_size(c) for c in (1, 4, 5, 16, 17, 28, 29, 40)] == [3, 3, 4, 4, 5, 5, 6, 6]


def test_deck_replacements_at_c5_c17_and_c29_and_hand_sizes() -> None:
    parts = {part.year: part for part in read_parts(deck_data())}
    state = new({1: 3})
    # seed 000: "Only the 1940-1943 part of the Force deck is used in 1940."
    assert sorted(all_cards(state)) == sorted(parts[1940].cards)
    assert [len(state.piles.hand(s)) for s in SEATS] == [3, 3, 3]
    letters = {"P1": [f"PLAY {state.piles.hand('P1')[0]}", f"DISCARD {state.piles.hand('P1')[1]}"]}
    years_in = [1940]
    for selected, year, size in [(6, 1941, 4), (20, 1942, 5), (30, 1943, 6)]:
        pool = len(state.piles.draw) + len(state.piles.discard) + (2 if selected == 6 else 0)
        out = play(state, {selected: 3}, letters if selected == 6 else None)
        state = out.state
        years_in.append(year)
        [replaced] = [e for e in out.events if e.kind == "deck-replaced"]
        # "When convoy C5 is examined and perhaps selected" (here not selected): C5, C17, C29.
        assert replaced.data["convoy"] == {1941: 5, 1942: 17, 1943: 29}[year]
        assert (replaced.data["pool"], replaced.data["kept"]) == (pool, pool // 2)
        assert state.current == selected
        assert [len(state.piles.hand(s)) for s in SEATS] == [size] * 3
        assert state.piles.discard == ()
        assert set(parts[year].cards) <= set(all_cards(state)) - set(state.piles.removed)
        assert sorted(all_cards(state)) == sorted(c for y in years_in for c in parts[y].cards)


def test_replacement_when_c5_itself_is_selected() -> None:
    state = new({1: 3})
    out = play(state, {5: 3})
    # C2-C4 are not selected; C5's replacement comes before its roll, and the deal after it.
    assert [e.kind for e in out.events] == [
        "pass",  # all three seats in one line (issue 37)
        *["examination"] * 3,
        "deck-replaced",
        "examination",
        "deal",
        *["hand"] * 3,
    ]
    assert [len(out.state.piles.hand(s)) for s in SEATS] == [4, 4, 4]
    assert out.state.current == 5


def small_deck(*sizes: int) -> dict[str, Any]:
    return {
        "parts": [{"year": 1940 + n, "size": size} for n, size in enumerate(sizes)],
        "defaults": defaults_data(),
    }


def test_an_empty_draw_pile_is_rebuilt_from_the_discards() -> None:
    # The seed is silent here; the design default reshuffles the discard pile.
    state = new({1: 3}, data=small_deck(9, 4, 4, 4))
    assert state.piles.draw == ()
    hand = state.piles.hand("P1")
    out = play(state, {2: 3}, {"P1": [f"PLAY {hand[0]}", f"DISCARD {hand[1]}"]})
    [reshuffle] = [e for e in out.events if e.kind == "reshuffle"]
    assert reshuffle.text == (
        "The draw pile ran out: the 2 discarded cards are shuffled into a new one "
        "(design default: an empty draw pile is rebuilt)."
    )
    assert sorted(out.state.piles.hand("P1")) == sorted(hand)
    assert out.state.piles.discard == ()


def test_hands_stay_short_when_no_card_is_left() -> None:
    state = new({1: 3}, data=small_deck(9, 0, 4, 4))
    hand = state.piles.hand("P1")
    out = play(state, {5: 3}, {"P1": [f"PLAY {hand[0]}", f"PLAY {hand[1]}"]})
    [replaced] = [e for e in out.events if e.kind == "deck-replaced"]
    assert (replaced.data["pool"], replaced.data["kept"]) == (2, 1)
    [empty] = [e for e in out.events if e.kind == "deck-empty"]
    assert empty.text == "No cards are left to draw: short of a full hand: P1 2 cards, P2 1 card, P3 1 card."
    assert [len(out.state.piles.hand(s)) for s in SEATS] == [2, 3, 3]


def test_cards_are_dealt_privately_and_counts_are_public() -> None:
    out = play(new({1: 3}), {2: 3})
    hands = [e for e in out.events if e.kind == "hand"]
    assert [e.audience for e in hands] == [frozenset({s}) for s in SEATS]
    for event, seat in zip(hands, SEATS, strict=True):
        assert event.data["hand"] == list(out.state.piles.hand(seat))
    [deal] = [e for e in out.events if e.kind == "deal"]
    assert deal.audience == EVERYONE
    assert deal.text == (
        "Hands are filled to 3 cards for C2 (design default: hands filled round the table); "
        "cards drawn: P1 0, P2 0, P3 0."
    )


def test_plays_are_public_and_discards_private() -> None:
    state = new({1: 3})
    hand = state.piles.hand("P2")
    out = play(state, {2: 3}, {"P2": [f"PLAY {hand[0]}", f"DISCARD {hand[1]}"]})
    [public] = [e for e in out.events if e.kind == "play" and "P2" in e.text]
    assert public.text == f"P2 plays {hand[0]} and discards 1 card."
    assert public.audience == EVERYONE
    [private] = [e for e in out.events if e.kind == "discard"]
    assert (private.audience, private.text) == (frozenset({"P2"}), f"You discard {hand[1]}.")
    assert GAME.view(out.state, out.events, "P1")["plays"][0]["discarded"] == "1 card"
    assert GAME.view(out.state, out.events, "P2")["plays"][0]["discarded"] == hand[1]
    assert hand[1] not in str(GAME.view(out.state, out.events, "P1"))


def test_a_card_not_in_hand_is_refused_without_revealing_where_it_is() -> None:
    state = new({1: 3})
    elsewhere = [state.piles.hand("P2")[0], state.piles.draw[0], "HMS-Nonesuch"]
    reasons = []
    for card in elsewhere:
        [problem] = GAME.parse(state, "P1", lines(f"PLAY {card}")).problems
        assert (problem.line, problem.kind) == (1, ProblemKind.ILLEGAL)
        reasons.append(problem.reason.replace(card, "X"))
    own = ", ".join(state.piles.hand("P1"))
    assert reasons == [f"X is not in your hand (your hand: {own})"] * 3


HAND = ("HMS-Ark-Royal", "HMS-Hood", "U-47", "Scharnhorst", "USS-Wasp")


@pytest.mark.parametrize(
    ("line", "meant"),
    [
        ("discard Ark Royal", "DISCARD HMS-Ark-Royal"),  # the trial's: refused as not in hand
        ("DISCARD ark-royal", "DISCARD HMS-Ark-Royal"),
        ("play hms hood", "PLAY HMS-Hood"),
        ("play Hood", "PLAY HMS-Hood"),
        ("play wasp", "PLAY USS-Wasp"),
        ("play USS wasp", "PLAY USS-Wasp"),
        ("play u 47", "PLAY U-47"),
        ("play HMS Scharnhorst", "PLAY Scharnhorst"),
    ],
)
def test_a_card_is_named_with_or_without_its_nationality_prefix(line: str, meant: str) -> None:
    parsed = parse_lines(lines(line), HAND)
    assert (parsed.normalised, parsed.problems) == ((meant,), ())
    assert parse_lines(lines(meant), HAND).normalised == (meant,)


def test_a_name_two_cards_of_the_hand_fit_is_refused_naming_both() -> None:
    [problem] = parse_lines(lines("play Renown"), ("HMS-Renown", "USS-Renown", "U-47")).problems
    assert problem.kind is ProblemKind.AMBIGUOUS
    assert problem.reason == "Renown could be HMS-Renown or USS-Renown: write the card as in your hand"
    exact = parse_lines(lines("play Scharnhorst"), ("Scharnhorst", "Scharnhorst-Arctic"))
    assert exact.normalised == ("PLAY Scharnhorst",)  # the name as spelt wins


def test_another_navys_prefix_or_a_part_of_a_name_is_no_card_of_the_hand() -> None:
    for line in ("play HMS Wasp", "play Ark", "play HMS", "play 47"):
        [problem] = parse_lines(lines(line), HAND).problems
        assert problem.kind is ProblemKind.ILLEGAL and "is not in your hand" in problem.reason, line


def test_parse_round_trip_and_problems() -> None:
    state = new({1: 3})
    card, other = state.piles.hand("P1")[:2]
    messy = lines(f"play {card.lower().replace('-', ' ')}", f"Discards: {other.upper()}")
    parsed = GAME.parse(state, "P1", messy)
    assert parsed.normalised == (f"PLAY {card}", f"DISCARD {other}")
    again = GAME.parse(state, "P1", lines(*parsed.normalised))
    assert (again.normalised, again.orders) == (parsed.normalised, parsed.orders)
    assert GAME.parse(state, "P1", lines("PASS")).normalised == ("PASS",)
    bad = GAME.parse(state, "P1", lines(f"PLAY {card}", f"DISCARD {card}", "PASS", "PLAY", "SINK Bismarck"))
    assert [(p.line, p.kind) for p in bad.problems] == [
        (2, ProblemKind.ILLEGAL),
        (3, ProblemKind.AMBIGUOUS),
        (4, ProblemKind.INVALID),
        (5, ProblemKind.INVALID),
    ]
    assert bad.problems[0].reason == f"{card} was already given up on line 1"


def test_the_timeline_ends_after_c40() -> None:
    state = new({1: 3})
    out = play(state, {})
    assert out.finished
    assert out.result == "All 40 convoys examined: 1 selected for play (C1)."
    assert GAME.step(out.state) is None
    assert len(out.state.sheet) == 40
    assert [e.kind for e in out.events][-1] == "game-over"
    assert GAME.parse(out.state, "P1", lines("PASS")).problems[0].reason.startswith("the timeline is done")


def test_dump_and_load_round_trip_through_json() -> None:
    state = new({1: 3}, enhanced=True)
    hand = state.piles.hand("P3")
    state = play(state, {7: 3}, {"P3": [f"DISCARD {hand[2]}"]}).state
    data = json.loads(json.dumps(GAME.dump(state)))
    assert GAME.load(data) == state
    assert GAME.dump(GAME.load(data)) == data


def test_registry_seats_and_deck_data() -> None:
    assert isinstance(find_game("atlantic-storm"), AtlanticStormGame)
    assert GAME.seats("standard", {}) == ("P1", "P2", "P3", "P4")
    assert GAME.seats("3p", {}) == ("P1", "P2", "P3")
    data = deck_data()
    assert data["default"] is True  # a design default: the seed does not list the cards
    assert [len(p.cards) for p in read_parts(data)] == [32, 24, 24, 20]
    assert [
        len(p.cards)
        for p in read_parts({"parts": [{"year": y, "size": 5} for y in (1943, 1942, 1941, 1940)]})
    ] == [5] * 4
    assert read_parts({})[0].cards[:2] == ("F1940-01", "F1940-02")


def test_simulation_figures_and_report_lines() -> None:
    simple = simulate(2000, False, random.Random(7))
    enhanced = simulate(2000, True, random.Random(7))
    assert 19.5 < simple.mean < 20.5
    assert enhanced.mean == pytest.approx(20, abs=0.05)
    assert enhanced.share(20, 20) > 0.75
    assert simple.share(20, 20) < 0.2
    report = format_report(enhanced)
    assert re.fullmatch(r"share exactly 20: 0\.\d{4}", report[-3])
    assert re.fullmatch(r"share 15-25: [01]\.\d{4}", report[-2])
    assert re.fullmatch(r"share no 1943 convoys: 0\.\d{4}", report[-1])


def test_report_templates_render_a_seats_view() -> None:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
    )
    state = new({1: 3}, enhanced=True)
    hand = state.piles.hand("P1")
    out = play(state, {3: 9}, {"P1": [f"PLAY {hand[0]}"]})
    view = GAME.view(out.state, out.events, "P2")
    text = env.get_template("atlantic_storm/templates/report.txt.j2").render(r=view)
    html = env.get_template("atlantic_storm/templates/report.html.j2").render(r=view)
    for rendered in (text, html):
        assert f"P1 plays {hand[0]}" in rendered
        assert all(card in rendered for card in out.state.piles.hand("P2"))
        assert not any(card in rendered for card in out.state.piles.hand("P1"))
        assert "4/39" in rendered
    assert "PASS" in text
    assert "<td>4/39</td>" in html


def test_every_roll_is_labelled_ruled_and_verifiable() -> None:
    seed = b"a seed revealed after the game"
    dice = DiceStream(seed, "0" * 64, "start")
    state = GAME.new_game(Setup("standard", SEATS, {"enhanced": True}, deck_data()), dice=dice)
    assert verify_log(seed, "0" * 64, dice.log) is None
    labels = {roll.label for roll in dice.log}
    assert {"deck/C1/shuffle", "convoy/C1"} <= labels
    assert all(roll.rule.startswith("seed 000") for roll in dice.log)
    first = next(roll for roll in dice.log if roll.label == "convoy/C1")
    assert (first.count, first.sides, dict(first.modifiers)) == (3, 6, {"DR modif 0/40": 0})
    assert state.sheet[0].roll == sum(first.faces)


def test_a_modified_roll_below_3_selects_and_says_it_is_a_default() -> None:
    """Issue 37: seed 000 selects on "3 to 10"; at C40 a 3 with a negative DR modif (here
    4 x (2S-E) / (40-E) = 4 x -37 / 1) falls below 3. The moderator reads it as selected, a
    design default that the examination names."""
    state = new({1: 3}, enhanced=True)
    events: list[Any] = []
    while not state.finished:  # the 18s select only once the DR modif falls to -8 or below
        out = play(state, {40: 3})
        state, events = out.state, [*events, *out.events]
    [c40] = [e for e in events if e.kind == "examination" and e.data["convoy"] == 40]
    assert c40.data["modified"] < 3 and c40.data["selected"] == "YES"
    assert c40.text.endswith("(selected for play) (design default: a modified roll below 3 selects).")
    for event in (e for e in events if e.kind == "examination"):
        below = event.data["modified"] < 3 and event.data["selected"] == "YES"
        assert ("design default" in event.text) == below, event.text


def test_an_odd_pool_names_the_rounding_default() -> None:
    """Seed 000: "half of the unplayed and discarded 1940-1943 cards"; 9 - 3 x 3 dealt = 0 in the
    pile and 3 discarded: an odd pool of 3 keeps 1, and the letter says why."""
    state = new({1: 3}, data=small_deck(12, 4, 4, 4))
    hand = state.piles.hand("P1")
    out = play(state, {5: 3}, {"P1": [f"PLAY {hand[0]}"]})
    [replaced] = [e for e in out.events if e.kind == "deck-replaced"]
    assert (replaced.data["pool"], replaced.data["kept"]) == (4, 2)
    assert replaced.text.endswith(
        "(design default: cards in hand stay in hand; design default: played cards are discarded)."
    )
    state = new({1: 3}, data=small_deck(12, 4, 4, 4))
    out = play(state, {5: 3}, {"P1": [f"PLAY {hand[0]}", f"PLAY {hand[1]}"]})
    [replaced] = [e for e in out.events if e.kind == "deck-replaced"]
    assert (replaced.data["pool"], replaced.data["kept"]) == (5, 2)
    assert replaced.text.endswith(
        "(design default: cards in hand stay in hand; design default: played cards are discarded; "
        "design default: an odd pool keeps the smaller half)."
    )


def test_passes_are_listed_once_by_seat_not_per_convoy() -> None:
    """Issue 37: letters repeated every seat's silent PASS for every convoy and grew long."""
    state = new({1: 3})
    hand = state.piles.hand("P2")
    first = play(state, {2: 3}, {"P2": [f"PLAY {hand[0]}"]})
    assert [e.text for e in first.events if e.kind == "pass"] == [
        "C1: P1, P3 pass, playing and discarding nothing (design default: silence is PASS)."
    ]
    second = play(first.state, {3: 3})
    view = GAME.view(second.state, second.events, "P1")
    assert view["passes"] == [
        {"seat": "P1", "convoys": "C1 C2"},
        {"seat": "P2", "convoys": "C2"},
        {"seat": "P3", "convoys": "C1 C2"},
    ]
    assert [(p["convoy"], p["seat"]) for p in view["plays"]] == [(1, "P2")]
    assert [e.kind for e in second.events].count("pass") == 1


def test_a_seats_own_cards_stay_under_your_hand_however_long_the_names() -> None:
    """A trial read "Hands: P1 5, P2 5" from C17 on, where it had read "P2 4 (Barbarigo, ...)":
    five cards' names in brackets made the Hands line longer than the letter's 72 columns, and
    the wrap carried them off it. The counts now stand on a line of their own, the seat's cards
    under "Your hand"; the referee's letter lists each hand on its own line."""
    hands = {
        "P1": ("Gneisenau", "Barbarigo", "U-37", "Escort-Group-36", "U-703-Arctic"),
        "P2": ("HMS-Prince-of-Wales", "HMS-King-George-V", "HMS-Ark-Royal", "U-38", "Kormoran"),
        "P3": ("U-29", "U-99", "Hudson", "Sunderland", "Pinguin"),
    }
    state = new({1: 3})
    state = replace(state, piles=replace(state.piles, hands=hands))
    counts = "Cards in each hand: P1 5, P2 5, P3 5."
    for seat in SEATS:
        text = wrap72(contract.render_report(REPORTS, STORM, GAME.view(state, (), seat), "txt"))
        lines = text.splitlines()
        start = next(n for n, line in enumerate(lines) if line.startswith("Your hand: "))
        block = [lines[start], *itertools.takewhile(lambda line: line.startswith("  "), lines[start + 1 :])]
        assert [card.strip() for card in " ".join(block).removeprefix("Your hand: ").split(",")] == list(
            hands[seat]
        )
        assert lines[start + len(block)] == counts
        others = [card for owner, cards in hands.items() if owner != seat for card in cards]
        assert not any(card in text for card in others)
    referee = wrap72(contract.render_report(REPORTS, STORM, GAME.view(state, (), None), "txt"))
    assert f"{counts}\n  P1: Gneisenau, Barbarigo, U-37, Escort-Group-36, U-703-Arctic\n" in referee
