# SPDX-License-Identifier: GPL-3.0-or-later
"""Which games have a demo: every game package whose ``demo`` module declares a ``DEMO`` script."""

from __future__ import annotations

from dataclasses import dataclass

from mailbot.core.demo import DemoScript
from mailbot.errors import UnknownGameError
from mailbot.registry import Registry, default_registry


@dataclass(frozen=True)
class DemoGame:
    """A demo script together with the registry name of the game it plays."""

    plugin: str
    script: DemoScript


def demos(registry: Registry | None = None) -> list[DemoGame]:
    registry = registry or default_registry()
    return [DemoGame(package.name, package.demo) for package in registry if package.demo is not None]


def find_demo(name: str, registry: Registry | None = None) -> DemoGame | None:
    """The demo of the game called ``name`` (or one of its aliases), if that game has one."""
    try:
        package = (registry or default_registry()).find(name)
    except UnknownGameError:
        return None
    return DemoGame(package.name, package.demo) if package.demo is not None else None
