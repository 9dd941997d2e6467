# SPDX-License-Identifier: GPL-3.0-or-later
"""An ATTACK on a hex where the side has seen no enemy ships is no free search (seed 003, 15 LI 1).

LI 1 gives the precise makeup to "a player Air Attacking enemy TF's"; "if co-existing in a hex with
enemy ships but not declaring an attack, he receives only the standard Condition 2 or 3 report,
depending on which is appropriate for that hex". At night (or in a storm) nothing is appropriate
there: an AF told to attack a hex nobody has found must learn exactly what it learns at an empty
hex. (A player's trial found one FLY ... ATTACK at night giving the makeup of an unseen TF.)
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.core.game import Outcome
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

from .combat.test_strike_flow import TARGET_HEX, big_strike, play, told


def _at(state: FlatTopState, *, night: bool) -> FlatTopState:
    """The same hour, made night or day (the scenario's night hours)."""
    hours = frozenset(range(1, 25)) if night else frozenset()
    scenario = replace(state.rules.scenario, night_hours=hours)
    return replace(state, rules=replace(state.rules, scenario=scenario))


def _elsewhere(state: FlatTopState) -> FlatTopState:
    """The same world but for the Japanese TF, back where the scenario starts it, out of sight."""
    start = {tf.number: tf.hex for tf in fw._play(fw._new(), {}).task_forces if tf.side is Side.JAPANESE}
    tfs = tuple(
        replace(tf, hex=start[tf.number]) if tf.side is Side.JAPANESE else tf for tf in state.task_forces
    )
    return replace(state, task_forces=tfs)


def test_a_blind_attack_at_night_learns_what_it_learns_at_an_empty_hex() -> None:
    night = _at(big_strike(), night=True)
    orders = {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}
    there = play(night, orders, "T2.orders")
    empty = play(_elsewhere(night), orders, "T2.orders")
    assert "Precise makeup" not in told(there, Side.ALLIED)
    assert f"AF7 found nothing to attack at {TARGET_HEX}" in told(there, Side.ALLIED)
    # What the strike's side hears of AF7 is word for word what it hears at a hex with no ships.
    assert _of_af7(there) == _of_af7(empty)


def _of_af7(outcome: Outcome[FlatTopState]) -> list[str]:
    return [line for line in told(outcome, Side.ALLIED).splitlines() if "AF7" in line]


def test_by_day_the_planes_in_the_hex_see_the_ships_and_attack() -> None:
    day = _at(big_strike(), night=False)
    declared = play(day, {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    assert "Precise makeup" in told(declared, Side.ALLIED)
