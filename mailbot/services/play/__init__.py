# SPDX-License-Identifier: GPL-3.0-or-later
"""Games by mail: creating and joining, turns and deadlines, reports, sealing, the GM's commands.

Imports ``services.base``, ``services.post`` and ``services.inbox``."""
