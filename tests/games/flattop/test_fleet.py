# SPDX-License-Identifier: GPL-3.0-or-later
"""Task-force orders a scenario needs (issue 17): SPLIT, MERGE, ANCHOR/WEIGH, UNLOAD.

Reference A.5.1 (TFs, the ship limits, plane-carriers only in TFs 1-9), A.13 (an AP unloads
3 VP a turn for 8 turns), standard 12.7 (anchoring). The demo scenario's goal: "The Japanese
invasion convoy scores by unloading at Port Moresby (V-E24)."
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

from .play import game_data, new, parse, play


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def tf(state: FlatTopState, side: Side, number: int) -> Any:
    return next(t for t in state.own_tfs(side) if t.number == number)


def test_split_makes_a_new_tf_that_holds_while_the_old_one_keeps_its_plot(data: dict[str, Any]) -> None:
    state = new(data)
    (accepted,) = parse(state, "allied", "split tf1 astoria hammann as tf5").accepted
    assert accepted.normalised == "SPLIT TF1 Astoria Hammann AS TF5"
    after = play(state, {"allied": ["SPLIT TF1 Astoria Hammann AS TF5"]}).state
    assert [s.name for s in tf(after, Side.ALLIED, 5).ships] == ["Astoria", "Hammann"]
    assert "Astoria" not in [s.name for s in tf(after, Side.ALLIED, 1).ships]
    assert tf(after, Side.ALLIED, 5).hex == tf(state, Side.ALLIED, 1).hex


def test_split_and_merge_refusals_speak_of_own_units_only(data: dict[str, Any]) -> None:
    state = new(data)
    reasons = [
        p.reason
        for text in (
            "split tf1 nowhere as tf5",
            "split tf1 yorktown as tf12",
            "split tf1 astoria as tf11",
            "merge tf1 into tf11",
            "merge tf1 into tf1",
        )
        for p in parse(state, "allied", text).problems
    ]
    assert reasons == [
        "TF1 has no ship NOWHERE afloat",
        "plane-carrying ships go only in TFs 1-9 (reference A.5.1), not TF12",
        "you have a TF11 already",
        "TF1 and TF11 are not in one hex",
        "a TF cannot merge into itself",
    ]


def test_merge_joins_two_tfs_in_one_hex(data: dict[str, Any]) -> None:
    state = play(new(data), {"allied": ["SPLIT TF1 Astoria AS TF5"]}).state
    merged = play(state, {"allied": ["MERGE TF5 INTO TF1"]}).state
    assert "Astoria" in [s.name for s in tf(merged, Side.ALLIED, 1).ships]
    assert all(t.number != 5 for t in merged.own_tfs(Side.ALLIED))


def test_anchor_needs_a_coast_or_a_base_and_an_anchored_tf_holds(data: dict[str, Any]) -> None:
    state = new(data)
    (problem,) = parse(state, "allied", "anchor tf11").problems
    assert problem.reason.endswith("is in open sea: anchor in a coastal hex or at a base")
    base = next(b for b in state.scenario.bases if b.side is Side.ALLIED and b.hex is not None)
    tfs = tuple(
        replace(t, hex=base.hex) if t.number == 11 and t.side is Side.ALLIED else t for t in state.task_forces
    )
    moved = replace(state, task_forces=tfs)
    anchored = play(moved, {"allied": ["ANCHOR TF11"]}).state
    assert all(s.anchored for s in tf(anchored, Side.ALLIED, 11).ships)
    weighed = play(anchored, {"allied": ["WEIGH TF11"]}).state
    assert not any(s.anchored for s in tf(weighed, Side.ALLIED, 11).ships)


def test_the_invasion_convoy_scores_by_unloading_at_port_moresby(data: dict[str, Any]) -> None:
    """Reference A.13: "an AP unloads 3 VP a turn for 8 turns, and its value if sunk falls from
    24 by 3 each time"; the demo scenario's unloading hex is V-E24."""
    state = new(data, "coral-sea-demo")
    (problem,) = parse(state, "japanese", "unload tf10").problems
    assert problem.reason.endswith("is not one of this scenario's unloading hexes")
    (problem,) = parse(state, "japanese", "unload tf1").problems
    assert problem.reason == "TF1 has no AP or APD to unload"
    moresby = state.scenario.map.parse("V-E24")
    assert moresby is not None
    convoy = replace(tf(state, Side.JAPANESE, 10), hex=moresby, plot=())
    tfs = tuple(convoy if t.number == 10 and t.side is Side.JAPANESE else t for t in state.task_forces)
    state = replace(state, task_forces=tfs)
    after = play(state, {"japanese": ["UNLOAD TF10"]}).state
    unloading = [e for e in after.score.ledger if e.key.startswith("unload:")]
    assert len(unloading) == 5 and all(e.points == 3 and e.side is Side.JAPANESE for e in unloading)
    transports = [s for s in tf(after, Side.JAPANESE, 10).ships if s.type.value == "AP"]
    assert all(s.unloaded == 1 and s.anchored for s in transports)


def test_transports_load_again_at_a_friendly_base_and_unload_again(data: dict[str, Any]) -> None:
    """TF orders a scenario needs: "unload/load (troops, supplies)". An AP that has unloaded loads a
    turn's cargo back at a friendly base (its sunk value rises again) and may unload it again."""
    state = new(data, "coral-sea-demo")
    rabaul = next(b for b in state.own_bases(Side.JAPANESE) if b.name == "Rabaul")
    moresby = state.scenario.map.parse("V-E24")
    assert rabaul.hex is not None and moresby is not None
    convoy = tf(state, Side.JAPANESE, 10)
    ships = tuple(replace(s, unloaded=2) if s.type.value == "AP" else s for s in convoy.ships)
    at_base = replace(convoy, hex=rabaul.hex, plot=(), ships=ships)
    state = replace(state, task_forces=tuple(at_base if t is convoy else t for t in state.task_forces))
    (problem,) = parse(state, "japanese", "load tf1").problems
    assert problem.reason == "TF1 has no AP or APD to load"
    loaded = play(state, {"japanese": ["LOAD TF10"]}).state
    assert all(s.unloaded == 1 for s in tf(loaded, Side.JAPANESE, 10).ships if s.type.value == "AP")
    back = replace(tf(loaded, Side.JAPANESE, 10), hex=moresby)
    again = replace(loaded, task_forces=tuple(back if t.number == 10 and t.side is Side.JAPANESE else t
                                              for t in loaded.task_forces))  # fmt: skip
    after = play(again, {"japanese": ["WEIGH TF10", "UNLOAD TF10"]}).state
    assert len([e for e in after.score.ledger if e.key.startswith("unload:")]) == 5
