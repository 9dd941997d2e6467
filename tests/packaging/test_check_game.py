# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot check-game``: the contract kit, the no-leak harness over the package's own twin
worlds and mypy --strict, run on an installed package by name or module path (issue 35)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.games.duel import GAME, view
from mailbot.games.duel.state import TurnRecord
from mailbot.registry import GamePackage
from mailbot.testing import kit

RUNNER = CliRunner()


def test_a_built_in_game_passes_every_check_by_name() -> None:
    done = RUNNER.invoke(app, ["check-game", "duel", "--examples", "10"])
    assert done.exit_code == 0, done.output
    assert "ok     no-leak harness: 10 pairs of twin worlds" in done.output
    assert "ok     mypy --strict" in done.output
    assert done.output.strip().splitlines()[-1] == "check-game duel: 10 ok, 0 failed"


def test_a_package_outside_mailbot_is_checked_by_its_module_path() -> None:
    done = RUNNER.invoke(
        app, ["check-game", "tests.contract.fixtures.auction", "--examples", "5", "--no-mypy"]
    )
    assert done.exit_code == 0, done.output
    assert "a demo game played through" in done.output and "the game hides nothing" in done.output


@pytest.mark.slow
def test_a_leak_fails_the_no_leak_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    def both_splits(record: TurnRecord, seat: str | None) -> str:
        return "; ".join(f"{entry.seat} {entry.split.text}" for entry in record.seats)

    monkeypatch.setattr(view, "_history_orders", both_splits)
    results = {r.name: r for r in kit.check_game("duel", examples=60, mypy=False)}
    assert not results["no-leak harness"].passed
    assert results["protocol"].passed and results["a demo game played through"].passed


def test_a_type_error_fails_mypy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "sloppy_game"
    package.mkdir()
    (package / "__init__.py").write_text("from mailbot.games.duel import GAME\n\nhit_points: int = 'ten'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    result = kit.typecheck(GamePackage("sloppy_game", GAME, None))
    assert (
        not result.passed
        and "1 error(s)" in result.said
        and "__init__.py:3: error: Incompatible types" in result.said
    )


def test_an_unknown_game_is_said_plainly() -> None:
    done = RUNNER.invoke(app, ["check-game", "battleship"])
    assert done.exit_code == 2
    assert "no game called 'battleship'" in done.output
    assert "Traceback" not in done.output


def test_demo_lists_every_installed_game_with_a_demo() -> None:
    done = RUNNER.invoke(app, ["demo", "--list"])
    assert done.exit_code == 0, done.output
    names = [line.split(":")[0] for line in done.output.splitlines()]
    assert {"duel", "flattop", "salt-n-tar", "atlantic-storm", "wif-turn-end"} <= set(names)
