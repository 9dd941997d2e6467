# SPDX-License-Identifier: GPL-3.0-or-later
"""The step lifecycle as a pure state machine over plain values.

A game is a sequence of steps (``core.game.Step``). While a step is open the
moderator asks, at every tick, :func:`decide`: process it now (every owing
seat has sent and none asked to WAIT, once the short early delay has passed;
or the deadline plus grace has passed), pause it (the safety interlock), send
reminders, or do nothing. When it is processed, :func:`fill_defaults` gives
the silent seats their default orders and :func:`count_misses` tells who was
late and who keeps missing.

The services load these facts from the store, call these functions and store,
send and log what they return; nothing here reads a clock or a database.

Read before you judge: a deadline is never processed before the mailbox has
been read since the moderator started, so letters that reached the mail
server before the deadline while the moderator was down count (their server
receipt time decides; the services refuse letters received after it). Until
then the step is held, not paused.

The interlock pauses instead of processing a deadline, and asks the game
master, when the result could be wrong through no player's fault:

* reading the mailbox failed recently (letters may be missing);
* more than ``max_missed_share`` of the owing seats sent nothing (seats on an
  announced vacation are not counted as missing).

Seats without a player. A seat whose player the GM ejected, or who resigned,
plays its default orders: it never holds a step open, so a step is all in once
every owing seat that has a player has sent (``SeatFacts.active``), and the
interlock neither counts it as missing nor among the seats the share is taken
of. A seat handed to a new player (REPLACE) owes again from the next step on.

Quiet steps. A game may mark a step ``quiet`` (``core.game.Step``): nobody
holds anything new to react to and every owing seat's standing orders
(``default_orders``) cover it. Unless the game's ``quiet_hours`` option is
off, :func:`play_quietly` lets the moderator resolve such a step at once, with
no deadline, no letters and no misses counted, and go on to the next; the
reports of every step so played go out together with the first step that is
not quiet. ``quiet_max`` caps how many steps in a row are played so (a seat
then gets a letter at least that often), so a run ends when the game says a
step is not quiet, at the cap, or at the end of the game.

Why the game must judge ``quiet`` from facts every seat knows: the steps that
bring letters are the same for every seat, so if one side's private news (a
sighting, planes aloft, a plot run out) woke everybody, the other side would
learn from the mere arrival of a letter that something it has not observed
happened. Letting only the side with news get a letter is no better: the
others' next letter would then wait for that side's mail round, and the
delay tells the same story. The conservative rule, then: a step is quiet by
the public record alone (in Flat Top the clock: a night hour after a night
hour), and a side's private situation is handled by its standing orders,
reported in the combined letter. The option and the cap are settings every
seat is told, so they reveal nothing either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from mailbot.core import deadlines


@dataclass(frozen=True)
class SeatFacts:
    """What the lifecycle needs to know of one seat for the open step."""

    name: str
    sent: bool = False  # current orders (or sealed values) are held
    waiting: bool = False  # asked WAIT: hold early processing
    away: bool = False  # on an announced vacation at the deadline
    # A player owes this step. Not so for a seat nobody plays (its player ejected, or resigned)
    # nor for one handed to a new player after the step opened: such a seat plays its default
    # orders, is never waited for, reminded or counted as late.
    active: bool = True
    missed_in_row: int = 0


@dataclass(frozen=True)
class StepFacts:
    """The open step as stored."""

    key: str
    owing: tuple[str, ...]
    opened_at: datetime
    deadline_at: datetime
    early_at: datetime | None = None
    reminders_sent: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policy:
    """The game's timing rules (from its settings)."""

    grace: timedelta = timedelta(0)
    early: timedelta = timedelta(minutes=5)
    reminders: tuple[timedelta, ...] = ()
    late_limit: int = 2
    max_missed_share: float = 0.5


@dataclass(frozen=True)
class Watch:
    """The moderator's own health, for the interlock."""

    mailbox_read: bool = True  # the mailbox was read (and its letters handled) since start
    imap_trouble: bool = False  # reading the mailbox failed recently


class Action(StrEnum):
    IDLE = "idle"
    PROCESS = "process"
    PAUSE = "pause"
    REMIND = "remind"


