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
import importlib.metadata
import importlib.util
import json
import os
import site
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from jinja2 import TemplateNotFound

from mailbot.registry import GamePackage, Registry, default_registry, load_package
from mailbot.testing import contract
from mailbot.testing.differential import assert_no_leak, compare_example
from mailbot.testing.purity import check_package


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
    """The package by the name or module path of an installed game (``battleship``,
    ``mypkg.games.battleship``), else by a module path no installed game has; and a registry
    that holds it beside the built-in games.

    Installed games come first, imported from where they are installed: ``python -m mailbot``
    puts the current folder first on the import path, and a folder there named like a game
    (its author's source, a stray ``duel/``) was checked in its place. The current folder is
    searched last while the game is found, so a package only there is still found by its path.
    """
    with _current_folder_last():
        registry = default_registry()
        installed = next((p for p in registry.packages() if p.module == wanted or p.answers_to(wanted)), None)
        if installed is not None:
            return installed, registry
        if _is_module(wanted):
            return load_package(wanted), Registry([*registry.modules, wanted])
        return registry.find(wanted), registry


@contextmanager
def _current_folder_last() -> Iterator[None]:
    """The import path with the current folder's entries moved to its end, for a while."""
    here = Path.cwd().resolve()
    before = list(sys.path)
    current = [entry for entry in before if _names_folder(entry, here)]
    sys.path[:] = [entry for entry in before if entry not in current] + current
    try:
        yield
    finally:
        sys.path[:] = before


def _names_folder(entry: str, folder: Path) -> bool:
    """Whether an import path entry is ``folder`` ("" and "." are the current folder)."""
    try:
        return Path(entry or ".").resolve() == folder
    except (OSError, RuntimeError):  # an entry that cannot be resolved names no folder here
        return False


def source_of(package: GamePackage) -> str:
    """Where the package checked was imported from: check-game says so before its checks."""
    spec = importlib.util.find_spec(package.module)
    origin = spec.origin if spec is not None else None
    return str(Path(origin).parent) if origin else "(no file)"


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


#: how much of a failure a check's line says
SAID_MAX = 1_200


def _run(name: str, check: Callable[[], str]) -> Result:
    try:
        return Result(name, True, check())
    except Exception as exc:  # every failure is reported, the next check still runs
        return Result(name, False, said(exc))


