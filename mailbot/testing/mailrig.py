# SPDX-License-Identifier: GPL-3.0-or-later
"""Real mail servers for tests and benchmarks: a private Dovecot plus an SMTP front end.

Design and measurements: shared/design/mail.md. In short:

* ``Dovecot`` runs a private, rootless Dovecot 2.3 (IMAP, IMAPS, LMTP on free loopback ports) from a
  generated config in a temp dir. When we are root it drops to nobody:nogroup.
* ``SmtpFrontEnd`` runs an aiosmtpd server in a subprocess (``python -m mailbot.testing.mailrig smtpd``)
  whose ``DovecotLMTPHandler`` checks each RCPT against Dovecot and delivers DATA over LMTP *before*
  answering 250, so a mail is visible over IMAP as soon as the sender's ``send()`` returns.
* ``MailRig`` combines both and adds small async helpers for tests (send, fetch, wait).

Only the standard library, aiosmtpd, aiosmtplib and aioimaplib are used.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import base64
import binascii
import contextlib
import email.message
import json
import logging
import os
import re
import shutil
import signal
import socket
import ssl
import string
import struct
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

import aioimaplib
import aiosmtplib
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

__all__ = [
    "BOT_ADDRESS",
    "BOT_PASSWORD",
    "GM_ADDRESS",
    "GM_PASSWORD",
    "OPEN_DOMAIN",
    "PLAYER_PASSWORD",
    "AsyncLMTP",
    "Dovecot",
    "DovecotLMTPHandler",
    "DovecotSASL",
    "LMTPConnectionLost",
    "LMTPPool",
    "LMTPReply",
    "MailRig",
    "RigError",
    "SmtpFrontEnd",
    "free_ports",
    "main",
    "reap_stray_rigs",
    "smtpd_main",
]

log = logging.getLogger(__name__)

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


# --------------------------------------------------------------------------------------------------
# Dovecot


_DOVECOT_CONF = string.Template("""\
# Private rootless Dovecot 2.3 for tests, generated by mailbot.testing.mailrig (see mail.md §2).
# Everything runs as ONE unprivileged user: ${user}:${group}.
protocols = imap lmtp
listen = ${host}
# Own run/state dirs and log: the system defaults (/run/dovecot, /var/lib/dovecot, syslog) are not ours.
base_dir = ${rig}/run
state_dir = ${rig}/run
log_path = ${rig}/dovecot.log
# The defaults (dovecot/dovenull) would make the master chown() sockets, which fails without root.
default_internal_user = ${user}
default_internal_group = ${group}
default_login_user = ${user}
hostname = ${hostname}
ssl = yes
ssl_cert = <${rig}/cert.pem
ssl_key = <${rig}/key.pem
# With defaults a failed login costs 1.5-2 s and delays the next good login by ~4 s (auth penalty).
auth_failure_delay = 0
mail_location = maildir:~/Maildir
# Speed; the rig's mail is thrown away anyway.
mail_fsync = never
${oauth2}passdb {
  driver = passwd-file
  args = ${rig}/passwd
}
userdb {
  driver = passwd-file
  args = ${rig}/passwd
  default_fields = home=${rig}/mail/%u
}
# "Open domain": every *@${open_domain} exists with one password. username_filter is not allowed in a
# userdb in 2.3; the static userdb still rejects other users because LMTP checks the passdb first.
passdb {
  driver = static
  args = password=${open_password}
  username_filter = *@${open_domain}
}
userdb {
  driver = static
  args = home=${rig}/mail/%u
}
protocol imap {
  # The default of 10 per user and IP is easily reached by a bot plus a test client on 127.0.0.1.
  mail_max_userip_connections = 100
}
service imap-login {
  # chroot() needs root.
  chroot =
  inet_listener imap {
    port = ${imap_port}
  }
  inet_listener imaps {
    port = ${imaps_port}
  }
}
service anvil {
  chroot =
  # Disables the auth penalty (see auth_failure_delay above).
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service lmtp {
  inet_listener lmtp {
    port = ${lmtp_port}
  }
}
service auth {
  # Used by the SMTP front end for SMTP AUTH (DovecotSASL), so SMTP and IMAP passwords are the same.
  unix_listener auth-client {
    mode = 0600
  }
}
""")


# With ``oauth2_introspection_url``: XOAUTH2 and OAUTHBEARER logins, the token checked by asking that
# URL (RFC 7662 introspection, as Dovecot does with a real provider). Only those two mechanisms go to
# this passdb, and a token it refuses is refused (no other passdb compares it with a password).
_OAUTH2_PASSDB = string.Template("""\
auth_mechanisms = plain login xoauth2 oauthbearer
passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = ${rig}/dovecot-oauth2.conf.ext
  result_failure = return-fail
}
""")

_OAUTH2_CONF = string.Template("""\
introspection_mode = post
introspection_url = ${url}
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
""")


class Dovecot:
    """A private Dovecot instance on free loopback ports, configured in a temp dir.

    The passwd-file holds ``accounts`` (address -> password); any ``*@players.test`` address also exists
    with password ``pw``.
    """

    def __init__(
        self,
        rigdir: str | Path | None = None,
        *,
        host: str = LOCALHOST,
        accounts: Mapping[str, str] | None = None,
        hostname: str = SERVER_HOSTNAME,
        startup_timeout: float = 10.0,
        oauth2_introspection_url: str | None = None,
    ) -> None:
        self.dir = Path(rigdir) if rigdir is not None else _make_rigdir()
        self.oauth2_introspection_url = oauth2_introspection_url
        self._owns_dir = rigdir is None
        self.host = host
        self.hostname = hostname
        self.accounts: dict[str, str] = dict(FIXED_ACCOUNTS if accounts is None else accounts)
        self.startup_timeout = startup_timeout
        self.conf_path = self.dir / "dovecot.conf"
        self.passwd_path = self.dir / "passwd"
        self.cert_path = self.dir / "cert.pem"
        self.key_path = self.dir / "key.pem"
        self.log_path = self.dir / "dovecot.log"
        self.stderr_path = self.dir / "dovecot.stderr"
        self.auth_socket_path = self.dir / "run" / "auth-client"
        self.imap_port = 0
        self.imaps_port = 0
        self.lmtp_port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _identity(self) -> tuple[str, str, int | None]:
        """(user, group, uid to drop to) for the config and Popen."""
        if _running_as_root():
            return "nobody", "nogroup", NOBODY_UID
        import grp
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name, None

    def _write_files(self) -> None:
        user, group, drop_uid = self._identity()
        for sub in ("run", "mail"):
            (self.dir / sub).mkdir(exist_ok=True)
        if not self.cert_path.exists():
            make_self_signed_cert(self.cert_path, self.key_path)
        # passwd-file needs all 7 fields; with fewer the userdb lookup fails ("missing userdb info") and
        # LMTP answers 550 (mail.md §2.1).
        self.passwd_path.write_text(
            "".join(f"{addr}:{{PLAIN}}{pw}::::::\n" for addr, pw in self.accounts.items()), encoding="utf-8"
        )
        oauth2 = ""
        if self.oauth2_introspection_url is not None:
            oauth2 = _OAUTH2_PASSDB.substitute(rig=str(self.dir))
            (self.dir / "dovecot-oauth2.conf.ext").write_text(
                _OAUTH2_CONF.substitute(url=self.oauth2_introspection_url), encoding="utf-8"
            )
        self.conf_path.write_text(
            _DOVECOT_CONF.substitute(
                user=user,
                group=group,
                host=self.host,
                rig=str(self.dir),
                hostname=self.hostname,
                open_domain=OPEN_DOMAIN,
                open_password=PLAYER_PASSWORD,
                imap_port=self.imap_port,
                imaps_port=self.imaps_port,
                lmtp_port=self.lmtp_port,
                oauth2=oauth2,
            ),
            encoding="utf-8",
        )
        if drop_uid is not None:
            _chown_tree(self.dir, NOBODY_UID, NOBODY_GID)

    def _diagnostics(self) -> str:
        return (
            f"--- {self.stderr_path} ---\n{_read_text(self.stderr_path)}\n"
            f"--- {self.log_path} (tail) ---\n{_read_text(self.log_path)}"
        )

    def start(self) -> None:
        if self.running:
            return
        binary = shutil.which("dovecot") or (
            "/usr/sbin/dovecot" if os.path.exists("/usr/sbin/dovecot") else None
        )
        if binary is None:
            raise RigError(
                "dovecot not found: apt-get install -y --no-install-recommends dovecot-imapd dovecot-lmtpd"
            )
        attempts = 3
        for attempt in range(attempts):
            self.imap_port, self.imaps_port, self.lmtp_port = free_ports(3, self.host)
            self._write_files()
            _, _, drop_uid = self._identity()
            with open(self.stderr_path, "wb") as err:
                # -F keeps the master in the foreground, so Popen's PID is the master PID and an early
                # exit shows up in poll(). A new session keeps terminal signals away from it and gives
                # stop() a process group to SIGKILL as a last resort.
                self.proc = subprocess.Popen(
                    [binary, "-F", "-c", str(self.conf_path)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    start_new_session=True,
                    user=drop_uid,
                    group=NOBODY_GID if drop_uid is not None else None,
                    extra_groups=[] if drop_uid is not None else None,
                )
            try:
                _wait_listening(
                    self.proc,
                    self.host,
                    (self.imap_port, self.imaps_port, self.lmtp_port),
                    timeout=self.startup_timeout,
                    what="dovecot",
                    diagnostics=self._diagnostics,
                )
                return
            except _EarlyExit as exc:
                self.proc = None
                # The ports were free when chosen but another process may have taken one since.
                if "Address already in use" in self._diagnostics() and attempt + 1 < attempts:
                    with contextlib.suppress(OSError):
                        self.log_path.unlink()
                    continue
                if exc.rc == DOVECOT_FATAL_RC:
                    raise RigError(
                        f"{exc}\n(rc {exc.rc}: Dovecot failed before its log was set up)"
                    ) from None
                raise
            except BaseException:
                self.stop()
                raise

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the master (it reaps all children; ~1-3 s), SIGKILL the group after ``timeout``."""
        proc, self.proc = self.proc, None
        if proc is not None:
            _terminate(proc, timeout)

    def log_errors(self) -> list[str]:
        """Error:/Fatal:/Panic: lines from dovecot.log and its start-up stderr."""
        text = _read_text(self.log_path, limit=1 << 24) + "\n" + _read_text(self.stderr_path)
        return [line for line in text.splitlines() if re.search(r"\b(Error|Fatal|Panic):", line)]

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        if self._owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------------------------------
# LMTP client


