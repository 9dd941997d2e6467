# SPDX-License-Identifier: GPL-3.0-or-later
"""tools/check_layers.py: every way out of the pure layers is reported, clean rules code is not."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = "mailbot/core/x.py"
DUEL = "mailbot/games/duel/rules.py"
REGISTRY = "mailbot/games/registry.py"
DEADLINES = "mailbot/core/deadlines.py"


def _load_tool() -> ModuleType:
    # tools/ is not a package: load the script by path (registered first, as dataclasses need it).
    spec = importlib.util.spec_from_file_location("check_layers", REPO / "tools" / "check_layers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


def run(tmp_path: Path, files: dict[str, str]) -> list[str]:
    for rel, source in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    errors: list[str] = tool.check(tmp_path)
    return errors


def assert_reported(errors: list[str], rel: str, reason: str, detail: str) -> None:
    hits = [e for e in errors if e.startswith(f"{rel}:") and f": {reason}: " in e and detail in e]
    assert hits, f"expected {rel}: {reason}: ...{detail}... in {errors}"


def case(name: str, source: str, reason: str, detail: str, rel: str = CORE) -> object:
    return pytest.param(rel, source, reason, detail, id=name)


ADAPTER = "imports an adapter"
IO = "imports an I/O or runtime module"
CLOCK = "reads the clock"
ENTROPY = "draws OS entropy"
GLOBAL_RANDOM = "uses the global random generator"
FILE_IO = "does file I/O"
DYNAMIC_IMPORT = "dynamic import"

RELATIVE = [
    case("parent-adapter", "from ..services import x\n", ADAPTER, "mailbot.services (from ..services)"),
    case("grandparent-adapter", "from ...mail.smtp import y\n", ADAPTER, "mailbot.mail.smtp", rel=DUEL),
    case("dot-dot-name", "from .. import store\n", ADAPTER, "mailbot.store (from ..)"),
    case(
        "package-init", "from .. import render\n", ADAPTER, "mailbot.render", rel="mailbot/core/__init__.py"
    ),
    case("star-from-parent", "from .. import *\n", ADAPTER, "mailbot (from ..)"),
    case("beyond-top", "from .... import x\n", "relative import beyond the top-level package", "...."),
]

IMPORTS = [
    case("socket", "import socket\n", IO, "socket"),
    case("sqlite3", "import sqlite3\n", IO, "sqlite3"),
    case("submodule", "import os.path\n", IO, "os.path"),
    case("from-submodule", "from os import path\n", IO, "os"),
    case("import-module", "import importlib\nimportlib.import_module('socket')\n", IO, "socket"),
    case("dunder-import", "__import__('socket')\n", IO, "socket"),
    case(
        "aliased-import-module", "from importlib import import_module as im\nim('sqlite3')\n", IO, "sqlite3"
    ),
    case(
        "import-module-relative",
        "import importlib\nimportlib.import_module('..services', 'mailbot.core')\n",
        ADAPTER,
        "mailbot.services",
    ),
    case("dunder-import-level", "__import__('store', globals(), None, [], 2)\n", ADAPTER, "mailbot.store"),
    case(
        "dynamic",
        "import importlib\n\ndef f(n):\n    return importlib.import_module(n)\n",
        DYNAMIC_IMPORT,
        "",
    ),
    case("dynamic-dunder", "def f(n):\n    return __import__(n)\n", DYNAMIC_IMPORT, "__import__(n)"),
    case("passed-around", "import importlib\nload = importlib.import_module\n", DYNAMIC_IMPORT, ""),
    case("private", "import _socket\n", "imports a private stdlib module", "_socket"),
    case("importlib-resources", "import importlib.resources\n", IO, "importlib.resources"),
    case("zoneinfo-outside-deadlines", "import zoneinfo\n", IO, "zoneinfo"),
    case(
        "registry-constant", "import importlib\nimportlib.import_module('socket')\n", IO, "socket", REGISTRY
    ),
]

FILE_IO_CASES = [
    case("builtin-open", "def f():\n    return open('x')\n", FILE_IO, "builtins.open"),
    case("io-open", "import io\nio.open('x')\n", FILE_IO, "io.open"),
    case("from-io-open", "from io import open\n", FILE_IO, "io.open"),
    case("os", "import os\nos.open('x', 0)\n", IO, "os"),
    case("os-remove", "from os import remove\n", IO, "os"),
    case("pathlib", "import pathlib\n", IO, "pathlib"),
    case("from-pathlib", "from pathlib import Path\n", IO, "pathlib"),
    case("read-text", "def f(p):\n    return p.read_text()\n", FILE_IO, "p.read_text()"),
    case("write-text", "def f(p):\n    p.write_text('x')\n", FILE_IO, "p.write_text()"),
    case("read-bytes", "def f(p):\n    return p.read_bytes()\n", FILE_IO, "p.read_bytes()"),
    case("write-bytes", "def f(p):\n    p.write_bytes(b'')\n", FILE_IO, "p.write_bytes()"),
    case("path-open", "def f(Path, x):\n    return Path(x).open()\n", FILE_IO, "Path(x).open()"),
    case("getattr-method", "def f(p):\n    return getattr(p, 'read_text')()\n", FILE_IO, "getattr"),
    case("shutil", "import shutil\n", IO, "shutil"),
    case("print", "print('x')\n", "does console I/O", "builtins.print"),
    case("exec", "exec('import socket')\n", "runs dynamic code", "builtins.exec"),
    case("builtins-module", "import builtins\nbuiltins.open('x')\n", FILE_IO, "builtins.open"),
]

CLOCK_CASES = [
    case("import-time", "import time\ntime.time()\n", CLOCK, "time"),
    case("from-time", "from time import monotonic\n", CLOCK, "time"),
    case("datetime-now", "from datetime import datetime\ndatetime.now()\n", CLOCK, "datetime.datetime.now"),
    case("module-now", "import datetime\ndatetime.datetime.now()\n", CLOCK, "datetime.datetime.now"),
    case(
        "alias-now",
        "from datetime import datetime as dt\ndt.now()\n",
        CLOCK,
        "dt.now -> datetime.datetime.now",
    ),
    case("utcnow", "from datetime import datetime\ndatetime.utcnow()\n", CLOCK, "datetime.datetime.utcnow"),
    case("today", "from datetime import datetime\ndatetime.today()\n", CLOCK, "datetime.datetime.today"),
    case("date-today", "from datetime import date\ndate.today()\n", CLOCK, "datetime.date.today"),
    case("module-date-today", "import datetime as d\nd.date.today()\n", CLOCK, "datetime.date.today"),
    case("assigned", "from datetime import datetime\nnow = datetime.now\n", CLOCK, "datetime.datetime.now"),
    case("reassigned", "import datetime\nclock = datetime.datetime\nclock.now()\n", CLOCK, "clock.now"),
    case("getattr", "import datetime\ngetattr(datetime.date, 'today')()\n", CLOCK, "getattr"),
    case("instance", "def f(deadline):\n    return deadline.now()\n", CLOCK, "deadline.now()"),
    case("sched", "import sched\n", CLOCK, "sched"),
]

RANDOM_CASES = [
    case("random", "import random\nrandom.random()\n", GLOBAL_RANDOM, "random.random"),
    case("randint", "import random\nrandom.randint(1, 6)\n", GLOBAL_RANDOM, "random.randint"),
    case("choice", "import random as r\nr.choice([1])\n", GLOBAL_RANDOM, "r.choice -> random.choice"),
    case("shuffle", "import random\nrandom.shuffle([])\n", GLOBAL_RANDOM, "random.shuffle"),
    case("seed", "import random\nrandom.seed(1)\n", GLOBAL_RANDOM, "random.seed"),
    case("from-random", "from random import randrange\n", GLOBAL_RANDOM, "random.randrange"),
    case("star", "from random import *\n", "star import hides the names it brings in", "random"),
    case(
        "by-name",
        "import random\n\ndef f(n):\n    return getattr(random, n)\n",
        "dynamic attribute lookup",
        "",
    ),
    case("unseeded", "import random\nrandom.Random()\n", ENTROPY, "random.Random()"),
    case("seeded-none", "from random import Random\nRandom(None)\n", ENTROPY, "Random(None)"),
    case("reseed", "def f(rng):\n    rng.seed()\n", ENTROPY, "rng.seed()"),
    case("system-random", "import random\nrandom.SystemRandom()\n", ENTROPY, "random.SystemRandom"),
    case("secrets", "import secrets\n", ENTROPY, "secrets"),
    case("urandom", "import os\nos.urandom(8)\n", IO, "os"),
    case("uuid4", "import uuid\nuuid.uuid4()\n", ENTROPY, "uuid.uuid4"),
]

KEPT = [
    case("absolute-adapter", "from mailbot.store import db\n", ADAPTER, "mailbot.store"),
    case("import-adapter", "import mailbot.services\n", ADAPTER, "mailbot.services"),
    case("third-party", "import jinja2\n", "imports a third-party package", "jinja2"),
    case("event-loop", "import asyncio\n", IO, "asyncio"),
    case(
        "type-checking-only",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import sqlite3\n",
        IO,
        "",
    ),
    case("games-adapter", "from mailbot.mail import smtp\n", ADAPTER, "mailbot.mail", rel=DUEL),
]


@pytest.mark.parametrize(("rel", "source", "reason", "detail"), RELATIVE)
def test_relative_imports_are_resolved(
    tmp_path: Path, rel: str, source: str, reason: str, detail: str
) -> None:
    assert_reported(run(tmp_path, {rel: source}), rel, reason, detail)


@pytest.mark.parametrize(("rel", "source", "reason", "detail"), IMPORTS)
def test_io_modules_are_caught_however_imported(
    tmp_path: Path, rel: str, source: str, reason: str, detail: str
) -> None:
    assert_reported(run(tmp_path, {rel: source}), rel, reason, detail)


@pytest.mark.parametrize(("rel", "source", "reason", "detail"), FILE_IO_CASES)
def test_file_io_is_caught(tmp_path: Path, rel: str, source: str, reason: str, detail: str) -> None:
    assert_reported(run(tmp_path, {rel: source}), rel, reason, detail)


@pytest.mark.parametrize(("rel", "source", "reason", "detail"), CLOCK_CASES)
def test_clock_reads_are_caught(tmp_path: Path, rel: str, source: str, reason: str, detail: str) -> None:
    assert_reported(run(tmp_path, {rel: source}), rel, reason, detail)


@pytest.mark.parametrize(("rel", "source", "reason", "detail"), RANDOM_CASES)
def test_global_and_os_randomness_is_caught(
    tmp_path: Path, rel: str, source: str, reason: str, detail: str
) -> None:
    assert_reported(run(tmp_path, {rel: source}), rel, reason, detail)


@pytest.mark.parametrize(("rel", "source", "reason", "detail"), KEPT)
def test_checks_from_before_still_hold(
    tmp_path: Path, rel: str, source: str, reason: str, detail: str
) -> None:
    assert_reported(run(tmp_path, {rel: source}), rel, reason, detail)


CLEAN = """\
    from __future__ import annotations

    import hashlib
    import random
    import re
    from datetime import UTC, date, datetime, time, timedelta

    from mailbot import errors
    from mailbot.core.dice import Dice
    from mailbot.errors import GameError

    from . import dice
    from .game import Event
    from ..games import registry


    class Seal:
        def open(self) -> str:
            return "opened"


    def rules(now: datetime, rng: random.Random, seal: Seal, seed: int, scenario: object) -> object:
        later = now + timedelta(hours=48)
        noon = datetime.combine(date(2026, 1, 1), time(12), tzinfo=UTC)
        own = random.Random(seed)
        when = scenario.time
        return (
            later, noon, own.random(), rng.choice([1, 2]), rng.shuffle([1]), seal.open(),
            when.hour, re.compile("x"), hashlib.sha256(b"x"), getattr(scenario, "name"),
            Dice, GameError, Event, dice, registry, errors,
        )
