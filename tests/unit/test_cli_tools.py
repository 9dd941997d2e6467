# SPDX-License-Identifier: GPL-3.0-or-later
"""The mailbox-free command-line tools: envelope and simulations."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from mailbot.cli import app

runner = CliRunner()


def test_envelope_replays_seed_004_worked_example() -> None:
    # seed 004: "3-1 against F12, another at 5-1 on G13 and a soak-off of 1-4 against units on I-11
    # ... 21+25+36=82. We divide 82 by 5 and find we have a remainder of 2."
    result = runner.invoke(app, ["envelope", "--modulus", "5", "3-1@F12", "5-1@G13", "1-4@I-11"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "21+25+36 = 82; 82 mod 5 = 2: open envelope 2"


def test_envelope_refuses_bad_odds_with_a_reason() -> None:
    result = runner.invoke(app, ["envelope", "three-to-one@F12"])
    assert result.exit_code == 1


def test_simulate_wif_last_line() -> None:
    result = runner.invoke(app, ["simulate", "wif-turn-end", "--dice", "2", "--turns", "2000", "--seed", "3"])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    match = re.fullmatch(r"mean impulses per turn: (\d+\.\d{3})", last)
    assert match and 5.0 < float(match.group(1)) < 6.7


def test_simulate_atlantic_storm_last_three_lines() -> None:
    args = ["simulate", "atlantic-storm", "--games", "3000", "--enhanced", "--seed", "5"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    tail = result.output.strip().splitlines()[-3:]
    names = [line.split(":")[0] for line in tail]
    assert names == ["share exactly 20", "share 15-25", "share no 1943 convoys"]
    assert all(re.fullmatch(r"[^:]+: 0\.\d{4}|[^:]+: 1\.0000", line) for line in tail)
