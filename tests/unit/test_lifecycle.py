# SPDX-License-Identifier: GPL-3.0-or-later
"""The step lifecycle state machine (``mailbot.core.lifecycle``) over plain values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mailbot.core.lifecycle import (
    Action,
    Policy,
    SeatFacts,
    StepFacts,
    Watch,
    count_misses,
    decide,
    early_from,
    fill_defaults,
    why_open,
)

OPENED = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
DEADLINE = OPENED + timedelta(hours=48)
POLICY = Policy(grace=timedelta(minutes=30), early=timedelta(minutes=5), reminders=(timedelta(hours=12),))


def step(
    early_at: datetime | None = None, owing: tuple[str, ...] = ("north", "south"), **kw: object
) -> StepFacts:
    return StepFacts("T1.orders", owing, OPENED, DEADLINE, early_at, **kw)  # type: ignore[arg-type]


def seats(**flags: dict[str, object]) -> dict[str, SeatFacts]:
    return {name: SeatFacts(name, **values) for name, values in flags.items()}  # type: ignore[arg-type]


BOTH_IN = seats(north={"sent": True}, south={"sent": True})


def test_nothing_happens_in_the_middle_of_a_step() -> None:
    decision = decide(step(), seats(north={}, south={}), POLICY, Watch(), OPENED + timedelta(hours=1))
    assert decision.action is Action.IDLE


def test_early_processing_waits_for_every_seat_then_the_short_delay() -> None:
    now = OPENED + timedelta(hours=2)
    assert early_from(step(), seats(north={"sent": True}, south={}), POLICY, now) is None
    early = early_from(step(), BOTH_IN, POLICY, now)
    assert early == now + timedelta(minutes=5)
    assert decide(step(early), BOTH_IN, POLICY, Watch(), now).action is Action.IDLE
    decision = decide(step(early), BOTH_IN, POLICY, Watch(), early)
    assert (decision.action, decision.why) == (Action.PROCESS, "early")


def test_wait_holds_early_processing_but_not_the_deadline() -> None:
    waiting = seats(north={"sent": True, "waiting": True}, south={"sent": True})
    early = OPENED + timedelta(hours=1)
    assert decide(step(early), waiting, POLICY, Watch(), early).action is Action.IDLE
    closing = DEADLINE + timedelta(minutes=30)
    assert decide(step(early), waiting, POLICY, Watch(), closing).why == "deadline"


def test_the_deadline_counts_the_grace() -> None:
    just_before = DEADLINE + timedelta(minutes=29)
    reminded = step(reminders_sent=((DEADLINE - timedelta(hours=12)).isoformat(),))
    assert decide(reminded, BOTH_IN, POLICY, Watch(), just_before).action is Action.IDLE
    at = DEADLINE + timedelta(minutes=30)
    assert decide(step(), BOTH_IN, POLICY, Watch(), at).action is Action.PROCESS


@pytest.mark.parametrize(
    ("watch", "sent", "reason"),
    [
        (Watch(imap_trouble=True), {"north": {"sent": True}, "south": {}}, "mailbox"),
        (Watch(), {"north": {}, "south": {}}, "2 of 2 seats sent nothing"),
    ],
    ids=["imap-trouble", "most-silent"],
)
def test_the_interlock_pauses_a_doubtful_deadline(
    watch: Watch, sent: dict[str, dict[str, object]], reason: str
) -> None:
    decision = decide(step(), seats(**sent), POLICY, watch, DEADLINE + timedelta(hours=2))
    assert decision.action is Action.PAUSE
    assert reason in decision.why


def test_a_deadline_waits_until_the_mailbox_is_read_after_a_restart() -> None:
    late = DEADLINE + timedelta(hours=5)
    held = decide(step(), BOTH_IN, POLICY, Watch(mailbox_read=False), late)
    assert (held.action, held.why) == (Action.IDLE, "waiting for the mailbox to be read")
    assert decide(step(), BOTH_IN, POLICY, Watch(mailbox_read=True), late).action is Action.PROCESS


def test_a_seat_on_vacation_is_not_counted_silent_by_the_interlock() -> None:
    away = seats(north={"away": True}, south={"sent": True})
    decision = decide(step(), away, POLICY, Watch(), DEADLINE + timedelta(hours=1))
    assert decision.action is Action.PROCESS


def test_reminders_go_once_to_active_present_seats_that_owe() -> None:
    now = DEADLINE - timedelta(hours=11)
    group = seats(north={"sent": True}, south={}, east={"away": True}, west={"active": False})
    owing = ("north", "south", "east", "west")
    decision = decide(step(owing=owing), group, POLICY, Watch(), now)
    assert decision.action is Action.REMIND
    assert decision.remind == ("south",)
    again = decide(step(owing=owing, reminders_sent=decision.marks), group, POLICY, Watch(), now)
    assert again.action is Action.IDLE


def test_the_silent_get_their_defaults() -> None:
    filled = fill_defaults(["north", "south"], {"north": ["ATTACK 3"]}, lambda seat: [f"default {seat}"])
    assert filled.orders == {"north": ["ATTACK 3"], "south": ["default south"]}
    assert filled.defaulted == ["south"]


def test_misses_in_a_row_are_counted_and_flagged_at_the_limit() -> None:
    group = seats(north={"missed_in_row": 1}, south={"missed_in_row": 3}, east={"away": True})
    misses = count_misses(step(owing=("north", "south", "east")), group, POLICY, ["north", "east"])
    assert misses.in_row == {"north": 2, "south": 0}
    assert misses.late == ["north"]
    assert misses.flagged == ["north"]


def test_why_a_step_stays_open_is_said_in_a_players_words() -> None:
    """What ``mailbot inject`` prints when it does not close the step (issue 37)."""
    assert why_open(step(), seats(north={"sent": True}, south={})) == "waiting for south"
    waiting = seats(north={"sent": True, "waiting": True}, south={})
    assert why_open(step(), waiting) == "waiting for south; north asked to WAIT, so it closes at its deadline"
    assert why_open(step(), BOTH_IN) == "every seat is in"


def test_a_seat_without_a_player_never_holds_a_step_open() -> None:
    """An ejected or resigned seat plays its defaults: the step is all in once every seat with a
    player has sent; a WAIT its old player left holds nothing (an outside trial, item 1)."""
    now = OPENED + timedelta(hours=1)
    ejected = seats(north={"active": False, "waiting": True}, south={"sent": True})
    assert early_from(step(), ejected, POLICY, now) == now + timedelta(minutes=5)
    assert decide(step(now), ejected, POLICY, Watch(), now).action is Action.PROCESS
    assert why_open(step(), ejected) == "every seat is in"
    silent = seats(north={"active": False}, south={})
    assert early_from(step(), silent, POLICY, now) is None
    assert why_open(step(), silent) == "waiting for south"
    # A step owed only by seats nobody plays starts its early delay without a letter.
    assert early_from(step(owing=("north",)), silent, POLICY, now) == now + timedelta(minutes=5)


def test_a_game_nobody_plays_is_not_played_out_early() -> None:
    nobody = seats(north={"active": False}, south={"active": False})
    assert early_from(step(), nobody, POLICY, OPENED) is None
    assert why_open(step(), nobody) == "no seat has a player, so it closes at its deadline"


def test_the_interlock_does_not_count_a_seat_without_a_player() -> None:
    """One seat ejected, the other silent: one silent seat of one with a player, not two of two."""
    three = step(owing=("east", "north", "south"))
    ejected = seats(east={"sent": True}, north={"active": False}, south={})
    closing = DEADLINE + timedelta(minutes=30)
    decision = decide(three, ejected, POLICY, Watch(), closing)
    assert (decision.action, decision.why) == (Action.PROCESS, "deadline")
    both_silent = seats(east={}, north={"active": False}, south={})
    decision = decide(three, both_silent, POLICY, Watch(), closing)
    assert (decision.action, decision.why) == (Action.PAUSE, "2 of 2 seats sent nothing (east, south)")
