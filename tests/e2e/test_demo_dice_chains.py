# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's players keep dice chains as real players do (``mailbot/demo/chains.py``): every
step's dice, the set-up's included, are version 3 with no reveal withheld, and the exported
archive's own verify.py checks them."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.demo_plays import DemoPlays


def test_the_demo_rolls_every_step_with_the_players_reveals(demo_plays: DemoPlays) -> None:
    result = demo_plays("duel").result
    assert result.archive is not None
    chain = json.loads((result.archive / "game.json").read_text(encoding="utf-8"))["chain"]
    kinds = [entry["kind"] for entry in chain]
    assert kinds.count("dice-chain") == 2 and kinds.index("setup-reveals") < kinds.index("game-started")
    resolved = [entry["payload"] for entry in chain if entry["kind"] == "step-resolved"]
    assert resolved[0]["step"] == "setup" and len(resolved) > 1
    assert all(p.get("dice") == 3 and p.get("withheld") == [] for p in resolved), resolved
    done = subprocess.run(
        [sys.executable, str(result.archive / "verify.py"), str(result.archive)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "FAILED" not in done.stdout, done.stdout
