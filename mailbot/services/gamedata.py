# SPDX-License-Identifier: GPL-3.0-or-later
"""Loading a game's data files (tables, scenarios) at the edge, for pure plugins.

``config/<package>/a/b.toml`` becomes ``data["a"]["b"]``; a file at the top
(``config/<package>/decks.toml``) becomes ``data["decks"]``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from mailbot.errors import ConfigError
from mailbot.games.registry import BUILTINS


def package_dir(plugin: str) -> str:
    """The folder name of a plugin's data: its module's last part (``wif-turn-end`` -> ``wif``)."""
    target = BUILTINS.get(plugin, plugin)
    return target.partition(":")[0].rsplit(".", 1)[-1]


def load_game_data(data_dir: Path, plugin: str) -> dict[str, Any]:
    root = data_dir / package_dir(plugin)
    data: dict[str, Any] = {}
    if not root.is_dir():
        return data
    for path in sorted(root.rglob("*.toml")):
        parts = path.relative_to(root).with_suffix("").parts
        node = data
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        try:
            node[parts[-1]] = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read game data {path}: {exc}") from exc
    return data
