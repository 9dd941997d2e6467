# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter parsed where it is read from the mailbox, kept beside its raw bytes until it is handled.

Parsing a letter (:func:`mime.parse_letter`) was a sixth of the letter process's work, and
that process is the service's narrowest part in a burst of letters, while the process that
reads the mailbox has time to spare. The reader now parses each letter as it stores it and
keeps the result in the letter's row (``inbound.letter``); the letter process takes it from
there instead of parsing again, and clears it with the handling.

A kept parse is used only if it is what this code would make of the same bytes now: it
carries the fingerprint of the parser (its source files, the data files it reads, the
library that reads HTML) and the size limits it was made with. A letter stored before an
upgrade that changed any of them, or under other limits, is parsed again where it is
handled, as every letter was before.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from functools import cache
from importlib import metadata
from importlib.resources import files
from typing import Any, NamedTuple

from mailbot.core.letter import Automatic, Letter
from mailbot.errors import MessageFormatError
from mailbot.mail.mime import parse_letter

log = logging.getLogger(__name__)

#: what a letter's parse depends on besides its bytes: the parser's own modules and data,
#: the letter type, and the library that turns HTML into text
_PARSER_FILES = ("mail", "core/letter.py")
_PARSER_LIBRARIES = ("html2text",)


@cache
def fingerprint() -> str:
    """A digest of the code and data the parse depends on (read once per process)."""
    digest = hashlib.sha256()
    root = files("mailbot")
    for name in _PARSER_FILES:
        place = root / name
        found = sorted(_files_under(place), key=lambda item: item[0])
        for relative, content in found:
            digest.update(f"{name}/{relative}\0".encode())
            digest.update(content)
    for library in _PARSER_LIBRARIES:
        digest.update(f"{library}={metadata.version(library)}\0".encode())
    return digest.hexdigest()[:32]


def _files_under(place: Any, prefix: str = "") -> list[tuple[str, bytes]]:
    """Every ``.py`` and ``.toml`` file under ``place`` (or ``place`` itself), with its path."""
    if place.is_file():
        return [(prefix or place.name, place.read_bytes())]
    found: list[tuple[str, bytes]] = []
    for child in place.iterdir():
        if child.is_dir() and child.name != "__pycache__":
            found.extend(_files_under(child, f"{prefix}{child.name}/"))
        elif child.name.endswith((".py", ".toml")):
            found.append((f"{prefix}{child.name}", child.read_bytes()))
    return found


class ParseLimits(NamedTuple):
    """The letter process's limits (``bot.max_message_bytes``, ``bot.max_text_chars``), as
    :func:`mime.parse_letter` takes them: a kept parse made under others is not used."""

    max_bytes: int
    max_text_chars: int


def parse_to_keep(raw: bytes, limits: ParseLimits) -> dict[str, Any] | None:
    """The letter as it is kept in its row; None when it cannot be read whole (the letter
    process then reads it again and answers what it can, as before)."""
    try:
        letter = parse_letter(raw, **limits._asdict())
    except MessageFormatError:
        return None
    except Exception:  # a parser bug on hostile bytes: the letter process meets it, and parks the letter
        log.warning("a letter could not be parsed as it was stored; it is parsed where it is handled")
        return None
    return {
        "parser": fingerprint(),
        "limits": list(limits),
        "letter": _record(letter),
    }


def kept_letter(kept: Any, limits: ParseLimits) -> Letter | None:
    """The kept parse, if this code under these limits made it; else None (parse again)."""
    if not isinstance(kept, dict) or kept.get("parser") != fingerprint():
        return None
    if kept.get("limits") != list(limits):
        return None
    try:
        return _letter(kept["letter"])
    except (KeyError, TypeError, ValueError):  # not as written here: parsed again, never misread
        return None


def _record(letter: Letter) -> dict[str, Any]:
    return {
        "sender": letter.sender,
        "sender_name": letter.sender_name,
        "subject": letter.subject,
        "date": letter.date.isoformat() if letter.date is not None else None,
        "message_id": letter.message_id,
        "in_reply_to": letter.in_reply_to,
        "references": list(letter.references),
        "return_path": letter.return_path,
        "body_text": letter.body_text,
        "command_text": letter.command_text,
        "automatic": letter.automatic.value,
        "too_large": letter.too_large,
        "headers": letter.headers,
        "prose_text": letter.prose_text,
    }


def _letter(record: dict[str, Any]) -> Letter:
    date = record["date"]
    return Letter(
        sender=record["sender"],
        sender_name=record["sender_name"],
        subject=record["subject"],
        date=datetime.fromisoformat(date) if date is not None else None,
        message_id=record["message_id"],
        in_reply_to=record["in_reply_to"],
        references=tuple(record["references"]),
        return_path=record["return_path"],
        body_text=record["body_text"],
        command_text=record["command_text"],
        automatic=Automatic(record["automatic"]),
        too_large=bool(record["too_large"]),
        headers=dict(record["headers"]),
        prose_text=record["prose_text"],
    )
