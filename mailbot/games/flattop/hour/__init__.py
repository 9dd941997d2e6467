# SPDX-License-Identifier: GPL-3.0-or-later
"""The game hour run: the spine that calls the rules (``air``, ``combat``, ``map``,
``observation``, ``orders``) in the order of the sequence of play.

Start at :mod:`.phases` (which sub-step is pending, and what each owes, reads, defaults and
resolves) and :mod:`.resolve` (the phases of an hour, in the order seed 003 plays them). The
other modules are the steps of that run: :mod:`.turn` carries the changing state, the events
and their audiences through it; the ``resolve_*`` modules run the air and observation phases;
:mod:`.declare`, :mod:`.combat_phase`, :mod:`.air_phase`, :mod:`.strike` (with
:mod:`.strike_attack` and :mod:`.strike_damage`) and :mod:`.sweep` an air battle;
:mod:`.surface_flow` a surface battle's sub-steps; :mod:`.sub_phase` submarines (movement and
observation; :mod:`.sub_air` aircraft against them; :mod:`.sub_combat` and :mod:`.sub_fight`
their Combat Phase); :mod:`.aftermath` puts ships and planes back after any fight and scores
them; :mod:`.bombard` and :mod:`.rescue` the rest. Rules folders never import this package.
"""
