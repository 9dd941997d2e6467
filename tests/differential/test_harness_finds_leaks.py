# SPDX-License-Identifier: GPL-3.0-or-later
"""The harness finds both leaks of the issue from a cold start, and passes once they are fixed.

Each fix is reverted by monkeypatching the one function that carries it back to the code
before the fix; then the very check and example stream of ``test_flattop_no_leak`` (same
inner function, so the same derandomized examples, no example database) must fail with
:class:`LeakFound` naming the leak. Shrinking is skipped here to keep the test fast; the
normal suite shrinks.

- Shadowing (seed 003, 11.2): the engine shadowed "the lowest-numbered enemy TF in the
  hex", so an unseen TF there answered "not allowed: target not seen last turn".
- Interception (standard 14.13, seed 003 14.13.2): the "observed" check was a constant, so
  an INTERCEPT order reported any enemy AF crossing its hex, even on a failed roll.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.hour import resolve_intercept, resolve_search
from mailbot.games.flattop.hour.resolve_intercept import Flight
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import Side, TaskForce
from mailbot.testing.differential import LeakFound
from tests.differential import generate_only

from .test_flattop_no_leak import SETTINGS, check


def lowest_numbered_tf(turn: Turn, side: Side, where: Hex) -> TaskForce | None:
    """The code before the fix: the lowest-numbered enemy TF in the hex, seen or not."""
    there = sorted(
        (t for t in turn.state.task_forces if t.side is not side and t.hex == where), key=lambda t: t.number
    )
    return there[0] if there else None


def constant_observed(turn: Turn, side: Side, flight: Flight, where: Hex) -> bool:
    """The code before the fix: "observed" whenever the search chart sees anything at range 0."""
    return turn.state.rules.search.condition(turn.sky().time, 0) > 0


def search() -> None:
    """The normal suite's search, without shrinking."""
    generate_only(SETTINGS)(given(example=fw.examples())(check))()


def test_the_harness_finds_the_shadowing_leak_from_a_cold_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resolve_search, "shadow_target", lowest_numbered_tf)
    with pytest.raises(LeakFound, match="Shadowing by AF1: not allowed: target not seen last turn"):
        search()


def test_the_harness_finds_the_interception_leak_from_a_cold_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resolve_intercept, "observed_passing", constant_observed)
    with pytest.raises(LeakFound, match=r"failed to intercept an enemy AF|intercepted an enemy AF"):
        search()


# On the fixed code the same search passes: that is test_flattop_no_leak itself.
