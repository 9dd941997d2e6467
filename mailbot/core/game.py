# SPDX-License-Identifier: GPL-3.0-or-later
"""The game plugin contract.

A game is pure rules code: it gets state, orders and a dice stream, and returns
new state plus events tagged with who may see them. It never touches mail, the
database, templates, files or the clock. Tables and scenarios are data files
that the edge loads and hands in through :class:`Setup` (``data``).

Orders travel as text: ``parse`` turns a player's lines into accepted orders,
each with a normalised line that is echoed to the player, stored, hashed into
the dice stream and archived. Before ``resolve`` the moderator parses the
stored normalised lines again, so a plugin's order objects never need a
serialised form of their own. ``parse`` of a normalised line must accept it
unchanged (a test in every game checks this round trip).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from mailbot.core.dice import Dice

#: the plug-in API of this module (docs/writing-a-game.md); the rest is the moderator's own
__all__ = [
    "EVERYONE",
    "OBSERVERS",
    "Accepted",
    "Event",
    "Game",
    "Labelled",
    "Line",
    "Outcome",
    "Parsed",
    "Problem",
    "ProblemKind",
    "Scored",
    "Setup",
    "Spectated",
    "Step",
    "StepKind",
    "Tallied",
    "public_events",
    "refuse_all",
]

StateT = TypeVar("StateT")
OrderT = TypeVar("OrderT")

#: The audience marker for facts every seat may see.
EVERYONE: frozenset[str] = frozenset({"*"})
#: Whom a public report (``Spectated.public_view``) is for: no seat of any game bears the name.
OBSERVERS = "observers"


@dataclass(frozen=True)
class Line:
    """One line of a letter's order block, numbered as the player sees it."""

    number: int
    text: str


class ProblemKind(StrEnum):
    INVALID = "invalid"  # not understood at all (syntax)
    ILLEGAL = "illegal"  # understood, but the rules forbid it now
    AMBIGUOUS = "ambiguous"  # could mean more than one thing


@dataclass(frozen=True)
class Problem:
    """A refused order line; says why without revealing what the seat may not know."""

    line: int
    text: str
    kind: ProblemKind
    reason: str


@dataclass(frozen=True)
class Accepted(Generic[OrderT]):
    line: int
    normalised: str
    order: OrderT


@dataclass(frozen=True)
class Parsed(Generic[OrderT]):
    accepted: tuple[Accepted[OrderT], ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def orders(self) -> tuple[OrderT, ...]:
        return tuple(a.order for a in self.accepted)

    @property
    def normalised(self) -> tuple[str, ...]:
        return tuple(a.normalised for a in self.accepted)


def refuse_all(lines: Sequence[Line], reason: str) -> Parsed[Any]:
    """Every non-blank line refused for one reason (a letter after the end, from a seat not moving)."""
    problems = tuple(
        Problem(line.number, line.text.strip(), ProblemKind.ILLEGAL, reason)
        for line in lines
        if line.text.strip()
    )
    return Parsed(problems=problems)


class StepKind(StrEnum):
    ORDERS = "orders"  # ordinary orders for the turn
    SEALED = "sealed"  # a sealed value per seat (SEAL <label> <value>)
    CHOICE = "choice"  # a short sub-step addressed to some seats


@dataclass(frozen=True)
class Step:
    """What input the game waits for now.

    ``key`` is unique within a game (it names the dice stream, e.g. ``"T3.orders"``);
    ``duration`` overrides the game's deadline rule for short sub-steps.

    ``quiet`` marks a step the moderator may play at once on every owing seat's
    ``default_orders`` (its standing orders), without a letter, when the game's
    quiet-hours option allows (``core.lifecycle.play_quietly``): the game says
    that no seat holds anything new to react to and that the defaults cover the
    step. Judge it from facts EVERY seat knows (the clock, public events): which
    steps get letters is seen by every seat, so a private fact behind it leaks.
    """

    key: str
    turn: int
    kind: StepKind
    owing: frozenset[str]
    title: str
    duration: timedelta | None = None
    seal_labels: tuple[str, ...] = ()
    quiet: bool = False


@dataclass(frozen=True)
class Event:
    """Something that happened, with the seats allowed to learn of it.

    ``audience`` is a set of seat names, or :data:`EVERYONE`. The referee
    (seat ``None`` in ``view``) sees every event.
    """

    kind: str
    text: str
    audience: frozenset[str] = EVERYONE
    data: Mapping[str, Any] = field(default_factory=dict)

    def visible_to(self, seat: str | None) -> bool:
        return seat is None or self.audience == EVERYONE or seat in self.audience


@dataclass(frozen=True)
class Outcome(Generic[StateT]):
    state: StateT
    events: tuple[Event, ...] = ()
    finished: bool = False
    result: str = ""  # the game's end in one line, when finished


@dataclass(frozen=True)
class Setup:
    """Everything a new game is built from; ``data`` holds the game's tables and scenarios."""

    scenario: str
    seats: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)


