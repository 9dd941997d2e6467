# SPDX-License-Identifier: GPL-3.0-or-later
"""Combat: air strikes (seed 003, 15 and after), surface combat (19) and submarines (27).

The rules and tables here; the hour runs them from :mod:`mailbot.games.flattop.hour`
(``declare``, ``combat_phase``, ``strike``, ``air_phase``, ``sweep``, ``surface_flow``,
``sub_phase``, ``aftermath``). Here: ``battle`` (the pause for the attacker's choice),
``air_to_air``; the tables ``crt`` (combat results), ``bht`` (hit tables, AA), ``cap``;
``damage`` (the tables, a hit's words, speed) with ``damage_planes`` (planes lost, the steps of
every attack), ``damage_ships`` and ``damage_bases`` (21.3-21.8), and ``sinking`` (delayed
sinking); ``surface`` (the tables, the sides, the BHTs) with ``surface_battle`` (one battle and its
declarations), ``surface_rounds`` (the rounds, the +/-10% report) and ``bombardment``;
``submarines`` (the tables and readings) with ``sub_moves`` (state, depth, movement, observation),
``sub_sequence`` (the attack sequence, dives, weapons) and ``sub_attacks`` (the attacks and their
reports); ``survivors`` (into the water, who sees them) and ``survivor_rescue`` (picking them up,
the points); ``intel`` (what each side is told, 15 Limited Intelligence). How it reads to players:
``docs/flattop-combat.md``.
"""
