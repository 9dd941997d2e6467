# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo's players keep dice chains as real players do (``mailbot/demo/chains.py``): every
step's dice, the set-up's included, are version 3 with no reveal withheld, and the exported
archive's own verify.py checks them."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from mailbot.demo import chains
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


def test_the_demo_players_reveal_lines_are_the_shipped_verify_pys() -> None:
    """The demo works its REVEAL lines out in process from a kept root; the shipped file prints
    the same line for the same passphrase, game, seat and round (and for the round 1 a set-up asks)."""
    phrase = chains.passphrase("a seed", "player2@demo.localhost")
    for game, seat, k in (("3", "north", "7"), ("12", "japanese", "1"), ("12", "Japanese", "9999")):
        asked = f"Your letter's line: python3 verify.py reveal {game} {seat} {k} (paste what it prints)"
        shipped = asyncio.run(chains.verify_line(phrase, "reveal", game, seat, k))
        assert asyncio.run(chains.asked_reveal(phrase, asked)) == shipped
        assert shipped.startswith(f"REVEAL {k} ")
    assert asyncio.run(chains.asked_reveal(phrase, "a letter that asks for no reveal")) == ""
