# SPDX-License-Identifier: GPL-3.0-or-later
"""Survivors through whole game hours (seed 003, "Survivors"; rules: ``combat.survivors``).

A Japanese CA destroyed this hour leaves her survivors in the water at the end of it (unseen
that hour), they decay every two hours, an Allied TF in the hex is told of them exactly and
picks them up with RESCUE (anchored that hour only), and at the end they score 1 VP each to
the Allies ("1 VP if of the opposite nationality")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.core.game import Outcome
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side

from .play import GAME, game_data, new, parse


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def resolve(
    state: FlatTopState, orders: dict[str, list[str]], rolls: dict[str, list[int]]
) -> Outcome[FlatTopState]:
    """One hour; the ships sharing the hex decline surface combat (both AVOID, seed 003 19)."""
    parsed = {seat: parse(state, seat, *texts) for seat, texts in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    dice = FixedDice([3, 4] * 300, by_label=rolls)
    outcome = GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=dice)
    events = list(outcome.events)
    while outcome.state.pending.surface is not None:
        avoid = {seat: parse(outcome.state, seat, "AVOID").orders for seat in ("allied", "japanese")}
        outcome = GAME.resolve(outcome.state, avoid, dice=FixedDice([3, 4] * 300, by_label=rolls))
        events += outcome.events
    return Outcome(outcome.state, tuple(events), outcome.finished, outcome.result)


def told(outcome: Outcome[FlatTopState], side: Side) -> list[str]:
    return [e.text for e in outcome.events if e.visible_to(side.value)]


def sunk_cruiser(data: dict[str, Any]) -> FlatTopState:
    """Turn 1: Myoko (CA, damage factor 6) is destroyed this hour in the Allied TF1's hex."""
    state = new(data)
    allied = next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)
    tfs = []
    for tf in state.task_forces:
        if tf.side is Side.JAPANESE:
            ships = tuple(
                replace(s, hits=s.damage, destroyed_turn=state.turn, sinking=0) if s.name == "Myoko" else s
                for s in tf.ships
            )
            tf = replace(tf, hex=allied.hex, ships=ships, plot=())  # noqa: PLW2901
        tfs.append(tf)
    return replace(state, task_forces=tuple(tfs))


def test_survivors_enter_the_water_unseen_then_are_seen_and_rescued(data: dict[str, Any]) -> None:
    state = sunk_cruiser(data)
    label = "ft.survivors.t1.japanese/survivors Myoko"
    first = resolve(state, {}, {label: [6]})  # 6: "All" of a CA's 5 factors
    (group,) = first.state.water.survivors
    assert (group.ship, group.factors, group.nationality) == ("Myoko", 5, Side.JAPANESE)
    assert not any("survivor" in line for line in told(first, Side.ALLIED))  # never in the sinking turn
    second = resolve(first.state, {"allied": ["RESCUE TF1"]}, {})
    assert any("survivor factor(s)" in line for line in told(second, Side.ALLIED))
    picked = sum(a.factors for a in second.state.water.aboard)
    assert picked > 0 and sum(g.factors for g in second.state.water.survivors) == 5 - picked
    assert not any(s.anchored for t in second.state.own_tfs(Side.ALLIED) for s in t.ships)


def test_survivors_decay_every_two_hours_in_play(data: dict[str, Any]) -> None:
    """Seed 003: "if two CA's sink at 0700 and each deposits two survivor factors in the water, at
    0900 each of those groups will reduce to one factor"."""
    state = sunk_cruiser(data)
    hour = resolve(state, {}, {"ft.survivors.t1.japanese/survivors Myoko": [2]})  # 1/4 of 5: 2
    assert [g.factors for g in hour.state.water.survivors] == [2]
    later = resolve(resolve(hour.state, {}, {}).state, {}, {})
    assert [g.factors for g in later.state.water.survivors] == [1]


