# SPDX-License-Identifier: GPL-3.0-or-later
"""Constants, errors and the process, port and certificate helpers the rig's servers share."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypeVar

log = logging.getLogger("mailbot.testing.mailrig")

T = TypeVar("T")

LOCALHOST = "127.0.0.1"
# Names used in greetings instead of socket.getfqdn(), which aiosmtpd and aiosmtplib would otherwise call
# for every connection (a DNS round trip on machines without a good /etc/hosts).
SERVER_HOSTNAME = "mx.example.test"
CLIENT_HOSTNAME = "client.example.test"

BOT_ADDRESS = "bot@example.test"
BOT_PASSWORD = "botpass"
GM_ADDRESS = "gm@example.test"
GM_PASSWORD = "gmpass"
# Every <anything>@players.test exists at once with this password (a static passdb with a
# username_filter), so each test can make up a fresh, isolated player without provisioning. Users added
# to the passwd-file at run time would be unknown for up to ~1 s (Dovecot re-reads it at most once per
# second), see mail.md §2.4.
OPEN_DOMAIN = "players.test"
PLAYER_PASSWORD = "pw"
FIXED_ACCOUNTS: Mapping[str, str] = {BOT_ADDRESS: BOT_PASSWORD, GM_ADDRESS: GM_PASSWORD}

# When the tests run as root, Dovecot refuses to run its login processes as root, so everything runs
# as nobody:nogroup.
NOBODY_UID = 65534
NOBODY_GID = 65534

RIGDIR_PREFIX = "mailrig-"
# Dovecot exits with 89 (FATAL_DEFAULT) on errors found before its log is set up (bad config, bind()).
DOVECOT_FATAL_RC = 89
# aioimaplib 2.0.3 raises RecursionError on responses of ~900+ lines and then hangs (mail.md §4.2), and
# its FETCH parsing is quadratic in the batch size: never fetch more than this many messages at once.
FETCH_BATCH = 100


class RigError(RuntimeError):
    """A server of the rig could not be started or misbehaved."""


# --------------------------------------------------------------------------------------------------
# Process and port helpers


def free_ports(count: int, host: str = LOCALHOST) -> list[int]:
    """Return ``count`` distinct ports that were free a moment ago.

    All sockets stay bound until every port is chosen, so the ports are distinct. Another process can
    still take one before the server binds it; callers retry start-up on "Address already in use".
    """
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind((host, 0))
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


def _connect_probe(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def port_listening(host: str, port: int) -> bool:
    """Whether something listens on ``host:port`` (IPv4).

    On Linux this reads /proc/net/tcp instead of connecting: a probe connection makes Dovecot spawn
    login/lmtp processes, and stopping Dovecot while those are still initialising costs ~6 s instead of
    ~1 s (mail.md §2.3). Elsewhere it falls back to a real connection.
    """
    try:
        table = Path("/proc/net/tcp").read_text(encoding="ascii")
    except OSError:
        return _connect_probe(host, port)
    addr = struct.unpack("<I", socket.inet_aton(host))[0]
    wanted = {f"{addr:08X}:{port:04X}", f"00000000:{port:04X}"}
    for line in table.splitlines()[1:]:
        fields = line.split()
        # fields[1] is local address, fields[3] the state; 0A is TCP_LISTEN.
        if len(fields) > 3 and fields[3] == "0A" and fields[1] in wanted:
            return True
    return False


def _read_text(path: Path, limit: int = 4000) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-limit:]


def _wait_listening(
    proc: subprocess.Popen[bytes],
    host: str,
    ports: Iterable[int],
    *,
    timeout: float,
    what: str,
    diagnostics: Callable[[], str],
) -> None:
    """Wait until every port listens; fail fast (with the server's own output) if the process exits."""
    pending = list(ports)
    deadline = time.monotonic() + timeout
    while True:
        rc = proc.poll()
        if rc is not None:
            raise _EarlyExit(f"{what} exited with rc {rc} during start-up:\n{diagnostics()}", rc)
        pending = [p for p in pending if not port_listening(host, p)]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise RigError(f"{what} did not listen on {host}:{pending} within {timeout} s:\n{diagnostics()}")
        time.sleep(0.005)


class _EarlyExit(RigError):
    def __init__(self, message: str, rc: int) -> None:
        super().__init__(message)
        self.rc = rc


def _terminate(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM by PID, wait, then SIGKILL the process group we created (start_new_session=True).

    Never by name: other sessions on the same machine run their own rigs.
    """
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            # Only while the leader is alive is the group certainly still ours.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5.0)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def reap_stray_rigs(tmpdir: str | Path | None = None, timeout: float = 15.0) -> list[int]:
    """End servers left behind by rigs whose owning process died (e.g. SIGKILLed pytest).

    Only rigs whose owner PID is gone are touched, because other sessions may run rigs concurrently,
    and a PID is signalled only if its /proc cmdline names that rig's directory (guards against PID
    reuse). Returns the PIDs that were signalled.
    """
    base = Path(tmpdir) if tmpdir is not None else Path(tempfile.gettempdir())
    signalled: list[int] = []
    for pids_file in base.glob(f"{RIGDIR_PREFIX}*/pids.json"):
        try:
            info = json.loads(pids_file.read_text(encoding="utf-8"))
            owner = int(info["owner"])
            pids = [int(p) for p in info.get("servers", {}).values() if p]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _pid_alive(owner):
            continue
        rigdir = str(pids_file.parent)
        for pid in pids:
            if _pid_alive(pid) and rigdir in _cmdline(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
                    signalled.append(pid)
        deadline = time.monotonic() + timeout
        while any(_pid_alive(p) and rigdir in _cmdline(p) for p in signalled):
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            pids_file.unlink()
    return signalled


def _running_as_root() -> bool:
    return os.geteuid() == 0


def _make_rigdir() -> Path:
    # Not pytest's tmp_path: its /tmp/pytest-of-root parents are 0700, so nobody cannot traverse them
    # and Dovecot exits with rc 89 (mail.md §7).
    path = Path(tempfile.mkdtemp(prefix=RIGDIR_PREFIX))
    path.chmod(0o755)
    return path


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    os.chown(root, uid, gid)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), uid, gid, follow_symlinks=False)


def make_self_signed_cert(cert: Path, key: Path, days: int = 2) -> None:
    """EC P-256 (≈15 ms; RSA-2048 takes ≈230 ms) with SANs for both 127.0.0.1 and localhost."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RigError("openssl not found: apt-get install -y --no-install-recommends openssl")
    cmd = [
        openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(cert), "-days", str(days), "-subj", "/CN=localhost",
        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, check=False)
    if done.returncode != 0:
        raise RigError(f"openssl failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
