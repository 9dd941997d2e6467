# SPDX-License-Identifier: GPL-3.0-or-later
"""The use cases, in one-way layers: each subpackage imports only those before it.

    base/     transactions, claims, the chain log, game queries, tags, game data and options
    post/     the bot's identity, letters being written (``Draft``), the outbox, notices,
              the loop breaker
    inbox/    intake, the handling loop and the vocabulary every handler shares
              (``Context``, ``Reply``, ``Handler``), authentication, parked letters
    play/     games, turns, reports, sealing, the players' and the GM's commands
    archive/  the archive: export, pages, the referee's view, ARCHIVE by mail
    health/   status, stalls, the watchdog (beside archive/: neither imports the other)

``tools/check_layers.py`` enforces the arrows (and that no import goes round in a circle
anywhere in ``mailbot/``); ``app`` puts the layers together.
"""
