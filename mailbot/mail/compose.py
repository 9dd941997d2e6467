# SPDX-License-Identifier: GPL-3.0-or-later
"""Building outgoing messages: multipart text + HTML, threaded, marked as automatic."""

from __future__ import annotations

import email.policy
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

from mailbot.render.templates import Rendered


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str
    subtype: str


@dataclass(frozen=True)
class Outgoing:
    sender: str
    sender_name: str
    recipient: str
    subject: str
    body: Rendered
    message_id: str  # without brackets; stored first so a resend reuses it
    date: datetime
    in_reply_to: str | None = None
    references: Sequence[str] = ()
    is_reply: bool = False  # an answer to a letter (even one without a Message-ID to thread on)
    attachments: Sequence[Attachment] = field(default_factory=tuple)


def header_text(value: str) -> str:
    """A header value the e-mail library will write: every line break it knows (``str.splitlines``
    breaks on U+2028, form feed, NEL... too) and every other control character becomes a space."""
    flat = " ".join(value.splitlines())
    return "".join(" " if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else ch for ch in flat)


def reply_subject(subject: str) -> str:
    clean = header_text(subject).strip()
    return clean if clean.lower().startswith("re:") else f"Re: {clean}" if clean else "Re: your letter"


def compose(out: Outgoing) -> bytes:
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = Address(display_name=out.sender_name, addr_spec=out.sender)
    msg["To"] = out.recipient
    msg["Subject"] = header_text(out.subject)
    msg["Date"] = format_datetime(out.date)
    msg["Message-ID"] = f"<{out.message_id}>"
    # RFC 3834: tells vacation responders and other bots not to answer us (no mail loops).
    msg["Auto-Submitted"] = "auto-replied" if out.is_reply or out.in_reply_to else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    if out.in_reply_to:
        msg["In-Reply-To"] = f"<{out.in_reply_to}>"
        msg["References"] = " ".join(f"<{ref}>" for ref in (*out.references, out.in_reply_to))
    msg.set_content(out.body.text)
    msg.add_alternative(out.body.html, subtype="html")
    for item in out.attachments:
        msg.add_attachment(item.content, maintype=item.maintype, subtype=item.subtype, filename=item.filename)
    return msg.as_bytes()
