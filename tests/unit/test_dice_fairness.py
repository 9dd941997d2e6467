# SPDX-License-Identifier: GPL-3.0-or-later
"""Chi-square goodness of fit of the dice stream.

The seed is fixed, so each test gives the same statistic every run: it
cannot flake; it checks that the derivation (HMAC blocks, 32-bit values,
rejection sampling) yields fair faces. The critical values are the 99.9%
points of the chi-square distribution, checked below with a closed form.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from itertools import product

import pytest

from mailbot.core.dice import DiceStream, order_digest

D6_CRITICAL = 20.515  # 5 degrees of freedom, 99.9%
SUMS_3D6_CRITICAL = 37.697  # 16 sums 3..18: 15 degrees of freedom, 99.9%


def chi_square(observed: Counter[int], expected: dict[int, float]) -> float:
    assert set(observed) <= set(expected)
    return sum((observed[k] - e) ** 2 / e for k, e in expected.items())


def chi_square_sf(x: float, dof: int) -> float:
    """P(X > x) for odd ``dof``, by the closed form for half-integer shapes."""
    assert dof % 2 == 1
    term = math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    tail = math.erfc(math.sqrt(x / 2))
    for j in range(1, (dof - 1) // 2 + 1):
        tail += term
        term *= x / (2 * j + 1)
    return tail


@pytest.mark.parametrize(("critical", "dof"), [(D6_CRITICAL, 5), (SUMS_3D6_CRITICAL, 15)])
def test_critical_values_are_the_999_points(critical: float, dof: int) -> None:
    assert chi_square_sf(critical, dof) == pytest.approx(0.001, abs=2e-6)


def fresh_stream(name: str) -> DiceStream:
    return DiceStream(hashlib.sha256(name.encode()).digest(), order_digest({"a": [name]}), "fairness")


def test_600000_d6_faces_are_fair() -> None:
    # Ten faces a roll: most come out of one 32-byte block (the multi-face path);
    # the single-face path is what the 3d6 test below exercises.
    dice = fresh_stream("d6")
    faces = Counter(face for _ in range(60_000) for face in dice.roll("d6", 6, 10).faces)
    assert faces.total() == 600_000
    statistic = chi_square(faces, dict.fromkeys(range(1, 7), 100_000.0))
    assert statistic < D6_CRITICAL, statistic


def test_216000_3d6_sums_are_fair() -> None:
    ways = Counter(sum(faces) for faces in product(range(1, 7), repeat=3))
    expected = {total: n * 216_000 / 216 for total, n in ways.items()}
    dice = fresh_stream("3d6")
    sums = Counter(dice.roll("3d6", 6, 3).total for _ in range(216_000))
    statistic = chi_square(sums, expected)
    assert statistic < SUMS_3D6_CRITICAL, statistic
