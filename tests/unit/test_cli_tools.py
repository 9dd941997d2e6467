# SPDX-License-Identifier: GPL-3.0-or-later
"""The mailbox-free command-line tools: envelope and simulations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mailbot import cli_tools
from mailbot.cli import app
from mailbot.registry import Registry, default_registry

runner = CliRunner()


def test_envelope_replays_seed_004_worked_example() -> None:
    # seed 004: "3-1 against F12, another at 5-1 on G13 and a soak-off of 1-4 against units on I-11
    # ... 21+25+36=82. We divide 82 by 5 and find we have a remainder of 2."
    result = runner.invoke(app, ["envelope", "--modulus", "5", "3-1@F12", "5-1@G13", "1-4@I-11"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "21+25+36 = 82; 82 mod 5 = 2: open envelope 2"


def test_envelope_marks_default_chart_values() -> None:
    result = runner.invoke(app, ["envelope", "3-1@F12", "2-1@A3"])
    assert result.exit_code == 0, result.output
    assert "2-1 against A3: 2×8* = 16" in result.output
    assert "* a design default of the hex value chart, not from seed 004" in result.output
    seed_only = runner.invoke(app, ["envelope", "3-1@F12", "5-1@G13", "1-4@I-11"])
    assert "design default" not in seed_only.output


def test_envelope_names_the_next_envelope_after_ten_combats() -> None:
    # seed 004: "If you have more than ten combat situations then you must use the NEXT numbered
    # coin envelope. (If you use number 4, the next to be opened would be 0)."
    result = runner.invoke(app, ["envelope", *["1-1@F12"] * 12])
    assert result.exit_code == 0, result.output
    assert "12 combats: ten per envelope, then the next numbered envelope" in result.output
    last = result.output.strip().splitlines()[-1]
    assert last.endswith("84 mod 5 = 4: open envelope 4 for combats 1-10, then envelope 0 for combats 11-12")


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


def test_simulate_salt_n_tar_last_two_lines() -> None:
    args = ["simulate", "salt-n-tar", "--ships", "3", "--races", "20", "--luck", "always", "--seed", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    tail = result.output.strip().splitlines()[-2:]
    assert re.fullmatch(r"share with a winner: [01]\.\d{3}", tail[0])
    assert re.fullmatch(r"share of ships sunk: [01]\.\d{3}", tail[1])
    assert float(tail[0].split(": ")[1]) >= 0.5


def test_simulate_salt_n_tar_refuses_a_bad_luck_policy() -> None:
    result = runner.invoke(app, ["simulate", "salt-n-tar", "--luck", "sometimes"])
    assert result.exit_code != 0


def test_a_remainder_of_0_opens_envelope_0_and_says_it_is_a_default() -> None:
    # seed 004: "Always be sure one envelope is marked 101 since, if the division results in an
    # even number instead of any remainder, this would be the envelope opened" -- read as 0.
    result = runner.invoke(app, ["envelope", "5-1@G13"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == "25 = 25; 25 mod 5 = 0: open envelope 0"
    assert "design default: a remainder of 0 opens envelope 0 (mailbot envelope --defaults" in lines[-2]
    two = runner.invoke(app, ["envelope", "3-1@F12", "5-1@G13", "1-4@I-11"])
    assert "design default" not in two.output


def test_envelope_lists_its_defaults_in_one_place() -> None:
    result = runner.invoke(app, ["envelope", "--defaults"])
    assert result.exit_code == 0, result.output
    assert "a remainder of 0 opens envelope 0: seed 004 says" in result.output
    assert "numeric hex ids by their first two digits" in result.output
    numeric = runner.invoke(app, ["envelope", "--modulus", "7", "2-1@0824"])
    assert "design default: numeric hex ids by their first two digits" in numeric.output
    assert "design default: the full sum, not unit digits" in numeric.output
    assert runner.invoke(app, ["envelope"]).exit_code != 0


def test_an_outside_game_adds_its_simulation_from_its_own_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mailbot simulate`` lists what the installed game packages declare, outside ones too."""
    package = tmp_path / "outside_sim"
    package.mkdir()
    (package / "__init__.py").write_text("from tests.contract.fixtures.auction import GAME\n")
    (package / "simulate.py").write_text(
        "from mailbot.core.simulation import Option, Simulation\n\n\n"
        "def run(options, rng, data):\n"
        "    bid = rng.randint(1, 100)\n"
        "    return [f\"{options['lots']} lots, mode {options['mode']}, first bid {bid}\"]\n\n\n"
        "SIMULATION = Simulation('auction-bids', 'Bids at auction.', (\n"
        "    Option('lots', int, 3, 'Lots.', low=1),\n"
        "    Option('mode', str, 'open', 'Open or sealed.', choices=('open', 'sealed')),\n"
        "), run)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry([*default_registry().modules, "outside_sim"])
    monkeypatch.setattr(cli_tools, "default_registry", lambda: registry)
    cli_tools._simulations.cache_clear()
    try:
        listed = runner.invoke(app, ["simulate", "--help"])
        assert "auction-bids" in listed.output and "wif-turn-end" in listed.output
        args = ["simulate", "auction-bids", "--lots", "7", "--mode", "sealed", "--seed", "4"]
        first, again = runner.invoke(app, args), runner.invoke(app, args)
        assert first.exit_code == 0, first.output
        assert first.output.startswith("7 lots, mode sealed, first bid ") and first.output == again.output
        refused = runner.invoke(app, ["simulate", "auction-bids", "--lots", "0"])
        assert refused.exit_code == 2 and "--lots" in refused.output
    finally:
        cli_tools._simulations.cache_clear()
