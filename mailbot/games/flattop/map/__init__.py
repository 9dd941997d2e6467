# SPDX-License-Identifier: GPL-3.0-or-later
"""The board: where things are and how they move across it.

- ``hexes``: the global hex grid, board sections (sectors) and hex IDs such as ``V-F24``.
- ``scenario``: loading a scenario from parsed TOML into frozen dataclasses (map, calendar);
  ``scenario_reader``: the problem-collecting reader and the order of battle.
- ``weather``: wind and clouds (seed 003, 6.3 and 6.4.1).
- ``movement``: TF plots and plane movement primitives (standard 12 and 14; seed 003, 14.11).

No re-exports here: import the modules themselves.
"""
