# SPDX-License-Identifier: GPL-3.0-or-later
"""The registry the contract kit runs over: every installed game plus the fixture game packages.

A fixture game is any package under ``tests/contract/fixtures/``: adding one
there is all it takes for the whole kit to run on it.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path

from mailbot.registry import Registry, builtin_modules, plugin_modules

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture_modules() -> list[str]:
    return [
        f"tests.contract.fixtures.{info.name}" for info in pkgutil.iter_modules([str(FIXTURES)]) if info.ispkg
    ]


REGISTRY = Registry([*builtin_modules(), *plugin_modules(), *fixture_modules()])
