# SPDX-License-Identifier: GPL-3.0-or-later
"""SMTP sink over aiosmtplib: one reused connection, errors sorted into retry or give up."""

from __future__ import annotations

import logging
import ssl
from dataclasses import dataclass
from typing import Literal

import aiosmtplib

from mailbot.errors import SmtpPermanentError, SmtpTemporaryError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    security: Literal["starttls", "tls", "none"] = "starttls"
    user: str = ""
    password: str = ""
    cafile: str | None = None
    timeout: float = 30.0
    local_hostname: str = "mailbot.localhost"


def _classify(exc: Exception) -> SmtpTemporaryError | SmtpPermanentError:
    """5xx means the server will never take it; everything else may pass later."""
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        codes = [err.code for err in exc.recipients]
        if codes and all(code >= 500 for code in codes):
            return SmtpPermanentError("; ".join(f"{e.code} {e.message}" for e in exc.recipients))
        return SmtpTemporaryError(str(exc))
    if isinstance(exc, aiosmtplib.SMTPResponseException) and exc.code >= 500:
        return SmtpPermanentError(f"{exc.code} {exc.message}")
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return SmtpTemporaryError(f"{exc.code} {exc.message}")
    return SmtpTemporaryError(f"{type(exc).__name__}: {exc}")


class SmtpSink:
    """Sends raw messages; keeps the connection open between messages of a batch."""

    def __init__(self, config: SmtpConfig) -> None:
        self.config = config
        self._client: aiosmtplib.SMTP | None = None

    def _new_client(self) -> aiosmtplib.SMTP:
        cfg = self.config
        context = ssl.create_default_context(cafile=cfg.cafile) if cfg.security != "none" else None
        return aiosmtplib.SMTP(
            hostname=cfg.host,
            port=cfg.port,
            use_tls=cfg.security == "tls",
            start_tls=cfg.security == "starttls",
            tls_context=context,
            timeout=cfg.timeout,
            local_hostname=cfg.local_hostname,
        )

    async def _connected(self) -> aiosmtplib.SMTP:
        if self._client is not None and self._client.is_connected:
            return self._client
        client = self._new_client()
        await client.connect()
        if self.config.user:
            await client.login(self.config.user, self.config.password)
        self._client = client
        return client

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        """Deliver one message; raises SmtpTemporaryError or SmtpPermanentError."""
        try:
            client = await self._connected()
            await client.sendmail(sender, [recipient], raw)
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            error = _classify(exc)
            if isinstance(error, SmtpTemporaryError):
                await self.close()  # the link may be half-dead: start afresh next time
            raise error from exc

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is None or not client.is_connected:
            return
        try:
            await client.quit()
        except (aiosmtplib.SMTPException, OSError, TimeoutError):
            client.close()
