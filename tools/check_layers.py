#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Import-layer check: ``mailbot/core`` and ``mailbot/games`` are pure.

They may import the standard library (minus I/O, clocks-by-design and event
loops), each other, and ``mailbot.errors``; never an adapter (mail, store,
render, scheduler, services, app, cli, settings) or a third-party package.
Exit status 1 lists every offending import.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE = ("mailbot/core", "mailbot/games")
ALLOWED_MAILBOT = ("mailbot.core", "mailbot.games", "mailbot.errors")
# Standard-library modules that do I/O, talk to the network, run event loops or
# spawn processes: pure rules code has no business with them.
FORBIDDEN_STDLIB = frozenset(
    {
        "asyncio", "socket", "ssl", "sqlite3", "subprocess", "smtplib", "imaplib", "poplib",
        "urllib", "http", "shutil", "tempfile", "threading", "multiprocessing", "signal",
        "time", "logging", "select", "selectors", "email",
    }
)  # fmt: skip


def imports(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


def problem(name: str) -> str | None:
    top = name.split(".", maxsplit=1)[0]
    if top == "mailbot":
        ok = any(name == allowed or name.startswith(allowed + ".") for allowed in ALLOWED_MAILBOT)
        return None if ok else "imports an adapter"
    if top == "__future__" or (top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB):
        return None
    if top in FORBIDDEN_STDLIB:
        return "imports an I/O or runtime module"
    return "imports a third-party package"


def check(root: Path = ROOT) -> list[str]:
    errors = []
    for folder in PURE:
        for path in sorted((root / folder).rglob("*.py")):
            for lineno, name in imports(path):
                why = problem(name)
                if why:
                    errors.append(f"{path.relative_to(root)}:{lineno}: {why}: {name}")
    return errors


def main() -> int:
    errors = check()
    for line in errors:
        print(line)
    print(f"layers: {'FAILED' if errors else 'ok'} ({len(errors)} problem(s))")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
