# SPDX-License-Identifier: GPL-3.0-or-later
"""Whether a game's rules code is pure: no I/O, no clock, no global or OS randomness.

The checker behind ``tools/check_layers.py`` (which runs it over ``mailbot/core`` and
``mailbot/games`` and then draws the imports of all of ``mailbot/``), shipped so that
``mailbot check-game`` runs the same check over an outside game package as installed
(:func:`check_package`). See the tool's docstring for what is reported and why; a game's
edge parts, its no-leak kit (``worlds.py``) and its map drawer (``drawing``), are left out.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

ALLOWED_MAILBOT = ("mailbot.core", "mailbot.games", "mailbot.errors")

ADAPTER = "imports an adapter"
THIRD_PARTY = "imports a third-party package"
PRIVATE = "imports a private stdlib module"
IO = "imports an I/O or runtime module"
CLOCK = "reads the clock"
ENTROPY = "draws OS entropy"
GLOBAL_RANDOM = "uses the global random generator"
FILE_IO = "does file I/O"
CONSOLE_IO = "does console I/O"
DYNAMIC_CODE = "runs dynamic code"
DYNAMIC_IMPORT = "dynamic import"
DYNAMIC_LOOKUP = "dynamic attribute lookup"
STAR_IMPORT = "star import hides the names it brings in"
BEYOND_TOP = "relative import beyond the top-level package"
KIT = "imports a game's no-leak kit (test tooling, never rules)"
DRAWING = "imports a game's map drawer (presentation, never rules)"

# Standard-library modules that do I/O, run event loops or threads, or change
# process-wide state: pure rules code has no business with them.
_IO_MODULES = (
    # network, mail and processes (the list this check started with)
    "asyncio", "socket", "ssl", "sqlite3", "subprocess", "smtplib", "imaplib", "poplib", "urllib", "http",
    "shutil", "tempfile", "threading", "multiprocessing", "signal", "logging", "select", "selectors", "email",
    "ftplib", "xmlrpc", "wsgiref", "socketserver", "webbrowser", "concurrent",
    # files and the file system
    "os", "posixpath", "ntpath", "genericpath", "pathlib", "glob", "fileinput", "filecmp", "shelve", "dbm",
    "tarfile", "zipfile", "gzip", "bz2", "lzma", "mmap", "mailbox", "mimetypes", "netrc", "configparser",
    # the terminal, the user, the machine and the interpreter
    "sys", "fcntl", "termios", "tty", "pty", "pwd", "grp", "resource", "syslog", "platform", "getpass",
    "locale", "ctypes", "site", "sysconfig", "atexit", "faulthandler", "tracemalloc", "argparse", "optparse",
    "getopt", "readline", "rlcompleter", "curses", "tkinter", "turtle", "pdb", "bdb", "code", "cProfile",
    "profile", "pstats", "trace", "cgi", "cgitb", "msvcrt", "winreg", "winsound", "posix", "nt",
    # source and module loading: these read files on sys.path (``importlib`` itself
    # stays allowed, its ``import_module`` is checked call by call)
    "inspect", "linecache", "traceback", "pkgutil", "runpy", "zipimport", "modulefinder", "py_compile",
    "compileall", "ensurepip", "venv", "importlib.abc", "importlib.machinery", "importlib.metadata",
    "importlib.readers", "importlib.resources", "importlib.simple", "importlib.util",
    # reads the time-zone database (allowed for deadlines.py below)
    "zoneinfo",
)  # fmt: skip
_CLOCK_MODULES = ("time", "sched", "timeit")
_ENTROPY_MODULES = ("secrets",)
FORBIDDEN_MODULES: dict[str, str] = {
    **dict.fromkeys(_IO_MODULES, IO),
    **dict.fromkeys(_CLOCK_MODULES, CLOCK),
    **dict.fromkeys(_ENTROPY_MODULES, ENTROPY),
}

# Names inside otherwise allowed modules. ``datetime``, ``date``, ``timedelta``
# and ``UTC`` are fine (rules compute with aware datetimes passed in); the
# constructors that read the clock are not. ``uuid3``/``uuid5`` are pure.
FORBIDDEN_NAMES: dict[str, str] = {
    "datetime.datetime.now": CLOCK,
    "datetime.datetime.utcnow": CLOCK,
    "datetime.datetime.today": CLOCK,
    "datetime.date.today": CLOCK,
    "uuid.uuid1": CLOCK,
    "uuid.uuid4": ENTROPY,
    "uuid.getnode": IO,
    "random.SystemRandom": ENTROPY,
    "io.open": FILE_IO,
    "io.open_code": FILE_IO,
    "io.FileIO": FILE_IO,
    "codecs.open": FILE_IO,
    "tokenize.open": FILE_IO,
    "builtins.open": FILE_IO,
    "builtins.print": CONSOLE_IO,
    "builtins.input": CONSOLE_IO,
    "builtins.breakpoint": CONSOLE_IO,
    "builtins.exec": DYNAMIC_CODE,
    "builtins.eval": DYNAMIC_CODE,
    "builtins.compile": DYNAMIC_CODE,
}
# Builtins that a bare name refers to unless the module binds that name itself.
CHECKED_BUILTINS = frozenset(
    {"open", "print", "input", "breakpoint", "exec", "eval", "compile", "__import__", "getattr"}
)
IMPORT_FUNCTIONS = frozenset({"importlib.import_module", "importlib.__import__", "builtins.__import__"})
# Methods that read the clock or touch the file system on whatever object they are
# called: a ``datetime`` or ``Path`` handed in as an argument needs no import.
CLOCK_METHODS = frozenset({"now", "utcnow", "today"})
PATH_IO_METHODS = frozenset(
    {
        "read_text", "write_text", "read_bytes", "write_bytes", "iterdir", "unlink", "mkdir", "rmdir",
        "touch", "rglob", "symlink_to", "hardlink_to",
    }
)  # fmt: skip

# Narrow, reviewed exceptions, by file and by module prefix.
ALLOWED_IN: dict[str, frozenset[str]] = {
    # Wall-clock deadlines ("Sun 20:00 Europe/Berlin") need the IANA time-zone
    # rules; zoneinfo reads them from the read-only tz database, which makes the
    # result a function of the arguments and the installed tzdata, never of the
    # clock. Games get aware datetimes and have no use for it.
    "mailbot/core/deadlines.py": frozenset({"zoneinfo"}),
    # The plugin knows a saved state again by a digest of its canonical JSON (``SavedStates``):
    # orjson writes it in a tenth of ``json``'s time, and writes bytes in memory, nothing else.
    "mailbot/games/flattop/game.py": frozenset({"orjson"}),
}
# Nothing in core/ or games/ imports a module whose name is computed at run time (the
# registry that loads game packages by name is ``mailbot/registry.py``, an adapter).
DYNAMIC_IMPORT_FILES: frozenset[str] = frozenset()

Found = tuple[int, str, str]  # line, reason, detail


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _table_problem(name: str, table: dict[str, str]) -> str | None:
    return next((why for prefix, why in table.items() if within(name, prefix)), None)


def _random_problem(name: str) -> str | None:
    # Everything in ``random`` but the ``Random`` class is a view of the one
    # hidden, process-wide generator that nobody seeds deliberately.
    if within(name, "random") and name != "random" and not within(name, "random.Random"):
        return GLOBAL_RANDOM
    return None


def problem(name: str, allowed: frozenset[str] = frozenset()) -> str | None:
    """Why pure code may not import or use the dotted ``name``, or None when it may."""
    if any(within(name, prefix) for prefix in allowed):
        return None
    top = name.split(".", maxsplit=1)[0]
    if top == "mailbot" and _edge_part(name) is not None:
        return EDGE_PARTS[str(_edge_part(name))]
    if top == "mailbot":
        return None if any(within(name, ok) for ok in ALLOWED_MAILBOT) else ADAPTER
    if top == "__future__":
        return None
    if top not in sys.stdlib_module_names:
        return THIRD_PARTY
    if top.startswith("_"):
        return PRIVATE
    return (
        _table_problem(name, FORBIDDEN_MODULES)
        or _table_problem(name, FORBIDDEN_NAMES)
        or _random_problem(name)
    )


def resolve_relative(package: tuple[str, ...], level: int, module: str | None) -> str | None:
    """The absolute name of ``from <level dots><module> import ...`` inside ``package``."""
    if level - 1 >= len(package):
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join((*base, module) if module else base)


@dataclass(frozen=True)
class Module:
    """One file of the pure layers: where it sits and which exceptions apply to it."""

    rel: str
    package: tuple[str, ...]
    allowed: frozenset[str]
    dynamic_imports: bool
    game: str = ""  # an outside game package the file belongs to: its edge parts stay off limits

    @classmethod
    def at(cls, root: Path, path: Path) -> Module:
        rel = path.relative_to(root).as_posix()
        parts = tuple(rel.removesuffix(".py").split("/"))
        package = parts[:-1]
        return cls(rel, package, ALLOWED_IN.get(rel, frozenset()), rel in DYNAMIC_IMPORT_FILES)


def module_level_names(tree: ast.Module) -> set[str]:
    """Names bound at module level, which shadow the builtins of the same name.

    Function and class bodies are scopes of their own: a method called ``open``
    does not make a module-level ``open(...)`` harmless.
    """
    names: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(child.name)
            elif not isinstance(child, ast.Lambda):
                pending.append(child)
    return names


def chain_bottom(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return next((kw.value for kw in call.keywords if kw.arg == keyword), None)


def _text(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def unseeded(call: ast.Call) -> bool:
    """``Random()``/``.seed()`` with no value (or None) seed from OS entropy or the clock."""
    if not call.args and not call.keywords:
        return True
    first = call.args[0] if call.args else call.keywords[0].value
    starred = isinstance(first, ast.Starred) or (not call.args and call.keywords[0].arg is None)
    return starred or (isinstance(first, ast.Constant) and first.value is None)


@dataclass
class Checker:
    """Problems of one parsed file."""

    module: Module
    tree: ast.Module
    aliases: dict[str, str] = field(default_factory=dict)
    bound: set[str] = field(default_factory=set)
    found: list[Found] = field(default_factory=list)

    def run(self) -> list[Found]:
        self.bound = module_level_names(self.tree)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                self.check_import(node)
            elif isinstance(node, ast.ImportFrom):
                self.check_import_from(node)
        self.follow_assignments()
        self.visit(self.tree)
        return sorted(dict.fromkeys(self.found))

    def report(self, node: ast.stmt | ast.expr, why: str, detail: str) -> None:
        self.found.append((node.lineno, why, detail))

    def problem(self, name: str) -> str | None:
        return own_edge_problem(name, self.module.game) or problem(name, self.module.allowed)

    def use_problem(self, name: str) -> str | None:
        if name in IMPORT_FUNCTIONS and not self.module.dynamic_imports:
            return DYNAMIC_IMPORT
        return self.problem(name)

    # Imports: checked where they stand; only allowed ones become aliases, so a
    # forbidden module is reported once, at its import.

    def check_import(self, node: ast.Import) -> None:
        for alias in node.names:
            why = self.problem(alias.name)
            if why:
                self.report(node, why, alias.name)
            elif alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.aliases[top] = top

    def import_base(self, node: ast.ImportFrom) -> str | None:
        if node.level == 0:
            return node.module
        base = resolve_relative(self.module.package, node.level, node.module)
        if base is None:
            self.report(node, BEYOND_TOP, "." * node.level + (node.module or ""))
        return base

    def is_ancestor(self, name: str) -> bool:
        # The file's own packages are imported already; importing names from
        # them is judged by the names (``from .. import services``).
        parts = tuple(name.split("."))
        return self.module.package[: len(parts)] == parts

    def check_import_from(self, node: ast.ImportFrom) -> None:
        base = self.import_base(node)
        if base is None:
            return
        origin = "" if node.level == 0 else f" (from {'.' * node.level}{node.module or ''})"
        star = any(alias.name == "*" for alias in node.names)
        why = self.problem(base) if star or not self.is_ancestor(base) else None
        if why:
            self.report(node, why, base + origin)
            return
        if star and not any(within(base, ok) for ok in ALLOWED_MAILBOT):
            self.report(node, STAR_IMPORT, base + origin)
            return
        for alias in node.names:
            if alias.name != "*":
                self.import_name(node, f"{base}.{alias.name}", alias.asname or alias.name, origin)

    def import_name(self, node: ast.ImportFrom, full: str, local: str, origin: str) -> None:
        why = self.problem(full)
        if why:
            self.report(node, why, full + origin)
        else:
            self.aliases[local] = full

    def follow_assignments(self) -> None:
        """``now = datetime.now`` makes ``now`` an alias; twice, for chains of two."""
        for _ in range(2):
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                    self.alias_assignment(node, node.value)

    def alias_assignment(self, node: ast.Assign | ast.AnnAssign, value: ast.expr) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        name = self.resolve(value)
        if name is None or self.problem(name):
            return  # a forbidden value is reported where it is read, not again at each use
        for target in targets:
            if isinstance(target, ast.Name):
                self.aliases[target.id] = name

    # Uses.

    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for, when it is built from imports."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in CHECKED_BUILTINS and node.id not in self.bound:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and self.resolve(node.func) == "builtins.getattr":
            base = self.resolve(node.args[0]) if node.args else None
            attr = _text(_argument(node, 1, ""))
            return f"{base}.{attr}" if base and attr else None
        return None

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            return
        if isinstance(node, ast.Attribute | ast.Name):
            self.check_reference(node)
            bottom = chain_bottom(node)
            if not isinstance(bottom, ast.Name):
                self.visit(bottom)
            return
        children: list[ast.AST] = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.Call) and self.check_call(node):
            children = [*node.args, *node.keywords]  # the import function is judged by its argument
        for child in children:
            self.visit(child)

    def check_reference(self, node: ast.Attribute | ast.Name) -> None:
        if isinstance(node, ast.Name) and node.id == "__builtins__":
            self.report(node, DYNAMIC_CODE, "__builtins__")
            return
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            return
        name = self.resolve(node)
        why = self.use_problem(name) if name else None
        if name and why:
            source = ast.unparse(node)
            self.report(node, why, name if source == name else f"{source} -> {name}")

    def check_call(self, node: ast.Call) -> bool:
        """Check a call; True when its function was judged here and must not be visited."""
        func = self.resolve(node.func)
        if func in IMPORT_FUNCTIONS:
            self.check_import_call(node, func)
            return True
        if func == "random.Random" and unseeded(node):
            self.report(node, ENTROPY, f"{ast.unparse(node)}: seed it with an explicit value")
        if func == "builtins.getattr":
            self.check_getattr(node)
        if isinstance(node.func, ast.Attribute) and (func is None or self.use_problem(func) is None):
            self.check_method(node, node.func)
        return False

    def check_method(self, call: ast.Call, func: ast.Attribute) -> None:
        shown = f"{ast.unparse(func)}()"
        if func.attr in CLOCK_METHODS:
            self.report(call, CLOCK, shown)
        elif func.attr in PATH_IO_METHODS or (func.attr == "open" and self.makes_path(func.value)):
            self.report(call, FILE_IO, shown)
        elif func.attr == "seed" and unseeded(call):
            self.report(call, ENTROPY, shown)

    def makes_path(self, node: ast.expr) -> bool:
        """``Path(...)`` or ``PurePath(...)`` and the like, however the class was reached."""
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name.endswith("Path")

    def check_getattr(self, node: ast.Call) -> None:
        target = self.resolve(node.args[0]) if node.args else None
        attr_node = _argument(node, 1, "")
        attr = _text(attr_node)
        if attr is None:
            # A computed name can reach anything in a stdlib module (``random.shuffle``).
            if target and not within(target, "mailbot") and attr_node is not None:
                self.report(node, DYNAMIC_LOOKUP, ast.unparse(node))
            return
        why = self.use_problem(f"{target}.{attr}") if target else None
        if why is None and target is None and attr in CLOCK_METHODS:
            why = CLOCK
        elif why is None and target is None and attr in PATH_IO_METHODS:
            why = FILE_IO
        if why:
            self.report(node, why, ast.unparse(node))

    def check_import_call(self, node: ast.Call, func: str) -> None:
        target = self.import_call_target(node, func)
        if target is None:
            if not self.module.dynamic_imports:
                self.report(node, DYNAMIC_IMPORT, ast.unparse(node))
            return
        why = self.problem(target)
        if why:
            self.report(node, why, target)

    def import_call_target(self, node: ast.Call, func: str) -> str | None:
        """The module a call of an import function loads, or None when it is computed at run time."""
        name = _text(_argument(node, 0, "name"))
        if name is None:
            return None
        if func == "importlib.import_module":
            level = len(name) - len(name.lstrip("."))
            if level == 0:
                return name
            package = _text(_argument(node, 1, "package"))
            return (
                resolve_relative(tuple(package.split(".")), level, name[level:] or None) if package else None
            )
        level_node = _argument(node, 4, "level")
        if level_node is None:
            return name
        if not (isinstance(level_node, ast.Constant) and isinstance(level_node.value, int)):
            return None
        if level_node.value == 0:
            return name
        return resolve_relative(self.module.package, level_node.value, name or None)


def check_file(root: Path, path: Path) -> list[str]:
    return _checked(Module.at(root, path), path)


#: a game package's no-leak kit: its twin worlds for the differential harness (``worlds.py``),
#: test tooling that ships with the game for ``mailbot check-game`` and may use Hypothesis and
#: the testing helpers; no rules module may import it (``KIT``), so it is left out of the check
KIT_NAME = "worlds"
#: a game package's map drawer (``drawing.py`` or a ``drawing/`` package): it draws the view's
#: ``map`` with drawsvg and ``mailbot.render.maps``, so it is presentation, not rules; no rules
#: module may import it (``DRAWING``), it is left out of the purity check and, like the rest
#: of the game, may import neither the services nor the top
DRAWING_NAME = "drawing"
EDGE_PARTS = {KIT_NAME: KIT, DRAWING_NAME: DRAWING}


def _edge_part(name: str) -> str | None:
    """``worlds`` or ``drawing`` when the dotted ``name`` is (in) one of a game's edge parts."""
    parts = name.split(".")
    if len(parts) >= 4 and parts[:2] == ["mailbot", "games"] and parts[3] in EDGE_PARTS:
        return parts[3]
    return None


