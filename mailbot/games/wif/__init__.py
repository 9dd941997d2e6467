# SPDX-License-Identifier: GPL-3.0-or-later
"""World in Flames "last impulse test" (seed 002): the moderator keeps the turn-end number."""

from mailbot.games.wif.game import WifTurnEndGame

__all__ = ["WifTurnEndGame"]
