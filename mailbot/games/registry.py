# SPDX-License-Identifier: GPL-3.0-or-later
"""Game packages by name: every subpackage of ``mailbot.games`` plus the ``mailbot.games`` entry points.

A game is one package. Its ``__init__`` exports ``GAME``, the plugin object,
annotated with the :class:`~mailbot.core.game.Game` protocol so that ``mypy``
checks it; an optional ``demo`` module exports ``DEMO``, a
:class:`~mailbot.core.demo.DemoScript`. The package also holds ``data/``
(tables and scenarios, read by the edge) and ``templates/`` (``report.txt.j2``
and ``report.html.j2``). Built-in games are found by scanning this package and
outside games through the entry-point group, both the same way (by module
path), so adding a game touches nothing outside its folder.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from mailbot.core.demo import DemoScript
from mailbot.core.game import Game
from mailbot.errors import UnknownGameError

ENTRY_POINT_GROUP = "mailbot.games"
BUILTIN_PACKAGE = "mailbot.games"

AnyGame = Game[Any, Any]


@dataclass(frozen=True)
class GamePackage:
    """One game package: its import path, its plugin object and its demo script (if any)."""

    module: str
    game: AnyGame
    demo: DemoScript | None

    @property
    def name(self) -> str:
        return self.game.name

    def answers_to(self, wanted: str) -> bool:
        key = wanted.strip().lower()
        return key == self.name.lower() or key in (alias.lower() for alias in self.game.aliases)


def builtin_modules() -> list[str]:
    """Every subpackage of ``mailbot.games`` (each is a game)."""
    spec = importlib.util.find_spec(BUILTIN_PACKAGE)
    paths = list(spec.submodule_search_locations or []) if spec else []
    return [f"{BUILTIN_PACKAGE}.{info.name}" for info in pkgutil.iter_modules(paths) if info.ispkg]


def plugin_modules() -> list[str]:
    """Game packages installed from elsewhere: entry point values name the package."""
    return [ep.value.partition(":")[0] for ep in entry_points(group=ENTRY_POINT_GROUP)]


def load_package(module: str) -> GamePackage:
    """Import a game package and read its ``GAME`` (and ``demo.DEMO`` when present)."""
    package = importlib.import_module(module)
    game: AnyGame | None = getattr(package, "GAME", None)
    if game is None:
        raise UnknownGameError(f"{module} is not a game package: it exports no GAME")
    demo: DemoScript | None = None
    if importlib.util.find_spec(f"{module}.demo") is not None:
        demo = getattr(importlib.import_module(f"{module}.demo"), "DEMO", None)
    return GamePackage(module, game, demo)


class Registry:
    """The game packages of one installation (or of a test: pass ``modules``)."""

    def __init__(self, modules: Iterable[str]) -> None:
        self.modules = tuple(dict.fromkeys(modules))
        self._loaded: dict[str, GamePackage] = {}

    def packages(self) -> list[GamePackage]:
        return [self._load(module) for module in self.modules]

    def _load(self, module: str) -> GamePackage:
        if module not in self._loaded:
            self._loaded[module] = load_package(module)
        return self._loaded[module]

    def names(self) -> list[str]:
        return [package.name for package in self.packages()]

    def find(self, name: str) -> GamePackage:
        """The package registered under ``name`` or one of its aliases (case-insensitive)."""
        for package in self.packages():
            if package.answers_to(name):
                return package
        raise UnknownGameError(f"no game called {name!r}; known: {', '.join(self.names())}")

    def __iter__(self) -> Iterator[GamePackage]:
        return iter(self.packages())


@cache
def default_registry() -> Registry:
    """The built-ins and the installed plugins, discovered once per process."""
    return Registry([*builtin_modules(), *plugin_modules()])


def available() -> list[str]:
    """Names of every game that can be played here."""
    return default_registry().names()


def find_game(name: str) -> AnyGame:
    """The plugin registered under ``name`` or one of its aliases (case-insensitive)."""
    return default_registry().find(name).game


def find_package(name: str) -> GamePackage:
    return default_registry().find(name)
