# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters coming in: intake, the handling loop and its vocabulary, authentication, parked letters.

Imports ``services.base`` and ``services.post``."""