class Game(Protocol[StateT, OrderT]):
    """What every game plugin provides (see module docstring)."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]
    title: ClassVar[str]
    #: hidden-information games reveal dice seeds only when the game ends
    hidden_information: ClassVar[bool]

    def seats(self, scenario: str, data: Mapping[str, Any]) -> tuple[str, ...]: ...

    def new_game(self, setup: Setup, *, dice: Dice) -> StateT: ...

    def step(self, state: StateT) -> Step | None:
        """The step that is open now; ``None`` once the game is over."""
        ...

    def parse(self, state: StateT, seat: str, lines: Sequence[Line]) -> Parsed[OrderT]:
        """Never raises on bad input: problems are returned as data."""
        ...

    def default_orders(self, state: StateT, seat: str) -> Sequence[str]:
        """Normalised order lines applied when a seat sends nothing by the deadline."""
        ...

    def resolve(
        self, state: StateT, orders: Mapping[str, Sequence[OrderT]], *, dice: Dice
    ) -> Outcome[StateT]: ...

    def view(self, state: StateT, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        """The report model for one seat (``None``: the referee); only what that seat may know."""
        ...

    def order_help(self, state: StateT, seat: str) -> Sequence[str]:
        """Lines explaining the order syntax for the open step, and a pre-filled template."""
        ...

    def dump(self, state: StateT) -> dict[str, Any]: ...

    def load(self, data: Mapping[str, Any]) -> StateT: ...


@runtime_checkable
class Tallied(Protocol):
    """Optional for a game: its battles counted by kind (``{"air": 2, "surface": 1}``), for
    summaries such as ``mailbot demo``'s ``battles:`` line. Counts everyone may know."""

    def tallies(self, state: Any) -> Mapping[str, int]: ...


@runtime_checkable
class Scored(Protocol):
    """Optional for a game: the score when the game ends before its rules end it (a concession,
    a draw by agreement), told to every seat and the GM in the "Game over" letter, as the
    game's own last report would have told it. The game is over: every seat may know it."""

    def standing(self, state: Any) -> Sequence[str]: ...


@runtime_checkable
class Labelled(Protocol):
    """Optional for a game: what one of its turns (``Step.turn``) is called where the moderator
    lists the steps by turn (the archive's index): Atlantic Storm's turn numbers are its selected
    convoys', "Convoy C4 (1940)", not a fourth turn. Without it a turn is "Turn N". The label is
    public: it may say no more than every step's title does."""

    def turn_label(self, turn: int) -> str: ...


def public_events(events: Sequence[Event]) -> list[Event]:
    """The events every seat is told (audience :data:`EVERYONE`): what an observer may read.
    Not ``visible_to`` of some name: an observer is no seat, so no seat's audience is his."""
    return [event for event in events if event.audience == EVERYONE]


@runtime_checkable
class Spectated(Protocol):
    """Optional for a game: the report model an observer gets (OBSERVE, issue 33), rendered with
    the game's own ``report`` templates. It must hold only what EVERY seat knows: no side's
    units, orders, hand, map or seals, and of the events only :func:`public_events`. The no-leak
    harness compares it across twin worlds with every seat's letters. A game without it gives
    its observers the public events of each step, the step that opens and the result."""

    def public_view(self, state: Any, events: Sequence[Event]) -> Mapping[str, Any]: ...
