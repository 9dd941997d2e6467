# SPDX-License-Identifier: GPL-3.0-or-later
"""The differential no-leak harness: worlds a seat cannot tell apart must write it the same letters.

A hidden-information game leaks when something a seat has not observed
changes what the seat is told. The harness tests that directly: take two
worlds that differ only in facts the seat has not observed (the other
sides' unseen units, their orders), send the *same* letters from the seat
in both, resolve every step with the *same* dice, and require every part
of what the seat receives to be identical, step after step:

- the step it is asked for (key, kind, title, whether it owes, deadline
  override, seal labels, whether it is quiet: played without a letter, so
  the timing of letters reveals nothing) and the order help that comes with it;
- the confirmation of its letter: the accepted lines, normalised, and every
  refusal with its reason;
- its report: the view model, and the rendered text and HTML;
- the events it may see (kind, text, data), and the game's end and result;
- what an observer is sent (OBSERVE, issue 33): the public events, and for a game with a
  public report (``core.game.Spectated``) its view and rendered text and HTML. An observer
  knows less than any seat, so two worlds the seat cannot tell apart must write observers
  the same letters too; they are compared with the seat's parts, step after step.

This is what the moderator builds its letters from (confirmations, reports,
STATUS, HISTORY, reminders and subjects are made of these parts), so a
difference here is a difference in some letter.

Hash-like values (a dice commitment, a chain head) differ between worlds by
design and are compared for presence and format only: every run of 40 or
more hexadecimal digits is masked as ``<hex:N>``.

The dice. In play a step's rolls are keyed by its seed and the digest of
every seat's orders, so two worlds with different orders roll different
dice; each roll is still uniform, so the dice alone tell a seat nothing.
The harness couples the worlds instead: one seed per step and one fixed
digest (:data:`FIXED_DIGEST`) for both, so that a difference the harness
finds comes from the rules, not from chance.

When to stop. Two worlds stay indistinguishable only while the differing
facts stay unobserved: once the seat legitimately observes one (a search
sights the extra TF, an enemy interception meets its AF), its letters may
and must differ. Each game says what its seat has observed with an
``observed(state, events, seat)`` function (Flat Top: the side's knowledge
and the contacts the enemy forced on it; the duel: the opened bids and
the counted hits). After each step, if the two worlds' ``observed`` values
differ, the comparison stops there and that step's letters are not
compared; the verdict says so. Until then any difference is a leak. (The
rule is conservative: a leak in the very step that also brings a
legitimate observation is not seen; another example finds it.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Game, Outcome, Parsed, Spectated, Step, public_events
from mailbot.registry import GamePackage
from mailbot.testing.contract import numbered, render_report

#: the orders digest both worlds roll with (see the module docstring: the dice are coupled)
FIXED_DIGEST = order_digest({"differential": ["same dice in both worlds"]})
#: a step's dice seed when the caller gives none
DEFAULT_SEED = b"differential no-leak harness....."[:32]
#: characters shown either side of the first difference in a summary
CONTEXT = 60
_HASHLIKE = re.compile(r"\b[0-9a-fA-F]{40,}\b")

#: what a seat has legitimately observed after a step: ``observed(state, events, seat)``
Observed = Callable[[Any, Sequence[Event], str], object]


def mask_hashes(text: str) -> str:
    """Hash-like values are compared for presence and format (length), not bytes."""
    return _HASHLIKE.sub(lambda m: f"<hex:{len(m.group())}>", text)


def _canonical(value: object) -> str:
    return mask_hashes(json.dumps(value, sort_keys=True, default=str))


@dataclass(frozen=True)
class World:
    """One world: its state, and per step the other seats' order lines (a seat left out, or
    whose lines are all refused, plays its default orders, as at a deadline)."""

    state: Any
    others: Sequence[Mapping[str, Sequence[str]]] = ()

    def orders_of(self, index: int, seat: str) -> Sequence[str]:
        if index >= len(self.others):
            return ()
        return self.others[index].get(seat, ())


@dataclass(frozen=True)
class Example:
    """One example of a game's kit (``examples()``): the seat watched, its two worlds, its own
    letters (one per step) and the dice seed. A kit subclasses it for a ``__repr__`` that says
    what Hypothesis should print of a falsifying example (not whole states)."""

    seat: str
    first: World
    second: World
    letters: list[list[str]]
    seed: bytes


@dataclass(frozen=True)
class Difference:
    """One part of what the seat receives that differs between the worlds."""

    moment: str  # "start" or the step key the part follows or belongs to
    part: str
    first: str
    second: str

    def __str__(self) -> str:
        """Where the two texts part, with a little context (a view is one long JSON line)."""
        a, b = self.first, self.second
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        start = max(0, at - CONTEXT)
        one, two = a[start : at + CONTEXT], b[start : at + CONTEXT]
        return f"{self.moment} {self.part}: first world ...{one!r}... / second world ...{two!r}..."


@dataclass
class Verdict:
    seat: str
    compared: list[str] = field(default_factory=list)  # the moments compared, in order
    differences: list[Difference] = field(default_factory=list)
    stopped: str = ""  # why the comparison ended early (a legitimate observation, the end)

    @property
    def leaked(self) -> bool:
        return bool(self.differences)

    def summary(self) -> str:
        head = f"{len(self.differences)} difference(s) for seat {self.seat!r}"
        lines = [head, *(f"  - {d}" for d in self.differences)]
        if self.stopped:
            lines.append(f"  (stopped: {self.stopped})")
        return "\n".join(lines)


class LeakFound(AssertionError):
    """What a seat receives depends on something it has not observed; the message says what."""


def assert_no_leak(verdict: Verdict) -> None:
    if verdict.leaked:
        raise LeakFound(verdict.summary())


# -- what the seat receives ------------------------------------------------------------


def _step_text(step: Step | None, seat: str) -> str:
    if step is None:
        return "the game is over"
    return _canonical(
        {
            "key": step.key,
            "turn": step.turn,
            "kind": step.kind.value,
            "title": step.title,
            "owes": seat in step.owing,
            "duration": step.duration,
            "seal_labels": list(step.seal_labels),
            "quiet": step.quiet,  # whether a letter comes at all: its timing must not leak either
        }
    )


def confirmation(parsed: Parsed[Any]) -> str:
    """The confirmation letter's content: accepted lines as echoed, and every refusal."""
    return _canonical(
        {
            "accepted": [(a.line, a.normalised) for a in parsed.accepted],
            "refused": [(p.line, p.text, p.kind.value, p.reason) for p in parsed.problems],
        }
    )


