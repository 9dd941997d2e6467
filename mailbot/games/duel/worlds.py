# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice duel worlds for the differential harness (``mailbot.testing.differential``).

A base state is a duel (1 to 10 hit points, 1 to 3 turns) after a common
history of 0 to 5 steps, played by both seats with drawn orders and dice, so
the worlds start at either step of any turn, with low hit points (bids that
fell a seat, silenced strikes, early ends) as often as long duels. For one
observing seat S, Hypothesis draws:

- a twin world that differs only in what S has not observed (seed 003's
  duel rules: "the splits stay secret"): the opponent's pending split when
  the worlds start in a bid step, and, in every turn already played, the
  opponent's split and its dice faces, redrawn so that what S saw of them
  stays as it was (the hits S took, how many of S's hits it cancelled);
- the opponent's letters in each world: its ATTACK/DEFEND split drawn
  independently per world (silence and refused lines included, which play
  the default split); its bid shared by both worlds three times in four,
  since an opened bid is public and different bids end the comparison;
- S's letters, the same in both worlds (valid splits and bids most often,
  also lines for the wrong step, repeats, typos), and the dice seed.

What S has observed (:func:`observed`) is computed from the state, never
from the events or the view under test: the hit points, the end, and for
every turn played the opened bids, who struck when, who was silenced, and
of each strike the hits, the cancelled hits and the hit points, plus S's own
split and S's own dice faces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from mailbot.core.dice import DiceStream
from mailbot.core.game import Event, Setup
from mailbot.games.duel import DuelGame
from mailbot.games.duel.state import DuelState, Phase, Split, Strike, TurnRecord
from mailbot.registry import default_registry
from mailbot.testing import differential
from mailbot.testing.contract import numbered
from mailbot.testing.differential import World

GAME = DuelGame()
PACKAGE = default_registry().find("duel")
SEATS = ("north", "south")
SPLITS = [Split(a, d) for a in range(1, 4) for d in range(0, 4 - a)]


def _own_faces(strike: Strike, seat: str) -> tuple[int, ...]:
    if strike.attacker == seat:
        return strike.attack_faces
    return strike.defend_faces if strike.defender == seat else ()


def _record_seen(record: TurnRecord, seat: str) -> object:
    return (
        record.turn,
        record.rounds,
        record.silenced,
        [(e.seat, e.bid, e.hp_start, e.hp_end, e.split if e.seat == seat else None) for e in record.seats],
        [
            (s.attacker, s.defender, s.hits, s.cancelled, s.hp_before, s.hp_after, _own_faces(s, seat))
            for s in record.strikes
        ],
    )


def observed(state: DuelState, events: Sequence[Event], seat: str) -> object:
    """What ``seat`` has legitimately learnt (module docstring); ``events`` are not consulted."""
    return (
        [(s.name, s.hp) for s in state.seats],
        state.seat(seat).pending,
        state.turn,
        state.phase,
        state.finished,
        state.result,
        [_record_seen(record, seat) for record in state.log],
    )


# --- letters ---------------------------------------------------------------------------

#: lines that are not a valid order for any step, or for the other step (the refusals must match too)
ODD_LINES = [
    "ATTACK 4", "ATTACK 0", "DEFEND 3", "DEFEND 2", "ATT 2", "def: 1", "ATTACK two", "hello",
    "BID 2", "SEAL bid 4", "seal BID 1", "ATTACK 3", "ATTACK 2", "BID", "::",
]  # fmt: skip


def split_letter(split: Split) -> list[str]:
    return (
        [f"ATTACK {split.attack}", f"DEFEND {split.defend}"] if split.defend else [f"ATTACK {split.attack}"]
    )


def _phases(start: Phase, steps: int) -> list[Phase]:
    other = {Phase.ORDERS: Phase.BID, Phase.BID: Phase.ORDERS}
    phases = [start]
    while len(phases) < steps:
        phases.append(other[phases[-1]])
    return phases


def _letter(phase: Phase) -> st.SearchStrategy[list[str]]:
    """Most often a valid letter for the step; else any lines (silence, typos, the wrong step)."""
    if phase is Phase.ORDERS:
        valid = st.sampled_from(SPLITS).map(split_letter)
    else:
        valid = st.integers(0, 3).map(lambda n: [f"SEAL bid {n}"])
    odd = st.lists(st.sampled_from(ODD_LINES), max_size=3)
    return st.sampled_from([valid, valid, valid, odd]).flatmap(lambda s: s)  # one_of drops repeats


def letters(phases: Sequence[Phase]) -> st.SearchStrategy[list[list[str]]]:
    return st.tuples(*(_letter(p) for p in phases)).map(list)


# --- base states -------------------------------------------------------------------------


def _resolve(state: DuelState, orders: dict[str, list[str]], seed: bytes) -> DuelState:
    step = GAME.step(state)
    assert step is not None
    parsed = {s: GAME.parse(state, s, numbered(lines)).orders for s, lines in orders.items()}
    return GAME.resolve(state, parsed, dice=DiceStream(seed, "base", step.key)).state


