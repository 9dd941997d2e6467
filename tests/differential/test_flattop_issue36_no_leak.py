# SPDX-License-Identifier: GPL-3.0-or-later
"""What issue 36 added, through the differential harness: each pair of worlds differs only in what
the watching side has not observed, and the side's letters (and the answers to its own letters)
must be the same in both.

- one shadower per contact (standard 11.4): the refusal of a second SHADOW of a contact reads the
  same whether the contact's hex holds one enemy TF or two;
- the 6.10 variant: how an unseen enemy carrier TF's plot is cut short for its launches tells the
  other side nothing;
- a storm landing (standard 6.6) and its losses are the owner's to know;
- Expanded Ship Function 7: an enemy ship replenishing in harbour is not announced.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.map.weather import Cloud
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Ship, ShipType, Side, TaskForce
from mailbot.testing.differential import World, assert_no_leak, compare_worlds

from .test_flattop_combat_no_leak import ENV


def _hex(state: FlatTopState, name: str) -> object:
    h = state.scenario.map.parse(name)
    assert h is not None
    return h


def test_11_4_the_refusal_of_a_second_shadower_reads_the_same_with_one_enemy_tf_or_two() -> None:
    """Standard 11.4: "Only one unit ... may attempt to shadow each TF each turn". The Allies hold
    a ships contact at I-G17; in the twin world a second, unseen Japanese TF shares the hex. Two
    SHADOW lines at the contact: the second is refused in both worlds with the same words (the
    refusal counts contacts, which the side knows, not TFs, which it does not)."""
    state = fw.searched()
    two = AirFormation(2, Side.ALLIED, _hex(state, "I-G19"), (AirFactors("Wildcat", 2, True),), "TF1", 2)  # type: ignore[arg-type]
    state = replace(state, air=(*state.air, two))
    japanese = next(t for t in state.task_forces if t.side is Side.JAPANESE)
    extra = TaskForce(7, Side.JAPANESE, japanese.hex, (Ship("Yura", ShipType.CL, 3, 2, 0, 3, 3),))
    twin = replace(state, task_forces=(*state.task_forces, extra))
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=World(state), second=World(twin),
        letters=[["SHADOW AF1 I-G17", "SHADOW AF2 I-G17"], ["HOLD"]], observed=fw.observed,
    )  # fmt: skip
    assert_no_leak(verdict)
    assert "T3.orders" in verdict.compared, verdict.compared


def test_6_10_variant_an_unseen_enemy_carriers_cut_plot_tells_the_other_side_nothing() -> None:
    """[RW] 6.10 (game option launch_wind = variant): the Japanese TF1 launches four Zeros past
    Shokaku's minimum LF by the same letter in both worlds; in one its standing plot took it to
    I-F17, not into the wind, so the plot is cut to 0 hexes and its owner told so; in the other
    it had no plot. It holds at I-G17 either way, and the Allies get the same letters."""
    allied_only = replace(fw.zeros(), air=tuple(a for a in fw.zeros().air if a.side is Side.ALLIED))
    state = fw._play(allied_only, {})  # 0700: no wind check this hour
    state = replace(state, options=replace(state.options, launch_wind="variant"))
    assert state.weather.wind(1).name == "SE"  # into the wind is NW, off the board: I-F17 is not
    japanese = next(t for t in state.task_forces if t.side is Side.JAPANESE)
    plotted = replace(japanese, plot=((_hex(state, "I-F17"),),))  # type: ignore[arg-type]
    letter = ({"japanese": ["FLY AF1 FROM TF1 4 Zero NORMAL"]},)
    launch = World(
        replace(state, task_forces=tuple(plotted if t is japanese else t for t in state.task_forces)), letter
    )
    plot = World(state, letter)
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=launch, second=plot, letters=[["HOLD"], ["HOLD"]],
        observed=fw.observed,
    )  # fmt: skip
    assert_no_leak(verdict)
    assert "T4.orders" in verdict.compared, (verdict.compared, verdict.stopped)
    owner = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=launch, second=plot, letters=[letter[0]["japanese"]],
        observed=fw.observed,
    )  # fmt: skip
    assert owner.leaked  # the control: its owner sees its plot, so the pair can tell the worlds apart


def test_6_6_a_storm_landing_and_its_losses_are_the_owners_alone() -> None:
    """Standard 6.6: the Allied AF2 lands on Yorktown under a storm by the Night Landing Chart in
    one world, and is not there in the other; the Japanese, who see neither, get the same letters
    (the storm itself is on both sides' maps: clouds are public, standard 6)."""
    base = fw.zeros()
    state = replace(base, air=tuple(a for a in base.air if a.side is Side.ALLIED))
    h = state.scenario.map.parse
    clouds = (Cloud(1, h("V-E24"), 5), Cloud(2, h("V-E28"), 5))  # type: ignore[arg-type]
    state = replace(state, turn=state.turn + 1, weather=replace(state.weather, clouds=clouds))
    wildcats = AirFormation(2, Side.ALLIED, h("V-E25"), (AirFactors("Wildcat", 2, True),), "TF1", 1)  # type: ignore[arg-type]
    landing = World(replace(state, air=(*state.air, wildcats)), ({"allied": ["LAND AF2 TF1"]},))
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=landing, second=World(state), letters=[["HOLD"], ["HOLD"]],
        observed=fw.observed,
    )  # fmt: skip
    assert_no_leak(verdict)
    assert len(verdict.compared) >= 2, (verdict.compared, verdict.stopped)
    owner = compare_worlds(
        fw.PACKAGE,
        ENV,
        seat="allied",
        first=landing,
        second=World(state),
        letters=[["HOLD"]],
        observed=fw.observed,
    )
    assert owner.leaked  # the control: the owner's letter tells of the landing


def test_expanded_ship_function_7_an_enemy_ship_replenishing_in_harbour_is_not_announced() -> None:
    """Expanded Ship Function 7 (supply.toml, a design default): the Allied TF1 lies anchored at
    Port Moresby; in one world Astoria has spent her ammunition and Hammann her torpedoes, so
    both replenish and their owner is told; in the other they are full. The Japanese letters are
    the same."""
    base = fw.zeros()
    state = replace(base, air=tuple(a for a in base.air if a.side is Side.ALLIED))
    first = next(t for t in state.task_forces if t.side is Side.ALLIED and t.number == 1)
    port = _hex(state, "V-B24")
    full = replace(first, hex=port, plot=(), ships=tuple(replace(s, anchored=True) for s in first.ships))  # type: ignore[arg-type]
    spent = replace(
        full,
        ships=tuple(
            replace(s, ammo=2)
            if s.name == "Astoria"
            else replace(s, torpedoes_fired=True)
            if s.name == "Hammann"
            else s
            for s in full.ships
        ),
    )

    def with_tf(unit: TaskForce) -> FlatTopState:
        return replace(state, task_forces=tuple(unit if t is first else t for t in state.task_forces))

    pair = {"first": World(with_tf(spent)), "second": World(with_tf(full))}
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", **pair, letters=[["HOLD"], ["HOLD"]], observed=fw.observed
    )
    assert_no_leak(verdict)
    assert len(verdict.compared) >= 2, (verdict.compared, verdict.stopped)
    owner = compare_worlds(fw.PACKAGE, ENV, seat="allied", **pair, letters=[["HOLD"]], observed=fw.observed)
    assert owner.leaked  # the control: the owner is told, so the pair can tell the worlds apart
