# SPDX-License-Identifier: GPL-3.0-or-later
"""Game options as data: declared by each game, read from text or values, refused naming the valid ones."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import pytest

from mailbot.core.dice import Dice
from mailbot.core.game import Setup
from mailbot.core.options import COMMON_OPTIONS, GameOption, OptionProblem, read_options, set_options
from mailbot.errors import ConfigError
from mailbot.registry import GamePackage, default_registry
from mailbot.services.base.gamedata import data_root, read_tree
from mailbot.services.base.gameoptions import game_options, option_specs, try_setup
from tests.contract.conftest import REGISTRY
from tests.contract.fixtures.auction.game import AuctionGame, AuctionState

AUCTION = REGISTRY.find("auction")

SUBS = GameOption("submarines", "submarine rules", bool)
CRT = GameOption("crt", "the table", str, "curve-fitted", choices=("curve-fitted", "standard"))
HOURS = GameOption("strike_hours", "hours", int, 12, low=1, high=168)
DECLARED = {option.name: option for option in (SUBS, CRT, HOURS)}


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        (SUBS, "on", True),
        (SUBS, "OFF", False),
        (SUBS, "yes", True),
        (SUBS, True, True),
        (CRT, "standard", "standard"),
        (HOURS, "24", 24),
        (HOURS, 1, 1),
    ],
)
def test_values_are_read_by_their_declaration(option: GameOption, value: object, expected: object) -> None:
    assert option.read(value) == expected


@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [
        (SUBS, "maybe", "submarines is on or off, not 'maybe'"),
        (CRT, "fancy", "crt takes one of curve-fitted, standard, not 'fancy'"),
        (HOURS, "0", "strike_hours is a whole number 1..168, not '0'"),
        (HOURS, "169", "strike_hours is a whole number 1..168"),
        (HOURS, "twelve", "strike_hours is a whole number 1..168"),
        (HOURS, True, "strike_hours is a whole number 1..168"),
        (GameOption("quiet_max", "cap", int, 6), "-1", "quiet_max is a whole number 0 or more, not '-1'"),
    ],
)
def test_bad_values_are_refused_with_a_reason(option: GameOption, value: object, reason: str) -> None:
    problem = option.read(value)
    assert isinstance(problem, OptionProblem) and problem.reason.startswith(reason)


def test_an_unknown_name_is_refused_naming_the_valid_ones() -> None:
    problem = read_options(DECLARED, {"crt": "standard", "subs": "on"})
    assert problem == OptionProblem("no option 'subs'; this game takes crt, strike_hours, submarines")


def test_only_options_off_their_default_are_shown() -> None:
    chosen = read_options(DECLARED, {"crt": "curve-fitted", "submarines": "on", "strike_hours": "6"})
    assert not isinstance(chosen, OptionProblem)
    assert set_options(DECLARED, chosen) == ["strike_hours=6", "submarines=on"]


@pytest.mark.parametrize("package", list(default_registry()), ids=lambda package: package.name)
def test_every_game_declares_options_whose_defaults_it_takes(package: GamePackage) -> None:
    specs = option_specs(package.game)
    assert set(COMMON_OPTIONS) <= set(specs.values())
    assert len(specs) > len(COMMON_OPTIONS), "a game package declares its own options"
    for option in specs.values():
        assert option.help
        if option.default is not None:
            assert option.read(option.default) == option.default
            assert option.read(str(option.default)) == option.default or option.kind is bool


def test_a_list_option_takes_comma_separated_words_or_a_list() -> None:
    sides = GameOption("first_by_turn", "who opens", list, choices=("Axis", "Allies", ""))
    assert sides.read("Axis, Allies") == ["Axis", "Allies"]
    assert sides.read(["Axis", "Axis"]) == ["Axis", "Axis"]
    assert sides.read("Axis,Mars") == OptionProblem("first_by_turn takes one of Axis, Allies, , not 'Mars'")


class _Options(AuctionGame):
    """The auction with options of its own: ``rounds`` has a default, ``tie`` leaves it to the scenario."""

    options = (GameOption("rounds", "rounds", int, 3, low=1, high=9), GameOption("tie", "ties", str))
    seen: ClassVar[dict[str, object]] = {}

    def new_game(self, setup: Setup, *, dice: Dice) -> AuctionState:
        self.seen.clear()
        self.seen.update(setup.options)
        return super().new_game(setup, dice=dice)


def test_a_new_game_gets_the_declared_default_of_each_option_left_alone() -> None:
    game = _Options()
    chosen = game_options(game, {"tie": "draw"})
    assert chosen["rounds"] == 3 and chosen["tie"] == "draw"
    assert "quiet_hours" in chosen  # the common options' defaults too
    assert game_options(game, {"rounds": "5"})["rounds"] == 5
    assert "tie" not in game_options(game, {})  # no default: the scenario decides


def test_a_default_the_game_declares_wrongly_is_said_when_a_game_is_created() -> None:
    class Wrong(_Options):
        options = (GameOption("rounds", "rounds", int, 0, low=1, high=9),)

    with pytest.raises(
        ConfigError, match="a default the game declares is refused by its own rule: rounds is"
    ):
        game_options(Wrong(), {})
    assert game_options(Wrong(), {"rounds": "2"})["rounds"] == 2


def test_a_fault_in_new_game_is_said_in_one_line() -> None:
    class Faulty(_Options):
        def new_game(self, setup: Setup, *, dice: Dice) -> AuctionState:
            return super().new_game(replace(setup, options={}), dice=dice) if setup.options["x"] else None  # type: ignore[return-value]

    data = read_tree(data_root(AUCTION))
    setup = Setup("standard", AuctionGame().seats("standard", data), {}, data)
    with pytest.raises(
        ConfigError,
        match=r"sealed-bid-auction cannot set up this game \(a fault in the game package: KeyError: 'x'\)",
    ):
        try_setup(Faulty(), setup)
