#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Import-layer check: ``mailbot/core`` and ``mailbot/games`` are pure rules code.

Pure means: no I/O, no clock reads, no global or OS randomness. Time and
randomness are drawn at the edge and passed in (aware datetimes, seeds,
``random.Random`` instances), so every rule is a function of its arguments and
a turn can be replayed and verified. The check parses every ``.py`` file of
the two folders with :mod:`ast` and reports:

* imports of an adapter (any ``mailbot.*`` outside core, games and errors), of
  a third-party package, of a private stdlib module or of a stdlib module that
  does I/O, reads the clock or draws OS entropy (``FORBIDDEN_MODULES``), also
  through relative imports (resolved against the file's package), submodules
  (``import os.path``) and ``importlib.import_module``/``__import__`` with a
  string constant; the same calls with a computed name are "dynamic imports";
* uses of forbidden names, followed through ``import ... as``, ``from ... import
  ... as``, plain assignments (``now = datetime.now``) and ``getattr`` with a
  constant: clock reads (``datetime.now()``, ``date.today()``), the global
  random generator (anything in ``random`` but ``Random``), ``Random()``
  without a seed, the builtins ``open``/``print``/``input``/``exec``/``eval``/
  ``compile``, ``io.open`` and star imports that would hide such names;
* method calls that do I/O or read the clock whatever the receiver, because a
  ``Path`` or ``datetime`` passed in as an argument needs no import:
  ``.read_text()``, ``.write_bytes()``, ``.unlink()``, ``.now()``, ``.today()``,
  ``.seed()`` without a value and so on.

Then it draws the imports of all of ``mailbot/`` (every ``import`` and ``from``
statement wherever it stands: at the top, inside a function, under ``if
TYPE_CHECKING``; and ``importlib.import_module`` with a string constant) and
reports:

* an import circle: modules that import each other, directly or round a longer
  way (``KNOWN_CIRCLES`` may list a circle being taken apart; it is empty, and one
  listed that is gone is reported, so the list only shrinks);
* an arrow up between the services subpackages (``SERVICES_LAYERS``: ``base/`` <-
  ``post/`` <- ``inbox/`` <- ``play/`` <- ``archive/``, ``health/`` beside play and
  archive), a services module outside those subpackages, services importing the
  top (``app``, ``letterproc``, the command line, the demo), and the adapters or
  the pure layers importing services or the top.

Last, a module of ``mailbot/`` over ``MAX_MODULE_LINES`` lines (600; the frozen
migrations excepted).

It is a syntactic check: it cannot follow values through containers or
``vars()``; review still matters, the check keeps the honest mistakes out.
Exit status 1 lists every problem as ``path:line: reason: detail``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from mailbot.testing.purity import (  # the purity checker, shipped for check-game
    Module,
    _kit_module,
    _text,
    check_file,
    is_edge,
    resolve_relative,
    within,
)

ROOT = Path(__file__).resolve().parent.parent
PURE = ("mailbot/core", "mailbot/games")
#: pure modules outside those folders: seed 004's envelope arithmetic, a utility beside the games
PURE_FILES = ("mailbot/envelope/rules.py",)


# -- The import drawing of all of mailbot/ ----------------------------------------------------

SERVICES = "mailbot.services"
# Each services subpackage and the subpackages it may import: dependencies point down only
# (docs: services-layers.md). archive and health sit beside each other and import neither.
SERVICES_LAYERS: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "post": frozenset({"base"}),
    "inbox": frozenset({"base", "post"}),
    "play": frozenset({"base", "post", "inbox"}),
    "archive": frozenset({"base", "post", "inbox", "play"}),
    "health": frozenset({"base", "post", "inbox"}),
}
# What builds and runs the moderator: nothing below it imports it.
TOP = (
    "mailbot.app",
    "mailbot.runners",
    "mailbot.letterproc",
    "mailbot.cli",
    "mailbot.demo",
    "mailbot.__main__",
)
TOP_PREFIXES = ("mailbot.cli_",)
# Adapters and the pure layers: below the services.
BELOW_SERVICES = (
    "mailbot.store",
    "mailbot.mail",
    "mailbot.render",
    "mailbot.scheduler",
    "mailbot.registry",
    "mailbot.envelope",
    *(p.replace("/", ".") for p in PURE),
)
# Circles known and owned elsewhere, each to be removed (then its entry goes too).
KNOWN_CIRCLES: tuple[frozenset[str], ...] = ()

