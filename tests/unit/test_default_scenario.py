# SPDX-License-Identifier: GPL-3.0-or-later
"""The scenario ``game create`` plays when none is asked for: a package's ``DEFAULT_SCENARIO``,
else "standard" (issue 32: Flat Top has no "standard"; its full scenario is coral-sea)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mailbot.errors import UnknownGameError
from mailbot.games import flattop
from mailbot.registry import DEFAULT_SCENARIO, Registry, builtin_modules, load_package

FIXTURE = "tests.contract.fixtures.auction"  # a game package outside mailbot


def _outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, declared: str) -> str:
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(f"from {FIXTURE} import GAME\n{declared}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_flattop_defaults_to_the_full_coral_sea_and_the_others_to_standard() -> None:
    defaults = {
        load_package(module).name: load_package(module).default_scenario for module in builtin_modules()
    }
    assert defaults["flattop"] == "coral-sea" and DEFAULT_SCENARIO == "standard"
    assert {name: s for name, s in defaults.items() if s != "standard"} == {
        "flattop": "coral-sea",
        "salt-n-tar": "race",
    }
    assert (Path(flattop.__file__).parent / "data" / "scenarios" / "coral-sea.toml").exists()


def test_an_outside_package_keeps_standard_or_names_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_package(FIXTURE).default_scenario == "standard"  # declares none
    named = _outside(tmp_path, monkeypatch, "outside_short", 'DEFAULT_SCENARIO = "short"')
    registry = Registry([FIXTURE, named])
    assert registry.packages()[1].default_scenario == "short"


@pytest.mark.parametrize("declared", ["DEFAULT_SCENARIO = 3", 'DEFAULT_SCENARIO = ""'])
def test_a_default_that_names_no_scenario_is_refused_when_the_package_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declared: str
) -> None:
    name = _outside(tmp_path, monkeypatch, f"outside_bad{len(declared)}", declared)
    with pytest.raises(UnknownGameError, match="names no scenario"):
        load_package(name)
