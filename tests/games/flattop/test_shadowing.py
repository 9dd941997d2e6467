# SPDX-License-Identifier: GPL-3.0-or-later
"""Shadowing: seed 003, 11.2, 11.3 and 11.11 (and 27.3 for submarines)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mailbot.core.dice import FixedDice
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.observation.observe import TF, ShipView, Spotting, Target
from mailbot.games.flattop.observation.shadowing import (
    ShadowAttempt,
    Shadower,
    ShadowResult,
    ShadowTable,
    may_shadow,
    resolve_shadow,
    seen_refs,
    shadow_events,
    shadow_modifiers,
)
from mailbot.games.flattop.units import ShipCategory, Side

TABLES = Path(__file__).resolve().parents[3] / "mailbot" / "games" / "flattop" / "data" / "tables"
DATA = tomllib.loads((TABLES / "observation-shadowing.toml").read_text("utf-8"))
TABLE = ShadowTable.from_mapping(DATA)


def attempt(shadower: Shadower = Shadower.AF, **kw: bool) -> ShadowAttempt:
    fields = {"visible_last_turn": True} | kw
    return ShadowAttempt("AF4", shadower, Side.ALLIED, "japanese TF3", **fields)


def test_11_2_target_must_have_been_visible_to_the_player_last_turn() -> None:
    """Seed 003, 11.2: "Shadowing may not be attempted unless the target was visible to the
    shadowing player (not necessarily the shadowing unit itself) in the previous turn." """
    target = Target("japanese TF3", Side.JAPANESE, TF, Hex(3, 3), ships=(ShipView(ShipCategory.SMALL),))
    last_turn = [Spotting("CW Malaita", "CW", Hex(3, 3), "ships", 1, (target,))]
    assert may_shadow("japanese TF3", seen_refs(last_turn))  # seen by a coastwatcher, shadowed by an AF
    assert not may_shadow("japanese TF4", seen_refs(last_turn))
    refused = resolve_shadow(attempt(visible_last_turn=False), TABLE, FixedDice(), turn=6)
    assert (refused.result, refused.roll) == (ShadowResult.NOT_ALLOWED, None)


def test_11_3_only_the_result_is_told() -> None:
    """Seed 003, 11.3: "Shadowing attempts are rolled in secret by the player whose TF is the object
    of the attempt. The roll itself, and modifiers, are not revealed; only the result." """
    outcome = resolve_shadow(attempt(night=True), TABLE, FixedDice([3]), turn=6)
    told, secret = shadow_events(outcome, "allied")
    assert told.audience == frozenset({"allied"})
    assert told.data == {"shadower": "AF4", "result": "failure"}  # 3 + 2 at night = 5
    assert "1d6" not in told.text and "night" not in told.text
    assert secret.audience == frozenset() and secret.visible_to(None) and not secret.visible_to("allied")
    assert not secret.visible_to("japanese")


def test_11_11_revised_modifiers() -> None:
    """Seed 003, 11.11: "-1 if shadowing TF has radar / +2 at night (except submarine is +1 at night)
    / -1 if shadower is at Condition 3 / Cloud modifier for shadowing only occurs if an AF is
    attempting to shadow." 27.3: "there is an automatic +1 modifier but no cloud modifier"."""
    assert shadow_modifiers(attempt(Shadower.TF, radar=True), TABLE) == {"shadowing TF has radar": -1}
    assert shadow_modifiers(attempt(Shadower.AF, radar=True), TABLE) == {}
    assert shadow_modifiers(attempt(night=True), TABLE) == {"night": 2}
    assert shadow_modifiers(attempt(Shadower.SUB, night=True), TABLE) == {"night": 1, "submarine": 1}
    assert shadow_modifiers(attempt(at_condition_3=True), TABLE) == {"shadower at Condition 3": -1}
    assert shadow_modifiers(attempt(target_into_cloud=True), TABLE) == {"target moved into cloud": 1}
    assert shadow_modifiers(attempt(Shadower.TF, target_into_cloud=True), TABLE) == {}
    assert shadow_modifiers(attempt(Shadower.SUB, target_into_cloud=True), TABLE) == {"submarine": 1}


def test_shadow_table_rows() -> None:
    """Design default rows (reference B.7): AF "S 1-4, U 5, - 6"; TF "S 1-5, U 6"."""
    assert DATA["default"] is True
    results = [resolve_shadow(attempt(), TABLE, FixedDice([face]), turn=1).result for face in range(1, 7)]
    assert results == [ShadowResult.SUCCESS] * 4 + [ShadowResult.FAILURE, ShadowResult.BLIND]
    tf_results = [resolve_shadow(attempt(Shadower.TF), TABLE, FixedDice([f]), turn=1).result for f in (5, 6)]
    assert tf_results == [ShadowResult.SUCCESS, ShadowResult.FAILURE]
    at_night = resolve_shadow(attempt(Shadower.TF, night=True), TABLE, FixedDice([6]), turn=1)
    assert at_night.result is ShadowResult.FAILURE  # 8: a TF row has no '-'


def test_storm_fails_an_air_shadower_without_a_roll() -> None:
    """Standard 11: "Automatic failure if it moved into a storm" (here for AFs, like 11.11's cloud rule)."""
    plane = resolve_shadow(attempt(target_into_storm=True), TABLE, FixedDice(), turn=1)
    assert (plane.result, plane.roll) == (ShadowResult.FAILURE, None)
    ship = resolve_shadow(attempt(Shadower.TF, target_into_storm=True), TABLE, FixedDice([2]), turn=1)
    assert ship.result is ShadowResult.SUCCESS
