# SPDX-License-Identifier: GPL-3.0-or-later
"""The contract kit: what every game package must do, checked the same way for every game.

``tests/contract`` runs it over every registered game (and over the fixture
games in ``tests/contract/fixtures``); an outside plugin's author can run it
on his own package with :func:`play_through` and the ``check_*`` functions.

:func:`play_through` plays a whole game in process, as the moderator would but
without mail: a fixed seed per step, the package's demo script answering every
step it owes (its default orders where the package has no demo), the orders
parsed, then the stored normalised lines parsed again before ``resolve``
(exactly what ``services.turns`` does). Every step is recorded, so each
property is a separate, cheap check over the record.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Game, Line, Outcome, Parsed, Setup, Step, StepKind
from mailbot.core.options import OptionProblem
from mailbot.registry import GamePackage, Registry
from mailbot.render.templates import Renderer
from mailbot.services.base.gamedata import data_root, read_tree
from mailbot.services.base.gameoptions import game_options

#: a game that has not ended after this many steps is taken to be stuck
MAX_STEPS = 400


class ContractViolation(AssertionError):
    """A game package breaks the plugin contract; the message says where."""


@dataclass(frozen=True)
class StepRecord:
    """One step as played: what was open, what each seat sent, and what came of it."""

    step: Step
    before: dict[str, Any]  # the state's dump when the step opened
    sent: dict[str, list[str]]  # seat -> the lines its script wrote
    parsed: dict[str, Parsed[Any]]  # seat -> parse of those lines
    defaults: dict[str, list[str]]  # seat -> default_orders
    orders: dict[str, list[str]]  # seat -> the normalised lines resolved
    outcome: Outcome[Any]
    seed: bytes


@dataclass
class PlayLog:
    package: GamePackage
    setup: Setup
    start: dict[str, Any]
    steps: list[StepRecord] = field(default_factory=list)
    finished: bool = False


def step_seed(key: str) -> bytes:
    """A fixed 32-byte seed per step key, so two plays of the same game roll the same dice."""
    return hashlib.sha256(f"contract:{key}".encode()).digest()


def lines_of(body: str, step: Step) -> list[str]:
    """The order lines of a scripted letter: its ORDERS ... END block, or its SEAL lines as stored."""
    lines: list[str] = []
    inside = False
    for raw in body.splitlines():
        words = raw.split()
        head = words[0].upper() if words else ""
        if head == "SEAL" and len(words) == 3:
            lines.append(f"{words[1].upper()} {words[2]}")
        elif head == "ORDERS":
            inside = True
        elif head == "END":
            inside = False
        elif inside and raw.strip():
            lines.append(raw.strip())
    return lines


def numbered(lines: Sequence[str]) -> list[Line]:
    return [Line(n, text) for n, text in enumerate(lines, 1)]


def report_env(registry: Registry) -> Environment:
    """The moderator's own template environment (its loader, StrictUndefined, HTML autoescape)."""
    return Renderer(registry=registry).env


def render_report(env: Environment, package: GamePackage, view: Mapping[str, Any], kind: str) -> str:
    return env.get_template(f"{package.name}/report.{kind}.j2").render(r=view)


def package_data(package: GamePackage) -> dict[str, Any]:
    """The package's data files as the moderator hands them to ``new_game`` in ``Setup.data``
    (``data/a/b.toml`` as ``["a"]["b"]``), read as installed: for a no-leak kit's base states."""
    return read_tree(data_root(package))


def new_setup(package: GamePackage) -> Setup:
    demo = package.demo
    data = package_data(package)
    scenarios = sorted(data.get("scenarios", {})) or ["standard"]
    scenario = demo.scenario if demo else scenarios[0]
    seats = package.game.seats(scenario, data)
    # The options as a game created by the GM gets them: the demo's, and the declared defaults.
    return Setup(scenario, seats, game_options(package.game, demo.options if demo else {}), data)


