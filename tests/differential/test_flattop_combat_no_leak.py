# SPDX-License-Identifier: GPL-3.0-or-later
"""Air combat through the differential harness (seed 003, 15 Limited Intelligence).

Three claims, each with worlds that differ only in what the seat has not observed:

- the attacker learns the precise makeup only by declaring (LI 1): two Japanese TFs whose
  ships differ only within a report class (a CA or a CL: both "capital") give the Allies the
  same letters while their AF merely flies over; declaring the attack tells them the types,
  and the harness sees the difference (the negative control: the check can fail);
- the defender learns nothing of the attacker's choices before they happen: the Allies'
  two different TARGET letters change no Japanese letter until the strike lands;
- hidden Readying losses stay hidden (21.7.1): a carrier whose Readying box holds different
  planes in the two worlds gives the attacker the same strike report;
- a destroyer's 19.8 firings are the owner's record: the enemy learns of them only when the
  battle's positions open (a DD out of firings screens by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mailbot.core.game import Event
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.combat.surface import Firings
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, AirFactors, AirFormation, Armament, Ship, ShipType, Side
from mailbot.registry import default_registry
from mailbot.testing.contract import report_env
from mailbot.testing.differential import World, assert_no_leak, compare_worlds
from tests.games.flattop.combat.test_surface_flow import meeting

ENV = report_env(default_registry())
TARGET_HEX = "V-E24"


def observed_combat(state: FlatTopState, events: Sequence[Event], seat: str) -> object:
    """``mailbot.games.flattop.worlds.observed`` plus what a strike forces on the side: its results."""
    results = [e.text for e in events if e.visible_to(seat) and e.kind == "ft.strike"]
    return fw.observed(state, events, seat), results


def _base(second_ship: ShipType = ShipType.CA, readying: str = "Val") -> FlatTopState:
    """Turn 2, day: the Japanese TF1 (Shokaku, Myoko, Ushio) at V-E24, Myoko's type as given,
    Shokaku's Readying box holding ``readying``; Allied AF7 (3 armed Dauntless) at V-E25, low."""
    state = fw._play(fw._new(), {})
    h = fw._hex(state, TARGET_HEX)
    boxes = AirBoxes(readying=(AirFactors(readying, 4, True),))

    def changed(ship: Ship) -> Ship:
        typed = replace(ship, type=second_ship) if ship.name == "Myoko" else ship
        return replace(typed, boxes=boxes) if typed.capacity else typed

    tfs = [
        replace(tf, hex=h, ships=tuple(changed(s) for s in tf.ships), plot=())
        if tf.side is Side.JAPANESE
        else tf
        for tf in state.task_forces
    ]
    strike = AirFormation(
        7, Side.ALLIED, fw._hex(state, "V-E25"), (AirFactors("Dauntless", 3, True, Armament.AP),), "TF1", 1
    )
    return replace(state, task_forces=tuple(tfs), air=(*state.air, strike))


def test_the_makeup_is_told_only_to_a_declared_attack() -> None:
    """LI 1: "If co-existing in a hex with enemy ships but not declaring an attack, he receives
    only the standard Condition 2 or 3 report"."""
    first, second = World(_base(ShipType.CA)), World(_base(ShipType.CL))
    over = [[f"FLY AF7 PATH {TARGET_HEX}"]]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=over, observed=fw.observed
    )
    assert_no_leak(verdict)
    attack = [[f"FLY AF7 PATH {TARGET_HEX} ATTACK"]]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=attack, observed=fw.observed
    )
    assert verdict.leaked, "declaring must tell the precise makeup (1 CA versus 1 CL)"


def test_the_defender_learns_nothing_of_the_attackers_choices_before_they_happen() -> None:
    """LI 1: "The Japanese player then states which TF's, and which ships ... he will attack";
    the defender hears of it when the attack happens, not before."""
    state = _base()
    declare = {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}
    first = World(state, [declare, {"allied": ["TARGET AF7 A-CV1"]}])
    second = World(state, [declare, {"allied": ["TARGET AF7 A-DD1"]}])
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=first, second=second, letters=[["HOLD"], []],
        observed=observed_combat,
    )  # fmt: skip
    assert_no_leak(verdict)


