# SPDX-License-Identifier: GPL-3.0-or-later
"""Quiet hours (``mailbot/games/flattop/quiet.py``; design/flattop.md: "Quiet turns should not
cost a round of mail ... Night turns with nothing in the air are the common case").

An hour is quiet by the public clock alone: a night hour after a night hour, never the first
turn, never dawn. Standing orders cover it: HOLD (TFs keep their multi-hour PLOTs) and every
AF aloft flies home and lands.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.games.flattop.quiet import quiet_turn, run_length, standing_orders
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

from .play import GAME, game_data, new, parse, play

HOURS = {1: "D1 0500", 2: "D1 0600", 15: "D1 1900", 16: "D1 2000", 25: "D2 0500", 26: "D2 0600"}


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


@pytest.fixture(scope="module")
def state(data: dict[str, Any]) -> FlatTopState:
    return new(data)


def at(state: FlatTopState, turn: int) -> FlatTopState:
    return replace(state, turn=turn)


@pytest.mark.parametrize(
    ("turn", "quiet"),
    [
        (1, False),  # the first turn: no letter came before it (0500 is a night hour)
        (2, False),  # 0600: day
        (14, False),  # 1800: day
        (15, False),  # 1900: nightfall, the first night hour: each side sets its night orders
        (16, True),  # 2000: a night hour after a night hour
        (20, True),  # 2400
        (21, True),  # 0100 of day 2
        (25, True),  # 0500 of day 2
        (26, False),  # 0600 of day 2: dawn, the day's first searches are due
    ],
)
def test_a_night_hour_after_a_night_hour_is_quiet(state: FlatTopState, turn: int, quiet: bool) -> None:
    here = at(state, turn)
    if turn in HOURS:
        assert here.time.label == HOURS[turn]
    step = GAME.step(here)
    assert step is not None and step.quiet is quiet


def test_a_finished_game_has_no_quiet_hour(state: FlatTopState) -> None:
    late = at(state, 16)
    over = replace(late, score=replace(late.score, finished=True))
    assert GAME.step(over) is None
    assert GAME.default_orders(over, "allied") == ()


def test_the_letter_after_quiet_hours_counts_them_for_its_contacts(state: FlatTopState) -> None:
    assert run_length(at(state, 15)) == 0
    assert run_length(at(state, 17)) == 1  # 2000 was quiet-eligible
    assert run_length(at(state, 26)) == 10  # 2000 .. 0500
    assert not quiet_turn(state, 0) and not quiet_turn(state, 1)


def test_quietness_reads_the_clock_only(state: FlatTopState) -> None:
    """Two worlds that differ in everything but the clock: the same steps are quiet (no timing leak)."""
    other = replace(state, task_forces=(), air=(), bases=())
    for turn in range(1, 40):
        mine, theirs = GAME.step(at(state, turn)), GAME.step(at(other, turn))
        assert mine is not None and theirs is not None
        assert mine.quiet is theirs.quiet, turn


def test_standing_orders_hold_and_bring_every_af_aloft_home(data: dict[str, Any]) -> None:
    """A flight caught by the night flies home and lands instead of circling until its fuel is gone."""
    state = new(data)
    launched = play(
        state,
        {
            "allied": ["SEARCH AF3 FROM TF1 2 Wildcat PATH V-E25 RETURN TF1"],
            "japanese": ["SEARCH AF2 FROM TF1 1 Zero PATH I-G18"],
        },
    ).state
    assert {af.number for af in launched.own_air(Side.JAPANESE)} == {2}
    night = at(launched, 16)
    assert GAME.default_orders(night, "japanese") == ("HOLD", "LAND AF2 TF1")
    assert GAME.default_orders(at(launched, 3), "japanese") == ("HOLD",)  # a day hour: the plain default
    for seat in ("allied", "japanese"):
        orders = standing_orders(night, Side(seat))
        assert parse(night, seat, *orders).problems == ()  # the moderator parses them like any letter
    home = play(night, {seat: list(GAME.default_orders(night, seat)) for seat in ("allied", "japanese")})
    assert home.state.own_air(Side.JAPANESE) == ()  # AF2 flew home and landed
    assert any(e.kind == "ft.landed" and e.visible_to("japanese") for e in home.events)


def test_plots_run_on_through_quiet_hours(data: dict[str, Any]) -> None:
    """Seed 003 lets a PLOT run several turns ahead: the standing HOLD keeps it."""
    state = at(new(data), 15)
    plotted = play(state, {"allied": ["HOLD"], "japanese": ["PLOT TF1 I-H17 / I-G17"]}).state
    tf = next(iter(plotted.own_tfs(Side.JAPANESE)))
    assert GAME.step(plotted) is not None and GAME.step(plotted).quiet  # type: ignore[union-attr]
    moved = play(plotted, {seat: list(GAME.default_orders(plotted, seat)) for seat in plotted.seats}).state
    assert next(iter(moved.own_tfs(Side.JAPANESE))).hex != tf.hex


# --- WAKE: a side asks for letters in the night (orders.wake) ---------------------------------


def test_wake_asks_for_letters_at_a_night_hour_and_both_sides_get_one(data: dict[str, Any]) -> None:
    """design/flattop.md: "Quiet turns should not cost a round of mail"; a side that wants to act in
    the night says when (``WAKE 0200``, turn 22 of test-small). At nightfall (1900, turn 15) the
    Allies ask for 0200: that hour is no longer quiet, the hours around it still are, and at 0100
    both sides are told 0200 comes with letters (who asked is not said)."""
    nightfall = at(new(data), 15)
    assert parse(nightfall, "allied", "wake 0200").normalised == ("WAKE 0200",)
    asked = play(nightfall, {"allied": ["WAKE 0200"], "japanese": ["HOLD"]}).state
    assert [t for t in range(16, 26) if not quiet_turn(asked, t)] == [22]
    step = GAME.step(at(asked, 22))
    assert step is not None and not step.quiet
    assert run_length(at(asked, 22)) == 6  # 2000 .. 0100 were played without mail
    before = play(
        at(asked, 21), {seat: list(GAME.default_orders(at(asked, 21), seat)) for seat in asked.seats}
    )
    for seat in asked.seats:
        said = [e.text for e in before.events if e.kind == "ft.wake" and e.visible_to(seat)]
        assert said == ["0200 is played with letters: a side asked to be woken (WAKE)"], (seat, said)


def test_wake_all_none_and_the_hours_refused(data: dict[str, Any]) -> None:
    """``WAKE ALL`` asks for every quiet hour of the coming night, ``WAKE NONE`` drops the requests;
    an hour with a letter anyway (day, nightfall, dawn) is refused by name, not silently kept."""
    nightfall = at(new(data), 15)
    every = play(nightfall, {"allied": ["WAKE ALL"], "japanese": ["HOLD"]}).state
    assert not any(quiet_turn(every, t) for t in range(16, 27))
    dropped = play(at(every, 16), {"allied": ["WAKE NONE"], "japanese": ["HOLD"]}).state
    assert all(quiet_turn(dropped, t) for t in range(17, 26)) and not quiet_turn(dropped, 16)
    for hour, reason in (
        ("0900", "WAKE 0900: there is a letter at 0900 anyway"),
        ("0600", "WAKE 0600: there is a letter at 0600 anyway"),
        ("2599", "is not an hour like 0300"),
    ):
        (problem,) = parse(nightfall, "allied", f"WAKE {hour}").problems
        assert reason in problem.reason, (hour, problem.reason)


def test_a_wake_request_survives_saving_the_game(data: dict[str, Any]) -> None:
    asked = play(at(new(data), 15), {"allied": ["WAKE 0200 0400"], "japanese": ["HOLD"]}).state
    assert GAME.load(GAME.dump(asked)).side(Side.ALLIED).wake == (22, 24)
