# SPDX-License-Identifier: GPL-3.0-or-later
"""Bombardment by mail (reference A.11.7; seed 003, 19.8, 19.9.4, 19.10.3; ``bombard``).

A TF with cruisers in the hex of an enemy base shells it after movement: the bombarding side is
told the damage as 15 LI 3 words it (light/heavy, at night "installations burning"), the base's
owner its exact hits; DDs count a firing (19.8); a TF with no base in its hex is told so."""

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


def at_the_base(data: dict[str, Any]) -> FlatTopState:
    """The Japanese TF1 (Shokaku, Myoko, Ushio) in the hex of the Allied base, no plots."""
    state = new(data)
    base = next(b for b in state.bases if b.side is Side.ALLIED and b.hex is not None)
    tfs = tuple(
        replace(t, hex=base.hex, plot=()) if t.side is Side.JAPANESE else t for t in state.task_forces
    )
    return replace(state, task_forces=tfs)


def test_a_cruiser_tf_bombards_the_enemy_base_in_its_hex(data: dict[str, Any]) -> None:
    state = at_the_base(data)
    base = next(b for b in state.bases if b.side is Side.ALLIED and b.hex is not None)
    outcome = play(state, {"japanese": ["BOMBARD TF1"]})
    japanese = [e.text for e in outcome.events if e.kind == "ft.bombard" and e.visible_to("japanese")]
    allied = [e.text for e in outcome.events if e.kind == "ft.bombard" and e.visible_to("allied")]
    assert japanese and japanese[0].startswith(f"TF1 bombarded {base.name}: ")
    assert "hit(s)" not in japanese[0]  # the attacker sees damage in words, never the count
    assert allied and allied[0].startswith(f"Enemy ships bombarded {base.name}: ") and "hit(s)" in allied[0]
    assert any(f.ship == "Ushio" for f in outcome.state.firings.fired)  # 19.8: the DD's firing counts


def test_bombard_needs_a_base_in_the_hex_and_ships_with_guns(data: dict[str, Any]) -> None:
    state = new(data)
    outcome = play(state, {"japanese": ["BOMBARD TF1"]})
    told = [e.text for e in outcome.events if e.kind == "ft.bombard"]
    assert told == ["TF1 has no enemy base in its hex to bombard"]
    (problem,) = parse(state, "japanese", "BOMBARD TF9").problems
    assert problem.reason == "you have no task force TF9"