def received(
    package: GamePackage, env: Environment, state: Any, events: Sequence[Event], seat: str
) -> dict[str, str]:
    """Every part the seat's letters are made of at this moment (report, step, help, events)."""
    game: Game[Any, Any] = package.game
    step = game.step(state)
    view = game.view(state, events, seat)
    seen = [(e.kind, e.text, e.data) for e in events if e.visible_to(seat)]
    return {
        "step": _step_text(step, seat),
        "order help": "" if step is None else mask_hashes("\n".join(game.order_help(state, seat))),
        "view": _canonical(view),
        "report.txt": mask_hashes(render_report(env, package, view, "txt")),
        "report.html": mask_hashes(render_report(env, package, view, "html")),
        "events": _canonical(seen),
    } | observer_received(package, env, state, events)


def observer_received(
    package: GamePackage, env: Environment, state: Any, events: Sequence[Event]
) -> dict[str, str]:
    """The parts of an observer's letter: the public events, and the game's public report if it has one."""
    game: Game[Any, Any] = package.game
    public = public_events(events)
    parts = {"observer events": _canonical([(e.kind, e.text, e.data) for e in public])}
    if isinstance(game, Spectated):
        view = game.public_view(state, public)
        parts["observer view"] = _canonical(view)
        parts["observer report.txt"] = mask_hashes(render_report(env, package, view, "txt"))
        parts["observer report.html"] = mask_hashes(render_report(env, package, view, "html"))
    return parts


