# SPDX-License-Identifier: GPL-3.0-or-later
"""The Force deck in four parts by Year of Sailing, and what the moderator does with it (seed 000).

The card list is data (``mailbot/games/atlantic_storm/data/decks.toml``): the seed does
not print it. Every shuffle is a Fisher-Yates driven by labelled rolls of
the step's verifiable dice, so a deck's order can be checked once the seed
is revealed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.atlantic_storm.timeline import YEARS

FISHER_YATES = "Fisher-Yates: swap the card at position i with one of positions 1..i"
# What each shuffle fed, for the dice log (seed 000 unless marked as a design decision).
RULE_FIRST = "seed 000: Only the 1940-1943 part of the Force deck is used in 1940"
RULE_HALVE = "seed 000: half of the unplayed and discarded cards (which half: a shuffle)"
RULE_REPLACE = "seed 000: shuffled together ... and replaces the draw pile"
RULE_RESHUFFLE = "design default: an empty draw pile is rebuilt from the discards"
# Used when the edge hands in no deck data: generated ids, sized like the shipped default deck.
DEFAULT_SIZES: dict[int, int] = {1940: 32, 1941: 24, 1942: 24, 1943: 20}


@dataclass(frozen=True)
class DeckPart:
    year: int  # the Year of Sailing: the part joins the draw pile when this year starts
    name: str  # "1941-1943": the years its cards are valid
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Piles:
    """Where every card is: draw pile (top first), discard pile, out of the game, hands."""

    draw: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    hands: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def hand(self, seat: str) -> tuple[str, ...]:
        return self.hands.get(seat, ())


@dataclass(frozen=True)
class Replacement:
    """seed 000: a year's deck part "shuffled together with half of the unplayed and discarded" cards."""

    convoy: int
    part: DeckPart
    pool: int  # unplayed and discarded cards before the replacement
    kept: int  # of which half go into the new draw pile; the rest leave the game


#: the nationality prefixes of ship names ("HMS-Ark-Royal", "USS-Wasp", "FFL-Aconit") a player
#: may leave out, or add, when naming a card: the navies whose ships such a deck holds
SHIP_PREFIXES = frozenset({"HMS", "HMCS", "HMAS", "HMNZS", "USS", "USCGC", "FFL", "ORP", "HNLMS", "HNOMS"})


def card_key(text: str) -> str:
    """How players' spellings are matched: "u 47", "U-47" and "u47" are the same card."""
    return re.sub(r"[^0-9A-Z]", "", text.upper())


def bare_key(text: str) -> str:
    """The card key without a leading nationality prefix: "Ark Royal", "HMS-Ark-Royal" and
    "hms ark royal" are the same ship; "U-47" keeps its U (it is no prefix)."""
    words = [word for word in re.split(r"[^0-9A-Za-z]+", text.upper()) if word]
    if len(words) > 1 and words[0] in SHIP_PREFIXES:
        words = words[1:]
    return "".join(words)


def _part_cards(year: int, table: Mapping[str, Any]) -> tuple[str, ...]:
    """The listed cards, cut or extended with generated ids to ``size`` when one is given."""
    cards = [str(card) for card in table.get("cards", [])]
    size = int(table.get("size", len(cards)))
    prefix = str(table.get("prefix", f"F{year}-"))
    extra = [f"{prefix}{n:02d}" for n in range(len(cards) + 1, size + 1)]
    return tuple([*cards, *extra][:size])


def _part_name(year: int) -> str:
    """The years a part's cards are valid, as the seed names the parts ("the 1941-1943 deck part")."""
    return f"{year}-1943" if year < 1943 else "1943"


def _default_parts() -> tuple[DeckPart, ...]:
    return tuple(
        DeckPart(year.year, _part_name(year.year), _part_cards(year.year, {"size": DEFAULT_SIZES[year.year]}))
        for year in YEARS
    )


def deck_is_default(data: Mapping[str, Any]) -> bool:
    """True when the deck is the shipped stand-in (``default = true``) or generated ids."""
    table = data.get("decks", data)
    return "parts" not in table or bool(table.get("default", False))