@dataclass
class _Table:
    """What the in-process players share: the templates, the log, and how often each seat answered."""

    env: Environment
    log: PlayLog
    answered: dict[str, int] = field(default_factory=dict)

    def letter(self, state: Any, events: Sequence[Event], seat: str, step: Step) -> str:
        """What a player reads before answering: his report and the step he owes."""
        package = self.log.package
        text = render_report(self.env, package, package.game.view(state, events, seat), "txt")
        verb = (
            f"SEAL <label> <value> for {step.key}" if step.kind is StepKind.SEALED else f"ORDERS {step.key}"
        )
        return f"{text}\nNow open: {step.title}\nYou owe orders for this step.\nSend: {verb}\n"

    def answers(self, state: Any, events: Sequence[Event], step: Step) -> dict[str, list[str]]:
        game, demo = self.log.package.game, self.log.package.demo
        sent: dict[str, list[str]] = {}
        for seat in sorted(step.owing):
            if demo is None:
                sent[seat] = list(game.default_orders(state, seat))
                continue
            n = self.answered.get(seat, 0)
            body = demo.answer(seat, step.key, step.kind.value, n, self.letter(state, events, seat, step))
            sent[seat] = lines_of(body, step)
            self.answered[seat] = n + 1
        return sent

    def play_step(self, state: Any, events: Sequence[Event], step: Step) -> StepRecord:
        game = self.log.package.game
        sent = self.answers(state, events, step)
        parsed = {seat: game.parse(state, seat, numbered(lines)) for seat, lines in sent.items()}
        defaults = {seat: list(game.default_orders(state, seat)) for seat in sorted(step.owing)}
        # A seat whose letter held nothing accepted gets its defaults, as at a deadline.
        orders = {seat: list(parsed[seat].normalised) or defaults[seat] for seat in sorted(step.owing)}
        outcome = resolve_step(game, state, orders, step.key)
        return StepRecord(
            step, game.dump(state), sent, parsed, defaults, orders, outcome, step_seed(step.key)
        )


def resolve_step(
    game: Game[Any, Any], state: Any, orders: Mapping[str, Sequence[str]], key: str
) -> Outcome[Any]:
    """Resolve as the moderator does: parse the stored normalised lines, dice keyed by seed and digest."""
    dice = DiceStream(step_seed(key), order_digest({s: list(o) for s, o in orders.items()}), key)
    parsed = {seat: game.parse(state, seat, numbered(lines)).orders for seat, lines in orders.items()}
    return game.resolve(state, parsed, dice=dice)


def play_through(package: GamePackage, registry: Registry, *, max_steps: int = MAX_STEPS) -> PlayLog:
    """Play a whole game in process with the package's demo script; see the module docstring."""
    game, env = package.game, report_env(registry)
    setup = new_setup(package)
    state = game.new_game(setup, dice=DiceStream(step_seed("setup"), order_digest({}), "setup"))
    log = PlayLog(package, setup, game.dump(state))
    table = _Table(env, log)
    events: Sequence[Event] = ()
    stop_after = package.demo.stop_after if package.demo else None
    while len(log.steps) < max_steps:
        step = game.step(state)
        if step is None:
            log.finished = True
            return log
        record = table.play_step(state, events, step)
        log.steps.append(record)
        state, events = record.outcome.state, record.outcome.events
        if record.outcome.finished:
            log.finished = True
            return log
    if stop_after is None:
        raise ContractViolation(f"{package.name}: no end after {max_steps} steps")
    return log


# -- the checks ---------------------------------------------------------------------------


def _protocol_members() -> dict[str, inspect.Signature]:
    members = {}
    for name, value in vars(Game).items():
        if callable(value) and not name.startswith("_"):
            members[name] = inspect.signature(value)
    return members


def check_protocol(package: GamePackage) -> None:
    """Every protocol method is there with the protocol's parameters (names, kinds, order)."""
    game = package.game
    for attr in ("name", "aliases", "title", "hidden_information"):
        if not hasattr(game, attr):
            raise ContractViolation(f"{package.module}: GAME has no {attr}")
    for name, wanted in _protocol_members().items():
        method = getattr(game, name, None)
        if method is None or not callable(method):
            raise ContractViolation(f"{package.module}: GAME has no method {name}")
        got = [(p.name, p.kind) for p in inspect.signature(method).parameters.values()]
        expected = [(p.name, p.kind) for p in list(wanted.parameters.values())[1:]]
        if got != expected:
            raise ContractViolation(
                f"{package.module}: {name}{inspect.signature(method)} differs from {wanted}"
            )


def _check_reparse(log: PlayLog, which: str) -> None:
    """Each recorded set of lines (``orders`` or ``defaults``) parses back to itself without a problem."""
    game = log.package.game
    for record in log.steps:
        state = game.load(record.before)
        for seat, lines in getattr(record, which).items():
            again = game.parse(state, seat, numbered(lines))
            if again.problems or list(again.normalised) != lines:
                raise ContractViolation(
                    f"{log.package.name} {record.step.key} {seat}: {which} {lines} re-parsed as "
                    f"{list(again.normalised)} with problems {[p.reason for p in again.problems]}"
                )


def check_normalised_round_trip(log: PlayLog) -> None:
    """``parse`` accepts its own normalised lines unchanged (what the moderator stores and re-parses)."""
    _check_reparse(log, "orders")


def check_defaults_parse(log: PlayLog) -> None:
    """Default orders parse without a problem and echo unchanged."""
    _check_reparse(log, "defaults")


def _fingerprint(game: Game[Any, Any], outcome: Outcome[Any]) -> str:
    events = [
        (e.kind, e.text, sorted(e.audience), json.dumps(e.data, sort_keys=True, default=str))
        for e in outcome.events
    ]
    body = {
        "state": game.dump(outcome.state),
        "events": events,
        "finished": outcome.finished,
        "result": outcome.result,
    }
    return json.dumps(body, sort_keys=True, default=str)