"""


def test_clean_rules_code_passes(tmp_path: Path) -> None:
    assert run(tmp_path, {CORE: CLEAN}) == []


def test_registry_may_import_plugins_by_name_and_deadlines_may_use_zoneinfo(tmp_path: Path) -> None:
    registry = """\
        import importlib
        import importlib.util
        import pkgutil
        from importlib.metadata import entry_points

        def load(module):
            return importlib.import_module(module), importlib.util.find_spec(f"{module}.demo")
    """
    files = {REGISTRY: registry, DEADLINES: "from zoneinfo import ZoneInfo\nZoneInfo('UTC')\n"}
    assert run(tmp_path, files) == []
    # The same code anywhere else is reported.
    errors = run(tmp_path, {CORE: registry, DUEL: files[DEADLINES]})
    assert_reported(errors, CORE, DYNAMIC_IMPORT, "importlib.import_module(module)")
    assert_reported(errors, CORE, IO, "pkgutil")
    assert_reported(errors, DUEL, IO, "zoneinfo")


def test_main_prints_each_problem_and_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, {CORE: "import socket\n\nimport random\nrandom.random()\n"})
    assert tool.main(tmp_path) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{CORE}:1: {IO}: socket",
        f"{CORE}:4: {GLOBAL_RANDOM}: random.random",
        "layers: FAILED (2 problem(s))",
    ]
    (tmp_path / CORE).write_text("import math\n", encoding="utf-8")
    assert tool.main(tmp_path) == 0
    assert capsys.readouterr().out.splitlines() == ["layers: ok (0 problem(s))"]


def test_unparsable_file_is_a_problem(tmp_path: Path) -> None:
    assert_reported(run(tmp_path, {CORE: "def (:\n"}), CORE, "cannot parse", "")


def test_real_tree_passes() -> None:
    assert tool.check(REPO) == []


def test_a_games_no_leak_kit_may_use_test_tools_but_no_rules_module_may_import_it(tmp_path: Path) -> None:
    kit = "from hypothesis import strategies as st\nfrom mailbot.testing.differential import World\n"
    assert run(tmp_path, {"mailbot/games/duel/worlds.py": kit}) == []
    # Anywhere else in a game, the same imports are reported; and rules never import the kit.
    errors = run(tmp_path, {DUEL: "from .worlds import World\n", "mailbot/games/duel/rules/worlds.py": kit})
    assert_reported(errors, DUEL, "imports a game's no-leak kit (test tooling, never rules)", "worlds")
    nested = "mailbot/games/duel/rules/worlds.py"
    assert_reported(errors, nested, "imports a third-party package", "hypothesis")
