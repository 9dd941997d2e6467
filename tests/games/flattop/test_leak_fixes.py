# SPDX-License-Identifier: GPL-3.0-or-later
"""The two leaks the differential harness finds when their fixes are reverted, as named tests."""

from __future__ import annotations

from dataclasses import replace

from mailbot.core.dice import FixedDice
from mailbot.core.game import Line
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.units import Side, TaskForce


def _resolve(state: fw.FlatTopState, orders: dict[str, list[str]], faces: dict[str, list[int]]) -> list[str]:
    parsed = {
        s: fw.GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()
    }
    assert all(not p.problems for p in parsed.values())
    outcome = fw.GAME.resolve(
        state, {s: p.orders for s, p in parsed.items()}, dice=FixedDice([1] * 400, by_label=faces)
    )
    return [e.text for e in outcome.events if e.visible_to("allied" if "allied" in orders else "japanese")]


def test_11_2_shadowing_targets_the_tf_the_side_saw_not_an_unseen_lower_numbered_one() -> None:
    """Seed 003, 11.2: "Shadowing may not be attempted unless the target was visible to the
    shadowing player ... in the previous turn." The target is the TF seen; an unseen TF2 in the
    same hex must not turn the answer into "not allowed" (that would reveal it)."""
    base = fw.searched()
    tfs = tuple(replace(t, number=5) if t.side is Side.JAPANESE else t for t in base.task_forces)
    japanese = next(t for t in tfs if t.side is Side.JAPANESE)
    state = replace(base, task_forces=(*tfs, TaskForce(2, Side.JAPANESE, japanese.hex, japanese.ships[-1:])))
    state = state.with_side(replace(state.side(Side.ALLIED), seen=frozenset({"japanese TF5"})))
    # 6 -1 (AF1 over its target is at Condition 3, seed 003, 11.11) = 5: a plain failure.
    told = _resolve(state, {"allied": ["SHADOW AF1 I-G17"]}, {"ft.shadow.t3.allied.AF1": [6]})
    assert "Shadowing by AF1: failure" in told
    assert not any("not allowed" in t for t in told)


def test_14_13_an_unobserved_enemy_af_passes_an_interceptor_unnoticed() -> None:
    """Standard 14.13 (reference A.7): the non-moving side intercepts an *observed* enemy AF;
    seed 003, 14.13.2 only widens where. An AF nobody of the side saw gives no attempt and no
    word, not even "failed to intercept"."""
    state = fw.zeros()
    orders = {"japanese": ["INTERCEPT AF5"], "allied": ["FLY AF1 FROM TF1 1 Wildcat PATH V-E27 V-E28"]}
    told = _resolve(state, orders, {"ft.intercept.t2.japanese.AF5": [1]})
    assert not any("intercept" in t for t in told)
