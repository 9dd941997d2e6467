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

from mailbot.testing.mailrig.base import (
    BOT_ADDRESS,
    BOT_PASSWORD,
    GM_ADDRESS,
    GM_PASSWORD,
    OPEN_DOMAIN,
    PLAYER_PASSWORD,
    RigError,
    free_ports,
    make_self_signed_cert,
    reap_stray_rigs,
)
from mailbot.testing.mailrig.cli import main
from mailbot.testing.mailrig.dovecot import Dovecot
from mailbot.testing.mailrig.handler import DovecotLMTPHandler, DovecotSASL
from mailbot.testing.mailrig.lmtp import AsyncLMTP, LMTPConnectionLost, LMTPPool, LMTPReply
from mailbot.testing.mailrig.rig import MailRig
from mailbot.testing.mailrig.smtpd import SmtpFrontEnd, smtpd_main

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
    "make_self_signed_cert",
    "reap_stray_rigs",
    "smtpd_main",
]