# A game's rules folders (its subpackages: Flat Top's air, combat, map, ...) sit below the
# spine that runs its turn (a ``hour`` package) and never import it nor the saved state.
SPINE = "hour"
SPINE_STATE = "state"
SPINE_FREE = frozenset({SPINE, "drawing", "worlds", "templates", "data"})
UNDER_SPINE = "a rules folder imports the game's hour run or its state"

CIRCLE = "import circle"
STALE_CIRCLE = "known circle is gone: remove it from KNOWN_CIRCLES"
UPWARD = "imports a services layer above or beside its own"
LOOSE = "services module outside the layers"
IMPORTS_TOP = "imports the top (what builds and runs the moderator)"
IMPORTS_SERVICES = "imports the services from below"
#: the longest module the house keeps: past it a module holds more than one idea, and its reader
#: scrolls where a file name would have told him (the migrations, frozen history, excepted)
MAX_MODULE_LINES = 600
LONG = "module too long"

Graph = dict[str, dict[str, int]]  # module -> {imported module: line of its first import}


def module_files(root: Path) -> dict[str, Path]:
    """Every module under ``root/mailbot`` by dotted name (a package by its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for path in sorted((root / "mailbot").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _known_module(name: str, modules: dict[str, Path]) -> str | None:
    """The module of ``modules`` that importing ``name`` loads: itself or its nearest package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported_names(node: ast.AST, package: tuple[str, ...]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module if node.level == 0 else resolve_relative(package, node.level, node.module)
        if base is None:
            return []
        # ``from package import module`` draws an arrow to the module, ``from module import name``
        # (or ``*``) to the module: ``_known_module`` finds the nearest module of each name
        return [f"{base}.{alias.name}" if alias.name != "*" else base for alias in node.names]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
        called = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        name = _text(node.args[0]) if node.args else None
        if called in ("import_module", "__import__") and name and not name.startswith("."):
            return [name]
    return []


def imports_of(root: Path, name: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """The modules of ``modules`` that ``name`` imports, wherever the import stands."""
    rel = path.relative_to(root).as_posix()
    package = Module.at(root, path).package
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    except SyntaxError:
        return {}  # reported by the pure-layer check or by the tests that import it
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        for imported in _imported_names(node, package):
            target = _known_module(imported, modules)
            if target is None or target == name:
                continue
            line = getattr(node, "lineno", 0)
            found[target] = min(found.get(target, line), line)
    return found


def import_graph(root: Path) -> tuple[Graph, dict[str, Path]]:
    modules = module_files(root)
    return {name: imports_of(root, name, path, modules) for name, path in modules.items()}, modules


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def round_trip(graph: Graph, part: list[str]) -> list[str]:
    """One way round a circle: from its first module back to it, inside the circle (shortest)."""
    start, inside = part[0], set(part)
    came_from: dict[str, str] = {}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node]):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if nxt in inside and nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return [*part, start]  # not reached: a strongly connected part has a way round


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def check_circles(root: Path, graph: Graph, modules: dict[str, Path]) -> list[str]:
    errors: list[str] = []
    found = circles(graph)
    for part in found:
        if frozenset(part) in KNOWN_CIRCLES:
            continue
        trip = round_trip(graph, part)
        first, second = trip[0], trip[1]
        where = f"{_rel(root, modules[first])}:{graph[first][second]}"
        errors.append(f"{where}: {CIRCLE}: {' -> '.join(trip)}")
    for known in KNOWN_CIRCLES:
        if known <= modules.keys() and not any(known <= set(part) for part in found):
            first = min(known)
            errors.append(f"{_rel(root, modules[first])}:1: {STALE_CIRCLE}: {', '.join(sorted(known))}")
    return errors