@dataclass(frozen=True)
class LMTPReply:
    code: int
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.code < 400

    def __str__(self) -> str:
        return f"{self.code} {self.text}"


class LMTPConnectionLost(ConnectionError):
    """The LMTP connection closed, timed out or answered 421; it must not be reused."""


class AsyncLMTP:
    """Minimal asyncio LMTP client (RFC 2033).

    Unlike stdlib ``smtplib.LMTP`` it reads one DATA reply per accepted recipient; smtplib reads only one,
    and the leftover replies desynchronise the next transaction on the same connection (mail.md §3.2).
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> None:
        self._reader = reader
        self._writer = writer
        self.timeout = timeout
        self.extensions: dict[str, str] = {}
        self.closed = False
        # Set once the final "." of a DATA payload was written: from then on the message may have been
        # delivered, so a caller must not blindly retry on another connection.
        self.committed = False

    @classmethod
    async def connect(
        cls, host: str, port: int, *, local_hostname: str = CLIENT_HOSTNAME, timeout: float = 30.0
    ) -> AsyncLMTP:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        client = cls(reader, writer, timeout)
        try:
            greeting = await client._read_reply()
            if greeting.code != 220:
                raise LMTPConnectionLost(f"LMTP greeting: {greeting}")
            reply, lines = await client._command_lines(f"LHLO {local_hostname}")
            if reply.code != 250:
                raise LMTPConnectionLost(f"LHLO: {reply}")
            for line in lines[1:]:
                keyword, _, params = line.partition(" ")
                client.extensions[keyword.upper()] = params
        except BaseException:
            await client.close()
            raise
        return client

    async def _read_reply_lines(self) -> tuple[int, list[str]]:
        lines: list[str] = []
        while True:
            try:
                raw = await asyncio.wait_for(self._reader.readline(), self.timeout)
            except (TimeoutError, OSError) as exc:
                self.closed = True
                raise LMTPConnectionLost(f"LMTP read failed: {exc!r}") from exc
            if not raw.endswith(b"\n"):
                self.closed = True
                raise LMTPConnectionLost("LMTP connection closed by server")
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if len(line) < 3 or not line[:3].isdigit():
                self.closed = True
                raise LMTPConnectionLost(f"malformed LMTP reply: {line!r}")
            lines.append(line[4:])
            if line[3:4] != "-":
                code = int(line[:3])
                if code == 421:
                    # Dovecot says 421 when its lmtp process goes away; the connection is dead.
                    self.closed = True
                    raise LMTPConnectionLost(f"LMTP: {code} {' '.join(lines)}")
                return code, lines

    async def _read_reply(self) -> LMTPReply:
        code, lines = await self._read_reply_lines()
        return LMTPReply(code, " ".join(lines))

    async def _write(self, data: bytes) -> None:
        if self.closed:
            raise LMTPConnectionLost("LMTP connection already closed")
        try:
            self._writer.write(data)
            await asyncio.wait_for(self._writer.drain(), self.timeout)
        except (TimeoutError, OSError) as exc:
            self.closed = True
            raise LMTPConnectionLost(f"LMTP write failed: {exc!r}") from exc

    async def _command_lines(self, line: str) -> tuple[LMTPReply, list[str]]:
        await self._write(line.encode("utf-8") + b"\r\n")
        code, lines = await self._read_reply_lines()
        return LMTPReply(code, " ".join(lines)), lines

    async def command(self, line: str) -> LMTPReply:
        reply, _ = await self._command_lines(line)
        return reply

    def _mail_params(self, mail_options: Sequence[str]) -> str:
        # Forward only parameters the server announced (e.g. BODY=8BITMIME, SMTPUTF8).
        params = []
        for opt in mail_options:
            keyword = opt.partition("=")[0].upper()
            needs = "8BITMIME" if keyword == "BODY" else keyword
            if needs in self.extensions:
                params.append(opt)
        return "".join(" " + p for p in params)

    async def mail(self, sender: str, mail_options: Sequence[str] = ()) -> LMTPReply:
        return await self.command(f"MAIL FROM:<{sender}>{self._mail_params(mail_options)}")

    async def rcpt(self, recipient: str) -> LMTPReply:
        return await self.command(f"RCPT TO:<{recipient}>")

    async def rset(self) -> LMTPReply:
        return await self.command("RSET")

    async def probe(self, sender: str, recipient: str) -> LMTPReply:
        """Ask whether ``recipient`` exists (MAIL, RCPT, RSET); returns the RCPT (or MAIL) reply."""
        self.committed = False
        reply = await self.mail(sender)
        if reply.ok:
            reply = await self.rcpt(recipient)
        await self.rset()
        return reply

    async def send_message(
        self, sender: str, recipients: Sequence[str], content: bytes, mail_options: Sequence[str] = ()
    ) -> dict[str, LMTPReply]:
        """One LMTP transaction; returns a reply per recipient (RCPT refusal or its DATA reply)."""
        self.committed = False
        results: dict[str, LMTPReply] = {}
        reply = await self.mail(sender, mail_options)
        if not reply.ok:
            await self.rset()
            return dict.fromkeys(recipients, reply)
        accepted: list[str] = []
        for rcpt in recipients:
            reply = await self.rcpt(rcpt)
            results[rcpt] = reply
            if reply.ok:
                accepted.append(rcpt)
        if not accepted:
            await self.rset()
            return results
        reply = await self.command("DATA")
        if reply.code != 354:
            await self.rset()
            return dict.fromkeys(recipients, reply) | {r: results[r] for r in recipients if r not in accepted}
        await self._write(dot_stuff(content))
        self.committed = True
        for rcpt in accepted:
            results[rcpt] = await self._read_reply()
        return results

    async def quit(self) -> None:
        with contextlib.suppress(LMTPConnectionLost):
            await self.command("QUIT")
        await self.close()

    async def close(self) -> None:
        self.closed = True
        self._writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            await asyncio.wait_for(self._writer.wait_closed(), 2.0)


def dot_stuff(content: bytes) -> bytes:
    """CRLF-normalise, dot-stuff and terminate a message for the DATA phase."""
    lines = re.split(rb"\r?\n", content)
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        return b".\r\n"
    body = b"\r\n".join(b"." + line if line.startswith(b".") else line for line in lines)
    return body + b"\r\n.\r\n"


class LMTPPool:
    """Up to ``size`` pooled LMTP connections, reused LIFO.

    Dovecot drops idle LMTP sessions after 5 minutes and answers 421 when its lmtp process stops, so a
    failure on a *reused* connection is retried once on a fresh one, unless the DATA payload may
    already have been delivered.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        size: int = 8,
        local_hostname: str = CLIENT_HOSTNAME,
        timeout: float = 30.0,
    ) -> None:
        self.host = host
        self.port = port
        self.local_hostname = local_hostname
        self.timeout = timeout
        self._idle: list[AsyncLMTP] = []
        self._slots = asyncio.Semaphore(size)

    async def _connect(self) -> AsyncLMTP:
        return await AsyncLMTP.connect(
            self.host, self.port, local_hostname=self.local_hostname, timeout=self.timeout
        )

    async def run(self, operation: Callable[[AsyncLMTP], Awaitable[T]]) -> T:
        async with self._slots:
            reused = bool(self._idle)
            conn = self._idle.pop() if reused else await self._connect()
            try:
                result = await operation(conn)
            except LMTPConnectionLost:
                await conn.close()
                if not reused or conn.committed:
                    raise
                conn = await self._connect()
                try:
                    result = await operation(conn)
                except BaseException:
                    await conn.close()
                    raise
            except BaseException:
                # The protocol state is unknown after any other failure: do not reuse the connection.
                await conn.close()
                raise
            if conn.closed:
                await conn.close()
            else:
                self._idle.append(conn)
            return result

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.quit()


