# SPDX-License-Identifier: GPL-3.0-or-later
"""The rules tables of the game in play, parsed once per loaded config (:mod:`..combat.kit`)."""

from __future__ import annotations

from mailbot.games.flattop.combat.kit import Kit, kit_of
from mailbot.games.flattop.state import FlatTopState


def kit(state: FlatTopState) -> Kit:
    """The game's tables: combat results (the ``crt`` option), hits, CAP, damage, victory."""
    return kit_of(state.config, state.options.crt)
