# SPDX-License-Identifier: GPL-3.0-or-later
"""A scenario name the duel or Atlantic Storm does not know is refused with the known ones, as
Flat Top, Salt'n'Tar and WiF refuse theirs; names are not case-sensitive."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.core.dice import DiceStream, FixedDice
from mailbot.core.game import Setup
from mailbot.errors import GameError
from mailbot.games.atlantic_storm import GAME as STORM
from mailbot.games.duel import GAME as DUEL
from mailbot.services.base.gamedata import load_game_data

runner = CliRunner()
STORM_KNOWN = "known: standard, enhanced, 2p, 3p, 4p, 5p, 6p"


@pytest.mark.parametrize("name", ["nosuch", "", "standard-ish"])
def test_the_duel_refuses_a_scenario_it_does_not_know(name: str) -> None:
    with pytest.raises(GameError, match=f"no dice duel scenario {name!r}; known: standard$"):
        DUEL.seats(name, {})
    with pytest.raises(GameError, match="known: standard"):
        DUEL.new_game(Setup(name, ("north", "south")), dice=FixedDice())


def test_the_duel_reads_its_scenario_in_any_case() -> None:
    assert DUEL.seats("Standard", {}) == ("north", "south")
    assert DUEL.new_game(Setup(" STANDARD ", ("north", "south")), dice=FixedDice()).turn == 1


@pytest.mark.parametrize("name", ["7p", "1p", "0p", "p", "nosuch", "enhanced-3p"])
def test_atlantic_storm_refuses_a_scenario_it_does_not_know(name: str) -> None:
    with pytest.raises(GameError, match=f"no Atlantic Storm scenario {name!r}; {STORM_KNOWN}$"):
        STORM.seats(name, {})


def test_atlantic_storm_refuses_it_in_new_game_too() -> None:
    data = load_game_data("atlantic-storm")
    with pytest.raises(GameError, match=STORM_KNOWN):
        STORM.new_game(Setup("7p", ("P1", "P2"), {}, data), dice=DiceStream(b"s" * 32, "", "setup"))


def _storm(scenario: str, **options: bool) -> bool:
    """Whether a new game of ``scenario`` plays the enhanced selection algorithm."""
    data = load_game_data("atlantic-storm")
    seats = STORM.seats(scenario, data)
    state = STORM.new_game(Setup(scenario, seats, options, data), dice=DiceStream(b"s" * 32, "", "setup"))
    return state.enhanced


def test_atlantic_storm_scenario_names_are_not_case_sensitive() -> None:
    assert _storm("Enhanced") and _storm("ENHANCED") and not _storm("Standard")
    assert not _storm("Enhanced", enhanced=False)  # the option still wins
    assert STORM.seats("3P", {}) == ("P1", "P2", "P3")
    assert STORM.seats("6p", {}) == ("P1", "P2", "P3", "P4", "P5", "P6")
    assert STORM.seats("enhanced", {}) == ("P1", "P2", "P3", "P4")


@pytest.mark.parametrize(
    ("game", "scenario", "said"),
    [
        ("duel", "nosuch", "no dice duel scenario 'nosuch'; known: standard"),
        ("atlantic-storm", "7p", f"no Atlantic Storm scenario '7p'; {STORM_KNOWN}"),
    ],
)
@pytest.mark.usefixtures("cli_store")
def test_game_create_refuses_an_unknown_scenario_in_one_line(game: str, scenario: str, said: str) -> None:
    args = ["game", "create", "--game", game, "--scenario", scenario, "--title", "T", "--deadline", "4m"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert f"{game}: {said}" in result.output and len(result.output.strip().splitlines()) == 1
    assert "no game" in runner.invoke(app, ["game", "show", "1"]).output
