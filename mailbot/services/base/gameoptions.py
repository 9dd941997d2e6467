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
    """The game master's options read by the game's declarations, with the declared default of
    each option he left alone (an option whose default is None is left to the scenario), or a
    ConfigError naming what is wrong."""
    specs = option_specs(plugin)
    chosen = read_options(specs, given)
    if isinstance(chosen, OptionProblem):
        raise ConfigError(f"{plugin.name}: {chosen.reason}")
    left = {
        name: spec.default for name, spec in specs.items() if spec.default is not None and name not in chosen
    }
    defaults = read_options(specs, left)
    if isinstance(defaults, OptionProblem):  # the package's own declaration is wrong
        raise ConfigError(
            f"{plugin.name}: a default the game declares is refused by its own rule: {defaults.reason}"
        )
    return {**defaults, **chosen}


def try_setup(plugin: AnyGame, setup: Setup) -> None:
    """Set the game up once with throwaway dice, so that what the scenario refuses (a first
    mover that is no side of it) is refused now, not when the last seat joins. Any other
    failure of the game's own code is said in one line too: the game master cannot mend it,
    but must not be shown a traceback."""
    dice = DiceStream(secrets.token_bytes(32), order_digest({}), "trial")
    try:
        plugin.new_game(setup, dice=dice)
    except GameError as exc:
        raise ConfigError(f"{plugin.name}: {exc}") from exc
    except Exception as exc:  # a fault in the game package, not in what the GM asked
        fault = f"{type(exc).__name__}: {exc}"
        raise ConfigError(
            f"{plugin.name} cannot set up this game (a fault in the game package: {fault})"
        ) from exc