def own_edge_problem(name: str, game: str) -> str | None:
    """Why a rules file of the outside game package ``game`` may not import the dotted ``name``:
    it is one of that package's edge parts (``game.worlds``, ``game.drawing``...), which the
    package may otherwise import freely; None when it is not."""
    if not game or not within(name, game) or name == game:
        return None
    part = name[len(game) + 1 :].split(".", maxsplit=1)[0]
    return EDGE_PARTS.get(part)


def _kit_module(name: str) -> bool:
    return _edge_part(name) == KIT_NAME


def is_edge(root: Path, path: Path) -> bool:
    """A file of a game's kit or drawer: ``mailbot/games/<game>/{worlds,drawing}.py`` or under
    ``mailbot/games/<game>/drawing/``."""
    parts = path.relative_to(root).with_suffix("").parts
    return len(parts) >= 4 and parts[:2] == ("mailbot", "games") and parts[3] in EDGE_PARTS


def check_package(module: str) -> list[str]:
    """Every problem of the rules files of the installed game package ``module``, as
    ``path:line: reason: detail``; its edge parts are left out. An outside package may import
    itself; a built-in one (``mailbot.games.*``) is held to the project's own rules."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return [f"{module}: not a package"]
    folder = Path(next(iter(spec.submodule_search_locations))).resolve()
    root = folder.parents[module.count(".")]
    top = module.split(".", maxsplit=1)[0]
    own = frozenset() if top == "mailbot" else frozenset({top})
    errors: list[str] = []
    for path in sorted(folder.rglob("*.py")):
        inside = path.relative_to(folder).with_suffix("").parts
        if inside[0] in EDGE_PARTS:
            continue
        found = Module.at(root, path)
        game = "" if top == "mailbot" else module
        found = Module(found.rel, found.package, found.allowed | own, found.dynamic_imports, game)
        errors.extend(_checked(found, path))
    return errors


def _checked(module: Module, path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        return [f"{module.rel}:{exc.lineno or 0}: cannot parse: {exc.msg}"]
    return [f"{module.rel}:{line}: {why}: {detail}" for line, why, detail in Checker(module, tree).run()]