# -- two worlds, step by step -------------------------------------------------------------


@dataclass
class _Twin:
    world: World
    state: Any
    events: Sequence[Event] = ()
    outcome: Outcome[Any] | None = None


def _compare(verdict: Verdict, moment: str, first: Mapping[str, str], second: Mapping[str, str]) -> None:
    verdict.compared.append(moment)
    for part in first:
        if first[part] != second[part]:
            verdict.differences.append(Difference(moment, part, first[part], second[part]))


def _orders(
    game: Game[Any, Any], twin: _Twin, step: Step, index: int, *, seat: str, letter: Sequence[str]
) -> dict[str, list[str]]:
    """The normalised lines resolved for each owing seat (defaults for a seat with none accepted)."""
    orders: dict[str, list[str]] = {}
    for who in sorted(step.owing):
        lines = letter if who == seat else twin.world.orders_of(index, who)
        accepted = list(game.parse(twin.state, who, numbered(list(lines))).normalised)
        orders[who] = accepted or list(game.default_orders(twin.state, who))
    return orders


def _resolve(
    game: Game[Any, Any], twin: _Twin, orders: Mapping[str, Sequence[str]], *, key: str, seed: bytes
) -> None:
    # Exactly what services.turns does: the stored normalised lines are parsed again.
    parsed = {who: game.parse(twin.state, who, numbered(list(lines))).orders for who, lines in orders.items()}
    outcome = game.resolve(twin.state, parsed, dice=DiceStream(seed, FIXED_DIGEST, key))
    twin.outcome, twin.state, twin.events = outcome, outcome.state, outcome.events


def compare_worlds(
    package: GamePackage,
    env: Environment,
    *,
    seat: str,
    first: World,
    second: World,
    letters: Sequence[Sequence[str]],
    observed: Observed,
    seed: bytes = DEFAULT_SEED,
) -> Verdict:
    """Play ``letters`` (one per step: the seat's order lines) in both worlds; see the module docstring.

    The comparison ends at the first difference (everything after it would
    differ too), when the seat observes what tells the worlds apart, when
    the game ends, or when the letters run out.
    """
    game: Game[Any, Any] = package.game
    twins = (_Twin(first, first.state), _Twin(second, second.state))
    verdict = Verdict(seat)
    _compare(verdict, "start", *(received(package, env, t.state, (), seat) for t in twins))
    for index, letter in enumerate(letters):
        if verdict.leaked:
            break
        steps = [game.step(t.state) for t in twins]
        if steps[0] is None or steps[1] is None:
            verdict.stopped = "the game is over"
            break
        step = steps[0]
        if step.owing and seat in step.owing:
            answers = [confirmation(game.parse(t.state, seat, numbered(list(letter)))) for t in twins]
            _compare(verdict, step.key, {"confirmation": answers[0]}, {"confirmation": answers[1]})
        for twin in twins:
            owed = letter if seat in step.owing else ()
            orders = _orders(game, twin, step, index, seat=seat, letter=owed)
            _resolve(game, twin, orders, key=step.key, seed=seed)
        if observed(twins[0].state, twins[0].events, seat) != observed(twins[1].state, twins[1].events, seat):
            verdict.stopped = f"{step.key}: {seat} observed what tells the worlds apart"
            break
        after = [received(package, env, t.state, t.events, seat) for t in twins]
        for part, twin in zip(after, twins, strict=True):
            assert twin.outcome is not None
            part["end"] = _canonical([twin.outcome.finished, twin.outcome.result])
        _compare(verdict, step.key, after[0], after[1])
    return verdict


def compare_example(package: GamePackage, env: Environment, example: Example, observed: Observed) -> Verdict:
    """:func:`compare_worlds` over one example of a game's twin-worlds kit (``worlds.examples()``)."""
    return compare_worlds(
        package, env, seat=example.seat, first=example.first, second=example.second,
        letters=example.letters, observed=observed, seed=example.seed,
    )  # fmt: skip
