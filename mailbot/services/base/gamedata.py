# SPDX-License-Identifier: GPL-3.0-or-later
"""Loading a game package's data files (tables, scenarios) at the edge, for pure plugins.

The files live in the game package's ``data/`` folder and are read through
``importlib.resources``, so they are found the same way in a checkout, an
installed wheel or a zipped plugin. ``data/a/b.toml`` becomes
``data["a"]["b"]``; a file at the top (``data/decks.toml``) becomes
``data["decks"]``.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from mailbot.errors import ConfigError
from mailbot.registry import GamePackage, find_package

DATA_FOLDER = "data"
TEMPLATE_FOLDER = "templates"


def data_root(package: GamePackage) -> Traversable:
    return files(package.module) / DATA_FOLDER


def template_root(package: GamePackage) -> Traversable:
    return files(package.module) / TEMPLATE_FOLDER


def read_tree(root: Traversable) -> dict[str, Any]:
    """Every ``*.toml`` under ``root`` as a nested mapping by folder and file stem."""
    data: dict[str, Any] = {}
    if not root.is_dir():
        return data
    for entry in sorted(root.iterdir(), key=lambda item: item.name):
        if entry.is_dir():
            data[entry.name] = read_tree(entry)
        elif entry.name.endswith(".toml"):
            data[entry.name.removesuffix(".toml")] = _read_toml(entry)
    return data


def _read_toml(entry: Traversable) -> dict[str, Any]:
    try:
        return tomllib.loads(entry.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read game data {entry}: {exc}") from exc


def load_game_data(plugin: str) -> dict[str, Any]:
    """The tables and scenarios of the game called ``plugin``, as the edge hands them in."""
    return read_tree(data_root(find_package(plugin)))
