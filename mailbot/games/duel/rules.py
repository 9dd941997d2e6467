# SPDX-License-Identifier: GPL-3.0-or-later
"""The duel's combat: bids, strike order, attack and defence dice, and the end of the game."""

from __future__ import annotations

from collections.abc import Mapping

from mailbot.core.dice import Dice
from mailbot.games.duel.state import DuelState, SeatTurn, Split, Strike, TurnRecord

SIDES = 6
HIT_ON = 4
CANCEL_ON = 5
ATTACK_RULE = f"duel: an attack d{SIDES} hits on {HIT_ON}+"
DEFEND_RULE = f"duel: a defence d{SIDES} cancels one hit on {CANCEL_ON}+"
#: what a silent seat does: mostly hide behind its shield
DEFAULT_SPLIT = Split(attack=1, defend=2)
DEFAULT_BID = 0


def _faces(dice: Dice, prefix: str, count: int, rule: str) -> tuple[int, ...]:
    # One roll per die, each under its own label, so a report can point at any single die.
    return tuple(
        dice.roll(f"{prefix}/die{index}", SIDES, rule=rule).faces[0] for index in range(1, count + 1)
    )


def roll_strike(
    dice: Dice, turn: int, *, attacker: str, split: Split, defender: str, guard: Split, hp: int
) -> Strike:
    """``attacker`` rolls its attack dice, ``defender`` its defence dice against them."""
    attack = _faces(dice, f"attack/T{turn}/{attacker}", split.attack, ATTACK_RULE)
    defend = _faces(dice, f"defend/T{turn}/{defender}", guard.defend, DEFEND_RULE)
    hits = sum(face >= HIT_ON for face in attack)
    cancelled = min(hits, sum(face >= CANCEL_ON for face in defend))
    return Strike(attacker, defender, attack, defend, hits, cancelled, hp, max(0, hp - (hits - cancelled)))


def strike_rounds(bids: Mapping[str, int]) -> tuple[tuple[str, ...], ...]:
    """The highest bid strikes first; equal bids strike at once, in one round."""
    if len(set(bids.values())) == 1:
        return (tuple(bids),)
    return tuple((seat,) for seat in sorted(bids, key=lambda seat: -bids[seat]))


def _strike(
    state: DuelState, name: str, splits: Mapping[str, Split], hp: Mapping[str, int], dice: Dice
) -> Strike:
    foe = state.opponent(name)
    return roll_strike(
        dice, state.turn, attacker=name, split=splits[name], defender=foe, guard=splits[foe], hp=hp[foe]
    )


def _fight(
    state: DuelState,
    rounds: tuple[tuple[str, ...], ...],
    splits: Mapping[str, Split],
    hp: dict[str, int],
    dice: Dice,
) -> tuple[list[Strike], list[str]]:
    """Every strike of the turn, updating ``hp``; also the seats that fell before their strike came."""
    strikes: list[Strike] = []
    silenced: list[str] = []
    for names in rounds:
        silenced.extend(name for name in names if hp[name] == 0)
        # Nobody strikes at a seat already down: the duel is decided.
        striking = [name for name in names if hp[name] > 0 and hp[state.opponent(name)] > 0]
        # Every strike of a round is rolled before any of its damage counts: that is "at once".
        done = [_strike(state, name, splits, hp, dice) for name in striking]
        for strike in done:
            hp[strike.defender] = strike.hp_after
        strikes.extend(done)
    return strikes, silenced


def play_turn(state: DuelState, bids: Mapping[str, int], dice: Dice) -> TurnRecord:
    """Pay the bids, then strike in initiative order; ``bids`` covers every seat."""
    start = {seat.name: seat.hp for seat in state.seats}
    hp = {name: max(0, start[name] - bids[name]) for name in state.names}
    splits = {seat.name: seat.pending or DEFAULT_SPLIT for seat in state.seats}
    rounds = strike_rounds({name: bids[name] for name in state.names})
    strikes, silenced = _fight(state, rounds, splits, hp, dice)
    seats = tuple(SeatTurn(name, splits[name], bids[name], start[name], hp[name]) for name in state.names)
    return TurnRecord(state.turn, rounds, seats, tuple(strikes), tuple(silenced))


def result_of(state: DuelState) -> str | None:
    """The end of the game in one line, or ``None`` while it goes on; ``state`` is after the turn."""
    down = [seat.name for seat in state.seats if seat.hp == 0]
    if len(down) == len(state.seats):
        return f"Draw: {' and '.join(down)} both fell in turn {state.turn}."
    if down:
        winner = state.seat(state.opponent(down[0]))
        left = f"{winner.name} has {winner.hp} HP left"
        return f"{winner.name} wins: {down[0]} fell in turn {state.turn} ({left})."
    if state.turn < state.turns:
        return None
    ranked = sorted(state.seats, key=lambda seat: -seat.hp)
    played = f"{state.turns} turn" if state.turns == 1 else f"{state.turns} turns"
    if ranked[0].hp == ranked[1].hp:
        return f"Draw after {played}: both have {ranked[0].hp} HP."
    return (
        f"{ranked[0].name} wins on hit points after {played}, "
        f"{ranked[0].hp} to {ranked[1].hp} ({ranked[1].name})."
    )