# --------------------------------------------------------------------------------------------------
# aiosmtpd handler and SMTP AUTH against Dovecot


class DovecotSASL:
    """Checks credentials with Dovecot's auth-client socket (what Postfix's ``smtpd_sasl_type = dovecot``
    does), so SMTP and IMAP share passwords.

    ``check_async`` is what the SMTP front end uses: Dovecot answers a wrong password only after
    ~0.5 s, which must not block the server's event loop. An instance is also a (synchronous) aiosmtpd
    ``authenticator`` for use elsewhere.
    """

    def __init__(self, socket_path: str | Path, *, service: str = "smtp", timeout: float = 5.0) -> None:
        self.socket_path = str(socket_path)
        self.service = service
        self.timeout = timeout
        self._next_id = 1

    def _request(self, username: str, password: str) -> tuple[bytes, bytes, str]:
        resp = base64.b64encode(b"\0" + username.encode() + b"\0" + password.encode()).decode("ascii")
        req_id = str(self._next_id)
        self._next_id += 1
        handshake = f"VERSION\t1\t2\nCPID\t{os.getpid()}\n".encode()
        # "secured": without it Dovecot refuses PLAIN on a "plaintext" connection.
        auth = f"AUTH\t{req_id}\tPLAIN\tservice={self.service}\tsecured\tresp={resp}\n".encode()
        return handshake, auth, req_id

    @staticmethod
    def _accepted(answer: bytes, req_id: str) -> bool:
        fields = answer.decode(errors="replace").rstrip("\n").split("\t")
        return len(fields) >= 2 and fields[0] == "OK" and fields[1] == req_id

    def check(self, username: str, password: str) -> bool:
        handshake, auth, req_id = self._request(username, password)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout)
            sock.connect(self.socket_path)
            with sock.makefile("rwb") as stream:
                stream.write(handshake)
                stream.flush()
                while (line := stream.readline()) != b"DONE\n":
                    if not line:
                        return False
                stream.write(auth)
                stream.flush()
                return self._accepted(stream.readline(), req_id)

    async def check_async(self, username: str, password: str) -> bool:
        handshake, auth, req_id = self._request(username, password)

        async def exchange() -> bool:
            reader, writer = await asyncio.open_unix_connection(self.socket_path)
            try:
                writer.write(handshake)
                while (line := await reader.readline()) != b"DONE\n":
                    if not line:
                        return False
                writer.write(auth)
                return self._accepted(await reader.readline(), req_id)
            finally:
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

        return await asyncio.wait_for(exchange(), self.timeout)

    async def converse(
        self, mechanism: str, initial: bytes, answer: Callable[[bytes], Awaitable[bytes | None]]
    ) -> str | None:
        """Run one SASL exchange of any mechanism Dovecot offers (XOAUTH2, OAUTHBEARER) through its
        auth-client protocol: ``initial`` is the client's first response, ``answer`` relays a
        challenge to the client and returns its reply (None: it gave up). The user name Dovecot
        authenticated, or None when it refused."""

        async def exchange() -> str | None:
            reader, writer = await asyncio.open_unix_connection(self.socket_path)
            req_id = str(self._next_id)
            self._next_id += 1
            try:
                writer.write(f"VERSION\t1\t2\nCPID\t{os.getpid()}\n".encode())
                while (line := await reader.readline()) != b"DONE\n":
                    if not line:
                        return None
                resp = base64.b64encode(initial).decode("ascii")
                writer.write(
                    f"AUTH\t{req_id}\t{mechanism}\tservice={self.service}\tsecured\tresp={resp}\n".encode()
                )
                while True:
                    fields = (await reader.readline()).decode(errors="replace").rstrip("\n").split("\t")
                    if len(fields) < 2 or fields[1] != req_id or fields[0] not in {"OK", "CONT"}:
                        return None
                    if fields[0] == "OK":
                        user = next((f[5:] for f in fields[2:] if f.startswith("user=")), "")
                        return user
                    reply = await answer(base64.b64decode(fields[2]) if len(fields) > 2 else b"")
                    if reply is None:
                        return None
                    writer.write(f"CONT\t{req_id}\t{base64.b64encode(reply).decode('ascii')}\n".encode())
            finally:
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

        return await asyncio.wait_for(exchange(), self.timeout)

    def __call__(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        if isinstance(auth_data, LoginPassword):
            try:
                ok = self.check(auth_data.login.decode(), auth_data.password.decode())
            except (OSError, UnicodeDecodeError):
                ok = False
            if ok:
                return AuthResult(success=True, auth_data=auth_data)
        # handled=False makes aiosmtpd send "535 5.7.8"; the default handled=True sends nothing and the
        # client hangs until its timeout (mail.md §4.3).
        return AuthResult(success=False, handled=False)


class DovecotLMTPHandler:
    """aiosmtpd handler that checks recipients against Dovecot and delivers over LMTP synchronously.

    RCPT runs MAIL/RCPT/RSET on LMTP and passes Dovecot's reply through (e.g. ``550 5.1.1 <x> User
    doesn't exist``). DATA is delivered before the SMTP reply, so once the client's send returns the
    mail is in the mailbox and tests need no polling.

    AUTH PLAIN/LOGIN are implemented here (aiosmtpd prefers a handler's ``auth_*`` methods over its
    own) so the Dovecot check can be awaited; without ``sasl`` every AUTH gets 535.
    """

    def __init__(
        self,
        lmtp_host: str,
        lmtp_port: int,
        *,
        pool_size: int = 8,
        check_recipients: bool = True,
        timeout: float = 30.0,
        sasl: DovecotSASL | None = None,
    ) -> None:
        self.pool = LMTPPool(lmtp_host, lmtp_port, size=pool_size, timeout=timeout)
        self.check_recipients = check_recipients
        self.sasl = sasl

    @classmethod
    def from_cli(cls, parser: argparse.ArgumentParser, *args: str) -> DovecotLMTPHandler:
        """For ``python -m aiosmtpd -n -c mailbot.testing.mailrig.DovecotLMTPHandler HOST PORT``."""
        if len(args) != 2:
            parser.error("DovecotLMTPHandler needs LMTP_HOST LMTP_PORT")
        return cls(args[0], int(args[1]))

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if self.check_recipients:
            sender = envelope.mail_from or ""
            try:
                reply = await self.pool.run(lambda conn: conn.probe(sender, address))
            except (OSError, TimeoutError) as exc:
                return f"451 4.4.1 LMTP unavailable: {exc!r}"
            if not reply.ok:
                return str(reply)
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content
        if content is None:
            raw = envelope.content
            content = raw.encode("utf-8") if isinstance(raw, str) else (raw or b"")
        sender = envelope.mail_from or ""
        recipients = list(envelope.rcpt_tos)
        options = list(envelope.mail_options)
        try:
            results = await self.pool.run(
                lambda conn: conn.send_message(sender, recipients, content, options)
            )
        except (OSError, TimeoutError) as exc:
            return f"451 4.4.1 LMTP delivery failed: {exc!r}"
        failed = [(rcpt, reply) for rcpt, reply in results.items() if not reply.ok]
        if not failed:
            return "250 2.0.0 Delivered"
        # SMTP has one DATA reply for all recipients; surface the first failure so tests notice it
        # rather than accepting and silently losing part of the delivery.
        rcpt, reply = failed[0]
        return f"{reply.code} {reply.text} (recipient {rcpt}; {len(results) - len(failed)} delivered)"

    async def _login(self, login: bytes, password: bytes) -> AuthResult:
        if self.sasl is not None:
            try:
                ok = await self.sasl.check_async(login.decode(), password.decode())
            except (OSError, UnicodeDecodeError, TimeoutError):
                ok = False
            if ok:
                return AuthResult(success=True, auth_data=LoginPassword(login, password))
        # handled=False makes aiosmtpd send "535 5.7.8"; the default handled=True sends nothing and the
        # client hangs until its timeout (mail.md §4.3).
        return AuthResult(success=False, handled=False)

    @staticmethod
    async def _b64_arg(server: SMTP, args: list[str], challenge: str) -> bytes | None:
        """The initial response if given, else the answer to a 334 challenge; None after a reply."""
        if len(args) > 1:
            try:
                return base64.b64decode(args[1], validate=True)
            except binascii.Error:
                await server.push("501 5.5.2 Can't decode base64")
                return None
        answer = await server.challenge_auth(challenge)
        return answer if isinstance(answer, bytes) else None

    async def auth_PLAIN(self, server: SMTP, args: list[str]) -> AuthResult:
        blob = await self._b64_arg(server, args, "")
        if blob is None:
            return AuthResult(success=False, handled=True)
        parts = blob.split(b"\0")
        if len(parts) != 3:
            await server.push("501 5.5.2 Can't split auth value")
            return AuthResult(success=False, handled=True)
        return await self._login(parts[1], parts[2])

    async def auth_LOGIN(self, server: SMTP, args: list[str]) -> AuthResult:
        login = await self._b64_arg(server, args, server.AuthLoginUsernameChallenge)
        if login is None:
            return AuthResult(success=False, handled=True)
        password = await self._b64_arg(server, [], server.AuthLoginPasswordChallenge)
        if password is None:
            return AuthResult(success=False, handled=True)
        return await self._login(login, password)

    async def _bearer(self, server: SMTP, mechanism: str, args: list[str]) -> AuthResult:
        """XOAUTH2 and OAUTHBEARER, passed through to Dovecot (which asks the token's introspection
        URL, as Postfix with ``smtpd_sasl_type = dovecot`` would have it do); Dovecot's error
        challenge for a refused token goes to the client as a 334, as Gmail's and Outlook's."""
        initial = await self._b64_arg(server, args, "")
        if initial is None:
            return AuthResult(success=False, handled=True)
        user: str | None = None
        if self.sasl is not None:

            async def relay(challenge: bytes) -> bytes | None:
                reply = await server.challenge_auth(challenge)
                return reply if isinstance(reply, bytes) else None

            try:
                user = await self.sasl.converse(mechanism, initial, relay)
            except (OSError, TimeoutError, binascii.Error):
                user = None
        if user is None:
            return AuthResult(success=False, handled=False)
        return AuthResult(success=True, auth_data=LoginPassword(user.encode(), b""))

    async def auth_XOAUTH2(self, server: SMTP, args: list[str]) -> AuthResult:
        return await self._bearer(server, "XOAUTH2", args)

    async def auth_OAUTHBEARER(self, server: SMTP, args: list[str]) -> AuthResult:
        return await self._bearer(server, "OAUTHBEARER", args)

    async def close(self) -> None:
        await self.pool.close()


# --------------------------------------------------------------------------------------------------
# SMTP front-end process


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host or LOCALHOST, int(port)


def _smtpd_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m mailbot.testing.mailrig smtpd",
        description="aiosmtpd front end that delivers into Dovecot over LMTP",
    )
    p.add_argument("--listen", type=_host_port, required=True, metavar="HOST:PORT")
    p.add_argument("--lmtp", type=_host_port, required=True, metavar="HOST:PORT")
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="offer STARTTLS with this cert")
    p.add_argument("--dovecot-auth", metavar="SOCKET", help="check SMTP AUTH with Dovecot's auth-client")
    p.add_argument("--auth-required", action="store_true")
    p.add_argument("--hostname", default=SERVER_HOSTNAME)
    p.add_argument("--pool-size", type=int, default=8)
    p.add_argument("--no-rcpt-check", action="store_true", help="accept every RCPT (faster)")
    p.add_argument("--parent-pid", type=int, help="exit when this process is no longer our parent")
    p.add_argument("--verbose", action="store_true")
    return p


