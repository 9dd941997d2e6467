# SPDX-License-Identifier: GPL-3.0-or-later
"""Who waits for a SQLite file's write lock: counted, so that a long run of write transactions
can let them in.

SQLite keeps no queue of writers: each asks again and again (``transactions.LOCK_POLL``), and a
process that commits and begins again at once takes the lock back before the others ask. A
deadline tick in a thousand games is such a run, and the outbox, whose claims and sent marks
are writes too, sent the reports seconds after the tick instead of during it. Each writer that
finds the lock taken is counted here until it has it; the tick ends its transaction early and
waits for them when any is counted (``runners.games``, ``transactions.hand_over``).

The count is shared by the moderator's processes: the moderator makes one :class:`WaitSlots`
for its SQLite file and hands it to its letter process; each process counts its own waits in a
slot of its own (:data:`MODERATOR`, :data:`LETTER_PROCESS`), and a letter process that died
while it waited leaves nothing counted once its slot is cleared for the next one. A process
given no slots counts in a slot of its own for its threads (a command line, a test).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: the moderator's slot, and its letter process's
MODERATOR, LETTER_PROCESS = 0, 1
SLOTS = 2


@dataclass
class WaitSlots:
    """One count of waiting writers a process (``counts``: a ``multiprocessing.Array`` of ints,
    shared, or a list for this process alone) and the slot this process counts in."""

    counts: Any  # one writer process a slot: no lock across processes is needed
    slot: int = MODERATOR
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, change: int) -> None:
        with self._lock:  # the threads of this process; a slot has one process
            self.counts[self.slot] += change

    def waiting(self) -> int:
        return sum(self.counts[:])

    def clear(self, slot: int) -> None:
        """A slot whose process has ended (its waits ended with it)."""
        self.counts[slot] = 0


_SHARED: dict[str, WaitSlots] = {}
_GUARD = threading.Lock()


def share(database: str, slots: WaitSlots) -> None:
    """Count this process's waits for ``database`` (a SQLite file) in ``slots`` from now on."""
    with _GUARD:
        _SHARED[database] = slots


def slots_for(database: str) -> WaitSlots:
    """The slots this process counts its waits for ``database`` in (its own, if none were shared)."""
    with _GUARD:
        found = _SHARED.get(database)
        if found is None:
            found = _SHARED[database] = WaitSlots([0] * SLOTS)
        return found


@contextmanager
def waiting_for(database: str) -> Iterator[None]:
    """Counted as a writer that waits for ``database``'s write lock while the block runs."""
    slots = slots_for(database)
    slots.add(1)
    try:
        yield
    finally:
        slots.add(-1)


def others_wait(database: str) -> bool:
    """Whether any writer of these processes waits for ``database``'s write lock now."""
    return slots_for(database).waiting() > 0
