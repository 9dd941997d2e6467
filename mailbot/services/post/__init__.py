# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters the bot writes, the outbox that sends them after the commit, and the loop breaker.

Imports ``services.base`` only."""
