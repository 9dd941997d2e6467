# SPDX-License-Identifier: GPL-3.0-or-later
"""Keeping the demo's letters for a newcomer: an mbox file per mailbox and a text file per letter.

The text files (``letters/<address>/<NNN>-<subject>.txt``) hold the headers a
reader looks at (From, To, Subject, Date) and the letter's plain-text part, so
a letter can be read with ``less`` or any editor, without a mail client.
"""

from __future__ import annotations

import email.parser
import email.utils
import mailbox
import re
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

from mailbot.errors import MailbotError
from mailbot.mail.headers import mbox_from_line, parsed_once

HEADERS = ("From", "To", "Subject", "Date")
_SLUG = re.compile(r"[^a-z0-9]+")
_BRACKETS = re.compile(r"\[[^\]]*\]")  # "[DU-1 k7Q2]": a tag, and a seat's secret, is no file name


_POLICY = parsed_once()  # a demo's letters share most header values (mail/headers.py)


def parse(raw: bytes, *, headers_only: bool = False) -> EmailMessage:
    """The letter, or its headers alone: a Flat Top report's map pictures are most of its bytes,
    and the headers are all an mbox line needs."""
    msg = email.parser.BytesParser(policy=_POLICY).parsebytes(raw, headersonly=headers_only)
    if not isinstance(msg, EmailMessage):
        raise MailbotError("the demo server handed out something that is not a message")
    return msg


def write_mbox(path: Path, mails: Sequence[bytes]) -> None:
    box = mailbox.mbox(path, create=True)
    box.lock()
    try:
        for raw in mails:
            box.add(mbox_message(raw))
        box.flush()
    finally:
        box.unlock()
        box.close()


def mbox_message(raw: bytes) -> bytes:
    """One letter behind its mbox ``From `` line (sender and date), with Unix line ends: the
    letter's own bytes (the mailbox quotes a body line that starts with "From "). Handed an
    ``mboxMessage`` instead, the mailbox parsed each letter whole and wrote it out again."""
    parsed = parse(raw, headers_only=True)
    date = email.utils.parsedate_to_datetime(str(parsed["Date"])) if parsed["Date"] else None
    return f"{mbox_from_line(parsed.get('From'), date)}\n".encode() + raw.replace(b"\r\n", b"\n")


def slug(subject: str, limit: int = 60) -> str:
    """A file-name form of a subject: lower case, words joined by dashes, at most ``limit`` long."""
    words = _SLUG.sub("-", _BRACKETS.sub(" ", subject).lower()).strip("-")
    return words[:limit].rstrip("-") or "no-subject"


def letter_text(msg: EmailMessage) -> str:
    """The readable file of one letter: its main headers, a blank line, its plain-text part."""
    head = [f"{name}: {_header(msg, name)}" for name in HEADERS]
    part = msg.get_body(preferencelist=("plain",))
    body = str(part.get_content()) if isinstance(part, EmailMessage) else "(no plain-text part)"
    return "\n".join(head) + "\n\n" + body.replace("\r\n", "\n")


def write_letters(folder: Path, mails: Sequence[bytes]) -> list[Path]:
    """One text file per letter in ``folder`` (emptied of earlier ones first), numbered in order."""
    if not mails and not folder.exists():
        return []
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.txt"):
        old.unlink()  # a rerun in the same workdir starts afresh, like the mbox files
    written = []
    for number, raw in enumerate(mails, 1):
        msg = parse(raw.replace(b"\r\n", b"\n"))
        path = folder / f"{number:03d}-{slug(_header(msg, 'Subject'))}.txt"
        path.write_text(letter_text(msg), encoding="utf-8")
        written.append(path)
    return written


def _header(msg: EmailMessage, name: str) -> str:
    """A header's value on one line, its runs of white space made single spaces."""
    return " ".join(str(msg.get(name, "")).split())
