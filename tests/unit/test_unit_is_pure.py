# SPDX-License-Identifier: GPL-3.0-or-later
"""``tests/unit`` is pure (issue 35): no database, mail server, process or network, so it runs
in seconds anywhere. A test that needs one of those lives beside the code it tests (services,
store, adapters, app, packaging, bench)."""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).resolve().parent
#: modules whose import means I/O a unit test does not do
IMPURE_MODULES = (
    "subprocess",
    "socket",
    "sqlite3",
    "multiprocessing",
    "mailbot.app",
    "mailbot.letterproc",
    "mailbot.store.db",
    "mailbot.testing.mailrig",
    "mailbot.testing.oauth2server",
    "http.server",
    "tests.rig_fixtures",
    "tests.services",
)
#: fixtures that bring a store or a mail server
IMPURE_FIXTURES = frozenset({"db_url", "engine", "mail_rig", "player_address"})


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _problems(path: Path) -> list[str]:
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        problems += [
            f"{path.name}:{node.lineno}: imports {name}"
            for name in names
            if any(_within(name, impure) for impure in IMPURE_MODULES)
        ]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            used = {arg.arg for arg in node.args.args} & IMPURE_FIXTURES
            problems += [f"{path.name}:{node.lineno}: {node.name} asks for {name}" for name in sorted(used)]
    return problems


def test_unit_tests_need_no_store_server_or_process() -> None:
    files = sorted(UNIT.glob("*.py"))
    assert len(files) > 25
    assert [problem for path in files for problem in _problems(path)] == []


def test_the_check_sees_an_impure_test(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    source = "import subprocess\nfrom mailbot.store.db import make_engine\n\ndef test_x(db_url): ...\n"
    sample.write_text(source)
    assert _problems(sample) == [
        "test_sample.py:1: imports subprocess",
        "test_sample.py:2: imports mailbot.store.db",
        "test_sample.py:2: imports mailbot.store.db.make_engine",
        "test_sample.py:4: test_x asks for db_url",
    ]
