# SPDX-License-Identifier: GPL-3.0-or-later
"""The plug-in API (issue 35): what a game package may import from mailbot is listed in the
``__all__`` of each API module, and the built-in games and the outside example keep to it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: the modules docs/writing-a-game.md sends a game author to
API_MODULES = (
    "mailbot.core.game",
    "mailbot.core.demo",
    "mailbot.core.dice",
    "mailbot.core.options",
    "mailbot.core.defaults",
    "mailbot.core.simulation",
)
#: what a game's rules may import from mailbot at all (the layer check holds them to it)
RULES_MAY_IMPORT = (*API_MODULES, "mailbot.errors")
#: a game's edge parts (its no-leak kit and its map drawer) are tooling and presentation
EDGE_PARTS = ("worlds", "drawing")


@pytest.mark.parametrize("name", API_MODULES)
def test_each_api_module_lists_what_it_offers(name: str) -> None:
    module = importlib.import_module(name)
    offered = module.__all__
    assert len(offered) == len(set(offered)), f"{name}.__all__: each name once"
    missing = [item for item in offered if not hasattr(module, item)]
    assert missing == [], f"{name}.__all__ names what it does not define"


def _rules_files() -> list[Path]:
    games = [
        path
        for path in sorted((REPO / "mailbot" / "games").rglob("*.py"))
        if not any(part in EDGE_PARTS or part.removesuffix(".py") in EDGE_PARTS for part in path.parts[-3:])
    ]
    return [*games, *sorted((REPO / "tests" / "contract" / "fixtures").rglob("*.py"))]


def _mailbot_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every ``from mailbot... import name`` in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mailbot"):
            found.extend((node.lineno, node.module, alias.name) for alias in node.names)
    return found


def test_games_and_the_outside_example_use_only_the_listed_api() -> None:
    """A name a game imports from mailbot's core is in that module's ``__all__``: the API the
    docs describe is the one the games use, and nothing they need is left off the list."""
    files = _rules_files()
    assert len(files) > 50 and any("auction" in str(path) for path in files)
    wrong = []
    for path in files:
        for line, module, name in _mailbot_imports(path):
            if module.startswith("mailbot.games") or module.startswith("tests."):
                continue  # the game's own modules
            where = f"{path.relative_to(REPO)}:{line}"
            if module not in RULES_MAY_IMPORT:
                wrong.append(f"{where}: {module} is not a plug-in API module")
            elif module != "mailbot.errors" and name not in importlib.import_module(module).__all__:
                wrong.append(f"{where}: {module}.{name} is not in its __all__")
    assert wrong == []


def test_the_guide_names_only_api_modules_for_game_code() -> None:
    guide = (REPO / "docs" / "writing-a-game.md").read_text(encoding="utf-8")
    for name in API_MODULES:
        assert f"mailbot/{name.removeprefix('mailbot.').replace('.', '/')}.py" in guide, name


def test_every_protocol_a_game_may_implement_is_offered() -> None:
    module = importlib.import_module("mailbot.core.game")
    protocols = [
        name
        for name, value in vars(module).items()
        if isinstance(value, type)
        and getattr(value, "_is_protocol", False)
        and value.__module__ == module.__name__
    ]
    assert "Scored" in protocols and "Game" in protocols
    assert sorted(set(protocols) - set(module.__all__)) == []
