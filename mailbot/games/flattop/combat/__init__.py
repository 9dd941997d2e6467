# SPDX-License-Identifier: GPL-3.0-or-later
"""Combat: air strikes (seed 003, 15 and after), surface combat (19) and submarines.

Empty for now: attacks are declared and recorded, not resolved.
"""
