# SPDX-License-Identifier: GPL-3.0-or-later
"""mailbot as a user installs it: the wheel built from a copy of the checkout, in a fresh venv.

The checkout itself is only read: the wheel is built from a copy, and everything the installed
package does happens in pytest's temporary directory. No network is needed: the build runs
without build isolation (the project venv's setuptools), and the fresh venv borrows the project
venv's dependencies through a ``.pth`` line. Such a line puts that directory on ``sys.path``
without processing the ``.pth`` files inside it, so the checkout's editable-install finder stays
out and ``import mailbot`` can only find the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
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


def run(
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


def checkout_files() -> set[str]:
    """The shippable files under mailbot/, as wheel member names."""
    return {
        path.relative_to(REPO).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix in SHIPPED_SUFFIXES and "__pycache__" not in path.parts
    }


def build_wheel(work: Path) -> Path:
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
    run([*cmd, "--quiet", "--wheel-dir", dist, source], BUILD_TIMEOUT, cwd=work)
    (wheel,) = dist.glob("mailbot-*.whl")
    return wheel


def isolated_env(tmp: Path) -> dict[str, str]:
    """The environment for the installed package: nothing pointing back at the checkout."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "MAILBOT_", "VIRTUAL_ENV"))
    }
    tmp.mkdir()
    env.update(TMPDIR=str(tmp), PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def install_wheel(work: Path) -> Install:
    """Build the wheel from a copy of the checkout and install it into a fresh venv under ``work``."""
    assert not work.resolve().is_relative_to(REPO), "pytest's temporary directory lies inside the checkout"
    wheel = build_wheel(work)

    venv = work / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv], RUN_TIMEOUT)
    python = venv / "bin" / "python"
    query = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site_packages = Path(run([python, "-c", query], RUN_TIMEOUT).strip())
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet"]
    run([*cmd, "--target", site_packages, wheel], RUN_TIMEOUT)
    (site_packages / "mailbot-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    return Install(wheel, python, site_packages, elsewhere, isolated_env(work / "tmp"))
