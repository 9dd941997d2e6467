# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters the moderator writes on its own (welcome, reports, reminders, notices) into the outbox."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from markupsafe import Markup
from sqlmodel import Session

from mailbot.mail.compose import Attachment, Outgoing
from mailbot.render.templates import Rendered, Renderer
from mailbot.services.base import queries
from mailbot.services.post.identity import Identity
from mailbot.services.post.outbox import Thread, enqueue


@dataclass
class Draft:
    """A letter being written: titled sections of lines, plus an optional game body.

    (A letter that came in is a ``mailbot.core.letter.Letter``: read, never written.)
    """

    recipient: str
    subject: str
    sections: list[dict[str, Any]] = field(default_factory=list)
    body: Rendered | None = None  # a game's rendered report, placed before the sections
    attachments: list[Attachment] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)
    thread: Thread | None = None  # game, seat and step: a reply to the letter is known by them

    def section(
        self, title: str, lines: Sequence[str], *, picture: Attachment | None = None, caption: str = ""
    ) -> Draft:
        """A titled block of lines; with ``picture`` (an attachment with a Content-ID), the HTML
        part shows that picture (``cid:``) with ``caption`` in place of the lines, which in the
        text part point to the attachment (a reader of the HTML part sees the picture itself)."""
        entry: dict[str, Any] = {"title": title, "lines": list(lines)}
        if picture is not None:
            entry["picture"] = {"cid": picture.content_id, "name": picture.filename, "caption": caption}
        self.sections.append(entry)
        return self


class Postman:
    """Renders letters with ``common/letter`` and queues them in the caller's transaction."""

    def __init__(
        self,
        *,
        renderer: Renderer,
        identity: Identity,
        new_message_id: Callable[[], str],
    ) -> None:
        self.renderer = renderer
        self.identity = identity
        self.new_message_id = new_message_id

    def render(self, letter: Draft) -> Rendered:
        return self.renderer.render("common/letter", self.context(letter))

    def context(self, letter: Draft) -> Mapping[str, Any]:
        """What ``common/letter`` is rendered with (a GM's override of it may use every name)."""
        return {
            "bot": self.identity.name,
            "title": letter_title(letter.subject) or self.identity.name,
            "sections": letter.sections,
            "body_text": letter.body.text if letter.body else "",
            "body_html": Markup(letter.body.html) if letter.body else "",  # already escaped by its template
            "footer": letter.footer,
        }

    def post(
        self, session: Session, letter: Draft, *, kind: str, now: datetime, rendered: Rendered | None = None
    ) -> str:
        """Queue the letter (``rendered``: as :meth:`render` already made it); returns its Message-ID.

        The outbound row keeps the letter's game and seat (given, or read from the
        ``[DU-3 k7Q2]`` tag of its subject), so that a reply is known by its thread.
        """
        out = Outgoing(
            sender=self.identity.address,
            sender_name=self.identity.name,
            recipient=letter.recipient,
            subject=letter.subject,
            body=rendered if rendered is not None else self.render(letter),
            message_id=self.new_message_id(),
            date=now,
            attachments=tuple(letter.attachments),
        )
        enqueue(session, out, kind=kind, now=now, thread=letter.thread or thread_of(session, letter.subject))
        return out.message_id


_SUBJECT_TAG = re.compile(r"\[[A-Za-z]{2}-(\d{1,9})\s+([A-Za-z0-9]+)\]")  # 9: commands.NUMBER_DIGITS


def letter_title(subject: str) -> str:
    """The subject without the seat's secret tag: the HTML part's <title> and heading.

    The HTML is kept in the archive and may be shown to others; the tag stays in the
    seat's own mailbox, on the Subject line.
    """
    return " ".join(_SUBJECT_TAG.sub(" ", subject).split())


def thread_of(session: Session, subject: str) -> Thread | None:
    """The game and seat a tagged subject names: ``[DU-3 k7Q2]`` a seat, ``[DU-3 GM]`` the GM."""
    found = _SUBJECT_TAG.search(subject)
    if found is None:
        return None
    game_id, secret = int(found.group(1)), found.group(2)
    if secret == "GM":
        return Thread(game_id)
    # The game's seats, as a batch or tick keeps them for its transaction (the first by id, like a query).
    seat = next((seat for seat in queries.seats(session, game_id) if seat.secret == secret), None)
    return Thread(game_id, seat.name) if seat is not None else None
