# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 004's sealed-envelope method, offered as a utility beside the games (it is no game: a
player works out which numbered envelope of die rolls to open from hex values and odds).

``rules`` computes (pure: the layer check holds it to the rules' standard), ``data/`` holds
the hex value chart and the design defaults, ``command`` is ``mailbot envelope``.
"""
