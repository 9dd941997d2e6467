# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot check-game``: the contract kit, the no-leak harness over the package's own twin
worlds and mypy --strict, run on an installed package by name or module path (issue 35)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
import typing_extensions
from typer.testing import CliRunner

import mailbot
from mailbot.cli import app
from mailbot.games.duel import GAME, view
from mailbot.games.duel.state import TurnRecord
from mailbot.registry import GamePackage
from mailbot.testing import kit

RUNNER = CliRunner()
ROOT = Path(mailbot.__file__).resolve().parents[1]


def test_a_built_in_game_passes_every_check_by_name() -> None:
    done = RUNNER.invoke(app, ["check-game", "duel", "--examples", "10"])
    assert done.exit_code == 0, done.output
    assert "ok     no-leak harness: 10 pairs of twin worlds" in done.output
    assert "ok     mypy --strict" in done.output
    assert done.output.strip().splitlines()[-1] == "check-game duel: 13 ok, 0 failed"


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
    leak = results["no-leak harness"]
    assert not leak.passed
    # What the harness found and the example that shows it, not the last line of a note.
    assert leak.said.startswith("LeakFound: ") and "difference(s) for seat" in leak.said, leak.said
    assert "| Failing test case: check(" in leak.said or "| Falsifying example: check(" in leak.said
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


def test_a_registered_game_is_found_by_its_module_path_too() -> None:
    done = RUNNER.invoke(app, ["check-game", "mailbot.games.duel", "--examples", "3", "--no-mypy"])
    assert done.exit_code == 0, done.output
    # The summary names the game checked, whichever name it was asked by.
    assert done.output.strip().splitlines()[-1].startswith("check-game duel: ")