def check_deterministic(log: PlayLog) -> None:
    """The same state, orders and dice give the same state and events, from a loaded copy of the state."""
    game = log.package.game
    for record in log.steps:
        again = resolve_step(game, game.load(record.before), record.orders, record.step.key)
        if _fingerprint(game, again) != _fingerprint(game, record.outcome):
            raise ContractViolation(f"{log.package.name} {record.step.key}: resolve is not deterministic")


def check_dump_load(log: PlayLog) -> None:
    """``dump`` is JSON and ``load`` gives it back: dump(load(dump(s))) == dump(s) at every step."""
    game = log.package.game
    for record in log.steps:
        dumped = game.dump(record.outcome.state)
        text = json.dumps(dumped, sort_keys=True)
        if json.dumps(game.dump(game.load(json.loads(text))), sort_keys=True) != text:
            raise ContractViolation(f"{log.package.name} {record.step.key}: dump/load does not round-trip")


def check_templates(log: PlayLog, registry: Registry) -> None:
    """The report renders for every seat and the referee, text and HTML, at the start and after every step."""
    env, game = report_env(registry), log.package.game
    moments: list[tuple[Any, Sequence[Event]]] = [(game.load(log.start), ())]
    moments += [(r.outcome.state, r.outcome.events) for r in log.steps]
    for state, events in moments:
        for seat in (*log.setup.seats, None):
            for kind in ("txt", "html"):
                if not render_report(env, log.package, game.view(state, events, seat), kind).strip():
                    raise ContractViolation(f"{log.package.name}: empty {kind} report for {seat}")


def check_demo_orders_accepted(log: PlayLog) -> None:
    """The demo players' lines are all accepted: a demo that is refused shows nothing."""
    for record in log.steps:
        for seat, parsed in record.parsed.items():
            if parsed.problems:
                reasons = "; ".join(f"{p.text!r}: {p.reason}" for p in parsed.problems)
                raise ContractViolation(f"{log.package.name} {record.step.key} {seat}: {reasons}")


def check_declarations(package: GamePackage) -> None:
    """What the package declares holds: each option's default passes the option's own rule, and
    the scenario a game is created with when the GM names none is one the game knows."""
    for option in getattr(package.game, "options", ()):
        if option.default is None:
            continue
        read = option.read(option.default)
        if isinstance(read, OptionProblem):
            raise ContractViolation(
                f"{package.module}: option {option.name}'s default is refused: {read.reason}"
            )
    try:
        package.game.seats(package.default_scenario, package_data(package))
    except Exception as exc:  # a GameError, or any fault: either way no game could be created
        raise ContractViolation(
            f"{package.module}: the default scenario {package.default_scenario!r} cannot be set up: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


#: how many bad lines ``check_parse_never_raises`` tries at the most (spread over the game)
BAD_LINES_MAX = 3_000


def bad_lines(lines: Sequence[str]) -> list[str]:
    """Lines a player might send instead of ``lines``: each one cut short word by word, with a
    word too many, with its numbers out of range; and lines that are nothing like orders."""
    made: dict[str, None] = dict.fromkeys(["?", "-", "0", "-1", "99999999999999999999", "x" * 300, "é ü ✓"])
    for line in lines:
        words = line.split()
        for n in range(1, len(words)):
            made[" ".join(words[:n])] = None
        made[f"{line} {words[-1] if words else 'X'}"] = None
        made[" ".join("-1" if word.isdigit() else word for word in words)] = None
        made[" ".join("99999999999999999999" if word.isdigit() else word for word in words)] = None
    return [text for text in made if text.strip()]


def check_parse_never_raises(log: PlayLog) -> None:
    """``parse`` answers a bad line with a problem, never an exception: a letter whose parse raises
    is set aside with no answer to its player. Tried at every step of the demo (spread out when
    the game is long), for every seat that owed orders, on variations of the lines it sent."""
    game = log.package.game
    tries = [
        (record, seat, text)
        for record in log.steps
        for seat in sorted(record.step.owing)
        for text in bad_lines(record.sent.get(seat, []) or record.defaults.get(seat, []))
    ]
    every = max(1, -(-len(tries) // BAD_LINES_MAX))
    states: dict[str, Any] = {}
    for record, seat, text in tries[::every]:
        key = record.step.key
        state = states[key] if key in states else states.setdefault(key, game.load(record.before))
        try:
            game.parse(state, seat, [Line(1, text)])
        except Exception as exc:  # the finding itself
            raise ContractViolation(
                f"{log.package.name} {key} {seat}: parse raised {type(exc).__name__}: {exc} "
                f"on the line {text!r}"
            ) from exc