def test_a_cripple_offloads_one_survivor_factor_an_hour_to_a_ship_of_her_tf(data: dict[str, Any]) -> None:
    """Seed 003: "Survivors may also be taken from crippled ships. Each cripple can offload one factor
    per turn to another ship in its TF. The rescue ship is considered as anchored for that turn. Roll
    for available survivors on each crippled ship, with a modifier of +1 to the die roll."."""
    state = new(data)
    tfs = tuple(
        replace(t, ships=tuple(replace(s, hits=5) if s.name == "Astoria" else s for s in t.ships))
        if t.side is Side.ALLIED and t.number == 1
        else t
        for t in state.task_forces
    )
    state = replace(state, task_forces=tfs)
    label = "ft.offload.t1.allied.TF1/survivors aboard Astoria"
    first = resolve(state, {"allied": ["OFFLOAD Astoria TO Hammann"]}, {label: [6]})  # 6 +1: "All" of 5
    (stranded,) = first.state.water.stranded
    assert (stranded.ship, stranded.factors, stranded.offloaded) == ("Astoria", 4, 1)
    assert [a.factors for a in first.state.water.aboard if a.ship == "Hammann"] == [1]
    assert "Hammann took 1 survivor factor(s) off Astoria" in told(first, Side.ALLIED)
    second = resolve(first.state, {"allied": ["OFFLOAD Astoria TO Hammann"]}, {})
    assert [a.factors for a in second.state.water.aboard if a.ship == "Hammann"] == [2]


def test_low_aircraft_that_spend_half_their_mp_in_the_hex_see_survivors_there(data: dict[str, Any]) -> None:
    """Seed 003: survivors are observed "by aircraft at low altitude that spend half of their MP
    (rounded down) in the hex (number of survivors not reported, merely their presence.)"."""
    state = sunk_cruiser(data)
    first = resolve(state, {}, {"ft.survivors.t1.japanese/survivors Myoko": [6]})
    (group,) = first.state.water.survivors
    where = first.state.scenario.map.hex_id(group.hex)
    lingering = resolve(first.state, {"allied": [f"SEARCH AF2 FROM TF1 1 Wildcat PATH {where}+4"]}, {})
    assert f"AF2 sighted survivors in the water at {where}" in told(lingering, Side.ALLIED)
    passing = resolve(first.state, {"allied": [f"SEARCH AF2 FROM TF1 1 Wildcat PATH {where}"]}, {})
    assert not any("AF2 sighted survivors" in line for line in told(passing, Side.ALLIED))


def test_survivors_put_ashore_at_a_friendly_base_still_score(data: dict[str, Any]) -> None:
    """Seed 003: "Each survivor factor rescued that is still carried (or has been unloaded on
    friendly territory) at game's end is worth 2 VP ..." (DISEMBARK TF<n> at one's own base)."""
    from mailbot.games.flattop.combat.survivors import Aboard, Carried
    from mailbot.games.flattop.hour.rescue import points_at_end
    from mailbot.games.flattop.hour.rules import kit

    state = new(data)
    base = next(b for b in state.own_bases(Side.ALLIED) if b.hex is not None)
    tfs = tuple(
        replace(t, hex=base.hex) if t.side is Side.ALLIED and t.number == 1 else t for t in state.task_forces
    )
    aboard = (Aboard("Hammann", Side.ALLIED, survivors=(Carried(Side.JAPANESE, 2),)),)
    state = replace(state, task_forces=tfs, water=replace(state.water, aboard=aboard))
    (problem,) = parse(state, "allied", "DISEMBARK TF11").problems
    assert problem.reason == "TF11 is not at one of your bases"
    after = resolve(state, {"allied": ["DISEMBARK TF1"]}, {})
    assert [(x.place, x.factors) for x in after.state.water.landed] == [(base.name, 2)]
    assert f"TF1 put 2 survivor factor(s) ashore at {base.name}" in told(after, Side.ALLIED)
    entries = points_at_end(after.state, kit(after.state).victory)
    assert [(e.side, e.points) for e in entries] == [(Side.ALLIED, 2)]  # 1 VP a factor: enemy survivors
