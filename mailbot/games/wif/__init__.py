# SPDX-License-Identifier: GPL-3.0-or-later
"""World in Flames "last impulse test" (seed 002): the moderator keeps the turn-end number."""

from mailbot.core.game import Game
from mailbot.games.wif.game import WifTurnEndGame
from mailbot.games.wif.orders import WifOrder
from mailbot.games.wif.state import WifState

#: The plugin, typed against the protocol so that mypy checks every method's signature.
GAME: Game[WifState, WifOrder] = WifTurnEndGame()

__all__ = ["GAME", "WifTurnEndGame"]
