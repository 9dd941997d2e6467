# SPDX-License-Identifier: GPL-3.0-or-later
"""A game package installed while the service runs is found when a letter first names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mailbot.errors import UnknownGameError
from mailbot.registry import Registry, builtin_modules, installed_modules
from mailbot.render.templates import Renderer

FIXTURE = "tests.contract.fixtures.auction"  # a game package outside mailbot, with templates
NAME = "sealed-bid-auction"


def _install(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``pip install`` leaves for the package: its distribution's entry point."""
    info = site / "auction_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: auction-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[mailbot.games]\nauction = {FIXTURE}:GAME\n")
    monkeypatch.syspath_prepend(str(site))


def test_a_game_installed_after_the_start_is_found_and_rendered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = Registry(installed_modules(), discover=installed_modules)
    renderer = Renderer(registry=registry)
    assert NAME not in registry.names()
    with pytest.raises(UnknownGameError):
        registry.find(NAME)
    _install(tmp_path, monkeypatch)
    assert registry.find(NAME).module == FIXTURE
    assert registry.find("duel").name == "duel"  # the games known before stay
    assert renderer.env.get_template(f"{NAME}/report.txt.j2") is not None


def test_a_registry_without_discovery_does_not_look_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = Registry(builtin_modules())
    _install(tmp_path, monkeypatch)
    with pytest.raises(UnknownGameError):
        registry.find(NAME)


def test_a_new_package_that_cannot_be_imported_is_left_out_and_named() -> None:
    registry = Registry(builtin_modules(), discover=lambda: [*builtin_modules(), "no_such_game_package"])
    with pytest.raises(UnknownGameError, match="no_such_game_package is installed but cannot be loaded"):
        registry.find(NAME)
    assert "no_such_game_package" not in registry.modules
    assert registry.find("duel").name == "duel"


def test_a_package_broken_at_the_start_stops_no_other_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package whose import fails is named, not raised: the others play on, and once
    it is mended it is found without a restart."""
    package = tmp_path / "broken_game"
    package.mkdir()
    (package / "__init__.py").write_text("import not_a_module_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    modules = [*builtin_modules(), "broken_game"]
    registry = Registry(modules, discover=lambda: modules)
    assert "duel" in registry.names()
    assert registry.find("duel").name == "duel"
    with pytest.raises(
        UnknownGameError, match="broken_game is installed but cannot be loaded: ModuleNotFound"
    ):
        registry.find("auction")
    (package / "__init__.py").write_text(f"from {FIXTURE} import GAME\n")
    assert registry.find(NAME).module == "broken_game"
    assert registry.broken == {}
