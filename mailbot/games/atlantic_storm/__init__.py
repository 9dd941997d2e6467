# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm "linear time" (seed 000): the moderator runs the convoy time line and the Force deck."""

from mailbot.core.game import Game
from mailbot.games.atlantic_storm.game import AtlanticStormGame
from mailbot.games.atlantic_storm.orders import StormOrder
from mailbot.games.atlantic_storm.state import StormState

#: The plugin, typed against the protocol so that mypy checks every method's signature.
GAME: Game[StormState, StormOrder] = AtlanticStormGame()

__all__ = ["GAME", "AtlanticStormGame"]
