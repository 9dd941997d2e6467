# SPDX-License-Identifier: GPL-3.0-or-later
"""Rules a referee audit found misplayed, each played through the engine with both sides' orders.

The world is ``test_flattop_combat_no_leak._base``: the Japanese TF1 (Shokaku, Myoko, Ushio) at
V-E24 on turn 2 by day, the Allied AF7 of Dauntless near it. Dice are the real stream, so the
assertions hold for any roll.
"""

from __future__ import annotations

import re
from dataclasses import replace

from mailbot.core.game import Event
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.combat.surface import Firings
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, AirFactors, AirFormation, Altitude, Armament, Ship, Side
from tests.differential.test_flattop_combat_no_leak import TARGET_HEX, _base
from tests.games.flattop.combat import test_surface_flow as surface
from tests.games.flattop.combat.test_strike_flow import play

HIGH, LOW = Altitude.HIGH, Altitude.LOW


def referee(events: list[Event], kind: str) -> list[str]:
    return [e.text for e in events if e.kind == f"ft.{kind}"]


def radar_picket(ready: int) -> FlatTopState:
    """Shokaku with ``ready`` Zero factors in her Ready box, Myoko with radar (3 hexes, reference
    A.8.5); AF7 (6 armed Dauntless, High) four hexes out, so its approach is seen for 3 hexes."""
    state = _base()

    def fitted(ship: Ship) -> Ship:
        if ship.name == "Myoko":
            return replace(ship, radar=True)
        if ship.name == "Shokaku":
            return replace(ship, boxes=AirBoxes(ready=(AirFactors("Zero", ready, True),) if ready else ()))
        return ship

    tfs = tuple(replace(tf, ships=tuple(fitted(s) for s in tf.ships)) for tf in state.task_forces)
    far = fw._hex(state, "V-E28")
    high = (AirFactors("Dauntless", 6, True, Armament.AP, HIGH),)
    air = tuple(replace(a, hex=far, stacks=high) if a.number == 7 else a for a in state.air)
    return replace(state, task_forces=tfs, air=air)


