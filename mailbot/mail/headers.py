# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading many letters with ``email.policy.default`` without parsing the same header twice."""

from __future__ import annotations

import email.policy
import email.utils
import time
from datetime import datetime
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage


class ParsedOnce(HeaderRegistry):
    """The header registry, giving back the header it made before for the same name and value.

    ``email.policy.default`` parses a header's value each time it is read: a part's Content-Type
    for every ``get_content_type()``, every header again for every ``get()``. An archive (or the
    demo keeping its mailboxes) reads each of a game's letters two or three ways, and the
    letters share most of their header values (a map part's type and disposition, the bot's own
    From): half of a Flat Top archive's time went to parsing the same few hundred values again.
    A hostile letter in of a thousand parts alike took 35 ms to read for the same reason.
    A made header is a ``str`` with read-only attributes and no tie to its letter, so one serves
    every letter.
    """

    LIMIT = 2048  # values kept before the store starts afresh: a game's letters have a few hundred
    LONGEST = 300  # longer values are parsed each time: seldom read twice, and bulky to keep

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[tuple[str, str], BaseHeader] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> ParsedOnce:
        return self  # a letter copied (``mailbox`` copies each) shares its policy's registry

    def __call__(self, name: str, value: str) -> BaseHeader:
        made = self._made.get((name, value))
        if made is None:
            made = super().__call__(name, value)
            if len(value) <= self.LONGEST:
                if len(self._made) >= self.LIMIT:
                    self._made.clear()
                self._made[name, value] = made
        return made


def parsed_once() -> email.policy.EmailPolicy[EmailMessage]:
    """``email.policy.default`` with a registry of its own that parses each header value once."""
    return email.policy.default.clone(header_factory=ParsedOnce())


def mbox_from_line(from_header: object, when: datetime | None) -> str:
    """A letter's mbox "From " line, as ``mailbox.mboxMessage.set_from`` writes it: the address of
    ``from_header`` (MAILER-DAEMON without one) and ``when`` in UTC (now, without one)."""
    sender = email.utils.parseaddr(str(from_header or ""))[1] or "MAILER-DAEMON"
    stamp = when.utctimetuple() if when is not None else time.gmtime()
    return f"From {sender} {time.asctime(stamp)}"