def read_parts(data: Mapping[str, Any]) -> tuple[DeckPart, ...]:
    """The deck parts from ``data`` (the decks file itself, or under ``"decks"``)."""
    table = data.get("decks", data)
    if "parts" not in table:
        return _default_parts()
    parts = tuple(
        DeckPart(
            int(part["year"]),
            str(part.get("name", _part_name(int(part["year"])))),
            _part_cards(int(part["year"]), part),
        )
        for part in table["parts"]
    )
    if sorted(part.year for part in parts) != [year.year for year in YEARS]:
        raise GameError("the Force deck needs one part for each of 1940, 1941, 1942 and 1943")
    keys = [card_key(card) for part in parts for card in part.cards]
    if len(set(keys)) != len(keys) or "" in keys:
        raise GameError("Force card ids must be distinct (ignoring case and punctuation) and not empty")
    return tuple(sorted(parts, key=lambda part: part.year))


def shuffle(cards: Sequence[str], dice: Dice, label: str, rule: str) -> tuple[str, ...]:
    """Fisher-Yates with one labelled roll of a d(i) for each position i from the bottom up."""
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = dice.roll(label, i + 1, rule=f"{rule}; {FISHER_YATES}").faces[0] - 1
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def first_draw_pile(parts: Sequence[DeckPart], dice: Dice) -> Piles:
    # seed 000: "Only the 1940-1943 part of the Force deck is used in 1940."
    return Piles(draw=shuffle(parts[0].cards, dice, "deck/C1/shuffle", RULE_FIRST))


def replace_draw_pile(piles: Piles, part: DeckPart, convoy: int, dice: Dice) -> tuple[Piles, Replacement]:
    """seed 000: "the 1941-1943 deck part is shuffled together with half of the unplayed and
    discarded 1940-1943 cards, and replaces the draw pile."

    Which half is chosen by a shuffle of the draw and discard piles together;
    an odd pool keeps the smaller half (the seed does not say). Cards in hand
    stay in hand.
    """
    pool = shuffle((*piles.draw, *piles.discard), dice, f"deck/C{convoy}/halve", RULE_HALVE)
    kept = len(pool) // 2
    draw = shuffle((*part.cards, *pool[:kept]), dice, f"deck/C{convoy}/shuffle", RULE_REPLACE)
    new = replace(piles, draw=draw, discard=(), removed=(*piles.removed, *pool[kept:]))
    return new, Replacement(convoy, part, len(pool), kept)


@dataclass(frozen=True)
class Deal:
    drawn: Mapping[str, tuple[str, ...]]
    reshuffled: int  # discards shuffled into a new draw pile when it ran out (0: none)
    short: Mapping[str, int]  # seats left short when no card was left at all


def _reshuffle(piles: Piles, convoy: int, dice: Dice) -> Piles:
    # The seed is silent on an empty draw pile; the base game's habit is to shuffle the discards.
    return replace(
        piles, draw=shuffle(piles.discard, dice, f"deck/C{convoy}/reshuffle", RULE_RESHUFFLE), discard=()
    )


def deal(piles: Piles, seats: Sequence[str], size: int, convoy: int, dice: Dice) -> tuple[Piles, Deal]:
    """Fill every hand to ``size``, one card at a time round the table, from the top of the draw pile."""
    hands = {seat: piles.hand(seat) for seat in seats}
    drawn: dict[str, list[str]] = {seat: [] for seat in seats}
    reshuffled = 0
    while any(len(hands[seat]) < size for seat in seats):
        if not piles.draw:
            if not piles.discard:
                break
            reshuffled = len(piles.discard)
            piles = _reshuffle(piles, convoy, dice)
        for seat in seats:
            if len(hands[seat]) < size and piles.draw:
                card, rest = piles.draw[0], piles.draw[1:]
                hands[seat] += (card,)
                drawn[seat].append(card)
                piles = replace(piles, draw=rest)
    short = {seat: size - len(hands[seat]) for seat in seats if len(hands[seat]) < size}
    result = Deal({seat: tuple(cards) for seat, cards in drawn.items()}, reshuffled, short)
    return replace(piles, hands=hands), result


def give_up(piles: Piles, seat: str, cards: Sequence[str]) -> Piles:
    """Played and discarded cards both go to the discard pile (the seed's "discarded" cards)."""
    hand = list(piles.hand(seat))
    for card in cards:
        hand.remove(card)
    hands = {**piles.hands, seat: tuple(hand)}
    return replace(piles, discard=(*piles.discard, *cards), hands=hands)
