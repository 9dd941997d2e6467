# SPDX-License-Identifier: GPL-3.0-or-later
"""Salt'n'Tar: the sailing mini-game of seed 001 as a mailbot plugin.

Modules: ``geometry`` (grids and bearings), ``tables`` (ship types and roll
tables as data), ``state`` (game state and its JSON form), ``scenario``
(new games from scenario data), ``wind`` (Wind and Luck Rolls), ``strain``
(Strain Rolls), ``movement`` and ``moves`` (speeds and the move),
``maneuvers``, ``orders`` (parsing), ``resolve`` (the game turn), ``view``
(the report model) and ``game`` (the plugin class).
"""

from mailbot.games.saltntar.game import SaltNTarGame

__all__ = ["SaltNTarGame"]