@st.composite
def bases(draw: st.DrawFn) -> DuelState:
    """A duel after a common history of 0 to 5 steps, not yet over."""
    options = {"hp": draw(st.sampled_from([1, 2, 3, 4, 6, 10])), "turns": draw(st.integers(1, 3))}
    state = GAME.new_game(Setup("standard", SEATS, options), dice=DiceStream(b"\0" * 32, "", "setup"))
    seed = hashlib.sha256(b"duel base %d" % draw(st.integers(0, 255))).digest()
    for _ in range(draw(st.integers(0, 2 * options["turns"] - 1))):
        phases = _phases(state.phase, 1)
        after = _resolve(state, {s: draw(letters(phases))[0] for s in sorted(state.living())}, seed)
        if after.finished:
            break
        state = after
    return state


# --- the twin world: only what the observing seat has not seen changes -------------------------


def _attack_faces(draw: st.DrawFn, count: int, hits: int) -> tuple[int, ...]:
    """``count`` faces with exactly ``hits`` of them hitting (4+), in any order."""
    faces = [draw(st.integers(4, 6)) for _ in range(hits)] + [
        draw(st.integers(1, 3)) for _ in range(count - hits)
    ]
    return tuple(draw(st.permutations(faces)))


def _defend_faces(draw: st.DrawFn, count: int, hits: int, cancelled: int) -> tuple[int, ...]:
    """``count`` faces that cancel exactly ``cancelled`` of ``hits`` hits (5+ cancels one hit)."""
    high = cancelled if cancelled < hits else draw(st.integers(cancelled, count))
    faces = [draw(st.integers(5, 6)) for _ in range(high)] + [
        draw(st.integers(1, 4)) for _ in range(count - high)
    ]
    return tuple(draw(st.permutations(faces)))


def _hidden_record(draw: st.DrawFn, record: TurnRecord, seat: str) -> TurnRecord:
    """The opponent's split and dice in a played turn, redrawn with the same hits and cancels."""
    foe = next(e.seat for e in record.seats if e.seat != seat)
    theirs = next((s for s in record.strikes if s.attacker == foe), None)
    mine = next((s for s in record.strikes if s.attacker == seat), None)
    least_attack = max(1, theirs.hits if theirs else 0)
    least_defend = mine.cancelled if mine else 0
    attack = draw(st.integers(least_attack, 3 - least_defend))
    split = Split(attack, draw(st.integers(least_defend, 3 - attack)))
    strikes = []
    for strike in record.strikes:
        if strike is theirs:
            strikes.append(replace(strike, attack_faces=_attack_faces(draw, split.attack, strike.hits)))
        elif strike is mine:
            faces = _defend_faces(draw, split.defend, strike.hits, strike.cancelled)
            strikes.append(replace(strike, defend_faces=faces))
        else:
            strikes.append(strike)
    seats = tuple(replace(e, split=split) if e.seat == foe else e for e in record.seats)
    return replace(record, seats=seats, strikes=tuple(strikes))


@st.composite
def unseen_changes(draw: st.DrawFn, state: DuelState, seat: str) -> DuelState:
    """``state`` with only facts ``seat`` has not observed changed (module docstring)."""
    foe = state.opponent(seat)
    log = tuple(_hidden_record(draw, record, seat) for record in state.log)
    changed = replace(state, log=log)
    if state.phase is Phase.BID and foe in state.living():
        changed = changed.with_seats({foe: replace(state.seat(foe), pending=draw(st.sampled_from(SPLITS)))})
    return changed


# --- one example ---------------------------------------------------------------------------


class Example(differential.Example):
    def __repr__(self) -> str:  # what Hypothesis prints for a falsifying example
        state = self.first.state
        start = f"turn {state.turn} {state.phase.value}, hp {[s.hp for s in state.seats]}"
        others = [dict(w) for w in self.first.others], [dict(w) for w in self.second.others]
        return f"Example(seat={self.seat!r}, {start}, letters={self.letters!r}, opponent letters={others!r})"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


def _opponent_letters(draw: st.DrawFn, phases: Sequence[Phase]) -> tuple[list[list[str]], list[list[str]]]:
    """Per world: splits drawn independently, bids the same in both worlds three times in four."""
    first = draw(letters(phases))
    second = draw(letters(phases))
    for index, phase in enumerate(phases):
        if phase is Phase.BID and draw(st.integers(0, 3)):
            second[index] = first[index]
    return first, second


@st.composite
def examples(draw: st.DrawFn) -> Example:
    seat = draw(st.sampled_from(SEATS))
    foe = "south" if seat == "north" else "north"
    base = draw(bases())
    twin = draw(unseen_changes(base, seat))
    phases = _phases(base.phase, 2 * (base.turns - base.turn + 1) - (base.phase is Phase.BID))
    own = draw(letters(phases))
    theirs = _opponent_letters(draw, phases)
    first = World(base, [{foe: lines} for lines in theirs[0]])
    second = World(twin, [{foe: lines} for lines in theirs[1]])
    seed = hashlib.sha256(draw(st.integers(0, 2**16)).to_bytes(4, "big")).digest()
    return Example(seat, first, second, own, seed)
