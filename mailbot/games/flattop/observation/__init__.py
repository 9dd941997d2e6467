# SPDX-License-Identifier: GPL-3.0-or-later
"""Observation: who sees what, and what each side is told (seed 003, 7 and 11).

- ``observe``: observation without a die roll (TFs, bases, radar, coastwatchers).
- ``search``: search by e-mail, rolled per target (seed 003, 7 and 7.3).
- ``shadowing``: shadowing attempts, rolled secretly (seed 003, 11).
- ``reports``: condition reports composed per the owner's DECEPTION policy (7.12).
- ``knowledge``: what one side knows of the enemy, as data; reports are rendered from it alone.

The hour runs them from :mod:`mailbot.games.flattop.hour` (``resolve_search``,
``resolve_observe``).

No re-exports here: import the modules themselves.
"""
