# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot check-game``: the checks a game package must pass, run on an installed package.

The same checks the project's own tests run on the built-in games, for a package written
anywhere (an outside author's, installed with pip): the plugin contract (``contract``), the
differential no-leak harness over the twin worlds the package ships in ``worlds.py``
(``differential``) when the game hides information, and ``mypy --strict`` over the package's
source against mailbot's shipped types (``py.typed``). Each check gives one line; the run
fails when any check fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from mailbot.registry import GamePackage, Registry, default_registry, load_package
from mailbot.testing import contract
from mailbot.testing.differential import assert_no_leak, compare_worlds


@dataclass(frozen=True)
class Result:
    """One check: its name, whether it passed, and what it says (the first lines of a failure)."""

    name: str
    passed: bool
    said: str = ""

    def line(self) -> str:
        return f"{'ok    ' if self.passed else 'FAILED'} {self.name}" + (
            f": {self.said}" if self.said else ""
        )


def find(wanted: str) -> tuple[GamePackage, Registry]:
    """The package by module path (``battleship`` or ``mypkg.games.battleship``) or by the name of
    an installed game, and a registry that holds it beside the built-in games."""
    registry = default_registry()
    if _is_module(wanted) and wanted not in registry.modules:
        return load_package(wanted), Registry([*registry.modules, wanted])
    return registry.find(wanted), registry


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _run(name: str, check: Callable[[], str]) -> Result:
    try:
        return Result(name, True, check())
    except Exception as exc:  # every failure is reported, the next check still runs
        lines = [line for line in traceback.format_exception_only(exc)[-1].strip().splitlines() if line]
        return Result(name, False, " ".join(lines)[:600])


def contract_checks(package: GamePackage, registry: Registry) -> Iterator[Result]:
    """The plugin contract: protocol, a whole demo game, round trips, determinism, templates."""
    yield _run("protocol", _quiet(contract.check_protocol, package))
    played: list[contract.PlayLog] = []

    def play() -> str:
        played.append(contract.play_through(package, registry))
        log = played[0]
        return f"{len(log.steps)} steps, {'to the end' if log.finished else 'stopped by the demo'}"

    yield _run("a demo game played through", play)
    if not played:
        return
    log = played[0]
    yield _run("the demo's orders accepted", _quiet(contract.check_demo_orders_accepted, log))
    yield _run("normalised orders parse unchanged", _quiet(contract.check_normalised_round_trip, log))
    yield _run("default orders parse", _quiet(contract.check_defaults_parse, log))
    yield _run("resolve is deterministic", _quiet(contract.check_deterministic, log))
    yield _run("dump and load round trip", _quiet(contract.check_dump_load, log))
    yield _run("templates render for every seat", _quiet(contract.check_templates, log, registry))


def _quiet(check: Callable[..., None], *args: Any) -> Callable[[], str]:
    """A check that says nothing when it passes."""

    def run() -> str:
        check(*args)
        return ""

    return run


def no_leak(package: GamePackage, registry: Registry, examples: int) -> Result:
    """The differential harness over the package's twin worlds (a hidden-information game needs them)."""
    if not package.game.hidden_information:
        return Result("no-leak harness", True, "the game hides nothing: not needed")
    if package.worlds is None:
        return Result("no-leak harness", False, f"a hidden-information game ships no {package.module}.worlds")
    return _run(
        "no-leak harness", lambda: _search(importlib.import_module(package.worlds or ""), registry, examples)
    )


def _search(worlds: ModuleType, registry: Registry, examples: int) -> str:
    from hypothesis import HealthCheck, given, settings  # test tooling: needed only here

    env = contract.report_env(registry)
    compared = 0

    def check(example: Any) -> None:
        nonlocal compared
        compared += 1
        verdict = compare_worlds(
            worlds.PACKAGE, env, seat=example.seat, first=example.first, second=example.second,
            letters=example.letters, observed=worlds.observed, seed=example.seed,
        )  # fmt: skip
        assert_no_leak(verdict)

    run = settings(
        max_examples=examples,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )(given(example=worlds.examples())(check))
    run()
    return f"{compared} pairs of twin worlds, no letter told them apart"


def typecheck(package: GamePackage) -> Result:
    """``mypy --strict`` over the package's source, against mailbot's shipped types."""
    try:
        from mypy import api
    except ImportError:
        return Result("mypy --strict", False, "mypy is not installed (pip install mypy)")
    source = importlib.import_module(package.module).__file__
    folder = str(Path(source or ".").parent)
    out, _err, status = api.run(["--strict", "--no-error-summary", folder])
    errors = [line for line in out.splitlines() if ": error:" in line]
    if status == 0:
        return Result("mypy --strict", True, folder)
    return Result(
        "mypy --strict", False, f"{len(errors)} error(s); the first: {errors[0] if errors else out[:300]}"
    )


def check_game(wanted: str, *, examples: int = 50, mypy: bool = True) -> list[Result]:
    package, registry = find(wanted)
    results = [*contract_checks(package, registry), no_leak(package, registry, examples)]
    if mypy:
        results.append(typecheck(package))
    return results
