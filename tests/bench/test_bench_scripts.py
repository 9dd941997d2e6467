# SPDX-License-Identifier: GPL-3.0-or-later
"""Every benchmark under ``bench/`` still starts: it imports what it uses (from the moderator and
from its sibling scripts) and answers ``--help``. The benchmarks are run by hand, not by the
suite, so a name moved out from under one would otherwise be found only when it is next run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(path.name for path in BENCH.glob("*.py") if "argparse" in path.read_text(encoding="utf-8"))


def test_the_benchmarks_are_found() -> None:
    assert {"intake.py", "fanout.py", "workers.py", "flattop_hour.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_starts_and_says_how_to_run_it(script: str) -> None:
    command = [sys.executable, str(BENCH / script), "--help"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
