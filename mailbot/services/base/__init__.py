# SPDX-License-Identifier: GPL-3.0-or-later
"""The floor every use case stands on: transactions, claims, the chain log, game data and options.

Imports no other services subpackage."""
