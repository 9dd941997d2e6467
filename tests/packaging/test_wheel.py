# SPDX-License-Identifier: GPL-3.0-or-later
"""A normal, non-editable install works: the wheel, built from a copy of the checkout and
installed into a fresh venv (``tests/wheel.py``: no network, the checkout only read), ships every
module, template and data file, imports from itself and plays every demo."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from mailbot.demo.scripts import demos
from tests.demo_plays import DemoPlays
from tests.wheel import REPO, RUN_TIMEOUT, Install, checkout_files, run


@pytest.fixture(scope="module")
def install(demo_plays: DemoPlays) -> Install:
    """The wheel in a fresh venv, built once for the run (the shared demo games are played with it)."""
    return demo_plays.install()


def test_the_wheel_ships_every_module_template_and_data_file(install: Install) -> None:
    expected = checkout_files()
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
    out = run([install.python, "-c", script], RUN_TIMEOUT, cwd=install.elsewhere, env=install.env)
    module_file, installed_demos = json.loads(out)
    assert Path(module_file).is_relative_to(install.site_packages)
    assert not Path(module_file).resolve().is_relative_to(REPO)
    assert installed_demos == [demo.plugin for demo in demos()]


def test_every_demo_plays_from_the_installed_wheel(demo_plays: DemoPlays) -> None:
    """Each game's demo played to its end with the wheel (``tests/demo_plays.py``; the same games
    that the end-to-end tests read, so each is played once for the whole run)."""
    names = [demo.plugin for demo in demos()]
    assert names, "the registry lists no demo"
    for name in names:
        played = demo_plays(name)
        assert played.result.summary.startswith("demo: ") and played.result.archive is not None, name
        assert (played.archive / "index.html").is_file(), name
