# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a seat's lines: ATTACK and DEFEND in the orders step, BID in the bid step.

Lenient in what is read (any case, ``ATT``/``DEF`` abbreviations, a colon
after the word, ``SEAL BID n`` as the players write it), exact in what is
echoed (``ATTACK 2``). ATTACK and DEFEND are one decision, the split of the
turn's three dice, so they are accepted together or not at all: a typo in
one never leaves the other standing with an implied remainder the player did
not choose. ATTACK alone is complete, and its echo says ``DEFEND 0`` so the
player sees that the unspent dice are wasted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from mailbot.core.game import Accepted, Line, Parsed, Problem, ProblemKind
from mailbot.games.duel.state import Phase, Split

DICE_PER_TURN = 3
MAX_BID = 3


@dataclass(frozen=True)
class Attack:
    dice: int


@dataclass(frozen=True)
class Defend:
    dice: int


@dataclass(frozen=True)
class Bid:
    points: int


DuelOrder = Attack | Defend | Bid

WORDS: dict[str, str] = {
    "ATTACK": "ATTACK",
    "ATT": "ATTACK",
    "ATK": "ATTACK",
    "DEFEND": "DEFEND",
    "DEF": "DEFEND",
    "DEFENCE": "DEFEND",
    "DEFENSE": "DEFEND",
    "BID": "BID",
}
RANGES: dict[str, tuple[int, int]] = {"ATTACK": (1, 3), "DEFEND": (0, 3), "BID": (0, MAX_BID)}
MEANING: dict[str, str] = {
    "ATTACK": "dice rolled at your opponent",
    "DEFEND": "dice that cancel hits",
    "BID": "hit points bid for the initiative",
}
SPLIT_WORDS = ("ATTACK", "DEFEND")


@dataclass(frozen=True)
class Context:
    """What a letter is read against: the open step."""

    phase: Phase
    turn: int


@dataclass(frozen=True)
class _Reading:
    """One line on its way to an accepted order or a problem."""

    line: int
    text: str
    keyword: str = ""  # "" when the line is not understood
    number: int = 0
    refusal: tuple[ProblemKind, str] | None = None

    @property
    def ok(self) -> bool:
        return self.refusal is None


def normalise(order: DuelOrder) -> str:
    """The exact line echoed, stored and hashed; ``parse`` reads it back unchanged."""
    if isinstance(order, Attack):
        return f"ATTACK {order.dice}"
    if isinstance(order, Defend):
        return f"DEFEND {order.dice}"
    return f"BID {order.points}"


def _words(text: str) -> tuple[str, list[str]]:
    words = text.replace(":", " ").split()
    if not words:  # a line of colons
        return "", []
    if len(words) > 1 and words[0].upper() == "SEAL" and words[1].upper() == "BID":
        words = words[1:]  # "SEAL bid 2" as written for the seal box
    return WORDS.get(words[0].upper(), ""), words[1:]


def _wrong_step(keyword: str, context: Context) -> str | None:
    if context.phase is Phase.ORDERS and keyword == "BID":
        return f"bids are sealed after the orders, in step T{context.turn}.bid (SEAL bid n)"
    if context.phase is Phase.BID and keyword != "BID":
        return (
            f"turn {context.turn}'s ATTACK and DEFEND are already in: "
            "this step takes only your initiative bid (SEAL bid n)"
        )
    return None


def _number(args: list[str]) -> int | None:
    if len(args) != 1 or not (args[0].isascii() and args[0].isdigit()):
        return None
    # A long digit string is out of range anyway; int() of thousands of digits would raise.
    digits = args[0].lstrip("0") or "0"
    return int(digits) if len(digits) <= 3 else 1000


def _read(line: Line, context: Context) -> _Reading:
    text = line.text.strip()
    keyword, args = _words(text)
    if not keyword:
        hint = "BID n" if context.phase is Phase.BID else "ATTACK n and DEFEND n"
        return _Reading(line.number, text, refusal=(ProblemKind.INVALID, f"not a duel order: use {hint}"))
    wrong = _wrong_step(keyword, context)
    if wrong:
        return _Reading(line.number, text, keyword, refusal=(ProblemKind.ILLEGAL, wrong))
    low, high = RANGES[keyword]
    number = _number(args)
    if number is None:
        usage = f"{keyword} takes one number, {low} to {high} ({MEANING[keyword]}), e.g. {keyword} {high - 1}"
        return _Reading(line.number, text, keyword, refusal=(ProblemKind.INVALID, usage))
    if not low <= number <= high:
        shown = args[0] if len(args[0]) <= 6 else "so many"  # the reason is quoted back in a reply
        reason = f"{keyword} is {low} to {high} {MEANING[keyword]}, not {shown}"
        return _Reading(line.number, text, keyword, refusal=(ProblemKind.ILLEGAL, reason))
    return _Reading(line.number, text, keyword, number)


