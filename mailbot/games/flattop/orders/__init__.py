# SPDX-License-Identifier: GPL-3.0-or-later
"""A side's orders for one game turn: reading, the accepted values, the checks.

- ``parse``: reading the order lines of a letter (the grammar, with examples).
- ``types``: the accepted orders as values and their normalised text.
- ``checks``: checking orders against what the ordering side itself knows, and nothing more.

No re-exports here: import the modules themselves.
"""
