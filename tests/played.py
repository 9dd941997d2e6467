# SPDX-License-Identifier: GPL-3.0-or-later
"""Each game's demo script played through in process (``contract.play_through``) once per test
process, for every test that reads a whole game's states, views and letters: a Flat Top game
takes two seconds of CPU, and six test modules each played their own. The tests read a log and
never change it. (The demo played by mail, through the installed wheel, is
``tests/demo_plays.py``: that one is for the tests that read a finished game's store.)"""

from __future__ import annotations

from mailbot.registry import Registry, default_registry
from mailbot.testing import contract

REGISTRY = default_registry()

#: by the game's package: a game plays the same through any registry that holds it (the
#: registry gives the report templates, and a game's are its package's)
_LOGS: dict[str, contract.PlayLog] = {}


def played(name: str, registry: Registry = REGISTRY) -> contract.PlayLog:
    """The whole demo game of the game ``name`` of ``registry``."""
    package = registry.find(name)
    if package.module not in _LOGS:
        _LOGS[package.module] = contract.play_through(package, registry)
    return _LOGS[package.module]
