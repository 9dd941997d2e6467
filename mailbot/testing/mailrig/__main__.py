# SPDX-License-Identifier: GPL-3.0-or-later
"""``python -m mailbot.testing.mailrig {smtpd|serve} ...``."""

import sys

from mailbot.testing.mailrig.cli import main

sys.exit(main())
