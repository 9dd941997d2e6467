# SPDX-License-Identifier: GPL-3.0-or-later
"""Quiet hours: night hours played on standing orders, without a round of mail.

Seed 003's point is fewer mail rounds (design/flattop.md: "Quiet turns should
not cost a round of mail ... Night turns with nothing in the air are the
common case"). The moderator plays a step marked ``quiet``
(:class:`mailbot.core.game.Step`) at once on each side's standing orders and
sends one combined report when a step is not quiet, at the cap of quiet hours
in a row (game option ``quiet_max``), or at the end; option ``quiet_hours``
turns it off (``mailbot.core.lifecycle``).

Which hours are quiet, and why only the clock decides
-----------------------------------------------------
Both sides get their letters at the same hours (one step per hour, owed by
both). So whatever makes an hour "not quiet" is seen by BOTH sides: a letter
arriving at 0200 says "something made this hour worth a letter". If that
something were one side's private news (a contact, an AF aloft, a plot run
out, a landing due), the other side would learn it from the letter's timing:
the Japanese woken at 0200 with nothing in their own report would know the
Allies have planes up or have just spotted them. Waking only the side with
news is no better: the other side's next letter then waits for that side's
round of mail, and the delay tells the same story. Hence the conservative
rule: an hour is quiet by facts both sides hold, i.e. by the clock alone:

* it is a night hour (the scenario's ``night_hours``, public) and so was the
  hour before, so each side has had a letter at nightfall (the first night
  hour is never quiet) to set its night orders;
* the first turn is never quiet (there is no letter before it) and the game
  is not over; dawn, the first day hour, is never quiet: the decision of the
  day's first searches and strikes is due.

A side may ask to be woken (``WAKE 0300``, ``orders.wake``): that hour is then
played with letters for both sides, and both are told a side asked for it; the
request is the side's own open choice, like a move made face to face, never a
fact it holds about the enemy. A side's private situation does not wake
anybody; its standing orders cover it and the combined letter reports it
(every event of every hour, and the contacts of the whole run:
:func:`run_length`). The standing orders of a quiet hour
(:func:`standing_orders`): ``HOLD`` (TFs follow their multi-hour PLOTs, then
stop; no new flight starts) and, for each own AF aloft, ``LAND`` at the TF or
base it took off from, so a flight caught by the night flies home instead of
circling until its fuel is gone (standard 8.5.5). A side that wants to act at
night gives its orders in the nightfall letter (PLOT hours ahead, LAND where
it wants its AFs), asks for letters at the hours it wants to act (WAKE), or
plays with quiet hours off.

A combat both sides take part in is news for both; when combat is resolved
(combat/), a battle known to both sides may end a quiet run (a public
event), never a fact only one side holds.
"""

from __future__ import annotations

from mailbot.games.flattop.orders.wake import night_after_night
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

HOLD = "HOLD"


def quiet_turn(state: FlatTopState, turn: int) -> bool:
    """Whether game turn ``turn`` may be played without mail: a night hour after a night hour
    that no side asked to be woken for (WAKE)."""
    return night_after_night(state.scenario, turn) and not woken(state, turn)


def woken(state: FlatTopState, turn: int) -> bool:
    """A side asked for letters at ``turn`` (``orders.wake``): public, both sides get one."""
    return any(turn in s.wake for s in state.sides)


def quiet_hour(state: FlatTopState) -> bool:
    """Whether the open hour may be played without mail (only public facts: see the module)."""
    return not state.score.finished and quiet_turn(state, state.turn)


def run_length(state: FlatTopState) -> int:
    """How many quiet-eligible hours came right before the open one (a combined letter covers them)."""
    n = 0
    while quiet_turn(state, state.turn - 1 - n):
        n += 1
    return n


def standing_orders(state: FlatTopState, side: Side) -> tuple[str, ...]:
    """HOLD, and each own AF aloft flies home to where it took off from and lands."""
    aloft = sorted((af for af in state.own_air(side) if af.hex is not None), key=lambda af: af.number)
    return (HOLD, *(f"LAND AF{af.number} {af.origin}" for af in aloft))
