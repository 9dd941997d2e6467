# SPDX-License-Identifier: GPL-3.0-or-later
"""Combat: air strikes (seed 003, 15 and after), surface combat (19) and submarines (27).

The air phase, in the order a turn uses it: ``declare`` (attack declarations and the precise
makeup), ``battle`` (the pause for the attacker's choice), ``phase`` (the Combat Phase),
``strike`` (one side's strike on one hex), ``air_phase`` (CAP, ready and diving CAP) with
``air_to_air``; the tables ``crt`` (combat results), ``bht`` (hit tables, AA), ``cap``;
``damage`` and ``sinking`` (21.3-21.8, delayed sinking); ``intel`` (what each side is told,
15 Limited Intelligence). How it reads to players: ``docs/flattop-combat.md``.
"""
