# SPDX-License-Identifier: GPL-3.0-or-later
"""Game packages by name: every subpackage of ``mailbot.games`` plus the ``mailbot.games`` entry points.

A game is one package. Its ``__init__`` exports ``GAME``, the plugin object,
annotated with the :class:`~mailbot.core.game.Game` protocol so that ``mypy``
checks it; an optional ``demo`` module exports ``DEMO``, a
:class:`~mailbot.core.demo.DemoScript`. The package also holds ``data/``
(tables and scenarios, read by the edge) and ``templates/`` (``report.txt.j2``
and ``report.html.j2``). A package may name the scenario ``game create`` plays when
none is asked for (``DEFAULT_SCENARIO = "..."`` beside ``GAME``; else
:data:`DEFAULT_SCENARIO`, "standard"). Built-in games are found by scanning this package and
outside games through the entry-point group, both the same way (by module
path), so adding a game touches nothing outside its folder.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from importlib.metadata import entry_points
from typing import Any

from mailbot.core.demo import DemoScript
from mailbot.core.game import Game
from mailbot.core.simulation import Simulation
from mailbot.errors import UnknownGameError

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "mailbot.games"
BUILTIN_PACKAGE = "mailbot.games"
#: the scenario a game is created with when none is asked for and its package names none
DEFAULT_SCENARIO = "standard"

AnyGame = Game[Any, Any]


@dataclass(frozen=True)
class GamePackage:
    """One game package: its import path, its plugin object, its demo script (if any) and the
    scenario a game is created with when none is asked for."""

    module: str
    game: AnyGame
    demo: DemoScript | None
    default_scenario: str = DEFAULT_SCENARIO

    @property
    def name(self) -> str:
        return self.game.name

    @cached_property
    def drawing(self) -> str | None:
        """The module of the game's map drawer (``drawing``: ``draw(model)`` gives the SVG of a
        view's ``map``; see ``mailbot.render.maps``), when the package has one."""
        name = f"{self.module}.drawing"
        return name if importlib.util.find_spec(name) is not None else None

    @cached_property
    def simulation(self) -> Simulation | None:
        """The game's ``mailbot simulate`` command (``simulate.SIMULATION``), when it has one;
        its module is imported only when asked for (the command line asks when it runs one)."""
        name = f"{self.module}.simulate"
        if importlib.util.find_spec(name) is None:
            return None
        found: Simulation | None = getattr(importlib.import_module(name), "SIMULATION", None)
        return found

    @property
    def worlds(self) -> str | None:
        """The module of the game's no-leak kit (``worlds``: twin worlds for the differential
        harness, imported only by tests and ``mailbot check-game``), when the package has one."""
        name = f"{self.module}.worlds"
        return name if importlib.util.find_spec(name) is not None else None

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
    """Import a game package and read its ``GAME`` (and ``demo.DEMO``, ``DEFAULT_SCENARIO``
    when present)."""
    package = importlib.import_module(module)
    game: AnyGame | None = getattr(package, "GAME", None)
    if game is None:
        raise UnknownGameError(f"{module} is not a game package: it exports no GAME")
    demo: DemoScript | None = None
    if importlib.util.find_spec(f"{module}.demo") is not None:
        demo = getattr(importlib.import_module(f"{module}.demo"), "DEMO", None)
    default = getattr(package, "DEFAULT_SCENARIO", DEFAULT_SCENARIO)
    if not isinstance(default, str) or not default:
        raise UnknownGameError(f"{module}.DEFAULT_SCENARIO is {default!r}: it names no scenario")
    return GamePackage(module, game, demo, default)


class Registry:
    """The game packages of one installation (or of a test: pass ``modules``).

    With ``discover`` (the installation's own registry), a name nobody answers to makes the
    registry look again: a game package installed while the service runs is then found by
    the running service when a letter first names its game, without a restart.
    """

    def __init__(
        self, modules: Iterable[str], *, discover: Callable[[], Iterable[str]] | None = None
    ) -> None:
        self.modules = tuple(dict.fromkeys(modules))
        self.discover = discover
        self._loaded: dict[str, GamePackage] = {}
        self.broken: dict[str, str] = {}  # installed since the start but not loadable: why

    def packages(self) -> list[GamePackage]:
        """Every package that loads; one that cannot is left out and kept in ``broken`` with the
        reason: one broken install must not stop the games that work."""
        loaded = (self._try_load(module) for module in self.modules)
        return [package for package in loaded if package is not None]

    def _load(self, module: str) -> GamePackage:
        if module not in self._loaded:
            self._loaded[module] = load_package(module)
        return self._loaded[module]

    def _try_load(self, module: str) -> GamePackage | None:
        if module in self.broken:
            return None
        try:
            return self._load(module)
        except Exception as exc:  # a third party's package: anything can go wrong importing it
            self.broken[module] = f"{type(exc).__name__}: {exc}"
            log.warning("game package %s cannot be loaded: %s", module, self.broken[module])
            return None

    def names(self) -> list[str]:
        return [package.name for package in self.packages()]

    def find(self, name: str) -> GamePackage:
        """The package registered under ``name`` or one of its aliases (case-insensitive)."""
        found = self._find(name)
        if found is None and self.refresh():
            found = self._find(name)
        if found is None:
            broken = "".join(
                f"; {module} is installed but cannot be loaded: {why}" for module, why in self.broken.items()
            )
            raise UnknownGameError(f"no game called {name!r}; known: {', '.join(self.names())}{broken}")
        return found

    def _find(self, name: str) -> GamePackage | None:
        return next((package for package in self.packages() if package.answers_to(name)), None)

    def refresh(self) -> list[str]:
        """Look for game packages installed since the registry was made; returns the new modules.

        A new package that cannot be imported is left out and kept in ``broken`` with the
        reason (it is looked for again next time): one broken install must not stop the games
        that work. Two threads refreshing at once at worst import a package twice.
        """
        if self.discover is None:
            return []
        importlib.invalidate_caches()  # the import system's directory listings are cached
        mended = [module for module in self.modules if module in self.broken]
        for module in mended:  # a broken one known since the start, maybe mended meanwhile
            self.broken.pop(module)
            sys.modules.pop(module, None)
        added = [module for module in dict.fromkeys(self.discover()) if module not in self.modules]
        for module in added:
            self.broken.pop(module, None)
        usable = [module for module in added if self._try_load(module) is not None]
        self.modules = (*self.modules, *usable)
        return [*usable, *(module for module in mended if self._try_load(module) is not None)]

    def __iter__(self) -> Iterator[GamePackage]:
        return iter(self.packages())


def installed_modules() -> list[str]:
    """The built-ins and the installed plugins, as they are now."""
    return [*builtin_modules(), *plugin_modules()]


@cache
def default_registry() -> Registry:
    """The built-ins and the installed plugins, discovered once per process and again when a
    game is asked for that none of them is."""
    return Registry(installed_modules(), discover=installed_modules)


def available() -> list[str]:
    """Names of every game that can be played here."""
    return default_registry().names()


def find_game(name: str) -> AnyGame:
    """The plugin registered under ``name`` or one of its aliases (case-insensitive)."""
    return default_registry().find(name).game


def find_package(name: str) -> GamePackage:
    return default_registry().find(name)
