# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top by e-mail (seed 003): the carrier battle wargame, moderated.

The rules live in small pure modules, grouped by subject; :class:`FlatTopGame`
(``game``) is the plugin. Each subpackage's docstring lists its modules. The hour is
run by ``hour`` (start at ``hour.phases`` and ``hour.resolve``), which calls the rules
folders; they never import it.

- ``map``: the hex grid and hex IDs (``hexes``), scenarios (``scenario``,
  ``scenario_reader``), wind and clouds (``weather``, seed 003, 6.3 and 6.4.1),
  TF plots and plane movement primitives (``movement``, seed 003, 14.11).
- ``air``: the air boxes, launching and landing (``operations``), night and
  armed landings (``landing``), special interception (``interception``).
- ``observation``: search, observation, shadowing, condition reports and each
  side's knowledge (seed 003, 7 and 11).
- ``orders``: reading a side's order lines (``parse``), the orders as values
  (``types``) and the checks against the side's own knowledge (``checks``).
- ``combat``: the rules and tables of air strikes, surface combat and submarines.
- ``hour``: the game hour run, phase by phase, and the pending sub-step (``phases``).
- ``units``: ships, task forces, air factors, bases (JSON round-trippable).
- ``initiative``: the initiative roll with the catch-up bonus (seed 003, 13).
- ``victory`` (the rules, the ledger, what each side is told of it), ``victory_scoring``
  (what scores) and ``victory_end`` (who won, when the game ends): standard 25.
- ``game``, ``state`` and ``view``: the plugin, its saved state and each side's
  letters; ``demo``: the scripted player of the by-mail demo (``demo_reading``: how it reads
  its letter, ``demo_steps``: its orders).
"""

from mailbot.core.game import Game
from mailbot.games.flattop.game import FlatTopGame
from mailbot.games.flattop.orders.types import FtOrder
from mailbot.games.flattop.state import FlatTopState

#: The plugin, typed against the protocol so that mypy checks every method's signature.
GAME: Game[FlatTopState, FtOrder] = FlatTopGame()
#: ``game create flattop`` without ``--scenario``: the full Coral Sea (the game has no "standard")
DEFAULT_SCENARIO = "coral-sea"

__all__ = ["DEFAULT_SCENARIO", "GAME", "FlatTopGame"]
