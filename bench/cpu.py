# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the machine's CPU went during a timed window (Linux ``/proc``, stdlib only).

The benchmarks of issue 12 run the moderator, the mail servers and PostgreSQL on one machine.
A figure such as a speed-up with two workers means little without knowing whether the cores
were already busy: :class:`CpuWindow` prints how busy the whole machine was and what share of
that the moderator's own processes took (with the processes they started: a worker's letter
process).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def machine() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot, from the first line of /proc/stat."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def process(pid: int) -> int:
    """User and system clock ticks of process ``pid`` (all its threads); 0 once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    after_name = stat.rsplit(")", 1)[1].split()  # the name may hold spaces and parentheses
    return int(after_name[11]) + int(after_name[12])  # utime and stime (fields 14 and 15)


def descendants(pid: int) -> list[int]:
    """The moderator's processes that ``pid`` started: a worker's letter process (started by
    ``multiprocessing``), not the mail servers a benchmark starts from its own process."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            if _spawned(child):
                found += [child, *descendants(child)]
    return found


def _spawned(pid: int) -> bool:
    try:
        return b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


#: process names of the mail servers (Dovecot's processes; the rig's SMTP front end is a Python
#: process told apart by its command line)
MAIL_NAMES = ("dovecot", "imap", "lmtp", "auth", "anvil", "log", "config", "stats", "doveadm", "pop3")
KINDS = ("moderator", "database", "mail servers", "the rest")


def every_process() -> dict[int, int]:
    """Clock ticks of every process alive now, by pid."""
    pids = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    return {pid: process(pid) for pid in pids}


def kind_of(pid: int, family: set[int]) -> str:
    """Which part of the system ``pid`` is: the moderator (``family``), PostgreSQL, the mail
    servers or the rest (the benchmark delivering letters, the machine's own work)."""
    if pid in family:
        return "moderator"
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "the rest"
    if name.startswith("postgres"):
        return "database"
    if name.startswith(MAIL_NAMES) or b"mailrig" in command:
        return "mail servers"
    return "the rest"


@dataclass
class CpuWindow:
    """Counters at the start of a window; :meth:`report` gives the figures at its end."""

    pids: list[int] = field(default_factory=lambda: [os.getpid()])
    #: core-seconds the whole machine was busy in the window, set by :meth:`report`
    busy_seconds: float = 0.0
    _machine: tuple[int, int] = (0, 0)
    _own: dict[int, int] = field(default_factory=dict)
    _all: dict[int, int] = field(default_factory=dict)

    def start(self) -> CpuWindow:
        self._machine = machine()
        self._own = {pid: process(pid) for pid in self._family()}
        self._all = every_process()
        return self

    def by_kind(self) -> dict[str, float]:
        """Core-seconds each part of the system (:data:`KINDS`) took since :meth:`start`, from
        the processes alive now (one that started and ended inside the window is not seen)."""
        family = self._family()
        seconds = dict.fromkeys(KINDS, 0.0)
        for pid, ticks in every_process().items():
            seconds[kind_of(pid, family)] += (ticks - self._all.get(pid, 0)) / TICKS
        return seconds

    def watch(self, pid: int) -> None:
        """Count ``pid`` too, from now on (a worker started inside the window)."""
        self.pids.append(pid)
        self._own.update({each: process(each) for each in (pid, *descendants(pid))})

    def _family(self) -> set[int]:
        """The watched processes and every process they started (those alive now)."""
        return {each for pid in self.pids for each in (pid, *descendants(pid))}

    def report(self, label: str) -> str:
        busy, total = (end - start for end, start in zip(machine(), self._machine, strict=True))
        self.busy_seconds = busy / TICKS
        each = {pid: process(pid) - self._own.get(pid, 0) for pid in self._family()}
        own = sum(each.values())
        share = busy and own / busy
        started = sum(ticks for pid, ticks in each.items() if pid not in self.pids)
        split = (
            f" (the processes they started, such as letter processes: {started / TICKS:.1f})"
            if started
            else ""
        )
        return (
            f"CPU during {label}: the machine was {busy / max(total, 1):.0%} busy ({CORES} cores); "
            f"the moderator's processes took {own / TICKS:.1f} core-seconds{split}, {share:.0%} of that, "
            f"the mail servers, the database and the rest {(busy - own) / TICKS:.1f}"
        )
