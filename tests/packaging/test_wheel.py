# SPDX-License-Identifier: GPL-3.0-or-later
"""A normal, non-editable install works: build the wheel, install it into a fresh venv, play every demo.

The checkout itself is only read: the wheel is built from a copy, and everything the installed
package does happens in pytest's temporary directory. No network is needed: the build runs
without build isolation (the project venv's setuptools), and the fresh venv borrows the project
venv's dependencies through a ``.pth`` line. Such a line puts that directory on ``sys.path``
without processing the ``.pth`` files inside it, so the checkout's editable-install finder stays
out and ``import mailbot`` can only find the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest

from mailbot.demo.scripts import demos

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "mailbot"
# Whatever of these lies under mailbot/ must be in the wheel.
SHIPPED_SUFFIXES = (".py", ".j2", ".toml", ".mako", ".ini", ".typed")
# A ``license = "SPDX expression"`` string (PEP 639) needs setuptools 77.
MIN_SETUPTOOLS = 77
BUILD_TIMEOUT = 120
RUN_TIMEOUT = 60
DEMO_TIMEOUT = 120
TAIL = 3000  # characters of a failed command's stderr to show


@dataclass(frozen=True)
class Install:
    wheel: Path
    python: Path  # the fresh venv's interpreter
    site_packages: Path
    elsewhere: Path  # a working directory outside the checkout
    env: dict[str, str]


def _run(
    cmd: list[str | Path], timeout: float, cwd: Path | None = None, env: dict[str, str] | None = None
) -> str:
    """Run ``cmd`` to success; its stdout."""
    result = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env, check=False
    )
    assert result.returncode == 0, (
        f"{cmd} failed ({result.returncode}):\n{result.stdout}\n{result.stderr[-TAIL:]}"
    )
    return result.stdout


def _checkout_files() -> set[str]:
    """The shippable files under mailbot/, as wheel member names."""
    return {
        path.relative_to(REPO).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix in SHIPPED_SUFFIXES and "__pycache__" not in path.parts
    }


def _build_wheel(work: Path) -> Path:
    setuptools_version = version("setuptools")
    if int(setuptools_version.split(".")[0]) < MIN_SETUPTOOLS:
        pytest.fail(
            f"setuptools {setuptools_version} in {sys.prefix} cannot build mailbot without build isolation; "
            f"it needs setuptools>={MIN_SETUPTOOLS} (the SPDX license string in pyproject.toml)"
        )
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for pattern in ("LICEN[CS]E*", "COPYING*", "NOTICE*", "AUTHORS*"):
        for path in REPO.glob(pattern):
            shutil.copy2(path, source / path.name)
    shutil.copytree(PACKAGE, source / "mailbot", ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))
    dist = work / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    _run([*cmd, "--quiet", "--wheel-dir", dist, source], BUILD_TIMEOUT, cwd=work)
    (wheel,) = dist.glob("mailbot-*.whl")
    return wheel


def _isolated_env(tmp: Path) -> dict[str, str]:
    """The environment for the installed package: nothing pointing back at the checkout."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "MAILBOT_", "VIRTUAL_ENV"))
    }
    tmp.mkdir()
    env.update(TMPDIR=str(tmp), PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    return env


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    work = tmp_path_factory.mktemp("wheel")
    assert not work.resolve().is_relative_to(REPO), "pytest's temporary directory lies inside the checkout"
    wheel = _build_wheel(work)

    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], RUN_TIMEOUT)
    python = venv / "bin" / "python"
    query = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site_packages = Path(_run([python, "-c", query], RUN_TIMEOUT).strip())
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet"]
    _run([*cmd, "--target", site_packages, wheel], RUN_TIMEOUT)
    (site_packages / "mailbot-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    return Install(wheel, python, site_packages, elsewhere, _isolated_env(work / "tmp"))


def test_the_wheel_ships_every_module_template_and_data_file(install: Install) -> None:
    expected = _checkout_files()
    for suffix in (".j2", ".toml", ".mako"):
        assert any(name.endswith(suffix) for name in expected), f"no {suffix} file found in the checkout"
    assert {
        "mailbot/py.typed",
        "mailbot/__main__.py",
        "mailbot/envelope/data/hex-values.toml",
        "mailbot/store/migrations/env.py",
        "mailbot/store/migrations/script.py.mako",
    } <= expected
    assert any(name.startswith("mailbot/store/migrations/versions/") for name in expected)

    with zipfile.ZipFile(install.wheel) as wheel:
        shipped = set(wheel.namelist())
        entry_points = next(n for n in shipped if n.endswith(".dist-info/entry_points.txt"))
        assert "mailbot = mailbot.cli:main" in wheel.read(entry_points).decode()
    assert sorted(expected - shipped) == []


def test_the_fresh_venv_imports_the_wheel_not_the_checkout(install: Install) -> None:
    script = (
        "import json, mailbot; from mailbot.demo.scripts import demos; "
        "print(json.dumps([mailbot.__file__, [d.plugin for d in demos()]]))"
    )
    out = _run([install.python, "-c", script], RUN_TIMEOUT, cwd=install.elsewhere, env=install.env)
    module_file, installed_demos = json.loads(out)
    assert Path(module_file).is_relative_to(install.site_packages)
    assert not Path(module_file).resolve().is_relative_to(REPO)
    assert installed_demos == [demo.plugin for demo in demos()]


def test_every_demo_plays_from_the_installed_wheel(install: Install) -> None:
    names = [demo.plugin for demo in demos()]
    assert names, "the registry lists no demo"
    for name in names:
        (install.elsewhere / name).mkdir()
    running = {
        name: subprocess.Popen(
            [install.python, "-m", "mailbot", "demo", "--game", name, "--workdir", install.elsewhere / name],
            cwd=install.elsewhere,
            env=install.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    }
    failures: list[str] = []
    try:
        for name, process in running.items():
            stdout, stderr = process.communicate(timeout=DEMO_TIMEOUT)
            if process.returncode != 0 or not stdout.startswith("demo:"):
                failures.append(f"{name}: exit {process.returncode}\n{stdout}\n{stderr[-TAIL:]}")
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert not failures, "\n\n".join(failures)
