# SPDX-License-Identifier: GPL-3.0-or-later
"""Letter lines a referee audit found odd (issue 36, "also seen"), each as its rule says it.

- A base without a Surface Factor has none to lose ("SF 0->-2").
- An attack is reported by its result (15 LI 3): a second strike that scored nothing on a ship
  already smoking says "no hits seen", not "smoking" again; "AF22: 3 Dauntless on A-CV2: dead in
  the water" reads "AF22: 3 Dauntless attacked A-CV2: hits seen: she is dead in the water".
- A carrier's launch factor lost to hits (reference A.12) is told to her owner when it happens.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.core.dice import FixedDice
from mailbot.core.game import Line
from mailbot.games.flattop.combat.damage_ships import launch_note
from mailbot.games.flattop.hour.strike_damage import attack_seen
from tests.games.flattop.combat.test_damage import base, bomb, ca, cv, strike
from tests.games.flattop.combat.test_strike_flow import GAME, TARGET_HEX, big_strike


def test_a_base_without_a_surface_factor_loses_none() -> None:
    """Reference A.12: hits reduce a base's factors; one that has no Surface Factor keeps 0 and the
    referee's sentence does not speak of it."""
    plain = strike(base(surface=0), 2)
    assert plain.after.surface == 0
    assert not any("SF" in fact for fact in plain.facts), plain.facts
    armed = strike(base(surface=3), 1)
    assert armed.after.surface < 3 and any("SF 3->" in fact for fact in armed.facts), armed.facts


def test_li3_an_attack_is_reported_by_what_it_did() -> None:
    """15 LI 3: "Damage less than half of ship's damage factor: Ship is seen smoking" and so on, for
    the hits this attack scored; an attack that scored none is told so, the earlier damage apart."""
    smoking = replace(ca(), hits=1)
    assert attack_seen(smoking, 0, turn=5) == "no hits seen; she was smoking already"
    assert attack_seen(ca(), 0, turn=5) == "no hits seen"
    assert attack_seen(smoking, 1, turn=5) == "hits seen: she is smoking"
    crippled = replace(ca(), hits=5)
    assert attack_seen(crippled, 2, turn=5) == "hits seen: she is dead in the water"
    sunk = replace(ca(), hits=6)
    assert attack_seen(sunk, 3, turn=5) == "she is seen to sink"


def test_a_12_a_carriers_lost_launch_factor_is_told_when_the_hits_land() -> None:
    """Reference A.12 (standard 21): each hit on a plane-carrier costs launch factor; her owner hears
    the new figure with the damage (issue 36: it was explained only when a later launch was refused)."""
    hit = bomb(cv(), 2)
    note = launch_note(hit.before, hit.after)
    assert note.startswith(f"; her launch factor is now {hit.after.launch} (minimum {hit.after.launch_min})")
    assert "was 11 (minimum 3)" in note
    assert launch_note(ca(), replace(ca(), hits=1)) == ""  # no planes, no launch factor
    state = big_strike()
    orders = {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}
    dice = FixedDice([3] * 2000)  # 6 on 2d6 for every roll (3 fits every die rolled)
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    declared = GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=dice)
    target = {"allied": GAME.parse(declared.state, "allied", [Line(1, "TARGET AF7 A-CV1")]).orders}
    struck = GAME.resolve(declared.state, target, dice=FixedDice([3] * 2000))
    japanese = " ".join(e.text for e in struck.events if e.kind == "ft.strike" and e.visible_to("japanese"))
    allied = " ".join(e.text for e in struck.events if e.kind == "ft.strike" and e.visible_to("allied"))
    assert "Shokaku took" in japanese and "her launch factor is now" in japanese, japanese
    assert "launch factor" not in allied and "attacked A-CV1: hits seen: she is" in allied, allied
