# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top by e-mail (seed 003): the carrier battle wargame, moderated.

The rules live in small pure modules; :class:`FlatTopGame` (``game``) is the plugin.

- ``hexes``: the global hex grid, board sections (sectors) and hex IDs such as ``V-F24``.
- ``scenario``: loading a scenario from parsed TOML into frozen dataclasses
  (``scenario_reader``: the problem-collecting reader and the order of battle).
- ``units``: ships, task forces, air factors, bases (JSON round-trippable).
- ``weather``: wind and clouds (seed 003, 6.3 and 6.4.1).
- ``movement``: TF plots and plane movement primitives (seed 003, 14.11).
- ``initiative``: the initiative roll with the catch-up bonus (seed 003, 13).
- ``search``, ``observe``, ``reports``, ``knowledge``: observation (seed 003, 7).
- ``shadowing``: shadowing attempts, rolled secretly (seed 003, 11).
- ``game``, ``state``, ``orders`` (with ``order_types``, ``order_checks``),
  ``resolve`` (with ``turn``, ``air``, ``resolve_air``, ``resolve_observe``)
  and ``view``: the plugin ("Flat Top I": map, movement, search and
  condition reports by e-mail; air combat is not resolved).
"""

from mailbot.core.game import Game
from mailbot.games.flattop.game import FlatTopGame
from mailbot.games.flattop.order_types import FtOrder
from mailbot.games.flattop.state import FlatTopState

#: The plugin, typed against the protocol so that mypy checks every method's signature.
GAME: Game[FlatTopState, FtOrder] = FlatTopGame()

__all__ = ["GAME", "FlatTopGame"]
