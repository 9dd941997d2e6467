# SPDX-License-Identifier: GPL-3.0-or-later
"""A game's archive: the export, its web pages, the referee's view and ARCHIVE by mail.

Reads games (``services.play``) and everything below; nothing imports it but the top (app, cli)."""
