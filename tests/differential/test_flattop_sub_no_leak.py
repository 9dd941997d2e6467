# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarines through the differential harness (seed 003, 27.5, with the game option on).

A submerged submarine that neither attacks nor is found changes no letter to the other side:

- a deep sub beside the Allied TF1 (one DD: 27.5.2 needs "at least 4 DDs which did not move")
  and no sub at all give the Allies the same letters, even as TF1 orders ASW hour after hour;
- a sub at periscope depth and a deep one give the same letters to a TF whose DDs moved into the
  hex (27.5.1: "in a hex with DDs which did not move that turn");
- the negative control: the same periscope sub attacking TF1 as it arrives is told to the Allies
  (27.5.1 "only observed if it attacks a ship"), and the harness sees that difference.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.combat.submarines import Depth
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side
from mailbot.registry import default_registry
from mailbot.testing.contract import report_env
from mailbot.testing.differential import World, assert_no_leak, compare_worlds
from tests.games.flattop.combat.test_sub_play import at_sea

ENV = report_env(default_registry())
EXTRA_DDS = ("Anderson", "Russell", "Morris")


def one_dd(state: FlatTopState) -> FlatTopState:
    """The Allied TF1 with Hammann as its only DD."""
    tfs = tuple(
        replace(t, ships=tuple(s for s in t.ships if s.name not in EXTRA_DDS)) if t.side is Side.ALLIED else t
        for t in state.task_forces
    )
    return replace(state, task_forces=tfs)


def no_sub(state: FlatTopState) -> FlatTopState:
    tfs = tuple(t for t in state.task_forces if not (t.side is Side.JAPANESE and t.number >= 20))
    return replace(state, task_forces=tfs, undersea=replace(state.undersea, subs=()))


def test_an_unseen_deep_sub_changes_no_letter_to_the_other_side() -> None:
    """27.5.2: "A deep sub is only observed by a TF with at least 4 DDs which did not move that
    turn"; the ASW order finds nothing "they observe in their hex" in either world."""
    deep = one_dd(at_sea(depth=Depth.DEEP))
    stay = {"japanese": ["DEPTH TF20 DEEP"]}
    first, second = World(deep, [stay, stay, stay]), World(no_sub(deep))
    letters = [["ASW TF1"], ["ASW TF1"], ["HOLD"]]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=letters, observed=fw.observed
    )
    assert_no_leak(verdict)
    assert not verdict.stopped and len(verdict.compared) == 1 + 2 * len(letters), verdict.summary()


def test_the_depth_of_an_unseen_sub_changes_no_letter_to_a_tf_that_moved() -> None:
    """27.5.1: "A sub at periscope depth is only observed if it attacks a ship or is in a hex with
    DDs which did not move that turn." The Allied TF1 moves into the sub's hex, then on."""
    where = "V-E25"
    periscope, deep = at_sea(where=where, depth=Depth.PERISCOPE), at_sea(where=where, depth=Depth.DEEP)
    first = World(periscope, [{"japanese": ["DEPTH TF20 PERISCOPE"]}] * 2)
    second = World(deep, [{"japanese": ["DEPTH TF20 DEEP"]}] * 2)
    letters = [[f"PLOT TF1 {where}"], ["PLOT TF1 V-D25"]]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=letters, observed=fw.observed
    )
    assert_no_leak(verdict)
    assert not verdict.stopped and len(verdict.compared) == 1 + 2 * len(letters), verdict.summary()


def test_a_sub_that_attacks_is_told_to_the_tf_it_attacks() -> None:
    """27.5.1: the sub "is only observed if it attacks a ship": its attack reaches the Allied
    letters (the harness must see this difference: the check can fail)."""
    where = "V-E25"
    periscope = at_sea(where=where, depth=Depth.PERISCOPE)
    first = World(periscope, [{"japanese": ["SUBATTACK TF20"]}])
    second = World(no_sub(periscope))
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=[[f"PLOT TF1 {where}"]],
        observed=fw.observed,
    )  # fmt: skip
    assert verdict.leaked and "attacked by a submarine" in verdict.summary(), verdict.summary()
