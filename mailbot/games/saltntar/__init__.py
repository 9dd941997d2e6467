# SPDX-License-Identifier: GPL-3.0-or-later
"""Salt'n'Tar: the sailing mini-game of seed 001 as a mailbot plugin.

Modules: ``geometry`` (grids and bearings), ``tables`` (ship types and roll
tables as data), ``state`` (game state and its JSON form), ``scenario``
(new games from scenario data), ``wind`` (Wind and Luck Rolls), ``strain``
(Strain Rolls), ``movement`` and ``moves`` (speeds and the move),
``maneuvers``, ``orders`` (parsing), ``resolve`` (the game turn), ``view``
(the report model) and ``game`` (the plugin class).
"""

from mailbot.core.game import Game
from mailbot.games.saltntar.game import SaltNTarGame
from mailbot.games.saltntar.orders import Order
from mailbot.games.saltntar.state import State

#: The plugin, typed against the protocol so that mypy checks every method's signature.
GAME: Game[State, Order] = SaltNTarGame()
#: The scenario ``game create`` plays without ``--scenario``: the seed's race (there is no "standard").
DEFAULT_SCENARIO = "race"

__all__ = ["DEFAULT_SCENARIO", "GAME", "SaltNTarGame"]