def test_hidden_readying_losses_stay_hidden() -> None:
    """21.7.1: "Since factors in the "readying" box are not visible to the attackers, any loss
    taken from this box need not be disclosed."""
    first, second = World(_base(readying="Val")), World(_base(readying="Kate"))
    letters = [[f"FLY AF7 PATH {TARGET_HEX} ATTACK"], ["TARGET AF7 A-CV1"], []]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=letters, observed=fw.observed
    )
    assert_no_leak(verdict)


def observed_opening(state: FlatTopState, events: Sequence[Event], seat: str) -> object:
    """``worlds.observed`` plus the opened BHT numbers (legitimately learnt at the opening)."""
    opened = [e.text for e in events if e.visible_to(seat) and e.kind == "ft.surface-bht"]
    return fw.observed(state, events, seat), opened


def test_a_sealed_bht_changes_no_letter_before_both_are_opened() -> None:
    """Seed 003, 19: the BHT number "is to be kept secret until both players are ready": the Allied
    number (2 or 6) changes nothing the Japanese side receives until the numbers are opened."""
    state = meeting()
    engage = {"allied": ["ENGAGE"]}
    first = World(state, [{}, engage, {"allied": ["BHT 2"]}])
    second = World(state, [{}, engage, {"allied": ["BHT 6"]}])
    letters = [["HOLD"], ["ENGAGE"], ["BHT 4"], []]
    verdict = compare_worlds(
        fw.PACKAGE,
        ENV,
        seat="japanese",
        first=first,
        second=second,
        letters=letters,
        observed=observed_opening,
    )
    assert_no_leak(verdict)
    assert verdict.stopped == "T2.surface1.bht: japanese observed what tells the worlds apart", (
        verdict.stopped
    )
    blind = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=first, second=second, letters=letters, observed=fw.observed
    )
    assert blind.leaked, "the opening shows the other number: the harness must see that difference"


def observed_positions(state: FlatTopState, events: Sequence[Event], seat: str) -> object:
    """``worlds.observed`` plus the positions the enemy shows when a surface battle opens."""
    shown = [e.text for e in events if e.visible_to(seat) and "The enemy shows" in e.text]
    return fw.observed(state, events, seat), shown


def test_a_dds_spent_firings_stay_hidden_until_the_positions_open() -> None:
    """Seed 003, 19.8: "DD's and APD's can fire twice before requiring replenishing." Ushio's two
    firings (world one) or none (world two) change no Allied letter until the battle opens and
    she is seen to screen."""
    spent = Firings().record(["Ushio"], "ft.T1.surface1").record(["Ushio"], "ft.T1.surface2")
    first, second = World(replace(meeting(), firings=spent)), World(meeting())
    letters = [["HOLD"], ["ENGAGE"], ["BHT 3"], []]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=letters,
        observed=observed_positions,
    )  # fmt: skip
    assert_no_leak(verdict)
    assert verdict.stopped == "T2.surface1.engage: allied observed what tells the worlds apart", (
        verdict.stopped
    )


def test_ready_cap_is_learnt_only_when_it_meets_the_strike() -> None:
    """Seed 003, 16.11: ready CAP scrambles "at the instant enemy AF's enter the hex": a Shokaku
    whose Ready box holds 40 Zero or none changes no Allied letter until the strike is fought,
    where the fighters it meets (to both altitudes) tell the worlds apart."""
    from tests.games.flattop.combat.test_audit_rules import radar_picket

    first, second = World(radar_picket(ready=40)), World(radar_picket(ready=0))
    path = f"V-E27 V-E26 V-E25 {TARGET_HEX}"
    letters = [[f"FLY AF7 PATH {path} ATTACK"], ["TARGET AF7 A-CV1"], []]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=letters, observed=observed_combat
    )
    assert_no_leak(verdict)
    assert verdict.stopped == "T2.strike: allied observed what tells the worlds apart", verdict.stopped
