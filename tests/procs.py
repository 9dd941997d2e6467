# SPDX-License-Identifier: GPL-3.0-or-later
"""What the tests ask of processes the moderator starts (its letter process, its picture process)."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether the process runs; a zombie (ended, not yet reaped by its parent) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][:1] != "Z"
