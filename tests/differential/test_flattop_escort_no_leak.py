# SPDX-License-Identifier: GPL-3.0-or-later
"""Escorts, sweeps and CAP fights through the differential harness (seed 003, 15 LI 5; reference
A.6, A.11.4), in worlds that differ only in what the seat has not observed:

- the ESCORTS order is the attacker's own: ``ESCORTS Rufe`` or ``ESCORTS Zero`` behind a mixed AF
  changes no Japanese letter until the strike is fought (then the fire tells them apart);
- a fight of fighters over Yorktown tells the Allies nothing of the Japanese carrier's hidden
  Readying box (Val or Kate, 21.7.1), and the same of a strike escorted by a mixed AF.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mailbot.core.game import Event
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, AirFormation, Side
from mailbot.testing.differential import World, assert_no_leak, compare_worlds

from .test_flattop_combat_no_leak import ENV, TARGET_HEX, _base, observed_combat

MIXED = f"FLY AF9 FROM TF1 2 Dauntless AND 1 Wildcat PATH V-E25 {TARGET_HEX} ATTACK"


def with_cap(readying: str = "Val") -> FlatTopState:
    """``_base`` with 6 Zero and 2 Rufe on CAP (the Japanese AF20, Low) over TF1 and no AF7."""
    state = _base(readying=readying)
    stacks = (AirFactors("Zero", 6, True), AirFactors("Rufe", 2, False))
    cap = AirFormation(20, Side.JAPANESE, fw._hex(state, TARGET_HEX), stacks, "TF1", 1)
    return replace(state, air=(*(a for a in state.air if a.number != 7), cap))


def observed_fights(state: FlatTopState, events: Sequence[Event], seat: str) -> object:
    """``observed_combat`` plus the fighter fights the side took part in (they force contact)."""
    fights = [e.text for e in events if e.visible_to(seat) and e.kind == "ft.fighters"]
    return observed_combat(state, events, seat), fights


def test_the_escorts_order_changes_no_defender_letter_before_the_strike() -> None:
    """15 LI 5: "the player with the escorts must prioritize the types of interceptor he wishes to
    shoot at": his choice is his own until his escorts fire."""
    state = with_cap()
    first = World(state, [{"allied": [MIXED, "ESCORTS Rufe"]}, {"allied": ["TARGET AF9 A-CV1"]}])
    second = World(state, [{"allied": [MIXED, "ESCORTS Zero"]}, {"allied": ["TARGET AF9 A-CV1"]}])
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=first, second=second, letters=[["HOLD"], []],
        observed=observed_combat,
    )  # fmt: skip
    assert_no_leak(verdict)


def test_an_escorted_strike_tells_the_attacker_nothing_of_the_hidden_readying_box() -> None:
    """21.7.1: the Readying box is "not visible to the attackers"; escorts and CAP fighting first
    change nothing of that."""
    first, second = World(with_cap("Val")), World(with_cap("Kate"))
    letters = [[MIXED], ["TARGET AF9 A-CV1"], []]
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=first, second=second, letters=letters, observed=observed_combat
    )
    assert_no_leak(verdict)


def test_a_fight_over_a_tf_tells_nothing_of_the_enemys_hidden_readying_box() -> None:
    """Reference A.11.4 (design default: fighters start it over their own ships): Zeros flying over
    Yorktown meet her Wildcat CAP; the Allies learn the fight, not Shokaku's Readying box."""

    def world(readying: str) -> World:
        state = with_cap(readying)
        cap = AirFormation(
            8, Side.ALLIED, fw._hex(state, "V-E26"), (AirFactors("Wildcat", 4, True),), "TF1", 1
        )
        return World(replace(state, air=(*state.air, cap)), [{"japanese": ["FLY AF20 PATH V-E25 V-E26"]}])

    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="allied", first=world("Val"), second=world("Kate"), letters=[["HOLD"]],
        observed=observed_fights,
    )  # fmt: skip
    assert_no_leak(verdict)


def test_fighters_joining_a_strike_in_flight_tell_the_defender_nothing_he_does_not_observe() -> None:
    """Seed 003, 7 (``air.merge``): whether the Allied Wildcats joined AF7 over their own TF, two
    hexes from the Japanese ships (which see no low planes there, 7.5), or stayed an AF of their own
    is the Allies' secret: the Japanese letters of that hour and the next are the same."""
    state = with_cap()
    af7 = next(a for a in _base().air if a.number == 7 and a.side is Side.ALLIED)
    state = replace(state, air=(*state.air, af7))
    home = "FLY AF7 PATH V-E26"
    joined = "FLY AF9 FROM TF1 2 Wildcat RENDEZVOUS V-E26 WITH AF7"
    apart = "FLY AF9 FROM TF1 2 Wildcat"
    first = World(state, [{"allied": [home, joined]}, {"allied": ["HOLD"]}])
    second = World(state, [{"allied": [home, apart]}, {"allied": ["HOLD"]}])
    verdict = compare_worlds(
        fw.PACKAGE, ENV, seat="japanese", first=first, second=second, letters=[["HOLD"], ["HOLD"]],
        observed=observed_fights,
    )  # fmt: skip
    assert_no_leak(verdict)
    assert "T3.orders" in verdict.compared, verdict.stopped  # both hours compared, none skipped