async def _serve_smtpd(args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    lmtp_host, lmtp_port = args.lmtp
    handler = DovecotLMTPHandler(
        lmtp_host,
        lmtp_port,
        pool_size=args.pool_size,
        check_recipients=not args.no_rcpt_check,
        sasl=DovecotSASL(args.dovecot_auth) if args.dovecot_auth else None,
    )
    tls_context: ssl.SSLContext | None = None
    if args.tls:
        # Purpose.CLIENT_AUTH: no hostname check and CERT_NONE, which aiosmtpd expects of a server.
        tls_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls_context.load_cert_chain(args.tls[0], args.tls[1])

    def factory() -> SMTP:
        return SMTP(
            handler,
            hostname=args.hostname,
            tls_context=tls_context,
            enable_SMTPUTF8=True,
            auth_required=args.auth_required,
            # Loopback test server: let clients authenticate without STARTTLS too.
            auth_require_tls=False,
            loop=loop,
        )

    host, port = args.listen
    # reuse_address (the default on POSIX) lets a restarted front end bind the same port at once even
    # with connections of the previous process in TIME_WAIT.
    server = await loop.create_server(factory, host, port, reuse_address=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    async def watch_parent(parent: int) -> None:
        # PR_SET_PDEATHSIG was not delivered on this kind of VM (mail.md §7): poll for re-parenting.
        while os.getppid() == parent:
            await asyncio.sleep(0.5)
        log.warning("parent %d is gone, exiting", parent)
        stop.set()

    watcher = asyncio.create_task(watch_parent(args.parent_pid)) if args.parent_pid else None
    log.info("smtpd listening on %s:%d, delivering to LMTP %s:%d", host, port, lmtp_host, lmtp_port)
    try:
        await stop.wait()
    finally:
        if watcher is not None:
            watcher.cancel()
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 2.0)
        await handler.close()


def smtpd_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m mailbot.testing.mailrig smtpd --listen H:P --lmtp H:P [...]``."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["smtpd"]:
        args_list = args_list[1:]
    args = _smtpd_parser().parse_args(args_list)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s",
    )
    # Expected with auth_require_tls=False on a loopback test server.
    warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
    asyncio.run(_serve_smtpd(args))
    return 0