@dataclass(frozen=True)
class Decision:
    """What to do with the open step now.

    ``why`` is ``deadline`` or ``early`` for PROCESS and the reason for PAUSE;
    for REMIND, ``remind`` names the seats to remind and ``marks`` the
    reminder times to record as sent (so each goes out once).
    """

    action: Action
    why: str = ""
    remind: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()


def closes_at(step: StepFacts, policy: Policy) -> datetime:
    """The instant the deadline takes effect: the deadline plus the game's grace."""
    return step.deadline_at + policy.grace


def all_in(step: StepFacts, seats: Mapping[str, SeatFacts]) -> bool:
    """Every owing seat a player owes has sent, and none of them asked to WAIT.

    A seat without a player never holds a step open: it plays its default orders, so it counts
    as in. A game nobody plays at all is the exception: it waits for its deadlines (a GM who
    ejected every player did not ask for the game to play itself out in minutes).
    """
    return _played(seats) and not _silent(step, seats) and not _waiting(step, seats)


def why_open(step: StepFacts, seats: Mapping[str, SeatFacts]) -> str:
    """Why a step is not all in (see :func:`all_in`), in a player's words."""
    silent, waiting = _silent(step, seats), _waiting(step, seats)
    reasons = []
    if silent:
        reasons.append(f"waiting for {', '.join(silent)}")
    if waiting:
        reasons.append(f"{', '.join(waiting)} asked to WAIT, so it closes at its deadline")
    if not reasons and not _played(seats):
        reasons.append("no seat has a player, so it closes at its deadline")
    return "; ".join(reasons) or "every seat is in"


def early_from(
    step: StepFacts, seats: Mapping[str, SeatFacts], policy: Policy, now: datetime
) -> datetime | None:
    """When early processing may start, now that orders came in: ``None`` while some seat still owes.

    The short delay lets a player correct a letter sent a moment ago.
    """
    if _played(seats) and not _silent(step, seats):
        return now + policy.early
    return None


def _silent(step: StepFacts, seats: Mapping[str, SeatFacts]) -> list[str]:
    """The owing seats a player owes that have sent nothing."""
    return [name for name in step.owing if _seat(seats, name).active and not _seat(seats, name).sent]


def _waiting(step: StepFacts, seats: Mapping[str, SeatFacts]) -> list[str]:
    """The owing seats whose player asked to WAIT (a WAIT left by an ejected player holds nothing)."""
    return [name for name in step.owing if _seat(seats, name).active and _seat(seats, name).waiting]


def _played(seats: Mapping[str, SeatFacts]) -> bool:
    """Whether any seat the facts know has a player (no facts: a player is assumed)."""
    return not seats or any(seat.active for seat in seats.values())


def due(step: StepFacts, seats: Mapping[str, SeatFacts], policy: Policy, now: datetime) -> str | None:
    """Why the step should be processed now (``deadline`` or ``early``), or ``None``."""
    if now >= closes_at(step, policy):
        return "deadline"
    if step.early_at is not None and now >= step.early_at and all_in(step, seats):
        return "early"
    return None


def missing(step: StepFacts, seats: Mapping[str, SeatFacts]) -> list[str]:
    """Owing seats a player owes that sent nothing and are not on an announced vacation."""
    return [name for name in _silent(step, seats) if not _seat(seats, name).away]


def blocked(step: StepFacts, seats: Mapping[str, SeatFacts], policy: Policy, watch: Watch) -> str:
    """Why the interlock holds a due deadline (see the module docstring), or ``""``.

    A seat without a player is silent by the GM's decision, not through anybody's fault: it
    counts neither as missing nor among the seats the share is taken of.
    """
    if watch.imap_trouble:
        return "the mailbox could not be read recently; letters may be missing"
    silent = missing(step, seats)
    played = [name for name in step.owing if _seat(seats, name).active]
    if len(played) > 1 and len(silent) / len(played) > policy.max_missed_share:
        return f"{len(silent)} of {len(played)} seats sent nothing ({', '.join(silent)})"
    return ""


