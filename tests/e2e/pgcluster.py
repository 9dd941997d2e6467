# SPDX-License-Identifier: GPL-3.0-or-later
"""A private PostgreSQL cluster a test may stop and start: the machine's own cluster serves
every other test at the same time and is never touched.

It runs the installed server's binaries (``/usr/lib/postgresql/<n>/bin``) on a free loopback
port, with a socket folder and data of its own, as the ``postgres`` user when the tests run
as root (the server refuses root). Trust authentication, no fsync: its data is thrown away.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from mailbot.testing.mailrig import free_ports

ROLE = "mailbot"


def _bindir() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name))
    if not found:
        raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql (tools/system-deps.sh)")
    return found[-1].parent


class PgCluster:
    """``fast``: no synchronous commits and no full-page writes either (fsync is always off), for
    a cluster that only serves tests; an outage test keeps them, as a real server has them."""

    def __init__(self, *, fast: bool = False) -> None:
        self.fast = fast
        self.bindir = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="mailbot-pg-"))
        self.root.chmod(0o755)
        self.data, self.log = self.root / "data", self.root / "server.log"
        self.port = free_ports(1)[0]
        self._user = "postgres" if os.geteuid() == 0 else None
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", ROLE, "--no-sync", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgresql://{ROLE}@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bindir / tool), *args]
        if self._user is not None:
            command = ["runuser", "-u", self._user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        if self.fast:
            options += " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """``fast``: connections are cut at once (what a crash or a restart does to the clients)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def close(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