def _is_top(name: str) -> bool:
    return any(within(name, top) for top in TOP) or name.startswith(TOP_PREFIXES)


def _spine_problem(source: str, target: str) -> str | None:
    """A module of a game's rules folder (``mailbot.games.<game>.<folder>.*``) importing the
    game's ``hour`` package or its ``state`` module."""
    src, dst = source.split("."), target.split(".")
    if len(src) < 5 or src[:2] != ["mailbot", "games"] or src[3] in SPINE_FREE or dst[:3] != src[:3]:
        return None
    return UNDER_SPINE if len(dst) >= 4 and dst[3] in (SPINE, SPINE_STATE) else None


def arrow_problem(source: str, target: str) -> str | None:
    """Why ``source`` may not import ``target`` (both inside mailbot), or None when it may."""
    spine = _spine_problem(source, target)
    if spine:
        return spine
    if _kit_module(source):  # a game's no-leak kit is test tooling: it reads data as the tests do
        return IMPORTS_TOP if _is_top(target) else None
    if within(source, SERVICES):
        if _is_top(target):
            return IMPORTS_TOP
        own, other = source.split(".")[2:3], target.split(".")[2:3]
        beside = within(target, SERVICES) and own and other and own != other and own[0] in SERVICES_LAYERS
        return UPWARD if beside and other[0] not in SERVICES_LAYERS.get(own[0], frozenset()) else None
    if any(within(source, below) for below in BELOW_SERVICES):
        if _is_top(target):
            return IMPORTS_TOP
        if within(target, SERVICES):
            return IMPORTS_SERVICES
    return None


def _loose(name: str, rel: str) -> bool:
    """A services module that is in no layer: flat in ``services/`` or in an unlisted subpackage."""
    if not within(name, SERVICES) or name == SERVICES:
        return False
    parts = name.split(".")
    return parts[2] not in SERVICES_LAYERS or (len(parts) == 3 and not rel.endswith("__init__.py"))


def check_arrows(root: Path, graph: Graph, modules: dict[str, Path]) -> list[str]:
    errors: list[str] = []
    for source, targets in sorted(graph.items()):
        rel = _rel(root, modules[source])
        if _loose(source, rel):
            errors.append(f"{rel}:1: {LOOSE}: {source} (not in one of {', '.join(SERVICES_LAYERS)})")
        for target, line in sorted(targets.items(), key=lambda item: item[1]):
            why = arrow_problem(source, target)
            if why:
                errors.append(f"{rel}:{line}: {why}: {target}")
    return errors


def check_imports(root: Path = ROOT) -> list[str]:
    """The import drawing's problems: circles and arrows the wrong way."""
    if not (root / "mailbot").is_dir():
        return []
    graph, modules = import_graph(root)
    return check_circles(root, graph, modules) + check_arrows(root, graph, modules)


def check(root: Path = ROOT) -> list[str]:
    """Every problem of the pure layers and of the import drawing under ``root``, as
    ``path:line: reason: detail``."""
    errors: list[str] = []
    for folder in PURE:
        for path in sorted((root / folder).rglob("*.py")):
            if not is_edge(root, path):
                errors.extend(check_file(root, path))
    for rel in PURE_FILES:
        if (root / rel).is_file():
            errors.extend(check_file(root, root / rel))
    return errors + check_imports(root) + check_lengths(root)


def check_lengths(root: Path = ROOT) -> list[str]:
    """Every module of ``mailbot/`` over :data:`MAX_MODULE_LINES` lines."""
    errors: list[str] = []
    for path in sorted((root / "mailbot").rglob("*.py")):
        rel = _rel(root, path)
        if "/migrations/" in rel:
            continue
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_MODULE_LINES:
            errors.append(f"{rel}:{MAX_MODULE_LINES + 1}: {LONG}: {count} lines, at most {MAX_MODULE_LINES}")
    return errors


def main(root: Path | None = None) -> int:
    errors = check(root or ROOT)
    for line in errors:
        print(line)
    print(f"layers: {'FAILED' if errors else 'ok'} ({len(errors)} problem(s))")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
