# SPDX-License-Identifier: GPL-3.0-or-later
"""Shutdown while IDLE against a real Dovecot: DONE, the tagged answer, then LOGOUT, at once.

Before the fix, LOGOUT queued behind the never-ending IDLE command and ``close()`` sat out
its 5-second logout timeout on every shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pytest

from mailbot.mail.imap import ImapConfig, ImapSource
from mailbot.testing.mailrig import MailRig


def _config(rig: MailRig, address: str) -> ImapConfig:
    return ImapConfig(
        host=rig.host,
        port=rig.imaps_port,
        user=address,
        password=rig.player_password,
        tls=True,
        cafile=str(rig.cafile),
        timeout=10,
    )


async def _idling(rig: MailRig, address: str) -> tuple[ImapSource, asyncio.Task[None]]:
    source = ImapSource(_config(rig, address))
    await source.connect()
    waiting = asyncio.create_task(source.wait_for_news(idle=True, idle_timeout=60, poll_interval=60))
    for _ in range(200):
        if source.idling:
            break
        await asyncio.sleep(0.02)
    assert source.idling, "the source never entered IDLE"
    return source, waiting


async def test_close_while_idling_after_cancel_is_fast(
    mail_rig: MailRig, player_address: str, caplog: pytest.LogCaptureFixture
) -> None:
    # What Bot.run does on SIGTERM: cancel the reading task, then close its source.
    source, waiting = await _idling(mail_rig, player_address)
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    caplog.set_level(logging.DEBUG, logger="mailbot.mail.imap")
    started = time.monotonic()
    await source.close()
    elapsed = time.monotonic() - started
    assert elapsed < 1.0, f"close() while idling took {elapsed:.2f} s"
    assert "logout failed" not in caplog.text  # LOGOUT was answered, not timed out
    assert not source.idling


async def test_close_while_idle_task_still_waits_is_fast(mail_rig: MailRig, player_address: str) -> None:
    # close() from elsewhere while the reader still sits in IDLE: the reader ends too.
    source, waiting = await _idling(mail_rig, player_address)
    started = time.monotonic()
    await source.close()
    elapsed = time.monotonic() - started
    with contextlib.suppress(Exception):
        await asyncio.wait_for(waiting, 2)
    assert elapsed < 1.0, f"close() while idling took {elapsed:.2f} s"
    assert waiting.done()
