# SPDX-License-Identifier: GPL-3.0-or-later
"""Air operations short of combat: the boxes, flights, landing and interception.

- ``operations``: the box cycle (READY, UNREADY, Just Landed -> Readying), launching,
  landing and the range check, on the state (standard 8 and 14).
- ``landing``: night and armed landing rolls (standard 14.10, 14.14; seed 003, 14.10.1).
- ``interception``: the special interception roll (standard 14.13; seed 003, 14.13.2).

The hour runs them from :mod:`mailbot.games.flattop.hour` (``resolve_flight``,
``resolve_intercept``, ``resolve_wind``, ``merge``).

Search flights and shadowing are observation (:mod:`mailbot.games.flattop.observation`);
air strikes belong in :mod:`mailbot.games.flattop.combat`. No re-exports here.
"""
