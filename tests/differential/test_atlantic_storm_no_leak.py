# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm through the differential harness: the other seats' cards change no letter.

Worlds, letters and the stop rule: ``mailbot.games.atlantic_storm.worlds``; the harness:
``mailbot.testing.differential``. Cold start on purpose (no example database, derandomized).
The planted-leak test shows the worlds can catch a leak: a refusal that says a card is in
another seat's hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given

from mailbot.core.game import Line, Parsed
from mailbot.games.atlantic_storm import worlds as aw
from mailbot.games.atlantic_storm.deck import card_key
from mailbot.games.atlantic_storm.orders import StormOrder
from mailbot.games.atlantic_storm.state import StormState
from mailbot.registry import default_registry
from mailbot.testing.contract import report_env
from mailbot.testing.differential import LeakFound, assert_no_leak, compare_example
from tests.differential import cold_search, generate_only

ENV = report_env(default_registry())
EXAMPLES = 150
SETTINGS = cold_search(EXAMPLES)


def check(example: aw.Example) -> None:
    """One pair of worlds: every letter to the seat is the same until it observes a difference."""
    verdict = compare_example(aw.PACKAGE, ENV, example, aw.observed)
    assert_no_leak(verdict)


@SETTINGS
@given(example=aw.examples())
def test_the_other_seats_cards_change_no_letter_to_the_seat(example: aw.Example) -> None:
    check(example)


def test_the_worlds_compare_resolved_convoys_not_just_the_letters() -> None:
    """The stop rule must leave something to compare: many examples compare the letters that
    follow a resolved step (the plays, the next examinations, the deal) in differing worlds."""
    reached = {"examples": 0, "resolved": 0}

    def tally(example: aw.Example) -> None:
        verdict = compare_example(aw.PACKAGE, ENV, example, aw.observed)
        reached["examples"] += 1
        # a step key compared twice: its confirmation, then what follows its resolution
        reached["resolved"] += len(verdict.compared) > len(set(verdict.compared))

    generate_only(SETTINGS, 100)(given(example=aw.examples())(tally))()
    assert reached["resolved"] >= reached["examples"] // 4, reached


def test_a_refusal_that_says_where_a_card_is_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant a leak: a refused PLAY or DISCARD says when another seat holds the card."""
    real = aw.PACKAGE.game.parse

    def parse(state: StormState, seat: str, lines: Sequence[Line]) -> Parsed[StormOrder]:
        parsed = real(state, seat, lines)
        held = {card_key(c) for s in state.seats if s != seat for c in state.piles.hand(s)}
        problems = tuple(
            replace(p, reason=f"{p.reason} (another seat holds it)")
            if card_key(p.text.partition(" ")[2]) in held
            else p
            for p in parsed.problems
        )
        return Parsed(parsed.accepted, problems)

    monkeypatch.setattr(aw.PACKAGE.game, "parse", parse)
    with pytest.raises(LeakFound, match="another seat holds it"):
        generate_only(SETTINGS)(given(example=aw.examples())(check))()