def _refuse_repeats(readings: list[_Reading]) -> list[_Reading]:
    """A word given twice cannot be settled by guessing which line the player meant."""
    lines: dict[str, list[int]] = {}
    for reading in readings:
        if reading.keyword:
            lines.setdefault(reading.keyword, []).append(reading.line)
    # One text per word, naming a few lines: listing every line on every line made a
    # reply grow with the square of the letter (issue 13).
    where = {word: _where(given) for word, given in lines.items() if len(given) > 1}
    return [_ambiguous(reading, where.get(reading.keyword)) for reading in readings]


def _where(given: list[int], shown: int = 5) -> str:
    listed = ", ".join(str(number) for number in given[:shown])
    return listed + (f" and {len(given) - shown} more" if len(given) > shown else "")


def _ambiguous(reading: _Reading, where: str | None) -> _Reading:
    if not reading.ok or where is None:
        return reading  # a refused line keeps its own, more precise reason
    reason = f"{reading.keyword} is given on lines {where}: send it once, so that it is clear which counts"
    return replace(reading, refusal=(ProblemKind.AMBIGUOUS, reason))


def _split_refusal(split: list[_Reading]) -> str | None:
    """Why the ATTACK/DEFEND lines cannot stand together, if they cannot."""
    refused = [reading for reading in split if not reading.ok]
    if refused:
        return f"ATTACK and DEFEND count only together, and line {refused[0].line} was refused"
    numbers = {reading.keyword: reading.number for reading in split}
    if "ATTACK" not in numbers:
        return "DEFEND needs an ATTACK line too: every turn attacks with 1 to 3 dice"
    total = numbers["ATTACK"] + numbers.get("DEFEND", 0)
    if total > DICE_PER_TURN:
        return (
            f"ATTACK {numbers['ATTACK']} + DEFEND {numbers.get('DEFEND', 0)} is {total} dice: "
            f"you have {DICE_PER_TURN} a turn"
        )
    return None


def _check_split(readings: list[_Reading]) -> list[_Reading]:
    split = [reading for reading in readings if reading.keyword in SPLIT_WORDS]
    reason = _split_refusal(split) if split else None
    if reason is None:
        return readings
    return [
        replace(reading, refusal=(ProblemKind.ILLEGAL, reason))
        if reading.ok and reading.keyword in SPLIT_WORDS
        else reading
        for reading in readings
    ]


def _order(reading: _Reading) -> DuelOrder:
    if reading.keyword == "ATTACK":
        return Attack(reading.number)
    if reading.keyword == "DEFEND":
        return Defend(reading.number)
    return Bid(reading.number)


def _accepted(readings: list[_Reading]) -> tuple[Accepted[DuelOrder], ...]:
    accepted: list[Accepted[DuelOrder]] = []
    for reading in readings:
        if reading.ok:
            order = _order(reading)
            accepted.append(Accepted(reading.line, normalise(order), order))
    if any(isinstance(a.order, Attack) for a in accepted) and not any(
        isinstance(a.order, Defend) for a in accepted
    ):
        # Numbered as the ATTACK line that implies it: the player wrote no line of its own.
        attack = next(a for a in accepted if isinstance(a.order, Attack))
        at = accepted.index(attack) + 1
        accepted.insert(at, Accepted(attack.line, normalise(Defend(0)), Defend(0)))
    return tuple(accepted)


def parse_lines(lines: Sequence[Line], context: Context) -> Parsed[DuelOrder]:
    """Every non-blank line becomes an accepted order or a problem; never raises on player input."""
    readings = [_read(line, context) for line in lines if line.text.strip()]
    readings = _refuse_repeats(readings)
    if context.phase is Phase.ORDERS:
        readings = _check_split(readings)
    problems = tuple(
        Problem(reading.line, reading.text, *reading.refusal)
        for reading in readings
        if reading.refusal is not None
    )
    return Parsed(_accepted(readings), problems)


def split_of(orders: Sequence[DuelOrder]) -> Split | None:
    """The turn's split from accepted orders; ``None`` when there is no ATTACK (the seat sent nothing)."""
    attack = next((order.dice for order in orders if isinstance(order, Attack)), None)
    if attack is None:
        return None
    defend = next((order.dice for order in orders if isinstance(order, Defend)), 0)
    return Split(attack, defend)


def bid_of(orders: Sequence[DuelOrder]) -> int | None:
    return next((order.points for order in orders if isinstance(order, Bid)), None)
