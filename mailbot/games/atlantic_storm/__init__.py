# SPDX-License-Identifier: GPL-3.0-or-later
"""Atlantic Storm "linear time" (seed 000): the moderator runs the convoy time line and the Force deck."""

from mailbot.games.atlantic_storm.game import AtlanticStormGame

__all__ = ["AtlanticStormGame"]
