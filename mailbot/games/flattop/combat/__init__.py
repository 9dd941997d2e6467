# SPDX-License-Identifier: GPL-3.0-or-later
"""Combat: air strikes (seed 003, 15 and after), surface combat (19) and submarines (27).

The rules and tables here; the hour runs them from :mod:`mailbot.games.flattop.hour`
(``declare``, ``combat_phase``, ``strike``, ``air_phase``, ``sweep``, ``surface_flow``,
``sub_phase``, ``aftermath``). Here: ``battle`` (the pause for the attacker's choice),
``air_to_air``; the tables ``crt`` (combat results), ``bht`` (hit tables, AA), ``cap``;
``damage`` and ``sinking`` (21.3-21.8, delayed sinking); ``intel`` (what each side is told,
15 Limited Intelligence). How it reads to players: ``docs/flattop-combat.md``.
"""
