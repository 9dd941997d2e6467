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
    case("import-module-constant", "import importlib\nimportlib.import_module('socket')\n", IO, "socket"),
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


def test_deadlines_may_use_zoneinfo_and_no_rules_module_loads_plugins(tmp_path: Path) -> None:
    # Loading game packages by name is the registry's (``mailbot/registry.py``, an adapter).
    registry = """\
        import importlib
        import importlib.util
        import pkgutil
        from importlib.metadata import entry_points

        def load(module):
            return importlib.import_module(module), importlib.util.find_spec(f"{module}.demo")
    """
    files = {DEADLINES: "from zoneinfo import ZoneInfo\nZoneInfo('UTC')\n", "mailbot/registry.py": registry}
    assert run(tmp_path, files) == []
    # The same code in core or in a game is reported.
    errors = run(tmp_path, {CORE: registry, DUEL: files[DEADLINES], "mailbot/games/registry.py": registry})
    assert_reported(errors, CORE, DYNAMIC_IMPORT, "importlib.import_module(module)")
    assert_reported(errors, CORE, IO, "pkgutil")
    assert_reported(errors, "mailbot/games/registry.py", IO, "pkgutil")
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


def test_a_module_over_the_house_length_is_reported_and_a_migration_is_not(tmp_path: Path) -> None:
    limit = tool.MAX_MODULE_LINES
    files = {
        "mailbot/services/play/long.py": "x = 1\n" * (limit + 1),
        "mailbot/services/play/fits.py": "x = 1\n" * limit,
        "mailbot/store/migrations/versions/0001_first.py": "x = 1\n" * (limit + 50),
    }
    errors = [line for line in run(tmp_path, files) if tool.LONG in line]
    said = f"{tool.LONG}: {limit + 1} lines, at most {limit}"
    assert errors == [f"mailbot/services/play/long.py:{limit + 1}: {said}"]


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


def test_a_games_map_drawer_may_draw_but_no_rules_module_may_import_it(tmp_path: Path) -> None:
    drawer = "import drawsvg as dw\nfrom mailbot.render.maps import canvas\n"
    files = {"mailbot/games/duel/drawing.py": drawer, "mailbot/games/saga/drawing/board.py": drawer}
    assert run(tmp_path, files) == []
    errors = run(tmp_path, {DUEL: "from .drawing import draw\n", "mailbot/games/duel/map/drawing.py": drawer})
    assert_reported(errors, DUEL, "imports a game's map drawer (presentation, never rules)", "drawing")
    nested = "mailbot/games/duel/map/drawing.py"
    assert_reported(errors, nested, "imports a third-party package", "drawsvg")
    # Like the rest of the game it stays below the services.
    below = {"mailbot/games/duel/drawing.py": "from mailbot.services.base import queries\n"}
    layer = {"mailbot/services/base/queries.py": "", "mailbot/services/base/__init__.py": ""}
    services = run(tmp_path, {**below, **layer})
    assert_reported(services, "mailbot/games/duel/drawing.py", "imports the services from below", "queries")


# -- The import drawing of all of mailbot/: no circle, services one way ------------------------

CIRCLE = "import circle"
UPWARD = "imports a services layer above or beside its own"
LOOSE = "services module outside the layers"
IMPORTS_TOP = "imports the top (what builds and runs the moderator)"
IMPORTS_SERVICES = "imports the services from below"
STALE = "known circle is gone: remove it from KNOWN_CIRCLES"
UNDER_SPINE = tool.UNDER_SPINE
A, B, C = "mailbot/pkg/a.py", "mailbot/pkg/b.py", "mailbot/pkg/c.py"
TYPING_ONLY = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mailbot.pkg.a import A\n"
LAZY = "def later():\n    from mailbot.pkg import a\n    return a\n"

CIRCLES = [
    pytest.param(
        {A: "import mailbot.pkg.b\n", B: "from mailbot.pkg.a import x\n"}, "a -> mailbot.pkg.b", id="top"
    ),
    pytest.param({A: "from mailbot.pkg import b\n", B: LAZY}, "a -> mailbot.pkg.b", id="lazy-in-a-function"),
    pytest.param(
        {A: "from mailbot.pkg.b import B\n", B: TYPING_ONLY}, "a -> mailbot.pkg.b", id="type-checking"
    ),
    pytest.param({A: "from . import b\n", B: "from .a import x\n"}, "a -> mailbot.pkg.b", id="relative"),
    pytest.param(
        {A: "from mailbot.pkg import b\n", B: "import mailbot.pkg.c\n", C: "from mailbot.pkg.a import x\n"},
        "mailbot.pkg.a -> mailbot.pkg.b -> mailbot.pkg.c -> mailbot.pkg.a",
        id="three-round",
    ),
    pytest.param(
        {A: "import importlib\nimportlib.import_module('mailbot.pkg.b')\n", B: "import mailbot.pkg.a\n"},
        "a -> mailbot.pkg.b",
        id="import-module",
    ),
]


@pytest.mark.parametrize(("files", "detail"), CIRCLES)
def test_an_import_circle_is_reported(tmp_path: Path, files: dict[str, str], detail: str) -> None:
    errors = run(tmp_path, {"mailbot/pkg/__init__.py": "", **files})
    assert_reported(errors, A, CIRCLE, detail)
    assert len(errors) == 1, errors


def test_a_package_and_its_modules_make_no_circle(tmp_path: Path) -> None:
    files = {
        "mailbot/pkg/__init__.py": "from mailbot.pkg.a import x\nfrom . import b\n",
        A: "from mailbot.pkg import b\nx = b.y\n",
        B: "y = 1\n",
    }
    assert run(tmp_path, files) == []


