# SPDX-License-Identifier: GPL-3.0-or-later
"""The dice duel through the differential harness: the opponent's secret split changes no letter.

Worlds, letters and the stop rule: ``mailbot.games.duel.worlds``; the harness:
``mailbot.testing.differential``.
Cold start on purpose (no example database, derandomized). The planted-leak tests below show
that the worlds are not so cautious that a leak could hide: each plants one plausible leak (the
history shows both splits; the defender is told how many dice came at it) and the same search
must find it.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given

from mailbot.core.game import Event
from mailbot.games.duel import view
from mailbot.games.duel import worlds as dw
from mailbot.games.duel.state import Strike, TurnRecord
from mailbot.registry import default_registry
from mailbot.testing.contract import report_env
from mailbot.testing.differential import LeakFound, assert_no_leak, compare_example
from tests.differential import cold_search, generate_only

ENV = report_env(default_registry())
EXAMPLES = 200
SETTINGS = cold_search(EXAMPLES)


def check(example: dw.Example) -> None:
    """One pair of worlds: every letter to the seat is the same until it observes a difference."""
    verdict = compare_example(dw.PACKAGE, ENV, example, dw.observed)
    assert_no_leak(verdict)


@SETTINGS
@given(example=dw.examples())
def test_the_opponents_secret_split_changes_no_letter_to_the_seat(example: dw.Example) -> None:
    check(example)


def search() -> None:
    """The search above, without shrinking (the planted-leak tests only need it to fail)."""
    generate_only(SETTINGS)(given(example=dw.examples())(check))()


def test_the_worlds_compare_whole_turns_not_just_the_start() -> None:
    """The stop rule must leave something to compare: many examples compare a resolved bid step
    (a turn's strikes) in two worlds whose opponent splits differ."""
    reached: Counter[str] = Counter()

    def tally(example: dw.Example) -> None:
        verdict = compare_example(dw.PACKAGE, ENV, example, dw.observed)
        reached["examples"] += 1
        reached["strikes compared"] += any(m.endswith(".bid") for m in verdict.compared)

    generate_only(SETTINGS, 100)(given(example=dw.examples())(tally))()
    assert reached["strikes compared"] >= reached["examples"] // 4, reached


def _all_splits(record: TurnRecord, seat: str | None) -> str:
    return "; ".join(f"{entry.seat} {entry.split.text}" for entry in record.seats)


def test_a_history_showing_both_splits_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view, "_history_orders", _all_splits)
    with pytest.raises(LeakFound, match=r"orders.*north ATTACK \d, DEFEND \d; south ATTACK"):
        search()


def test_a_defender_told_the_attackers_dice_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    told = view._defender_event

    def leaky(turn: int, strike: Strike) -> Event:
        event = told(turn, strike)
        return Event(
            event.kind, f"{event.text} ({len(strike.attack_faces)} dice)", event.audience, event.data
        )

    monkeypatch.setattr(view, "_defender_event", leaky)
    with pytest.raises(LeakFound, match=r"dice\)"):
        search()


def test_an_observer_shown_the_referees_report_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Observers' letters are compared too (issue 33): a public report that were the referee's
    (both splits, every die) differs between the worlds, and the same search finds it."""
    from typing import Any

    from mailbot.games.duel import DuelGame

    def referees(game: DuelGame, state: Any, events: Any) -> Any:
        return view.build_view(game.title, state, events, None, ())

    monkeypatch.setattr(DuelGame, "public_view", referees)
    with pytest.raises(LeakFound, match=r"observer (view|report)"):
        search()