def reminders_due(
    step: StepFacts, seats: Mapping[str, SeatFacts], policy: Policy, now: datetime
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(reminder times newly due, seats to remind): each reminder time fires once."""
    times = deadlines.reminder_times(step.deadline_at, list(policy.reminders), step.opened_at)
    fresh = tuple(t.isoformat() for t in times if t <= now and t.isoformat() not in step.reminders_sent)
    if not fresh:
        return (), ()
    owe = tuple(
        name
        for name in step.owing
        if not _seat(seats, name).sent and _seat(seats, name).active and not _seat(seats, name).away
    )
    return fresh, owe


def decide(
    step: StepFacts, seats: Mapping[str, SeatFacts], policy: Policy, watch: Watch, now: datetime
) -> Decision:
    """The one decision of a tick for an open step of a running game."""
    why = due(step, seats, policy, now)
    if why == "deadline" and not watch.mailbox_read:
        return Decision(Action.IDLE, "waiting for the mailbox to be read")
    if why == "deadline":
        reason = blocked(step, seats, policy, watch)
        if reason:
            return Decision(Action.PAUSE, reason)
    if why:
        return Decision(Action.PROCESS, why)
    marks, remind = reminders_due(step, seats, policy, now)
    if marks:
        return Decision(Action.REMIND, remind=remind, marks=marks)
    return Decision(Action.IDLE)


@dataclass(frozen=True)
class Filled:
    """The orders a step is resolved with: ``orders[seat]`` lines; ``defaulted`` got the defaults."""

    orders: dict[str, list[str]]
    defaulted: list[str]


def fill_defaults(
    owing: Sequence[str], held: Mapping[str, Sequence[str]], defaults: Callable[[str], Sequence[str]]
) -> Filled:
    """Every owing seat's lines: what it sent, or its defaults when it sent nothing."""
    orders: dict[str, list[str]] = {}
    defaulted: list[str] = []
    for seat in owing:
        if seat in held:
            orders[seat] = list(held[seat])
        else:
            orders[seat] = list(defaults(seat))
            defaulted.append(seat)
    return Filled(orders, defaulted)


@dataclass(frozen=True)
class Misses:
    """After a step: each owing seat's new count of misses in a row, who was late, who is flagged."""

    in_row: dict[str, int] = field(default_factory=dict)
    late: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)


def count_misses(
    step: StepFacts, seats: Mapping[str, SeatFacts], policy: Policy, defaulted: Sequence[str]
) -> Misses:
    """An announced vacation is not a miss, nor is a seat nobody plays (its player ejected: it
    plays defaults by the GM's decision); a seat at ``late_limit`` misses in a row is flagged to
    the GM."""
    in_row: dict[str, int] = {}
    flagged: list[str] = []
    for name in step.owing:
        seat = _seat(seats, name)
        if seat.away or not seat.active:
            continue
        in_row[name] = seat.missed_in_row + 1 if name in defaulted else 0
        if in_row[name] >= policy.late_limit:
            flagged.append(name)
    late = [name for name in defaulted if not _seat(seats, name).away and _seat(seats, name).active]
    return Misses(in_row, late, flagged)


def _seat(seats: Mapping[str, SeatFacts], name: str) -> SeatFacts:
    # A seat the store no longer has (never in practice) counts as silent and present.
    return seats.get(name, SeatFacts(name))


#: how many quiet steps in a row are played without a letter when the game does not say
QUIET_MAX = 6
_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class Quiet:
    """The quiet-hours settings of a game: on by default, at most ``limit`` steps in a row."""

    enabled: bool = True
    limit: int = QUIET_MAX


def quiet_settings(options: Mapping[str, Any]) -> Quiet:
    """Read ``quiet_hours`` (on/off) and ``quiet_max`` (steps in a row) from a game's options.

    A value that cannot be read keeps the default rather than stopping a running game.
    """
    raw = options.get("quiet_hours", True)
    text = str(raw).strip().lower()
    enabled = raw if isinstance(raw, bool) else text not in _NO if text in _YES | _NO else True
    limit = options.get("quiet_max", QUIET_MAX)
    if isinstance(limit, str) and limit.strip().isdigit():
        limit = int(limit)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        limit = QUIET_MAX
    return Quiet(enabled, limit)


def play_quietly(step_quiet: bool, played: int, quiet: Quiet) -> bool:
    """Whether to play the next step at once without letters, ``played`` quiet steps into the run."""
    return quiet.enabled and step_quiet and played < quiet.limit
