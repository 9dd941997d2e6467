# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarines by mail, the rules issue 17 left open (seed 003, 27.5.3, the sequence table's air
modifier, 27.6.4-27.6.55 under air attack, 27.9.2 reloads), hour after hour as in
``test_sub_play`` (its states, orders and scripted dice)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mailbot.games.flattop import GAME
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.combat.sub_moves import AswState, SubState, asw_state, sub_state
from mailbot.games.flattop.combat.submarines import Depth
from mailbot.games.flattop.observation.knowledge import SHIPS
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side, TaskForce
from tests.games.flattop.combat.test_sub_play import SUB, at_sea, play, submarine, told

SEARCH = "ft.subsearch.t2.allied.AF3.V-E25.TF20"
SEQUENCE = f"ft.sub.t2.japanese.{SUB}.vs.TF1/sequence"


def test_27_5_3_a_low_af_spots_a_periscope_sub_and_a_tf_moving_in_may_attack_it() -> None:
    """27.5.3: "Subs at periscope depth may also be observed by aircraft flying at low level. The
    aircraft must spend 3MP per "sub search" roll and can only spot a sub in the same hex. A TF
    whose plotted move takes it into the sub's hex may attack the sub as long as the aircraft
    remains in the hex to spot." The sequence table: "-2 if the AF has spotted or shadowed the sub
    in the current turn." """
    state = at_sea(where="V-E25", depth=Depth.PERISCOPE)
    orders = ["PLOT TF1 V-E25", "ASW TF1", "SEARCH AF3 FROM TF1 2 Dauntless PATH V-E25+5"]
    found, dice = play(state, {"allied": orders, "japanese": []}, {f"{SEARCH}/roll 1": (1,)})
    assert [r.label for r in dice.log if r.label.startswith(SEARCH)] == [f"{SEARCH}/roll 1"]
    allied = told(found, Side.ALLIED)
    assert "AF3 spotted a submarine at periscope depth at V-E25 (27.5.3)" in allied
    assert found.state.side(Side.ALLIED).knowledge.saw(2, "V-E25", SHIPS)
    (rolled,) = [r for r in dice.log if r.label == SEQUENCE]
    assert dict(rolled.modifiers) == {"low enemy AF spotted or shadowed the sub": -2}
    assert "TF1 attacked a submarine at V-E25" in allied
    assert "spotted" not in told(found, Side.JAPANESE)

    # Six MP in the hex: two rolls, both missing; TF1 moved in, so it does not observe the sub
    # itself (27.5.1: "DDs which did not move that turn").
    missed = {f"{SEARCH}/roll 1": (6,), f"{SEARCH}/roll 2": (6,)}
    lost, dice = play(state, {"allied": orders, "japanese": []}, missed)
    assert [r.label for r in dice.log if r.label.startswith(SEARCH)] == [
        f"{SEARCH}/roll 1",
        f"{SEARCH}/roll 2",
    ]
    assert "TF1 found no submarine to attack at V-E25" in told(lost, Side.ALLIED)
    assert not any(r.label == SEQUENCE for r in dice.log)
    assert not lost.state.side(Side.ALLIED).knowledge.saw(2, "V-E25", SHIPS)


def test_27_5_3_only_low_level_aircraft_search_for_subs() -> None:
    """27.5.3: "observed by aircraft flying at low level": a high AF rolls no sub search."""
    state = at_sea(where="V-E25", depth=Depth.PERISCOPE)
    orders = ["SEARCH AF3 FROM TF1 2 Wildcat PATH V-E25@HIGH+5"]
    _, dice = play(state, {"allied": orders, "japanese": []})
    assert not any(r.label.startswith("ft.subsearch") for r in dice.log)


@pytest.mark.parametrize(("face", "modifier"), [(6, ("low enemy AF in the hex", -1)), (1, None)])
def test_sequence_table_minus_1_for_a_low_af_minus_2_if_it_spotted_the_sub(
    face: int, modifier: tuple[str, int] | None
) -> None:
    """The SUBMARINE ATTACK SEQUENCE TABLE: "-1 if there is a low level enemy air formation in the
    hex (-2 if the AF has spotted or shadowed the sub in the current turn.)" """
    state = at_sea(depth=Depth.PERISCOPE)
    search = "ft.subsearch.t2.allied.AF3.V-E26.TF20/roll 1"
    orders = {"allied": ["SEARCH AF3 FROM TF1 2 Dauntless PATH V-E26+3"], "japanese": ["SUBATTACK TF20"]}
    _, dice = play(state, orders, {search: (face,)})
    (rolled,) = [r for r in dice.log if r.label == SEQUENCE]
    expected = {"low enemy AF spotted or shadowed the sub": -2} if modifier is None else dict([modifier])
    assert dict(rolled.modifiers) == expected