def said(exc: BaseException) -> str:
    """A failure on one line: the exception's type and message, then the example that made it
    fail where Hypothesis found one (its note), without Hypothesis's other notes."""
    text = _cut(" ".join(f"{type(exc).__name__}: {exc}".split()), SAID_MAX * 2 // 3)
    notes = [str(note) for note in getattr(exc, "__notes__", ())]
    example = next((note for note in notes if note.startswith(EXAMPLE_NOTES)), None)
    if example is not None:
        text += " | " + _cut(" ".join(example.split()), SAID_MAX // 3)
    if isinstance(exc, ModuleNotFoundError) and exc.name in TEST_TOOLS:
        text += f" (the checks need the test tools: {test_tools_hint()})"
    if isinstance(exc, TemplateNotFound):
        text += (
            " (a game's report templates are read from the templates/ folder of its package:"
            " a wheel must carry them as package data, see docs/writing-a-game.md, Shipping it)"
        )
    return text


def test_tools_hint() -> str:
    """How to install the checks' test tools: mailbot's ``test`` extra from where mailbot itself was
    installed (a checkout or a wheel). The bare name would not do: ``mailbot`` on PyPI is another
    project, and pip would put it in place of this one."""
    source = _installed_from()
    if source is None:
        return 'pip install "<the mailbot checkout or wheel you installed>[test]"'
    if source.startswith(("/", ".")) or Path(source).exists():
        return f'pip install "{source}[test]"'
    return f'pip install "mailbot[test] @ {source}"'


def _installed_from() -> str | None:
    """The source tree mailbot runs from, else the folder, wheel or URL it was installed from
    (PEP 610 ``direct_url.json``), if known."""
    checkout = Path(__file__).resolve().parents[2]  # mailbot/testing/kit.py in a source tree
    if (checkout / "pyproject.toml").is_file():
        return str(checkout)
    try:
        recorded = importlib.metadata.distribution("mailbot").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return None
    if not recorded:
        return None
    try:
        url = str(json.loads(recorded).get("url", ""))
    except (ValueError, AttributeError):  # a record we cannot read says nothing
        return None
    if url.startswith("file://"):
        return url2pathname(urlparse(url).path)
    return url or None


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


#: how Hypothesis's note on a failure names the example that failed (by version)
EXAMPLE_NOTES = ("Failing test case", "Falsifying example")

#: what the checks import beyond mailbot's own requirements
TEST_TOOLS = frozenset({"hypothesis", "mypy"})


def contract_checks(package: GamePackage, registry: Registry) -> Iterator[Result]:
    """The plugin contract: protocol, a whole demo game, round trips, determinism, templates."""
    yield _run("protocol", _quiet(contract.check_protocol, package))
    yield _run("rules are pure (no I/O, clock or global random)", lambda: _pure(package))
    yield _run("options and default scenario", _quiet(contract.check_declarations, package))
    played: list[contract.PlayLog] = []

    def play() -> str:
        played.append(contract.play_through(package, registry))
        log = played[0]
        return f"{len(log.steps)} steps, {'to the end' if log.finished else 'stopped by the demo'}"

    yield _run("a demo game played through", play)
    for name, check in PLAYED_CHECKS:
        if played:
            yield _run(name, _quiet(check, played[0], registry))
        else:  # each is named, so that a failed play does not hide how many checks were not run
            yield Result(name, False, "not run: it reads the demo game, which could not be played")


#: the checks that read the game the demo played, in order
PLAYED_CHECKS: tuple[tuple[str, Callable[[contract.PlayLog, Registry], None]], ...] = (
    ("the demo's orders accepted", lambda log, _: contract.check_demo_orders_accepted(log)),
    ("normalised orders parse unchanged", lambda log, _: contract.check_normalised_round_trip(log)),
    ("default orders parse", lambda log, _: contract.check_defaults_parse(log)),
    ("bad lines are answered, never raised", lambda log, _: contract.check_parse_never_raises(log)),
    ("resolve is deterministic", lambda log, _: contract.check_deterministic(log)),
    ("dump and load round trip", lambda log, _: contract.check_dump_load(log)),
    ("templates render for every seat", contract.check_templates),
)


def _pure(package: GamePackage) -> str:
    """The purity check of the project's own games (``tools/check_layers.py``) over the
    package's files, its no-leak kit and map drawer left out."""
    problems = check_package(package.module)
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise contract.ContractViolation(f"{len(problems)} problem(s): {shown}")
    return ""


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
        verdict = compare_example(worlds.PACKAGE, env, example, worlds.observed)
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
    """``mypy --strict`` over the package by module name (``-p``), against mailbot's shipped types.

    By module, not by folder: mypy given a folder inside site-packages takes site-packages for
    a source root, and its installed modules then shadow the library's own
    (``typing_extensions.py``). A package installed in a site folder is checked as installed,
    which PEP 561 allows only with a ``py.typed`` file in it (mailbot ships one); a package
    elsewhere (a source tree on the path, an editable install) is checked as source, its root
    given as ``MYPYPATH`` (and so is mailbot's, run from a source tree). mypy runs in an empty
    folder, and its cache goes to the user's cache folder, not the folder check-game was
    started in."""
    try:
        from mypy import api
    except ImportError:
        return Result("mypy --strict", False, f"mypy is not installed ({test_tools_hint()})")
    with _current_folder_last():  # the package find() takes, not a folder of its name here
        roots = [_root_of(module) for module in (package.module, "mailbot")]
    sources = [root for root in dict.fromkeys(roots) if root is not None and root not in _site_folders()]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").absolute() / "mailbot" / "mypy"
    arguments = ["--strict", "--no-error-summary", "--cache-dir", str(cache), "-p", package.module]
    with _mypy_path(sources), _in_empty_folder():
        out, err, status = api.run(arguments)
    if status == 0:
        return Result("mypy --strict", True, package.module)
    return Result("mypy --strict", False, _mypy_said(package.module, (out + err).splitlines()))


def _root_of(module: str) -> Path | None:
    """The folder the module's top-level package stands in (an entry of the import path)."""
    spec = importlib.util.find_spec(module.partition(".")[0])
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve().parent


def _site_folders() -> set[Path]:
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    return {Path(folder).resolve() for folder in folders}


@contextmanager
def _in_empty_folder() -> Iterator[None]:
    """An empty current folder for a while: mypy looks for a module in the folder it runs in
    before site-packages, so a folder there named like an installed package was type-checked in
    its place (and the folder's mypy settings read)."""
    before = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="mailbot-check-game-") as empty:
        os.chdir(empty)
        try:
            yield
        finally:
            os.chdir(before)


@contextmanager
def _mypy_path(roots: list[Path]) -> Iterator[None]:
    """``MYPYPATH`` set to ``roots`` while mypy runs in this process (it reads it at the start)."""
    before = os.environ.get("MYPYPATH")
    if roots:
        os.environ["MYPYPATH"] = os.pathsep.join(str(root) for root in roots)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MYPYPATH", None)
        else:
            os.environ["MYPYPATH"] = before


def _mypy_said(module: str, output: list[str]) -> str:
    lines = [line for line in output if line.strip()]
    if any("missing py.typed marker" in line for line in lines):
        return (
            f"{module} has no py.typed file: ship an empty one in the package (PEP 561) so that "
            "mypy checks it as installed"
        )
    errors = [n for n, line in enumerate(lines) if ": error:" in line]
    if not errors:
        return _cut(" ".join(lines), SAID_MAX)
    first = errors[0]
    notes = [line for line in lines[first + 1 : first + 4] if ": note:" in line]
    return f"{len(errors)} error(s); the first: " + " | ".join([lines[first], *notes])


def check_game(wanted: str, *, examples: int = 50, mypy: bool = True) -> list[Result]:
    """Every check of the package ``wanted`` names (:func:`find`)."""
    package, registry = find(wanted)
    return checks(package, registry, examples=examples, mypy=mypy)


def checks(
    package: GamePackage, registry: Registry, *, examples: int = 50, mypy: bool = True
) -> list[Result]:
    """Every check of ``package``, one result each."""
    results = [*contract_checks(package, registry), no_leak(package, registry, examples)]
    if mypy:
        results.append(typecheck(package))
    return results