SERVICES = {
    "mailbot/services/__init__.py": "",
    **{f"mailbot/services/{layer}/__init__.py": "" for layer in ("base", "post", "inbox", "play", "archive")},
    "mailbot/services/health/__init__.py": "",
    "mailbot/services/base/queries.py": "x = 1\n",
    "mailbot/services/post/letters.py": "from mailbot.services.base import queries\n",
    "mailbot/services/play/games.py": "from mailbot.services.post.letters import x\n",
    "mailbot/services/archive/site.py": "from mailbot.services.play import games\n",
}


def test_services_import_down_only(tmp_path: Path) -> None:
    assert run(tmp_path, SERVICES) == []
    up = "mailbot/services/post/outbox.py"
    late = "mailbot/services/base/claims.py"
    beside = "mailbot/services/health/status.py"
    files = {
        **SERVICES,
        up: "from mailbot.services.inbox.handling import Reply\n",
        late: "def f():\n    from mailbot.services.play.games import Games\n",
        beside: "from mailbot.services.archive import site\n",
        "mailbot/services/inbox/handling.py": "Reply = object\n",
    }
    errors = run(tmp_path, files)
    assert_reported(errors, up, UPWARD, "mailbot.services.inbox.handling")
    assert_reported(errors, late, UPWARD, "mailbot.services.play.games")
    assert_reported(errors, beside, UPWARD, "mailbot.services.archive.site")
    assert len(errors) == 3, errors


def test_a_services_module_is_in_a_layer(tmp_path: Path) -> None:
    flat, unlisted = "mailbot/services/games.py", "mailbot/services/misc/tools.py"
    errors = run(tmp_path, {**SERVICES, flat: "", unlisted: "", "mailbot/services/misc/__init__.py": ""})
    assert_reported(errors, flat, LOOSE, "mailbot.services.games")
    assert_reported(errors, unlisted, LOOSE, "mailbot.services.misc.tools")


def test_nothing_below_imports_the_services_or_the_top(tmp_path: Path) -> None:
    store, render, games = (
        "mailbot/store/repo.py",
        "mailbot/render/pages.py",
        "mailbot/services/play/games.py",
    )
    files = {
        **SERVICES,
        "mailbot/app.py": "from mailbot.services.play import games\n",
        "mailbot/letterproc.py": "",
        "mailbot/cli_ops.py": "import mailbot.app\n",
        store: "def f():\n    from mailbot.letterproc import serve\n",
        render: "from mailbot.services.base.queries import x\n",
        games: "from mailbot import cli_ops\n",
    }
    errors = run(tmp_path, files)
    assert_reported(errors, store, IMPORTS_TOP, "mailbot.letterproc")
    assert_reported(errors, render, IMPORTS_SERVICES, "mailbot.services.base.queries")
    assert_reported(errors, games, IMPORTS_TOP, "mailbot.cli_ops")
    circle = "mailbot.app -> mailbot.services.play.games -> mailbot.cli_ops -> mailbot.app"
    assert_reported(errors, "mailbot/app.py", CIRCLE, circle)


def test_a_rules_folder_may_not_import_the_hour_run_or_the_state(tmp_path: Path) -> None:
    game = "mailbot/games/g"
    files = {
        f"{game}/__init__.py": "",
        f"{game}/state.py": "",
        f"{game}/hour/__init__.py": "",
        f"{game}/hour/resolve.py": "from mailbot.games.g.combat import fire\n"
        "from mailbot.games.g import state\n",
        f"{game}/combat/__init__.py": "",
        f"{game}/combat/fire.py": "from mailbot.games.g.hour import resolve\n",
        f"{game}/combat/hits.py": "from mailbot.games.g.state import State\n",
        f"{game}/game.py": "from mailbot.games.g.hour import resolve\n",
    }
    errors = run(tmp_path, files)
    assert_reported(errors, f"{game}/combat/fire.py", UNDER_SPINE, "mailbot.games.g.hour.resolve")
    assert_reported(errors, f"{game}/combat/hits.py", UNDER_SPINE, "mailbot.games.g.state")
    # The spine and the plugin beside the folders import them and the state freely.
    assert not [e for e in errors if "hour/resolve.py" in e or "game.py" in e]


def test_mailbot_has_no_import_circle_left() -> None:
    # Issue 35: the import drawing has no circle; the list of tolerated ones is empty.
    assert tool.KNOWN_CIRCLES == ()


def test_a_known_circle_that_is_gone_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    known = frozenset({"mailbot.games.g.a", "mailbot.games.g.b"})
    monkeypatch.setattr(tool, "KNOWN_CIRCLES", (known,))
    first, second = sorted(known)
    path = {name: name.replace(".", "/") + ".py" for name in known}
    inits = {f"{'/'.join(first.split('.')[:i])}/__init__.py": "" for i in range(1, first.count(".") + 1)}
    both_ways = {path[first]: f"import {second}\n", path[second]: f"import {first}\n"}
    assert run(tmp_path, {**inits, **both_ways}) == []
    errors = run(tmp_path, {path[second]: "x = 1\n"})
    assert_reported(errors, path[first], STALE, second)


def test_the_envelope_arithmetic_is_held_to_the_rules_standard(tmp_path: Path) -> None:
    errors = run(tmp_path, {"mailbot/envelope/rules.py": "import random\nrandom.random()\n"})
    assert_reported(errors, "mailbot/envelope/rules.py", "uses the global random generator", "random.random")
    # Its command, the edge, reads the shipped files.
    assert (
        run(tmp_path, {"mailbot/envelope/rules.py": "", "mailbot/envelope/command.py": "import pathlib\n"})
        == []
    )
