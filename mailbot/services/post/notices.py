# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters to the game master about the moderator's own troubles."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlmodel import Session

from mailbot.mail.compose import Outgoing
from mailbot.render.templates import Renderer
from mailbot.services.post.identity import Identity
from mailbot.services.post.outbox import enqueue
from mailbot.store.models import Outbound

GM_NOTICE = "gm-notice"


class GmNotifier:
    def __init__(self, *, renderer: Renderer, identity: Identity, new_message_id: Callable[[], str]) -> None:
        self.renderer = renderer
        self.identity = identity
        self.new_message_id = new_message_id

    def notify(self, session: Session, now: datetime, title: str, lines: Sequence[str]) -> None:
        """Queue a notice to the game master (inside the caller's transaction), if one is set."""
        gm = self.identity.gm_address
        if not gm:
            return
        body = self.renderer.render(
            "common/notice", {"bot": self.identity.name, "title": title, "lines": lines}
        )
        out = Outgoing(
            sender=self.identity.address,
            sender_name=self.identity.name,
            recipient=gm,
            subject=f"[{self.identity.name}] {title}",
            body=body,
            message_id=self.new_message_id(),
            date=now,
        )
        enqueue(session, out, kind=GM_NOTICE, now=now)

    def delivery_failed(self, session: Session, row: Outbound, now: datetime) -> None:
        gm = self.identity.gm_address or ""
        if row.kind == GM_NOTICE or row.recipient.lower() == gm.lower():
            return  # a failed notice is not reported again: that could loop
        self.notify(
            session,
            now,
            f"delivery failed to {row.recipient}",
            [
                f"To: {row.recipient}",
                f"Subject: {row.subject}",
                f"Attempts: {row.attempts}",
                f"Last error: {row.last_error}",
            ],
        )