class SmtpFrontEnd:
    """Runs ``smtpd_main`` in a subprocess on a fixed port (chosen free once), so it can be stopped and
    started again on the same port to simulate an SMTP outage."""

    def __init__(
        self,
        lmtp_port: int,
        *,
        lmtp_host: str = LOCALHOST,
        host: str = LOCALHOST,
        port: int | None = None,
        tls: tuple[str | Path, str | Path] | None = None,
        dovecot_auth: str | Path | None = None,
        auth_required: bool = False,
        check_recipients: bool = True,
        hostname: str = SERVER_HOSTNAME,
        log_path: str | Path | None = None,
        startup_timeout: float = 10.0,
        extra_args: Sequence[str] = (),
        on_pid_change: Callable[[], None] | None = None,
    ) -> None:
        self.lmtp_host = lmtp_host
        self.lmtp_port = lmtp_port
        self.host = host
        self.port = port if port is not None else free_ports(1, host)[0]
        self.tls = tls
        self.dovecot_auth = dovecot_auth
        self.auth_required = auth_required
        self.check_recipients = check_recipients
        self.hostname = hostname
        self.log_path = Path(log_path) if log_path is not None else None
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)
        # MailRig keeps <rigdir>/pids.json current through this, however the front end is restarted.
        self.on_pid_change = on_pid_change
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def command(self) -> list[str]:
        cmd = [
            sys.executable, "-m", "mailbot.testing.mailrig", "smtpd",
            "--listen", f"{self.host}:{self.port}",
            "--lmtp", f"{self.lmtp_host}:{self.lmtp_port}",
            "--hostname", self.hostname,
            "--parent-pid", str(os.getpid()),
        ]  # fmt: skip
        if self.tls is not None:
            cmd += ["--tls", str(self.tls[0]), str(self.tls[1])]
        if self.dovecot_auth is not None:
            cmd += ["--dovecot-auth", str(self.dovecot_auth)]
        if self.auth_required:
            cmd.append("--auth-required")
        if not self.check_recipients:
            cmd.append("--no-rcpt-check")
        return cmd + self.extra_args

    def _diagnostics(self) -> str:
        if self.log_path is None:
            return "(no log file)"
        return f"--- {self.log_path} (tail) ---\n{_read_text(self.log_path)}"

    def start(self) -> None:
        if self.running:
            return
        if port_listening(self.host, self.port):
            raise RigError(f"{self.host}:{self.port} is already in use; cannot start the SMTP front end")
        with contextlib.ExitStack() as stack:
            err: Any = subprocess.DEVNULL
            if self.log_path is not None:
                # Append: a restarted front end keeps the earlier log.
                err = stack.enter_context(open(self.log_path, "ab"))
            self.proc = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )
        if self.on_pid_change is not None:
            self.on_pid_change()
        try:
            _wait_listening(
                self.proc,
                self.host,
                [self.port],
                timeout=self.startup_timeout,
                what="smtpd",
                diagnostics=self._diagnostics,
            )
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout: float = 5.0) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            _terminate(proc, timeout)
            if self.on_pid_change is not None:
                self.on_pid_change()

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_errors(self) -> list[str]:
        if self.log_path is None:
            return []
        text = _read_text(self.log_path, limit=1 << 24)
        return [line for line in text.splitlines() if re.search(r"\b(ERROR|CRITICAL|Traceback)\b", line)]

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


