# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters the bot writes and the outbox that sends them after the commit.

Imports ``services.base`` only."""
