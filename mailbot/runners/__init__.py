# SPDX-License-Identifier: GPL-3.0-or-later
"""The moderator's loops, each a small runner that ``mailbot.app`` builds and starts.

* ``reading``: the mailbox read for ever into ``inbound`` rows (IMAP IDLE or polling);
* ``work``: the stored letters handled and the outbox sent, woken by reading and by ticks;
* ``letters``: a round of letter handling, in the letter process (``mailbot.letterproc``) or here;
* ``games``: a tick of every running game, one transaction each (where letters are handled);
* ``deadlines``: the scheduler's job that runs those ticks when a game has something due;
* ``supervise``: the tasks of the loops, and the watchdog that restarts a loop seen stalled.

What they share is here: the signs of life the watchdog reads (``Beats``) and the failures
``/health`` shows (``Failures``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field

#: failures per loop since the start, for ``/health``
Failures = Counter[str]


@dataclass
class Beats:
    """Signs of life for the watchdog (monotonic seconds): the last read of the mailbox (or try
    to read it) and the last tick of the games."""

    read: float = field(default_factory=time.monotonic)
    tick: float = field(default_factory=time.monotonic)


async def pause(stop: asyncio.Event, seconds: float) -> None:
    """Wait ``seconds`` or until stopped, whichever is first."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


def silent(what: str, beat: float | None, limit: float) -> str | None:
    """``what``, with how long, when the last sign of life (monotonic) is older than ``limit``."""
    quiet = None if beat is None else time.monotonic() - beat
    if quiet is not None and quiet <= limit:
        return None
    return what if quiet is None else f"{what} for {quiet:.0f} s"
