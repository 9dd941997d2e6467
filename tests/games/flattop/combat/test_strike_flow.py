# SPDX-License-Identifier: GPL-3.0-or-later
"""An air strike by mail from the attack declaration to the damage reports (seed 003, 15).

The game steps: the orders step where AF7 declares; ``T2.strike`` owed by the attacker only,
its letter holding the precise makeup (LI 1); the strike, whose reports differ per side (LI 3:
the defender's ships by name and exact hits, the attacker's by label and visible damage only);
then the next hour. Dice are the real stream, so the assertions hold for any roll.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.core.dice import DiceStream
from mailbot.core.game import Line, Outcome, StepKind, Tallied
from mailbot.games.flattop import GAME
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirFactors, Altitude, Armament, Side
from tests.differential.test_flattop_combat_no_leak import TARGET_HEX, _base

NAMES = ("Shokaku", "Myoko", "Ushio")


def play(state: FlatTopState, orders: dict[str, list[str]], key: str) -> Outcome[FlatTopState]:
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    dice = DiceStream(b"strike flow".ljust(32, b"."), "digest", key)
    return GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=dice)


def told(outcome: Outcome[FlatTopState], side: Side) -> str:
    return "\n".join(e.text for e in outcome.events if e.visible_to(side.value))


def big_strike() -> FlatTopState:
    state = _base()
    air = tuple(
        # High: a dive starts High (seed 003, 14.11)
        replace(a, stacks=(AirFactors("Dauntless", 14, True, Armament.AP, Altitude.HIGH),))
        if a.number == 7
        else a
        for a in state.air
    )
    return replace(state, air=air)


def test_a_strike_opens_a_choice_step_for_the_attacker_only_with_the_precise_makeup() -> None:
    """LI 1: the attacker "is told the precise makeup of the TF's in the hex ... when he declares
    that he will be making an attack in that hex"; the defender is told nothing yet."""
    declared = play(big_strike(), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    step = GAME.step(declared.state)
    assert step is not None
    assert (step.key, step.kind, step.owing) == ("T2.strike", StepKind.CHOICE, frozenset({"allied"}))
    assert "Precise makeup" in told(declared, Side.ALLIED) and "1 CV, 1 CA and 1 DD" in told(
        declared, Side.ALLIED
    )
    assert "makeup" not in told(declared, Side.JAPANESE).lower()
    assert not any(name in told(declared, Side.ALLIED) for name in NAMES)
    refused = GAME.parse(declared.state, "japanese", [Line(1, "TARGET AF7 A-CV1")])
    assert refused.problems and refused.problems[0].reason == "nothing is owed by your side in this step"


def test_the_strike_reports_differ_per_side_and_never_name_enemy_ships() -> None:
    """LI 3: "hits on ships and bases are reported abstractly"; the defender knows his own."""
    declared = play(big_strike(), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    struck = play(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")
    allied, japanese = told(struck, Side.ALLIED), told(struck, Side.JAPANESE)
    assert "Air strike at V-E24" in allied and "A-CV1" in allied
    assert not any(name in allied for name in NAMES)
    assert "Enemy air strike at V-E24" in japanese and "CV Shokaku took" in japanese
    step = GAME.step(struck.state)
    assert step is not None and step.key in ("T3.orders", "T2.losses")
    af7 = next((a for a in struck.state.own_air(Side.ALLIED) if a.number == 7), None)
    assert af7 is None or all(s.armament is None for s in af7.stacks)


def test_a_silent_attacker_strikes_by_the_default_priority() -> None:
    """design/flattop.md: "Standing target priorities in the main orders let a player skip the
    sub-step"; with none, the documented default picks the carrier first."""
    declared = play(big_strike(), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    defaults = list(GAME.default_orders(declared.state, "allied"))
    assert defaults[0].startswith("PRIORITY CV CVL BB")
    struck = play(declared.state, {"allied": defaults}, "T2.strike")
    assert "attacked A-CV1" in told(struck, Side.ALLIED)


def test_a_standing_priority_answers_the_sub_step_in_advance() -> None:
    declared = play(
        big_strike(), {"allied": ["PRIORITY DD CA", f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders"
    )
    assert list(GAME.default_orders(declared.state, "allied")) == ["PRIORITY DD CA"]
    struck = play(
        declared.state, {"allied": list(GAME.default_orders(declared.state, "allied"))}, "T2.strike"
    )
    assert "attacked A-DD1" in told(struck, Side.ALLIED)


def test_a_target_not_in_the_hex_is_refused_with_the_labels_the_side_was_given() -> None:
    declared = play(big_strike(), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    (problem,) = GAME.parse(declared.state, "allied", [Line(1, "TARGET AF7 B-BB1")]).problems
    assert problem.reason == "B-BB1 is not a target in AF7's hex (targets: A-CV1 A-CA1 A-DD1)"


def test_the_state_round_trips_while_a_battle_waits() -> None:
    declared = play(big_strike(), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    again = GAME.load(GAME.dump(declared.state))
    assert again.pending == declared.state.pending and GAME.step(again) == GAME.step(declared.state)


def test_the_game_counts_its_air_battles_for_the_demo_summary() -> None:
    """Issue 16 "By mail": the demo's second line reads ``battles: air <a>, ...``."""
    assert isinstance(GAME, Tallied)
    declared = play(big_strike(), {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    assert GAME.tallies(declared.state) == {"air": 0, "surface": 0}
    struck = play(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")
    assert GAME.tallies(struck.state) == {"air": 1, "surface": 0}
    assert GAME.tallies(GAME.load(GAME.dump(struck.state)))["air"] == 1


def test_an_af_with_no_factor_left_is_gone_after_the_combat_phase() -> None:
    """An AF shot down to the last factor leaves the map (its range is no longer asked)."""
    from mailbot.games.flattop.hour.combat_phase import _wiped_out
    from mailbot.games.flattop.hour.turn import Turn

    state = big_strike()
    empty = tuple(replace(a, stacks=()) if a.number == 7 else a for a in state.air)
    turn = Turn(replace(state, air=empty), DiceStream(b"x".ljust(32, b"."), "d", "k"), {})
    _wiped_out(turn)
    assert all(a.number != 7 for a in turn.state.air)
    assert "AF7 was destroyed" in [e.text for e in turn.events]


def test_standing_air_choices_are_read_and_kept() -> None:
    """16.12: "Diving is always voluntary" (CAPDIVE NO); 15 LI 5: "the player with the escorts must
    prioritize the types of interceptor he wishes to shoot at" (ESCORTS)."""
    state = _base()
    outcome = play(state, {"japanese": ["CAPDIVE NO", "ESCORTS Wildcat"]}, "T2.orders")
    side = outcome.state.side(Side.JAPANESE)
    assert (side.cap_dive, side.escort_priority) == (False, ("Wildcat",))
    (line,) = GAME.parse(state, "japanese", [Line(1, "capdive no")]).accepted
    assert line.normalised == "CAPDIVE NO"
    again = GAME.load(GAME.dump(outcome.state)).side(Side.JAPANESE)
    assert (again.cap_dive, again.escort_priority) == (False, ("Wildcat",))


def test_hits_on_a_ship_already_sinking_score_her_once() -> None:
    """15 LI 4: "Hits taken after the ship is "sunk" but is still on the board will each reduce the
    time by an hour also": she may be struck again, and her points are scored once."""
    from mailbot.games.flattop.hour.rules import kit
    from mailbot.games.flattop.victory import record
    from mailbot.games.flattop.victory_scoring import ship_sunk

    state = big_strike()
    tfs = tuple(
        replace(
            t,
            ships=tuple(
                replace(s, hits=s.damage, sinking=5, destroyed_turn=1) if s.name == "Shokaku" else s
                for s in t.ships
            ),
        )
        if t.side is Side.JAPANESE
        else t
        for t in state.task_forces
    )
    shokaku = next(s for t in tfs for s in t.ships if s.name == "Shokaku")
    ledger = record((), [ship_sunk(shokaku, Side.JAPANESE, 1, kit(state).victory)])
    state = replace(state, task_forces=tfs, score=replace(state.score, ledger=ledger))
    declared = play(state, {"allied": [f"FLY AF7 PATH {TARGET_HEX} ATTACK"]}, "T2.orders")
    struck = play(declared.state, {"allied": ["TARGET AF7 A-CV1"]}, "T2.strike")
    ledger = struck.state.score.ledger
    assert len([e for e in ledger if e.key.startswith("sunk:") and "Shokaku" in e.key]) == 1


def test_an_af_aiming_at_a_ship_gone_down_makes_no_attack() -> None:
    """18.2.1 / 21.8.2: AFs attack one after another; a ship sunk by the first is no target for the
    next (its bombs are not dropped on the base instead)."""
    from mailbot.games.flattop.combat.battle import ShipLabel, Strike, Target
    from mailbot.games.flattop.hour.rules import kit
    from mailbot.games.flattop.hour.strike_attack import _bomb
    from mailbot.games.flattop.hour.strike_damage import Allocation, Raid, Report
    from mailbot.games.flattop.hour.turn import Turn
    from mailbot.games.flattop.units import Altitude

    state = big_strike()
    h = next(t.hex for t in state.task_forces if t.side is Side.JAPANESE and t.number == 1)
    target = Target(Side.ALLIED, h, (("A", 1),), (ShipLabel("A-DD1", 1, "Nowhere"),), base="Lae")
    turn = Turn(state, DiceStream(b"x".ljust(32, b"."), "d", "k"), {})
    strike = Strike(Side.ALLIED, 7, h, Altitude.LOW)
    blow = _bomb(
        Raid(turn, kit(state), target, Report()), strike, Allocation(7, "A-DD1", "Dauntless", 14), "l"
    )
    assert blow is None
    assert "AF7: A-DD1 has already gone down; no attack" in [e.text for e in turn.events]