def test_27_6_5_a_sub_that_dives_under_an_air_attack_cannot_attack_that_turn() -> None:
    """27.6.4: "A sub may be ordered to dive upon receiving an attack (e.g. from surface to periscope
    depth for an air or surface attack ...)"; 27.6.5: "A sub which dives under an air attack cannot
    make an attack itself that turn." Planes attack surfaced subs only: the strike has no target."""
    state = at_sea()
    strike = ["FLY AF3 FROM TF1 3 Dauntless PATH V-E25 V-E26 ATTACK"]
    dived, dice = play(state, {"allied": strike, "japanese": ["DIVE TF20 PERISCOPE", "SUBATTACK TF20"]})
    allied, japanese = told(dived, Side.ALLIED), told(dived, Side.JAPANESE)
    assert "AF3 at V-E26: the submarine dived (seed 003, 27.6.4)" in allied
    assert "AF3 found nothing to attack at V-E26" in allied
    assert "dived to periscope depth under an air attack: it may not attack this hour" in japanese
    assert "TF20 dived under an air attack: it may not attack (27.6.5)" in japanese
    after = sub_state(dived.state.undersea.subs, SUB)
    assert (after.depth, after.air_dive_turn, after.factors_fired) == (Depth.PERISCOPE, 2, 0)
    assert not any("/salvo" in r.label or r.label == SEQUENCE for r in dice.log)
    step = GAME.step(dived.state)
    assert step is not None and step.key == "T3.orders"

    stayed, _ = play(state, {"allied": strike, "japanese": ["SUBATTACK TF20"]})
    step = GAME.step(stayed.state)
    assert step is not None and step.key == "T2.strike"
    assert "Precise makeup (seed 003, 15): TF A: 1 SS" in told(stayed, Side.ALLIED)


def _in_port() -> FlatTopState:
    """The Allied SS Gato (8 torpedo factors fired) and the DD Hammann (2 ASW attacks made) at Port
    Moresby (LP+SP); the Japanese I-21 (4 fired) at Lae, an LP base only."""
    state = at_sea(where="I-B18")
    moresby = fw._hex(state, "V-B24")
    tf1 = next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)
    hammann = next(s for s in tf1.ships if s.name == "Hammann")
    port = (
        TaskForce(30, Side.ALLIED, moresby, (submarine("Gato"),)),
        TaskForce(31, Side.ALLIED, moresby, (hammann,)),
    )
    tfs = tuple(replace(t, ships=tuple(s for s in t.ships if s is not hammann)) for t in state.task_forces)
    subs = (SubState("Gato", factors_fired=8), SubState(SUB, factors_fired=4))
    asw = (AswState("Hammann", asw_attacks=2),)
    return replace(state, task_forces=(*tfs, *port), undersea=replace(state.undersea, subs=subs, asw=asw))


def test_27_9_2_sub_and_asw_ordnance_reloads_at_an_eligible_base() -> None:
    """27.9.2: "Submarine and ASW ordnance is reloaded at eligible bases like gunnery and torpedo
    supplies" (a friendly base handling sea planes, the whole hour in its hex without moving)."""
    state = _in_port()
    hour, _ = play(state, {"allied": [], "japanese": []})
    allied = told(hour, Side.ALLIED)
    assert "TF30 reloaded torpedoes at Port Moresby (27.9.2): Gato" in allied
    assert "TF31 reloaded ASW ordnance at Port Moresby (27.9.2): Hammann" in allied
    assert sub_state(hour.state.undersea.subs, "Gato").factors_fired == 0
    assert asw_state(hour.state.undersea.asw, "Hammann").asw_attacks == 0
    assert sub_state(hour.state.undersea.subs, SUB).factors_fired == 4  # Lae handles land planes only
    assert "reloaded" not in told(hour, Side.JAPANESE)


def test_27_9_2_no_reload_for_a_tf_that_moves() -> None:
    """27.9.2: reloaded "at eligible bases": a TF that leaves the base this hour reloads nothing."""
    state = _in_port()
    hour, _ = play(state, {"allied": ["PLOT TF30 V-B25", "PLOT TF31 V-B25"], "japanese": []})
    assert "reloaded" not in told(hour, Side.ALLIED)
    assert sub_state(hour.state.undersea.subs, "Gato").factors_fired == 8
    assert asw_state(hour.state.undersea.asw, "Hammann").asw_attacks == 2