def test_16_11_ready_cap_scrambles_to_both_altitudes() -> None:
    """Seed 003, 16.11: "The following table determines how many air factors may scramble to each
    altitude under a given warning time" (3 hexes: Low Nor, High Min), all within the launch left
    ("If there is less available launch left than there is ready CAP, then only a portion of the
    CAP can launch")."""
    state = radar_picket(ready=40)
    shokaku = next(s for tf in state.task_forces for s in tf.ships if s.name == "Shokaku")
    path = "V-E27 V-E26 V-E25 " + TARGET_HEX
    declared = play(state, {"allied": [f"FLY AF7 PATH {path} ATTACK"]}, "T2.orders")
    struck = play(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")
    scrambles = referee(list(struck.events), "ready-cap")
    assert scrambles == [
        f"japanese scrambles {shokaku.launch_min} factor(s) from Shokaku to high (warning 3 hex(es), "
        "seed 003, 16.11)",
        f"japanese scrambles {shokaku.launch} factor(s) from Shokaku to low (warning 3 hex(es), "
        "seed 003, 16.11)",
    ], scrambles


def test_19_8_a_dd_that_has_fired_twice_is_kept_out_of_the_default_line() -> None:
    """Seed 003, 19.8: "DD's and APD's can fire twice before requiring replenishing. This can be one
    surface combat and one bombardment, or two of either." Ushio fired in two battles, then meets
    the enemy a third time with no orders: she screens (in the gunnery line she could only be shot
    at) and fires nothing; Myoko, with ammunition, takes the line and fires."""
    fired = Firings().record(["Ushio"], "ft.T1.surface1").record(["Ushio"], "ft.bombard.t1.japanese.TF1")
    state = replace(surface.meeting(), firings=fired)
    hour = surface.play(state, {})
    engaged = surface.play(hour.state, {"allied": ["ENGAGE"], "japanese": []})
    assert "Myoko CA #1 (gunnery); Ushio DD #1 (screen)" in surface.told(engaged, Side.JAPANESE)
    opened = surface.play(engaged.state, {"allied": ["BHT 3"], "japanese": []})
    shot = surface.play(opened.state, {})
    rolls = " ".join(referee(list(shot.events), "surface.roll"))
    assert "japanese at" in rolls and "Ushio" not in rolls, rolls
    assert shot.state.firings.count("Ushio") == 2


def mixed_strike(altitude: Altitude) -> FlatTopState:
    """AF7 next to TF1 at ``altitude``: 8 Dauntless and 6 B-17 armed AP, 4 Avenger with torpedoes."""
    state = _base()
    stacks = (
        AirFactors("Dauntless", 8, True, Armament.AP, altitude),
        AirFactors("B-17", 6, False, Armament.AP, altitude),
        AirFactors("Avenger", 4, True, Armament.TORPEDO, altitude),
    )
    return replace(state, air=tuple(replace(a, stacks=stacks) if a.number == 7 else a for a in state.air))


def bombing(altitude: Altitude) -> tuple[str, str]:
    """The referee's bombing rolls and the Allied report of AF7's strike from ``altitude``; the
    Dauntless are told to dive."""
    declared = play(mixed_strike(altitude), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    lines = ["TARGET AF7 A-CV1 8 Dauntless DIVE", "TARGET AF7 A-CA1 6 B-17", "TARGET AF7 A-DD1 4 Avenger"]
    struck = play(declared.state, {"allied": lines}, "T2.strike")
    rolls = " ".join(referee(list(struck.events), "bombing.roll"))
    told = " ".join(e.text for e in struck.events if e.visible_to("allied"))
    return rolls, told


def test_14_11_the_attack_is_made_from_the_altitude_the_planes_entered() -> None:
    """Seed 003, 14.11: "Aircraft intending to execute an attack must enter the target hex at the
    proper attack altitude." A dive starts High, a torpedo attack is Low only (reference A.6): from
    Low the Dauntless bomb level Low and the B-17s too, never level High, the Avengers torpedo; from
    High the Dauntless dive, the B-17s bomb High and the Avengers, torpedoes aboard, make none."""
    low, told = bombing(LOW)
    assert re.search(r"AF7 \d+ Dauntless level-low on A-CV1", low), low
    assert re.search(r"AF7 \d+ B-17 level-low on A-CA1", low), low
    assert re.search(r"AF7 \d+ Avenger torpedo on A-DD1", low), low
    assert "dive" not in low and "level-high" not in low
    assert "a dive attack is not made from low; they attack level-low (seed 003, 14.11)" in told
    high, told = bombing(HIGH)
    assert re.search(r"AF7 \d+ Dauntless dive on A-CV1", high), high
    assert re.search(r"AF7 \d+ B-17 level-high on A-CA1", high), high
    assert "Avenger" not in high
    none = (
        r"\d+ Avenger \(torpedo\) entered high: they have no attack from high; no attack \(seed 003, 14.11\)"
    )
    assert re.search(none, told), told


def escorted(altitude: Altitude) -> FlatTopState:
    """``mixed_strike`` at Low, AF8 (6 Wildcat, unarmed, ``altitude``) beside it and 6 Zero on
    CAP over TF1 (the Japanese AF20, Low)."""
    state = mixed_strike(LOW)
    start, target = fw._hex(state, "V-E25"), fw._hex(state, TARGET_HEX)
    wildcats = AirFormation(
        8, Side.ALLIED, start, (AirFactors("Wildcat", 6, True, None, altitude),), "TF1", 1
    )
    zeros = AirFormation(20, Side.JAPANESE, target, (AirFactors("Zero", 6, True),), "TF1", 1)
    return replace(state, air=(*state.air, wildcats, zeros))


def air_rolls(altitude: Altitude) -> str:
    orders = [f"FLY AF7 PATH {TARGET_HEX} ATTACK", f"FLY AF8 PATH {TARGET_HEX}", "ESCORTS Zero"]
    declared = play(escorted(altitude), {"allied": orders}, "T2.orders")
    struck = play(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")
    return " ".join(referee(list(struck.events), "air-combat.roll"))


def test_li5_fighters_that_fly_with_a_strike_escort_it_and_fight_the_cap_first() -> None:
    """Seed 003, 15 LI 5: "Interceptor-Escort combat: If more than one type of interceptor is
    attacking the escorts, the player with the escorts must prioritize the types of interceptor he
    wishes to shoot at"; reference A.6: a fighter with bombers is an escort, escorts "fly at the
    same altitude as the bombers". The Wildcats that flew in with the Low strike fire at the Zeros;
    Wildcats left High, away from the bombers, do not."""
    low = air_rolls(LOW)
    assert re.search(r"escort stage: \d+ Wildcat \(allied\) fire at Zero", low), low
    assert re.search(r"\d+ Zero \(japanese\) fire at Wildcat", low), low
    high = air_rolls(HIGH)
    assert "Wildcat" not in high, high
