# SPDX-License-Identifier: GPL-3.0-or-later
"""The raw reference of the sending benchmarks: plain aiosmtplib, nothing of the moderator's.

``bench/intake.py`` and ``bench/fanout.py`` print the moderator's sending time next to this one,
measured in the same run on the same servers, so that their ratio says what the moderator adds.
"""

from __future__ import annotations

import asyncio
import time

import aiosmtplib

from mailbot.testing.mailrig import MailRig

Message = tuple[str, str, bytes]  # sender, recipient, the letter's bytes


async def raw_sending(rig: MailRig, login: str, messages: list[Message], links: int) -> float:
    """Seconds to send ``messages`` over ``links`` connections, each its share (STARTTLS and
    login, as the moderator's outbox does)."""

    async def link(share: list[Message]) -> None:
        client = aiosmtplib.SMTP(
            hostname=rig.host, port=rig.smtp_port, start_tls=True, tls_context=rig.ssl_context(), timeout=30
        )
        await client.connect()
        await client.login(login, rig.player_password)
        for sender, recipient, raw in share:
            await client.sendmail(sender, [recipient], raw)
        await client.quit()

    started = time.perf_counter()
    await asyncio.gather(*(link(messages[i::links]) for i in range(links)))
    return time.perf_counter() - started