# --------------------------------------------------------------------------------------------------
# The whole rig


_LITERAL_UID = re.compile(rb"\bUID (\d+)")
_EXISTS = re.compile(rb"^(\d+) EXISTS$")


async def _examine(imap: Any, mailbox: str, timeout: float) -> Any:
    """EXAMINE (read-only SELECT) so that the helpers never take \\Recent or change flags under the bot.

    aioimaplib 2.0.3 sends EXAMINE as a simple command and leaves its state machine in AUTH, where it
    then refuses SEARCH/FETCH; only its SELECT updates the state, so do that here (the version is
    pinned in pyproject).
    """
    resp = _check(await asyncio.wait_for(imap.examine(mailbox), timeout), "EXAMINE")
    if imap.protocol.state == "AUTH":
        imap.protocol.state = "SELECTED"
    return resp


def _check(response: Any, what: str) -> Any:
    """aioimaplib does not raise on NO/BAD (mail.md §4.2): turn them into errors."""
    if response.result != "OK":
        raise RigError(f"IMAP {what} failed: {response.result} {response.lines!r}")
    return response


class MailRig:
    """Dovecot + SMTP front end in one temp dir, with helpers for tests.

    ``with MailRig() as rig:`` or ``start()``/``stop()``; ``stop()`` is also registered with atexit.
    """

    def __init__(
        self,
        *,
        smtp_auth: bool = True,
        imap_timeout: float = 10.0,
        keep_dir: bool = False,
        oauth2_introspection_url: str | None = None,
    ) -> None:
        """``oauth2_introspection_url``: Dovecot (IMAP, and SMTP AUTH through it) also takes XOAUTH2
        and OAUTHBEARER logins, asking that URL whether a token is good (``testing.oauth2server``)."""
        self.host = LOCALHOST
        self.oauth2_introspection_url = oauth2_introspection_url
        self.dir: Path | None = None
        self.dovecot: Dovecot | None = None
        self.smtp: SmtpFrontEnd | None = None
        self.smtp_auth = smtp_auth
        self.imap_timeout = imap_timeout
        self.keep_dir = keep_dir
        self.bot_address = BOT_ADDRESS
        self.bot_password = BOT_PASSWORD
        self.gm_address = GM_ADDRESS
        self.gm_password = GM_PASSWORD
        self.player_password = PLAYER_PASSWORD
        self.imap_port = 0
        self.imaps_port = 0
        self.lmtp_port = 0
        self.smtp_port = 0
        self.cafile = Path()
        self._final_errors: list[str] | None = None
        self.start_seconds = 0.0
        self.stop_seconds = 0.0

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self.dovecot is not None:
            return
        t0 = time.monotonic()
        reap_stray_rigs()
        self.dir = _make_rigdir()
        self._final_errors = None
        atexit.register(self.stop)
        try:
            self.dovecot = Dovecot(
                self.dir, host=self.host, oauth2_introspection_url=self.oauth2_introspection_url
            )
            self.dovecot.start()
            self.imap_port = self.dovecot.imap_port
            self.imaps_port = self.dovecot.imaps_port
            self.lmtp_port = self.dovecot.lmtp_port
            self.cafile = self.dovecot.cert_path
            self.smtp = SmtpFrontEnd(
                self.lmtp_port,
                lmtp_host=self.host,
                host=self.host,
                tls=(self.dovecot.cert_path, self.dovecot.key_path),
                dovecot_auth=self.dovecot.auth_socket_path if self.smtp_auth else None,
                log_path=self.dir / "smtpd.log",
                on_pid_change=self._write_pids,
            )
            self.smtp_port = self.smtp.port
            self._write_pids()
            self.smtp.start()
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - t0

    def _write_pids(self) -> None:
        if self.dir is None:
            return
        servers = {
            "dovecot": self.dovecot.pid if self.dovecot else None,
            "smtpd": self.smtp.pid if self.smtp else None,
        }
        info = {"owner": os.getpid(), "rigdir": str(self.dir), "servers": servers}
        tmp = self.dir / "pids.json.tmp"
        tmp.write_text(json.dumps(info), encoding="utf-8")
        tmp.replace(self.dir / "pids.json")

    def stop(self) -> None:
        """Stop both servers (SMTP first, so no delivery is in flight), then remove the temp dir unless
        Dovecot logged errors (kept for inspection) or ``keep_dir``."""
        t0 = time.monotonic()
        atexit.unregister(self.stop)
        smtp, self.smtp = self.smtp, None
        dovecot, self.dovecot = self.dovecot, None
        try:
            if smtp is not None:
                smtp.stop()
        finally:
            if dovecot is not None:
                dovecot.stop()
        if dovecot is not None:
            self._final_errors = dovecot.log_errors() + (smtp.log_errors() if smtp else [])
        if self.dir is not None:
            if self.keep_dir or self._final_errors:
                with contextlib.suppress(OSError):
                    (self.dir / "pids.json").unlink()
            else:
                shutil.rmtree(self.dir, ignore_errors=True)
                self.dir = None
        self.stop_seconds = time.monotonic() - t0

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop_smtp(self) -> None:
        """Simulate an SMTP outage: connections to ``smtp_port`` are refused until ``start_smtp()``."""
        if self.smtp is not None:
            self.smtp.stop()

    def start_smtp(self) -> None:
        """Start the SMTP front end again on the same port."""
        if self.smtp is None:
            raise RigError("rig not started")
        self.smtp.start()

    # -- introspection -----------------------------------------------------------------------------

    def new_address(self) -> str:
        """A fresh player in the open domain (password ``pw``); no provisioning needed."""
        return f"player-{uuid.uuid4().hex[:8]}@{OPEN_DOMAIN}"

    async def open_mailboxes(self, addresses: Sequence[str], links: int = 4) -> None:
        """One small letter to each address straight into Dovecot (LMTP), so that its mailbox
        exists, as a player's does on a real server: benchmarks call this before timing, or
        Dovecot creating the mailboxes on their first delivery is timed for whoever sends first."""
        raw = b"Subject: welcome\r\n\r\nA mailbox for the bench.\r\n"

        async def link(share: Sequence[str]) -> None:
            client = await AsyncLMTP.connect(self.host, self.lmtp_port)
            try:
                for address in share:
                    await client.send_message("setup@bench.test", [address], raw)
            finally:
                await client.close()

        await asyncio.gather(*(link(addresses[i::links]) for i in range(links)))

    def log_errors(self) -> list[str]:
        """Error:/Fatal:/Panic: lines that Dovecot logged (also after ``stop()``)."""
        if self.dovecot is not None:
            return self.dovecot.log_errors()
        return [line for line in (self._final_errors or []) if re.search(r"\b(Error|Fatal|Panic):", line)]

    def smtp_log_errors(self) -> list[str]:
        if self.smtp is not None:
            return self.smtp.log_errors()
        return [
            line for line in (self._final_errors or []) if re.search(r"\b(ERROR|CRITICAL|Traceback)\b", line)
        ]

    def ssl_context(self) -> ssl.SSLContext:
        """Client context trusting the rig's self-signed certificate."""
        return ssl.create_default_context(cafile=str(self.cafile))

    # -- async helpers for tests -------------------------------------------------------------------

    async def send(
        self,
        msg: email.message.EmailMessage,
        *,
        sender: str | None = None,
        recipients: Sequence[str] | None = None,
        starttls: bool = False,
        username: str | None = None,
        password: str | None = None,
    ) -> None:
        """Send over SMTP to the front end; returns once the mail is in the recipients' mailboxes.

        Raises aiosmtplib errors (``SMTPConnectError`` while the front end is stopped,
        ``SMTPRecipientsRefused`` if any recipient is refused).
        """
        errors, _ = await aiosmtplib.send(
            msg,
            sender=sender,
            recipients=recipients,
            hostname=self.host,
            port=self.smtp_port,
            local_hostname=CLIENT_HOSTNAME,
            username=username,
            password=password,
            # aiosmtplib 5 upgrades automatically whenever STARTTLS is offered; with our self-signed
            # cert that needs the cafile, so be explicit either way.
            start_tls=starttls,
            cert_bundle=str(self.cafile) if starttls else None,
            timeout=30.0,
        )
        if errors:
            raise aiosmtplib.SMTPRecipientsRefused(
                [aiosmtplib.SMTPRecipientRefused(r.code, r.message, rcpt) for rcpt, r in errors.items()]
            )

    async def imap_login(self, address: str, password: str, *, tls: bool = False) -> Any:
        """A logged-in ``aioimaplib.IMAP4`` (or ``IMAP4_SSL`` on the IMAPS port with the rig's cafile).

        Must be called inside the running loop (aioimaplib connects from its constructor). The caller
        logs out; wrap every further call in ``asyncio.wait_for``.
        """
        imap: Any
        if tls:
            imap = aioimaplib.IMAP4_SSL(
                host=self.host,
                port=self.imaps_port,
                ssl_context=self.ssl_context(),
                timeout=self.imap_timeout,
            )
        else:
            imap = aioimaplib.IMAP4(host=self.host, port=self.imap_port, timeout=self.imap_timeout)
        # Lets imap_logout() wait until the socket is really closed (see there).
        lost = asyncio.Event()
        imap.protocol.conn_lost_cb = lambda exc: lost.set()
        imap.mailrig_connection_lost = lost
        try:
            await asyncio.wait_for(imap.wait_hello_from_server(), self.imap_timeout)
            _check(await asyncio.wait_for(imap.login(address, password), self.imap_timeout), "LOGIN")
        except BaseException:
            await self.imap_logout(imap)
            raise
        return imap

    async def imap_logout(self, imap: Any) -> None:
        """Log out (bounded by imap_timeout) and close the transport even if that fails.

        For a client from ``imap_login`` it also waits (≤2 s) until the connection is lost: a TLS
        transport closes its socket only after the close_notify exchange, and if the test's event loop
        ends first the socket leaks, and its ResourceWarning fails some later test under -W error.
        """
        transport = getattr(imap.protocol, "transport", None)
        try:
            if transport is not None and imap.get_state() != "LOGOUT":
                await asyncio.wait_for(imap.logout(), self.imap_timeout)
        except Exception:
            pass
        finally:
            if transport is not None:
                transport.close()
                lost = getattr(imap, "mailrig_connection_lost", None)
                if isinstance(lost, asyncio.Event):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), 2.0)

    async def _fetch_selected(self, imap: Any) -> list[bytes]:
        t = self.imap_timeout
        search = _check(await asyncio.wait_for(imap.uid_search("ALL", charset=None), t), "UID SEARCH")
        uids = [int(u) for u in search.lines[0].split()] if search.lines else []
        messages: dict[int, bytes] = {}
        for i in range(0, len(uids), FETCH_BATCH):
            batch = ",".join(str(u) for u in uids[i : i + FETCH_BATCH])
            resp = _check(
                await asyncio.wait_for(imap.uid("fetch", batch, "(UID BODY.PEEK[])"), t), "UID FETCH"
            )
            head: bytes = b""
            for line in resp.lines:
                if isinstance(line, bytearray):
                    # The UID is in the "N FETCH (UID u BODY[] {size}" line before the literal; never
                    # search the literal itself (mail.md §4.2).
                    m = _LITERAL_UID.search(head)
                    if m is None:
                        raise RigError(f"FETCH literal without UID: {head!r}")
                    messages[int(m.group(1))] = bytes(line)
                elif isinstance(line, bytes):
                    head = line
        return [messages[u] for u in sorted(messages)]

    async def fetch_all(self, address: str, password: str, mailbox: str = "INBOX") -> list[bytes]:
        """Raw messages of ``mailbox`` in UID order, without changing flags (EXAMINE + BODY.PEEK)."""
        imap = await self.imap_login(address, password)
        try:
            await _examine(imap, mailbox, self.imap_timeout)
            return await self._fetch_selected(imap)
        finally:
            await self.imap_logout(imap)

    async def wait_for_mail(
        self, address: str, password: str, count: int = 1, timeout: float = 10.0, mailbox: str = "INBOX"
    ) -> list[bytes]:
        """Poll until ``mailbox`` holds at least ``count`` messages; return them all (raw, UID order)."""
        deadline = time.monotonic() + timeout
        imap = await self.imap_login(address, password)
        try:
            while True:
                # Re-EXAMINE to refresh the view; its EXISTS line is the message count.
                resp = await _examine(imap, mailbox, self.imap_timeout)
                exists = 0
                for line in resp.lines:
                    m = _EXISTS.match(line) if isinstance(line, bytes) else None
                    if m:
                        exists = int(m.group(1))
                if exists >= count:
                    return await self._fetch_selected(imap)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{address}/{mailbox}: {exists} of {count} messages after {timeout} s")
                await asyncio.sleep(0.05)
        finally:
            await self.imap_logout(imap)


# --------------------------------------------------------------------------------------------------
# Command line


def _serve_rig_main(argv: Sequence[str]) -> int:
    """``python -m mailbot.testing.mailrig serve``: run a rig until SIGTERM/SIGINT (manual runs, benches)."""
    p = argparse.ArgumentParser(prog="python -m mailbot.testing.mailrig serve")
    p.parse_args(list(argv))
    import threading

    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with MailRig() as rig:
        info = {
            "host": rig.host,
            "imap_port": rig.imap_port,
            "imaps_port": rig.imaps_port,
            "lmtp_port": rig.lmtp_port,
            "smtp_port": rig.smtp_port,
            "cafile": str(rig.cafile),
            "dir": str(rig.dir),
            "bot": [rig.bot_address, rig.bot_password],
            "gm": [rig.gm_address, rig.gm_password],
            "players": [f"*@{OPEN_DOMAIN}", PLAYER_PASSWORD],
        }
        print(json.dumps(info), flush=True)
        while not stop.wait(1.0):
            pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["smtpd"]:
        return smtpd_main(args[1:])
    if args[:1] == ["serve"]:
        return _serve_rig_main(args[1:])
    print("usage: python -m mailbot.testing.mailrig {smtpd|serve} ...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
