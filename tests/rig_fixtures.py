# SPDX-License-Identifier: GPL-3.0-or-later
"""pytest plugin: one real mail rig (private Dovecot + SMTP front end) per test session.

Registered from tests/conftest.py with ``pytest_plugins = ["tests.rig_fixtures"]`` (or ``-p
tests.rig_fixtures``). The rig starts lazily, only when a test asks for ``mail_rig``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from mailbot.testing.mailrig import MailRig


def _stop_on_sigterm(rig: MailRig) -> object:
    """Stop the servers if pytest itself is SIGTERMed (atexit does not run then); returns the previous
    handler, or None when none was installed."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not signal.SIG_DFL:
        return None

    def handler(signum: int, frame: FrameType | None) -> None:
        rig.stop()
        # Then die of SIGTERM as we would have without the handler.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, handler)
    return previous


@pytest.fixture(scope="session")
def mail_rig() -> Iterator[MailRig]:
    """Dovecot (IMAP, IMAPS, LMTP) + SMTP front end on free loopback ports, shared by the session.

    Tests isolate themselves with fresh open-domain addresses (``player_address``) rather than
    restarting servers. A test that stops the SMTP front end must start it again.
    """
    rig = MailRig()
    previous = _stop_on_sigterm(rig)
    try:
        rig.start()
        yield rig
    finally:
        rig.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    errors = rig.log_errors()
    if errors:
        print("mail rig: Dovecot logged errors:\n  " + "\n  ".join(errors), file=sys.stderr)
    fatal = [line for line in errors if "Fatal:" in line or "Panic:" in line]
    if fatal:
        pytest.fail(f"Dovecot logged fatal errors (rig dir {rig.dir} kept):\n" + "\n".join(fatal))


@pytest.fixture
def player_address(mail_rig: MailRig) -> str:
    """A fresh ``player-<uuid8>@players.test`` address (password ``pw``) that exists in Dovecot."""
    return mail_rig.new_address()
