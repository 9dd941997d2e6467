# SPDX-License-Identifier: GPL-3.0-or-later
"""``python -m mailbot.testing.mailrig {smtpd|serve}``."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from collections.abc import Sequence

from mailbot.testing.mailrig.base import OPEN_DOMAIN, PLAYER_PASSWORD
from mailbot.testing.mailrig.rig import MailRig
from mailbot.testing.mailrig.smtpd import smtpd_main

log = logging.getLogger("mailbot.testing.mailrig")

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
