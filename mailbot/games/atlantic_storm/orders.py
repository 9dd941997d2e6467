# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a player's report of a convoy's play: ``PLAY <card>``, ``DISCARD <card>``, ``PASS``.

Cards are matched against the writer's own hand only, ignoring case, spaces
and punctuation ("play u 47" is ``PLAY U-47``), with or without a ship's
nationality prefix ("discard Ark Royal" is ``DISCARD HMS-Ark-Royal``, "play
uss wasp" is ``PLAY USS-Wasp``) when only one card of the hand is meant; a
name that fits two is refused naming both. A refusal names the writer's
hand and nothing else: whether a card is in another hand, in the draw pile
or out of the game is never told.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mailbot.core.game import Accepted, Line, Parsed, Problem, ProblemKind
from mailbot.games.atlantic_storm.deck import bare_key, card_key


@dataclass(frozen=True)
class Play:
    card: str


@dataclass(frozen=True)
class Discard:
    card: str


@dataclass(frozen=True)
class Pass:
    """Nothing played and nothing discarded this convoy."""


StormOrder = Play | Discard | Pass

KEYWORDS = {"PLAY": "PLAY", "PLAYS": "PLAY", "DISCARD": "DISCARD", "DISCARDS": "DISCARD", "PASS": "PASS"}


def normalise(order: StormOrder) -> str:
    if isinstance(order, Play):
        return f"PLAY {order.card}"
    if isinstance(order, Discard):
        return f"DISCARD {order.card}"
    return "PASS"


@dataclass(frozen=True)
class Refusal:
    kind: ProblemKind
    reason: str


def _your_hand(hand: Sequence[str]) -> str:
    return f"(your hand: {', '.join(hand)})" if hand else "(your hand is empty)"


def _in_hand(text: str, hand: Sequence[str]) -> str | Refusal:
    """The card of ``hand`` that ``text`` names: spelt as the card (case, spaces and punctuation
    aside), else with the card's nationality prefix left out (or one added to a card without
    any), when one card fits. Another navy's prefix names another ship: "HMS Wasp" is not
    USS-Wasp."""
    key, bare = card_key(text), bare_key(text)
    exact = [card for card in hand if card_key(card) == key]
    found = exact or [card for card in hand if key == bare_key(card) or bare == card_key(card)]
    if len(found) == 1:
        return found[0]
    if found:
        named = f"{text.strip()} could be {' or '.join(found)}"
        return Refusal(ProblemKind.AMBIGUOUS, f"{named}: write the card as in your hand")
    return Refusal(ProblemKind.ILLEGAL, f"{text.strip()} is not in your hand {_your_hand(hand)}")


def _read_card(keyword: str, rest: str, hand: Sequence[str], used: dict[str, int]) -> StormOrder | Refusal:
    if not card_key(rest):
        return Refusal(ProblemKind.INVALID, f"{keyword} names one card of your hand, e.g. {keyword} U-47")
    card = _in_hand(rest, hand)
    if isinstance(card, Refusal):
        return card
    if card in used:
        return Refusal(ProblemKind.ILLEGAL, f"{card} was already given up on line {used[card]}")
    return Play(card) if keyword == "PLAY" else Discard(card)


def _read_line(text: str, hand: Sequence[str], used: dict[str, int]) -> StormOrder | Refusal:
    head, _, rest = text.partition(" ")
    keyword = KEYWORDS.get(head.upper().rstrip(":"), "")
    if keyword == "PASS":
        return Pass() if not rest.strip() else Refusal(ProblemKind.INVALID, "PASS stands alone")
    if keyword:
        return _read_card(keyword, rest, hand, used)
    return Refusal(ProblemKind.INVALID, "not a convoy report: use PLAY <card>, DISCARD <card> or PASS")


def parse_lines(lines: Sequence[Line], hand: Sequence[str]) -> Parsed[StormOrder]:
    """Every line becomes an accepted order or a problem; never raises on player input."""
    accepted: list[Accepted[StormOrder]] = []
    problems: list[Problem] = []
    used: dict[str, int] = {}  # card -> line that gave it up
    for line in lines:
        text = line.text.strip()
        if not text:
            continue
        order = _read_line(text, hand, used)
        if isinstance(order, Refusal):
            problems.append(Problem(line.number, text, order.kind, order.reason))
            continue
        if isinstance(order, Play | Discard):
            used[order.card] = line.number
        accepted.append(Accepted(line.number, normalise(order), order))
    texts = {line.number: line.text.strip() for line in lines}
    return _drop_conflicting_pass(accepted, problems, texts)


def _drop_conflicting_pass(
    accepted: list[Accepted[StormOrder]], problems: list[Problem], texts: dict[int, str]
) -> Parsed[StormOrder]:
    """PASS says "nothing"; next to a PLAY or DISCARD the letter contradicts itself."""
    if all(isinstance(a.order, Pass) for a in accepted):
        return Parsed(tuple(accepted), tuple(problems))
    conflicting = [
        Problem(
            a.line,
            texts[a.line],
            ProblemKind.AMBIGUOUS,
            "PASS next to PLAY or DISCARD: send one or the other",
        )
        for a in accepted
        if isinstance(a.order, Pass)
    ]
    kept = tuple(a for a in accepted if not isinstance(a.order, Pass))
    return Parsed(kept, tuple(sorted((*problems, *conflicting), key=lambda p: p.line)))
