# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures for the Flat Top tests: the config folder as the edge hands it in.

``Setup.data`` mirrors ``mailbot/games/flattop/data``: the tables by file stem, each
scenario by file stem. Loading the files is the edge's job; the rules code
only ever sees these mappings.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from mailbot.games.flattop.map.scenario import Scenario, require_scenario

CONFIG = Path(__file__).resolve().parents[3] / "mailbot" / "games" / "flattop" / "data"


def load_tables() -> dict[str, Any]:
    return {path.stem: tomllib.loads(path.read_text("utf-8")) for path in (CONFIG / "tables").glob("*.toml")}


def load_scenario_data(name: str) -> dict[str, Any]:
    return tomllib.loads((CONFIG / "scenarios" / f"{name}.toml").read_text("utf-8"))


@pytest.fixture(scope="session")
def ft_tables() -> dict[str, Any]:
    """Every file of ``mailbot/games/flattop/data/tables`` by stem (``ships``, ``weather``, ...)."""
    return load_tables()


@pytest.fixture(scope="session")
def small(ft_tables: dict[str, Any]) -> Scenario:
    """``test-small.toml``: sections I and V, 8 columns; its map is drawn in the file's header."""
    return require_scenario(load_scenario_data("test-small"), ft_tables)


@pytest.fixture(scope="session")
def demo(ft_tables: dict[str, Any]) -> Scenario:
    """``coral-sea-demo.toml`` on the standard layout."""
    return require_scenario(load_scenario_data("coral-sea-demo"), ft_tables)
