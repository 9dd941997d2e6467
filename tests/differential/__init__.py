# SPDX-License-Identifier: GPL-3.0-or-later
"""The differential no-leak tests; :func:`cold_search` is the Hypothesis profile they share."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings


def cold_search(examples: int, *also_suppressed: HealthCheck) -> settings:
    """A search that starts cold at every run: no example database (a leak found once must be
    found again by the search itself), derandomized (the same examples on every machine, so a
    budget tuned to find the planted leaks keeps finding them), no deadline (a pair of whole
    games is slow, and a slow example is not a failure)."""
    return settings(
        max_examples=examples,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, *also_suppressed],
    )


def generate_only(search: settings, examples: int | None = None) -> settings:
    """``search`` without shrinking (and with ``examples`` if given): for a test that needs the
    search to fail, or to count what it compared, not a minimal example."""
    if examples is None:
        return settings(search, phases=[Phase.generate])
    return settings(search, phases=[Phase.generate], max_examples=examples)
