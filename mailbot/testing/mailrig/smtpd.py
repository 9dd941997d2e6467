# SPDX-License-Identifier: GPL-3.0-or-later
"""The SMTP front end: ``smtpd_main`` (run in a subprocess) and ``SmtpFrontEnd`` that starts and stops it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import signal
import ssl
import subprocess
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from aiosmtpd.smtp import SMTP

from mailbot.testing.mailrig.base import (
    LOCALHOST,
    SERVER_HOSTNAME,
    RigError,
    _read_text,
    _terminate,
    _wait_listening,
    free_ports,
    port_listening,
)
from mailbot.testing.mailrig.handler import DovecotLMTPHandler, DovecotSASL

log = logging.getLogger("mailbot.testing.mailrig")

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
