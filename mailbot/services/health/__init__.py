# SPDX-License-Identifier: GPL-3.0-or-later
"""Is the service well: its status, the stalls it can see and the watchdog over its loops.

Imports ``services.base``, ``services.post`` and ``services.inbox``; beside play and archive."""
