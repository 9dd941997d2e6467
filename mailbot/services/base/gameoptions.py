# SPDX-License-Identifier: GPL-3.0-or-later
"""A new game's options, read by what its package declares (:mod:`mailbot.core.options`)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Setup
from mailbot.core.options import GameOption, OptionProblem, OptionValue, declared, read_options
from mailbot.errors import ConfigError, GameError
from mailbot.registry import AnyGame


def option_specs(plugin: AnyGame) -> dict[str, GameOption]:
    """The options a game takes: the common ones and those its package declares."""
    own: tuple[GameOption, ...] = getattr(plugin, "options", ())  # a game may declare none
    return declared(own)


def game_options(plugin: AnyGame, given: Mapping[str, object]) -> dict[str, OptionValue]:
    """The game master's options read by the game's declarations, or a ConfigError naming them."""
    chosen = read_options(option_specs(plugin), given)
    if isinstance(chosen, OptionProblem):
        raise ConfigError(f"{plugin.name}: {chosen.reason}")
    return chosen


def try_setup(plugin: AnyGame, setup: Setup) -> None:
    """Set the game up once with throwaway dice, so that what the scenario refuses (a first
    mover that is no side of it) is refused now, not when the last seat joins."""
    dice = DiceStream(secrets.token_bytes(32), order_digest({}), "trial")
    try:
        plugin.new_game(setup, dice=dice)
    except GameError as exc:
        raise ConfigError(f"{plugin.name}: {exc}") from exc
