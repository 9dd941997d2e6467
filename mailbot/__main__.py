# SPDX-License-Identifier: GPL-3.0-or-later
"""``python -m mailbot``: the same as the ``mailbot`` command."""

from mailbot.cli import main

main()
