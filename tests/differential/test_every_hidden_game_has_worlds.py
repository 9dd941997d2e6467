# SPDX-License-Identifier: GPL-3.0-or-later
"""Every registered game with hidden information goes through the differential harness.

A game whose plugin says ``hidden_information = True`` must ship a no-leak kit in its package
(``worlds.py``: its ``PACKAGE``, its ``observed(state, events, seat)`` and its ``examples()``
strategy, found by the registry) and a ``test_<game>_no_leak.py`` here that runs it; so a new
hidden-information game (Flat Top's combat rides on ``flattop``; a new game package is caught
here) cannot skip the harness. ``mailbot check-game`` runs the same kit on any package.

``PENDING`` names the games not yet covered, each with why: the list may only shrink (a
pending game that gains worlds, stops hiding information or leaves the registry fails here
until it is taken off the list).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

from mailbot.registry import default_registry

HERE = Path(__file__).parent
#: game name -> its no-leak kit (the package's ``worlds`` module)
WORLDS: dict[str, ModuleType] = {
    package.name: importlib.import_module(package.worlds) for package in default_registry() if package.worlds
}
#: hidden-information games without worlds yet, and why (to be emptied, never grown)
PENDING: dict[str, str] = {}


def hidden_games() -> list[str]:
    return sorted(p.name for p in default_registry() if p.game.hidden_information)


def test_every_hidden_information_game_has_worlds_or_is_pending() -> None:
    missing = [name for name in hidden_games() if name not in WORLDS and name not in PENDING]
    assert not missing, f"hidden-information games with no differential worlds: {missing}"


def test_the_pending_list_only_shrinks() -> None:
    stale = [name for name in PENDING if name in WORLDS or name not in hidden_games()]
    assert not stale, f"take these off PENDING: {stale}"


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_each_worlds_module_is_complete_and_tested(name: str) -> None:
    module = WORLDS[name]
    assert module.PACKAGE.name == name
    assert callable(module.observed) and callable(module.examples)
    short = module.__name__.split(".")[-2]  # mailbot.games.<short>.worlds
    test = HERE / f"test_{short}_no_leak.py"
    assert test.is_file() and module.__name__ in test.read_text()