def test_a_package_without_its_templates_says_where_they_go_and_which_checks_were_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside author's trial: a wheel built without its templates failed the demo's play with a bare
    TemplateNotFound, and the seven checks that read the played game vanished from the list."""
    package = tmp_path / "bare_game"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from mailbot.games.duel.game import DuelGame\n\n\n"
        "class BareGame(DuelGame):\n    name = 'bare-game'\n    aliases = ()\n\n\nGAME = BareGame()\n"
    )
    (package / "demo.py").write_text("from mailbot.games.duel.demo import DEMO\n\n__all__ = ['DEMO']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found, registry = kit.find("bare_game")
    results = list(kit.contract_checks(found, registry))
    played = next(r for r in results if r.name == "a demo game played through")
    assert not played.passed
    assert played.said.startswith("TemplateNotFound: bare-game/report"), played.said
    assert "the templates/ folder of its package" in played.said and "package data" in played.said
    not_run = [r.name for r in results if r.said.startswith("not run: it reads the demo game")]
    assert not_run == [name for name, _check in kit.PLAYED_CHECKS] and len(not_run) == 7
    assert len(results) == 11 and not any(r.passed for r in results if r.name in not_run)


def test_the_test_tools_are_installed_from_where_mailbot_came_not_by_its_bare_name() -> None:
    """``mailbot`` on PyPI is another project: ``pip install "mailbot[test]"`` would replace this one."""
    assert kit.test_tools_hint() == f'pip install "{ROOT}[test]"'  # this checkout
    said = kit.said(ModuleNotFoundError("No module named 'hypothesis'", name="hypothesis"))
    assert said.endswith(f'(the checks need the test tools: pip install "{ROOT}[test]")'), said


def test_an_installed_package_is_type_checked_as_installed(tmp_path: Path) -> None:
    """In a site-packages folder, as pip installs a wheel, beside other modules: mypy checks the
    package by name (given the folder, it took the folder's modules for the library's own), and
    says plainly when the package lacks py.typed."""
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    site = next(env.glob("lib/python*/site-packages"))
    # mailbot and its requirements from this environment (its .pth files read too), and mailbot
    # itself as a folder on the path: mypy follows no editable install's import hook
    here = f"{ROOT}\nimport site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n"
    (site / "mailbot-here.pth").write_text(here)
    shutil.copy(typing_extensions.__file__, site / "typing_extensions.py")
    package = site / "tidy_game"
    package.mkdir()
    (package / "__init__.py").write_text("from mailbot.games.duel import GAME\n\n__all__ = ['GAME']\n")
    # A folder of the same name where the check runs (mypy looks there first) is not what it checks.
    (tmp_path / "tidy_game").mkdir()
    (tmp_path / "tidy_game" / "__init__.py").write_text("stray: int = 'not the installed package'\n")
    assert _typecheck(env, tmp_path).startswith("FAILED mypy --strict: tidy_game has no py.typed file")
    (package / "py.typed").write_text("")
    assert _typecheck(env, tmp_path) == "ok     mypy --strict: tidy_game"
    (package / "__init__.py").write_text("hit_points: int = 'ten'\n")
    assert "tidy_game/__init__.py:1: error: Incompatible types" in _typecheck(env, tmp_path)


def _typecheck(env: Path, tmp_path: Path) -> str:
    """kit.typecheck of tidy_game as that environment's Python runs it."""
    check = (
        "from mailbot.registry import GamePackage; from mailbot.games.duel import GAME; "
        "from mailbot.testing import kit; print(kit.typecheck(GamePackage('tidy_game', GAME, None)).line())"
    )
    run = subprocess.run(
        [str(env / "bin" / "python"), "-c", check],
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_an_outside_packages_rules_are_held_pure_and_its_edge_parts_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "impure_game"
    package.mkdir()
    (package / "__init__.py").write_text("from mailbot.games.duel import GAME\n\n__all__ = ['GAME']\n")
    (package / "helpers.py").write_text("TABLE = (1, 2, 3)\n")
    (package / "rules.py").write_text(
        "import os\nimport time\n\nfrom impure_game import helpers\nfrom . import helpers as again\n\n"
        "def when() -> float:\n    return time.time() + len(os.sep) + len(helpers.TABLE + again.TABLE)\n"
    )
    (package / "worlds.py").write_text("import random\n\nPICK = random.random()\n")  # test tooling
    (package / "drawing.py").write_text("SHEET = 640\n")  # its map drawer
    (package / "view.py").write_text(
        "from impure_game.worlds import PICK\nfrom . import drawing\nfrom .helpers import TABLE\n\n"
        "SIZE = (PICK, drawing.SHEET, TABLE)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = {
        r.name: r for r in kit.contract_checks(GamePackage("impure_game", GAME, None), kit.default_registry())
    }
    pure = result["rules are pure (no I/O, clock or global random)"]
    assert not pure.passed
    assert "impure_game/rules.py:1: imports an I/O or runtime module: os" in pure.said, pure.said
    assert "impure_game/rules.py:2: reads the clock: time" in pure.said
    assert "worlds.py" not in pure.said and "helpers" not in pure.said  # its own modules may be imported
    # ... but not its edge parts: the twin worlds and the map drawer are not rules
    said = pure.said
    assert "view.py:1: imports a game's no-leak kit (test tooling, never rules): impure_game.worlds;" in said
    assert "view.py:2: imports a game's map drawer (presentation, never rules): impure_game.drawing" in said
    assert "view.py:3" not in said


def _check_game_in(folder: Path, *arguments: str, path: str = str(ROOT)) -> list[str]:
    """``python -m mailbot check-game`` as an author starts it in ``folder``: that folder first on
    the import path; this checkout's mailbot (and ``path``) after it."""
    done = subprocess.run(
        [sys.executable, "-m", "mailbot", "check-game", *arguments, "--examples", "1", "--no-mypy"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return done.stdout.splitlines()


def _stray(folder: Path, name: str) -> None:
    """A folder named like a game that fails the check at its import."""
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text("raise RuntimeError('the stray folder was imported')\n")


def test_a_folder_named_like_a_built_in_game_is_not_checked_in_its_place(tmp_path: Path) -> None:
    """Outside GM trial: ``python -m mailbot check-game duel`` in a folder holding a folder duel/
    imported that folder."""
    _stray(tmp_path, "duel")
    lines = _check_game_in(tmp_path, "duel")
    assert lines[0] == f"check-game: duel is mailbot.games.duel, from {ROOT / 'mailbot' / 'games' / 'duel'}"
    assert lines[-1] == "check-game duel: 12 ok, 0 failed", lines


def test_an_installed_game_is_checked_as_installed_beside_a_folder_of_its_name(tmp_path: Path) -> None:
    """A game installed under the ``mailbot.games`` entry points, checked from the folder that holds
    its source (or anything else of its name): the installed package is the one checked, and the
    first line says where it came from."""
    site = tmp_path / "site"
    _installed(site, "tidy_game", "from tests.contract.fixtures.auction import GAME\n\n__all__ = ['GAME']\n")
    _stray(tmp_path / "work", "tidy_game")
    lines = _check_game_in(tmp_path / "work", "tidy_game", path=f"{ROOT}{os.pathsep}{site}")
    assert lines[0] == f"check-game: sealed-bid-auction is tidy_game, from {site / 'tidy_game'}", lines
    assert "ok     protocol" in lines


def _installed(site: Path, module: str, source: str) -> None:
    """A package in ``site`` as pip installs one: the package and its dist-info with the entry point."""
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[mailbot.games]\n{module} = {module}\n")


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
