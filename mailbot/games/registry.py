# SPDX-License-Identifier: GPL-3.0-or-later
"""Game plugins by name: the built-ins plus the ``mailbot.games`` entry-point group.

Built-ins are named by import path and loaded on first use, so a broken or
slow plugin costs nothing until a game of that kind is played.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import Any

from mailbot.core.game import Game
from mailbot.errors import UnknownGameError

ENTRY_POINT_GROUP = "mailbot.games"

BUILTINS: dict[str, str] = {
    "duel": "mailbot.games.duel:DuelGame",
    "wif-turn-end": "mailbot.games.wif:WifTurnEndGame",
    "atlantic-storm": "mailbot.games.atlantic_storm:AtlanticStormGame",
    "salt-n-tar": "mailbot.games.saltntar:SaltNTarGame",
    "flattop": "mailbot.games.flattop:FlatTopGame",
}

AnyGame = Game[Any, Any]


def _load(target: str) -> AnyGame:
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    game: AnyGame = cls()
    return game


def _candidates() -> Iterator[tuple[str, str]]:
    yield from BUILTINS.items()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        yield ep.name, ep.value


def available() -> list[str]:
    """Names of every game that can be loaded (built-ins whose module exists, plus plugins)."""
    names = []
    for name, target in _candidates():
        module_name = target.partition(":")[0]
        if importlib.util.find_spec(module_name) is not None:
            names.append(name)
    return names


def find_game(name: str) -> AnyGame:
    """Return the plugin registered under ``name`` or one of its aliases (case-insensitive)."""
    wanted = name.strip().lower()
    for registered, target in _candidates():
        if wanted == registered:
            return _load(target)
    for registered in available():
        game = _load(dict(_candidates())[registered])
        if wanted in (alias.lower() for alias in game.aliases):
            return game
    raise UnknownGameError(f"no game called {name!r}; known: {', '.join(available())}")
