# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm worlds for the differential harness (``mailbot.testing.differential``).

A base state is a 2- or 3-seat game (``2p``, ``3p``) at its first selected convoy or one or two
convoys later (every seat passing), set up with a drawn seed. For one observing seat S,
Hypothesis draws:

- a twin world that differs only in what S has not seen (seed 000 as the moderator runs it:
  "Private to one seat: the cards it draws, discards and holds"): the cards of the other seats'
  hands, redealt among them at the same sizes, three times in four with the draw pile left as
  it is (so S's own next cards are the same and whole convoys are compared), else mixed with
  the draw pile too;
- the other seats' letters in each world, from their hands in that world: PASS, DISCARD
  (private), typos, sometimes PLAY (public: a different play ends the comparison); three times
  in four of the same kinds in both worlds (the counts of discards are public, and a seat that
  gives up more cards draws more, which changes the cards dealt to S);
- S's letters, the same in both worlds: PLAY and DISCARD of its own cards, PASS, and the
  probes: PLAY or DISCARD of a card another seat holds in the first world (the refusal must
  not tell where the card is), and of unknown names; and the dice seed.

What S has observed (:func:`observed`), computed from the state: its own hand, the sheet, the
convoy open, every play (public) and the count of every discard, its own discards, the size of
every hand and pile.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from hypothesis import strategies as st

from mailbot.core.dice import DiceStream
from mailbot.core.game import Event, Setup
from mailbot.games.atlantic_storm.game import AtlanticStormGame
from mailbot.games.atlantic_storm.state import StormState
from mailbot.registry import default_registry
from mailbot.testing import differential
from mailbot.testing.contract import numbered, package_data
from mailbot.testing.differential import World

GAME = AtlanticStormGame()
PACKAGE = default_registry().find("atlantic-storm")
SCENARIOS = ("2p", "3p")


def observed(state: StormState, events: Sequence[Event], seat: str) -> object:
    """What ``seat`` has legitimately learnt (module docstring); ``events`` are not consulted."""
    piles = state.piles
    return (
        piles.hand(seat),
        [(s, len(piles.hand(s))) for s in state.seats],
        (len(piles.draw), len(piles.discard), len(piles.removed)),
        state.sheet,
        state.current,
        [
            (p.convoy, p.seat, p.played, len(p.discarded), p.discarded if p.seat == seat else ())
            for p in state.plays
        ],
    )


# --- base states -----------------------------------------------------------------------


@cache
def _data() -> dict[str, Any]:
    return dict(package_data(PACKAGE))


@cache
def base(scenario: str, setup_seed: int, passes: int) -> StormState:
    seats = GAME.seats(scenario, _data())
    dice = DiceStream(hashlib.sha256(b"storm base %d" % setup_seed).digest(), "", "setup")
    state = GAME.new_game(Setup(scenario, seats, {}, _data()), dice=dice)
    for index in range(passes):
        step = GAME.step(state)
        if step is None:
            break
        orders = {s: GAME.parse(state, s, numbered(["PASS"])).orders for s in seats}
        after = GAME.resolve(state, orders, dice=DiceStream(dice_seed(index), "base", step.key)).state
        if after.finished:
            break
        state = after
    return state


def dice_seed(index: int) -> bytes:
    return hashlib.sha256(b"storm base step %d" % index).digest()


# --- the twin world ---------------------------------------------------------------------


@st.composite
def unseen_changes(draw: st.DrawFn, state: StormState, seat: str) -> StormState:
    """``state`` with only the cards ``seat`` has not seen moved (module docstring)."""
    piles = state.piles
    others = [s for s in state.seats if s != seat]
    with_draw = draw(st.sampled_from([False, False, False, True]))
    pool = [c for s in others for c in piles.hand(s)] + (list(piles.draw) if with_draw else [])
    pool = list(draw(st.permutations(pool)))
    hands = dict(piles.hands)
    for s in others:
        size = len(piles.hand(s))
        hands[s], pool = tuple(pool[:size]), pool[size:]
    draw_pile = tuple(pool) if with_draw else piles.draw
    return replace(state, piles=replace(piles, hands=hands, draw=draw_pile))


# --- letters ----------------------------------------------------------------------------

ODD = ["PASS now", "PLAY", "DISCARD", "PLAY U-99", "hello", "play u 47"]


def _lines(state: StormState, seat: str, *, probes: bool) -> st.SearchStrategy[list[str]]:
    own = [f"{verb} {card}" for card in state.piles.hand(seat) for verb in ("PLAY", "DISCARD")]
    theirs = [c for s in state.seats if s != seat for c in state.piles.hand(s)]
    pool = [*own, "PASS", *ODD]
    if probes and theirs:
        pool += [f"{verb} {card}" for card in theirs for verb in ("PLAY", "DISCARD")]
    return st.lists(st.sampled_from(pool), max_size=3)


#: what another seat's letter does: mostly nothing public (PASS, discards, typos), sometimes a play
KINDS = ["PASS", "DISCARD", "DISCARD", "PLAY", "hello"]


def _fill(draw: st.DrawFn, state: StormState, seat: str, kinds: Sequence[str]) -> list[str]:
    """Another seat's letter of these kinds, with cards from its hand in this world."""
    hand = state.piles.hand(seat)
    carded = ("PLAY", "DISCARD")
    return [f"{kind} {draw(st.sampled_from(hand))}" if kind in carded and hand else kind for kind in kinds]


def _other_letters(draw: st.DrawFn, worlds: Sequence[StormState], seat: str) -> list[list[str]]:
    """One letter per world; three times in four of the same kinds in both (so that the public
    counts agree and the comparison goes on), else drawn apart."""
    kinds = st.lists(st.sampled_from(KINDS), max_size=2)
    shared = draw(kinds)
    same = draw(st.sampled_from([True, True, True, False]))
    return [_fill(draw, w, seat, shared if same else draw(kinds)) for w in worlds]


class Example(differential.Example):
    def __repr__(self) -> str:
        others = [dict(w) for w in self.first.others], [dict(w) for w in self.second.others]
        hands = self.first.state.piles.hands, self.second.state.piles.hands
        return f"Example(seat={self.seat!r}, hands={hands!r}, letters={self.letters!r}, others={others!r})"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


STEPS = 2


@st.composite
def examples(draw: st.DrawFn) -> Example:
    state = base(draw(st.sampled_from(SCENARIOS)), draw(st.integers(0, 7)), draw(st.integers(0, 2)))
    seat = draw(st.sampled_from(state.seats))
    twin = draw(unseen_changes(state, seat))
    own = [draw(_lines(state, seat, probes=True)) for _ in range(STEPS)]
    others = [s for s in state.seats if s != seat]
    letters = [{s: _other_letters(draw, (state, twin), s) for s in others} for _ in range(STEPS)]
    worlds = [[{s: step[s][index] for s in others} for step in letters] for index in (0, 1)]
    number = draw(st.integers(0, 2**16))
    seed = hashlib.sha256(json.dumps([number, seat, own, worlds]).encode()).digest()
    return Example(seat, World(state, worlds[0]), World(twin, worlds[1]), own, seed)
