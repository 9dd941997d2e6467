# SPDX-License-Identifier: GPL-3.0-or-later
"""A side's orders for one game turn: reading, the accepted values, the checks.

- ``parse``: reading the order lines of a letter (the grammar, with examples).
- ``types``: the accepted orders as values and their normalised text.
- ``checks``: checking orders against what the ordering side itself knows, and nothing more
  (the flights and launches; ``air_checks`` the orders that fly no path: SHADOW, READY,
  UNREADY, INTERCEPT, JETTISON).
- ``decks``: what a deck or base can launch, land and ready this turn, and the turn into the
  wind (standard 6.10 and its variant).

No re-exports here: import the modules themselves.
"""
