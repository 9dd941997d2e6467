# SPDX-License-Identifier: GPL-3.0-or-later
"""Try the mail servers as the service will use them: log in to IMAP and select the mailbox,
log in to SMTP; say what failed, in one line each (``mailbot check-config --connect``)."""

from __future__ import annotations

import aiosmtplib

from mailbot.errors import ImapError
from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.mail.smtp import SmtpConfig, SmtpSink, _describe


async def try_imap(config: ImapConfig) -> str:
    """ "" when the login and the SELECT of the mailbox work, else what failed."""
    source = ImapSource(config)
    try:
        await source.connect()
    except ImapError as exc:
        return f"imap {config.host}:{config.port} as {config.user}: {exc}"
    finally:
        await source.close()
    return ""


async def try_smtp(config: SmtpConfig) -> str:
    """ "" when the connection (with its TLS) and the login, if a user is set, work."""
    sink = SmtpSink(config)
    try:
        await sink.check()
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
        who = f" as {config.user}" if config.user else " (no login)"
        return f"smtp {config.host}:{config.port}{who}: {_describe(exc)}"
    return ""
