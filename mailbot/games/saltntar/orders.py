# SPDX-License-Identifier: GPL-3.0-or-later
"""Order lines for Salt'n'Tar, one order a line, any case.

::

    TURN <ship> +1 | -1 | +2 | -2 | 0 | TO <point>
    TURN <ship> <first> <second>      naval-combat turns: -1, 0 or +1 per half move
    LUCK [<ship>]                     the side's luck die, for one ship or (no ship) all of them
    REEF | UNREEF | FURL | SET SAIL | ANCHOR | WEIGH [<ship>]

Naval-combat turns take three letters (``PHASE_VERBS``): the opening step
(TURN with one or two changes, LUCK), the missile step (``FIRE <ship>
<what>``, ``SPELL <ship> <what>``, and ``TURN <ship> <-1|0|+1>`` to change
the second half move) and the closing step (``RAM <ship> <target> [<what>]``,
``BOARD ...``, ``ACTION <ship> <what>``, ``RESULT <what>`` and the
maneuvers). The moderator records the declarations and results; the combat
itself is the group's own system.

A ship may be named by an unambiguous beginning of its name, and left out
when the side has one ship afloat. ``TO`` takes a point's number or its
compass name (``TO 3``, ``TO NE``). A change may also be written in words: the
seed's "clockwise" and "counter clockwise", a helmsman's starboard and port
(``TURN Swallow to starboard`` is ``TURN Swallow +1``, ``two points to port``
is ``-2``). Text after ``#`` is a comment. Each ship
takes one TURN and one maneuver a turn, each side one LUCK ("Each side may
roll a luck die"); a second such line is refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mailbot.core.game import Accepted, Line, Parsed, Problem, ProblemKind
from mailbot.games.saltntar import maneuvers
from mailbot.games.saltntar.state import CLOSE, FIRE, OPENING, Ship, State

_SIGNED = re.compile(r"^[+-]\d+$")


@dataclass(frozen=True)
class TurnOrder:
    ship: str
    changes: tuple[int, ...]  # points clockwise, one per (half) move
    text: str


@dataclass(frozen=True)
class LuckOrder:
    ship: str | None  # None: every ship of the side
    text: str


@dataclass(frozen=True)
class ManeuverOrder:
    ship: str
    kind: str  # a maneuvers constant
    text: str


@dataclass(frozen=True)
class DeclareOrder:
    """Naval combat: a declaration the group's own combat system resolves; the moderator records it.

    ``kind``: FIRE or SPELL (missile attacks and spells, between the half
    moves), RAM, BOARD or ACTION (after the second half move), RESULT (the
    outcome the group's system gave, recorded in the game's history).
    """

    kind: str
    ship: str | None  # None for RESULT
    target: str
    text: str
    words: str = ""  # the free text of the declaration


Order = TurnOrder | LuckOrder | ManeuverOrder | DeclareOrder

#: which orders each part of the turn takes ("" is a racing turn)
PHASE_VERBS = {
    "": ("TURN", "LUCK", *maneuvers.WORDS.values()),
    OPENING: ("TURN", "LUCK"),
    FIRE: ("TURN", "FIRE", "SPELL"),
    CLOSE: ("RAM", "BOARD", "ACTION", "RESULT", *maneuvers.WORDS.values()),
}
PHASE_NAMES = {
    OPENING: "the opening step (luck, first half move)",
    FIRE: "the missile step (missiles, spells, second half move)",
    CLOSE: "the closing step (ramming, boarding, results, maneuvers)",
}


@dataclass(frozen=True)
class Refusal:
    kind: ProblemKind
    reason: str


def _names(ships: Sequence[Ship]) -> str:
    return ", ".join(ship.name for ship in ships) or "none"


def find_ship(state: State, seat: str, word: str) -> Ship | Refusal:
    """The seat's ship called ``word`` (or the only one beginning so)."""
    wanted = word.lower()
    for ship in state.ships:
        if ship.name.lower() == wanted:
            if ship.seat != seat:
                return Refusal(ProblemKind.ILLEGAL, f"{ship.name} is not your ship")
            return ship if ship.afloat else Refusal(ProblemKind.ILLEGAL, f"{ship.name} has sunk")
    own = state.fleet(seat)
    matches = [ship for ship in own if ship.name.lower().startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        return Refusal(ProblemKind.AMBIGUOUS, f"{word!r} could be {_names(matches)}")
    return Refusal(ProblemKind.INVALID, f"no ship of yours called {word!r} (yours: {_names(own)})")


def _only_ship(state: State, seat: str) -> Ship | Refusal:
    own = state.fleet(seat)
    if len(own) == 1:
        return own[0]
    return Refusal(ProblemKind.AMBIGUOUS, f"name the ship: yours are {_names(own)}")


#: a change of heading in words: seed 001 turns the wind "clockwise" and "counter clockwise";
#: a ship turning clockwise on the compass (N to NE) turns to starboard
_WAYS = {
    "STARBOARD": 1,
    "RIGHT": 1,
    "CLOCKWISE": 1,
    "CW": 1,
    "PORT": -1,
    "LARBOARD": -1,
    "LEFT": -1,
    "COUNTERCLOCKWISE": -1,
    "COUNTER-CLOCKWISE": -1,
    "ANTICLOCKWISE": -1,
    "ANTI-CLOCKWISE": -1,
    "CCW": -1,
}
_COUNTS = {"ONE": 1, "A": 1, "AN": 1, "TWO": 2}
_WORDS_HELP = "TURN <ship> +1 (one point to starboard, clockwise), -1 (to port), +2, -2, 0 or TO <point>"


def _is_change(word: str) -> bool:
    upper = word.upper()
    spelt = upper in _WAYS or upper in ("TO", "COUNTER", "ONE", "TWO")
    return spelt or word.isdigit() or bool(_SIGNED.match(word))


def _in_words(args: list[str]) -> list[str] | Refusal | None:
    """Changes written in words ("to starboard", "2 points to port", "counter clockwise") as
    signed numbers, one a phrase; None when no word names a way to turn (numbers, ``TO <point>``)."""
    words = [word.upper() for word in args]
    if not any(word in _WAYS or word == "COUNTER" for word in words):
        return None
    changes, i = [], 0
    while i < len(words):
        count = int(words[i]) if words[i].isdigit() else _COUNTS.get(words[i], 0)
        i += 1 if count else 0
        i += 1 if i < len(words) and words[i] in ("POINT", "POINTS") else 0
        i += 1 if i < len(words) and words[i] in ("TO", "TOWARDS") else 0
        i += 1 if i < len(words) and words[i] == "THE" else 0
        if words[i : i + 2] == ["COUNTER", "CLOCKWISE"]:
            way, i = -1, i + 2
        elif i < len(words) and words[i] in _WAYS:
            way, i = _WAYS[words[i]], i + 1
        else:
            return Refusal(
                ProblemKind.INVALID, f"{' '.join(args)!r} is not a change of heading: {_WORDS_HELP}"
            )
        changes.append(_signed(way * (count or 1)))
    return changes


def _ship_and_rest(
    state: State, seat: str, args: list[str], turning: bool
) -> tuple[Ship | Refusal, list[str]]:
    """Split off the ship named first, or use the side's only ship when none is named."""
    named = args and any(ship.name.lower() == args[0].lower() for ship in state.fleet(seat))
    if not args or (turning and _is_change(args[0]) and not named):
        return _only_ship(state, seat), args
    return find_ship(state, seat, args[0]), args[1:]


def _change(word: str) -> int | Refusal:
    if word == "0" or _SIGNED.match(word):
        return int(word)
    if word.isdigit():
        why = f"{word!r}: write +{word} or -{word} for a change of heading, TO {word} for heading {word}"
        return Refusal(ProblemKind.AMBIGUOUS, why)
    return Refusal(ProblemKind.INVALID, f"{word!r} is not a change of heading: {_WORDS_HELP}")


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _target(state: State, ship: Ship, args: list[str]) -> tuple[int, str] | Refusal:
    """``TO <point>``: the change it takes, and the normalised words."""
    grid = state.grid
    point = grid.point_named(args[1]) if len(args) == 2 else None
    if point is None:
        names = ", ".join(grid.short(p) for p in range(1, grid.points + 1))
        return Refusal(ProblemKind.INVALID, f"TO needs one heading: 1..{grid.points} or {names}")
    change = grid.difference(ship.heading, point)
    if abs(change) > 2:
        away = f"{grid.short(point)} is {abs(change)} points from her heading {grid.short(ship.heading)}"
        return Refusal(ProblemKind.ILLEGAL, f"{away}: at most 2 a turn")
    return change, f"TO {point}"


def _split(total: int) -> tuple[int, ...]:
    """Naval combat: +2 is one point in each half move; +1 turns before the first."""
    return (total // 2, total // 2) if abs(total) == 2 else (total,)


def _combat(values: list[int]) -> tuple[tuple[int, ...], str] | Refusal:
    if len(values) == 1 and abs(values[0]) <= 2:
        changes = _split(values[0])
        return changes, " ".join(_signed(value) for value in changes)
    if len(values) == 2 and all(abs(value) <= 1 for value in values):
        return tuple(values), " ".join(_signed(value) for value in values)
    return Refusal(ProblemKind.ILLEGAL, "one point per half move: TURN <ship> <-1|0|+1> <-1|0|+1>")


def _whole(values: list[int]) -> tuple[tuple[int, ...], str] | Refusal:
    if len(values) != 1:
        return Refusal(ProblemKind.INVALID, "one change per turn (two numbers are for naval-combat turns)")
    if abs(values[0]) > 2:
        return Refusal(ProblemKind.ILLEGAL, "a ship changes direction by at most two points a turn")
    return (values[0],), _signed(values[0])


def _changes(state: State, ship: Ship, args: list[str]) -> tuple[tuple[int, ...], str] | Refusal:
    """The heading changes of a TURN line and their normalised words."""
    if not args:
        return Refusal(ProblemKind.INVALID, "TURN needs a change: +1, -1, +2, -2, 0 or TO <point>")
    spelt = _in_words(args)
    if isinstance(spelt, Refusal):
        return spelt
    args = spelt if spelt is not None else args
    if args[0].upper() == "TO":
        found = _target(state, ship, args)
        if isinstance(found, Refusal):
            return found
        return (_split(found[0]) if state.course.combat else (found[0],)), found[1]
    values = []
    for word in args:
        value = _change(word)
        if isinstance(value, Refusal):
            return value
        values.append(value)
    return _combat(values) if state.course.combat else _whole(values)


def _second_half(state: State, ship: Ship, args: list[str]) -> tuple[tuple[int, ...], str] | Refusal:
    """The missile step's TURN: the second half move's change, one point at most."""
    found = _changes(state, ship, args)
    if isinstance(found, Refusal):
        return found
    if len(found[0]) != 1 or abs(found[0][0]) > 1:
        return Refusal(ProblemKind.ILLEGAL, "the second half move turns one point at most: -1, 0 or +1")
    return found[0], _signed(found[0][0])


def _turn(state: State, seat: str, args: list[str]) -> Order | Refusal:
    ship, rest = _ship_and_rest(state, seat, args, turning=True)
    if isinstance(ship, Refusal):
        return ship
    if ship.anchored:
        return Refusal(ProblemKind.ILLEGAL, f"{ship.name} lies at anchor: WEIGH first")
    if ship.sinks_after is not None:
        return Refusal(ProblemKind.ILLEGAL, f"{ship.name} is sinking: she can only drift or run downwind")
    found = _second_half(state, ship, rest) if state.phase == FIRE else _changes(state, ship, rest)
    if isinstance(found, Refusal):
        return found
    return TurnOrder(ship.name, found[0], f"TURN {ship.name} {found[1]}")


def _luck(state: State, seat: str, args: list[str]) -> Order | Refusal:
    if not args:
        return LuckOrder(None, "LUCK")
    if len(args) > 1:
        return Refusal(ProblemKind.INVALID, "LUCK takes at most one ship")
    ship = find_ship(state, seat, args[0])
    return ship if isinstance(ship, Refusal) else LuckOrder(ship.name, f"LUCK {ship.name}")


def _maneuver(state: State, seat: str, kind: str, args: list[str]) -> Order | Refusal:
    ship, rest = _ship_and_rest(state, seat, args, turning=False)
    if isinstance(ship, Refusal):
        return ship
    if rest:
        return Refusal(ProblemKind.INVALID, f"{maneuvers.WORDS[kind]} takes just a ship")
    why = maneuvers.problem(ship, kind)
    if why is not None:
        return Refusal(ProblemKind.ILLEGAL, why)
    return ManeuverOrder(ship.name, kind, f"{maneuvers.WORDS[kind]} {ship.name}")


_KINDS = {word: kind for kind, word in maneuvers.WORDS.items()} | {"SETSAIL": maneuvers.SET_SAIL}


def _any_ship(state: State, word: str) -> Ship | Refusal:
    """A target: any ship afloat, named in full or by an unambiguous beginning."""
    afloat = [ship for ship in state.ships if ship.afloat]
    exact = [ship for ship in afloat if ship.name.lower() == word.lower()]
    matches = exact or [ship for ship in afloat if ship.name.lower().startswith(word.lower())]
    if len(matches) == 1:
        return matches[0]
    if matches:
        return Refusal(ProblemKind.AMBIGUOUS, f"{word!r} could be {_names(matches)}")
    return Refusal(ProblemKind.INVALID, f"no ship afloat called {word!r}")


def _declare(state: State, seat: str, verb: str, args: list[str]) -> Order | Refusal:
    """FIRE/SPELL/ACTION <ship> <what>; RAM/BOARD <ship> <target> [<what>]; RESULT <what>."""
    if verb == "RESULT":
        words = " ".join(args)
        if not words:
            return Refusal(ProblemKind.INVALID, "RESULT needs the outcome, e.g. RESULT Amazon loses 10 crew")
        return DeclareOrder(verb, None, "", f"RESULT {words}", words)
    if len(args) < 2:
        what = "a target ship" if verb in ("RAM", "BOARD") else "what is done"
        return Refusal(ProblemKind.INVALID, f"{verb} needs your ship and {what}, e.g. {verb} Swallow Amazon")
    ship = find_ship(state, seat, args[0])
    if isinstance(ship, Refusal):
        return ship
    target = ""
    rest = args[1:]
    if verb in ("RAM", "BOARD"):
        found = _any_ship(state, rest[0])
        if isinstance(found, Refusal):
            return found
        if found.name == ship.name:
            return Refusal(ProblemKind.ILLEGAL, f"{ship.name} cannot {verb.lower()} herself")
        target, rest = found.name, rest[1:]
    words = " ".join(rest)
    text = " ".join(part for part in (verb, ship.name, target, words) if part)
    return DeclareOrder(verb, ship.name, target, text, words)


def parse_text(state: State, seat: str, text: str) -> Order | Refusal:
    """One order line (comment and blanks already stripped)."""
    if not state.fleet(seat):
        return Refusal(ProblemKind.ILLEGAL, "you have no ship afloat")
    words = text.split()
    verb, args = words[0].upper(), words[1:]
    if verb == "SET" and args and args[0].upper() == "SAIL":
        verb, args = "SET SAIL", args[1:]
    allowed = PHASE_VERBS.get(state.phase, PHASE_VERBS[""])
    known = {verb for verbs in PHASE_VERBS.values() for verb in verbs} | {"SETSAIL"}
    if verb in known and verb not in allowed and not (verb == "SETSAIL" and "SET SAIL" in allowed):
        where = [PHASE_NAMES[phase] for phase in PHASE_NAMES if verb in PHASE_VERBS[phase]]
        now = PHASE_NAMES.get(state.phase, "a racing turn")
        return Refusal(ProblemKind.ILLEGAL, f"{verb} belongs to {' or '.join(where)}; this is {now}")
    if verb in ("FIRE", "SPELL", "RAM", "BOARD", "ACTION", "RESULT"):
        return _declare(state, seat, verb, args)
    if verb == "TURN":
        return _turn(state, seat, args)
    if verb == "LUCK":
        return _luck(state, seat, args)
    if verb in _KINDS:
        return _maneuver(state, seat, _KINDS[verb], args)
    orders = ", ".join(PHASE_VERBS.get(state.phase, PHASE_VERBS[""]))
    return Refusal(ProblemKind.INVALID, f"unknown order {words[0]!r}; the orders are {orders}")


def _slot(order: Order, seat: str) -> tuple[str, str, str]:
    """What an order uses up, and why a second one is refused."""
    if isinstance(order, TurnOrder):
        return "turn", order.ship, f"a second TURN for {order.ship}: one change of heading a turn"
    if isinstance(order, LuckOrder):
        return "luck", seat, "a second LUCK: each side may roll one luck die a turn"
    if isinstance(order, DeclareOrder):
        if order.kind in ("RAM", "BOARD"):
            return "close", order.ship or "", f"a second RAM or BOARD for {order.ship}: one a turn"
        return "declare", order.text, "the same declaration twice"
    return "maneuver", order.ship, f"a second maneuver for {order.ship}: one a turn"


def parse_orders(state: State, seat: str, lines: Sequence[Line]) -> Parsed[Order]:
    accepted: list[Accepted[Order]] = []
    problems: list[Problem] = []
    used: set[tuple[str, str]] = set()
    for line in lines:
        text = line.text.split("#", 1)[0].strip()
        if not text:
            continue
        result = (
            parse_text(state, seat, text)
            if not state.finished
            else Refusal(ProblemKind.ILLEGAL, "the game is over")
        )
        if not isinstance(result, Refusal):
            slot, key, why = _slot(result, seat)
            if (slot, key) in used:
                result = Refusal(ProblemKind.ILLEGAL, why)
            used.add((slot, key))
        if isinstance(result, Refusal):
            problems.append(Problem(line.number, line.text, result.kind, result.reason))
        else:
            accepted.append(Accepted(line.number, result.text, result))
    return Parsed(tuple(accepted), tuple(problems))
