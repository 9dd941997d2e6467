# SPDX-License-Identifier: GPL-3.0-or-later
"""Read-only summaries of the store for the command line."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.store.models import Outbound


def recent_outbound(engine: Engine, limit: int = 10) -> list[str]:
    """The newest outbox rows as text: state, recipient, subject, then the text part."""
    with Session(engine) as session:
        rows = session.exec(select(Outbound).order_by(col(Outbound.id).desc()).limit(limit)).all()
    lines: list[str] = []
    for row in reversed(rows):
        lines.append(f"--- outbox #{row.id} [{row.state.value}] to {row.recipient}: {row.subject}")
        lines.append(text_part(row.raw))
    return lines


def text_part(raw: bytes) -> str:
    """The text/plain part of a composed message (what a player reads first)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(preferencelist=("plain",)) if isinstance(msg, EmailMessage) else None
    return str(body.get_content()) if body is not None else raw.decode("utf-8", "replace")
