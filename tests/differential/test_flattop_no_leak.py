# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top through the differential harness: what a side has not observed changes no letter.

Worlds, letters and the stop rule: ``mailbot.games.flattop.worlds``; the harness:
``mailbot.testing.differential``.
Cold start on purpose (no example database, derandomized): the budget is set so this test,
as it stands, finds both leaks of the shadowing/interception issue when their fixes are
reverted (``test_harness_finds_leaks`` shows it).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given

from mailbot.games.flattop import worlds as fw
from mailbot.registry import default_registry
from mailbot.testing.contract import report_env
from mailbot.testing.differential import assert_no_leak, compare_example
from tests.differential import cold_search

ENV = report_env(default_registry())
#: cold-start budget: this stream finds the reverted shadowing leak at example 12 and the
#: interception leak at about 200; over other derandomized streams (the same strategies under
#: other test names) each was found within 6 to 270 examples, a median of about 90 (shadowing)
#: and 30 (interception). Before the strategies were biased toward the probes (see
#: ``mailbot.games.flattop.worlds``) it took about 1,200 of 2,500 examples.
EXAMPLES = 400
SETTINGS = cold_search(EXAMPLES, HealthCheck.data_too_large)


def check(example: fw.Example) -> None:
    """One pair of worlds: every letter to the seat is the same until it observes a difference."""
    verdict = compare_example(fw.PACKAGE, ENV, example, fw.observed)
    assert_no_leak(verdict)


@SETTINGS
@given(example=fw.examples())
def test_unobserved_enemy_facts_change_no_letter_to_the_side(example: fw.Example) -> None:
    check(example)


def test_the_bases_hold_what_the_probes_need() -> None:
    """The searched base: the Allies saw the Japanese TF1 last turn (11.2) with AF1 aloft; the
    zeros base: Japanese AF5 waits unseen by any Japanese observer."""
    searched, zeros = fw.searched(), fw.zeros()
    assert searched.side(fw.Side.ALLIED).seen == {"japanese TF1"}
    assert "SHADOW AF1 I-G17" in fw.letter_lines(searched, fw.Side.ALLIED)[0]
    assert "INTERCEPT AF5" in fw.letter_lines(zeros, fw.Side.JAPANESE)[0]
