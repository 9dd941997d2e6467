# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice duel: the small built-in game that exercises the moderator's whole machinery.

It has hidden information, simultaneous orders, a sealed value and a turn of
two steps, one of them a short sub-step, in as few rules as possible.

Rules
-----
Two seats, ``north`` and ``south``, start with 10 hit points each (option
``hp``, 1 to 99). The game lasts 3 turns (option ``turns``, 1 to 99). Each
turn has two steps:

1. ``T{n}.orders`` (orders; every living seat owes them). A seat splits its
   three d6 for the turn::

       ATTACK n    1 to 3 dice rolled at the opponent; each hits on 4+
       DEFEND n    0 to 3 dice; each cancels one of the opponent's hits on 5+

   ATTACK + DEFEND is at most 3; unspent dice are wasted (``ATTACK 2`` alone
   is echoed as ``ATTACK 2`` / ``DEFEND 0``). Each word once: a word given
   twice is ambiguous and refused; ATTACK and DEFEND are accepted together
   or not at all. A seat that sends nothing plays ``ATTACK 1`` / ``DEFEND 2``.
   The splits stay secret: the opponent never learns them.

2. ``T{n}.bid`` (sealed value ``bid``, a 12-hour step). Each seat seals an
   initiative bid of 0 to 3 (``SEAL bid n``; the moderator hands the opened
   values back as ``BID n`` lines). A seat that seals nothing bids 0. Bids
   are public once opened and are paid in blood: each seat loses its bid in
   hit points, never below 0, before anyone strikes (bidding your last hit
   points fells you).

Then the dice: the higher bid strikes first; equal bids strike at once (both
strikes are rolled before either's damage counts). In a strike the attacker
rolls its ATTACK dice, the defender its DEFEND dice; the hits less the
cancelled hits come off the defender's hit points (never below 0). A seat at
0 hit points before its strike comes does not strike, and nobody strikes at a
seat that is down.

The game ends when a seat is at 0 hit points (both at 0: a draw) or after the
last turn, when the seat with more hit points wins (equal: a draw).

What each seat learns: its own split and dice in full; the bids, every
seat's hit points and who strikes first; and of the opponent's strike only
how many hits it took and how many of its own hits were cancelled. The
referee sees everything. Dice labels name turn, seat and die, e.g.
``attack/T2/north/die1`` and ``defend/T2/south/die2``.
"""

from mailbot.core.game import Game
from mailbot.games.duel.game import DuelGame
from mailbot.games.duel.orders import DuelOrder
from mailbot.games.duel.state import DuelState

#: The plugin, typed against the protocol so that mypy checks every method's signature.
GAME: Game[DuelState, DuelOrder] = DuelGame()

__all__ = ["GAME", "DuelGame"]
