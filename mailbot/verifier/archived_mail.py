# SPDX-License-Identifier: GPL-3.0-or-later
"""The archive's ``mail.mbox`` against the chain, as ``--letters`` checks a player's mailbox:
every letter in it that states a chain head is a report the chain logged, word for word (its
text as the archive holds it, whose salted hash the chain logged), every closing letter names
the chain's final head and length, and every report game.json holds is in it.

The mbox holds each letter as text (its map, HTML part and calendar entry are on its step's
page, checked there), so a letter's text alone is compared. Letters in, and the bot's letters
that are no report (a welcome, a reply), are shown with secrets cut out; the chain holds no
more of them than a hash of the letter as received, which the cut changes: they are not checked.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
from collections.abc import Iterator, Mapping, Sequence
from email.message import Message
from pathlib import Path
from typing import Any

from .pages import ENTRIES_LINE, FINAL_LINE, HEAD_LINE, decoded_header, letter_text, normal_text
from .rules import GENESIS

NAME = "mail.mbox"


def mbox_problems(folder: Path, data: Mapping[str, Any], entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every letter of ``mail.mbox`` that is not what the chain logged, each a line naming it
    (its number in the file, from 1, and its subject); every report the file lacks."""
    path = folder / NAME
    if not path.is_file():
        return [f"{NAME} is missing"]
    reports = list(data.get("reports", []))
    texts = {(str(r["chain_head"]), normal_text(str(r.get("text", "")))): n for n, r in enumerate(reports)}
    hashes = {GENESIS} | {str(e["hash"]) for e in entries}
    last = str(entries[-1]["hash"]) if entries else GENESIS
    problems: list[str] = []
    found: set[int] = set()
    for number, msg in enumerate(letters(path), 1):
        name = f"{NAME}: letter {number} ({decoded_header(msg, 'Subject')!r})"
        body = letter_text(msg)
        final = FINAL_LINE.search(body)
        if final:
            count = ENTRIES_LINE.search(body)
            if final.group(1) != last or (int(count.group(1)) if count else -1) != len(entries):
                problems.append(f"{name}: the final chain head and length it states are not the chain's")
            continue
        head = HEAD_LINE.search(body)
        if head is None:
            continue
        if head.group(1) not in hashes:
            problems.append(f"{name}: its chain head {head.group(1)[:16]}... is not in the chain")
            continue
        n = texts.get((head.group(1), normal_text(body)))
        if n is None:
            problems.append(f"{name}: its text is not the report the chain logged at the head it states")
        else:
            found.add(n)
    for n, report in enumerate(reports):
        if n not in found:
            problems.append(
                f"{NAME} lacks report {n} (to {report.get('seat') or 'the GM'}, {report.get('step')}) "
                "that game.json holds"
            )
    return problems


def letters(path: Path) -> Iterator[Message]:
    """The letters of an mbox file, the file closed once they are read. Parsed with the compat32
    policy: the archive's letters are the moderator's own, and only their text and subject are
    read (``letter_text``, ``decoded_header``); the default policy's parsing of every header
    took most of the check's time."""
    box = mailbox.mbox(path, create=False)
    try:
        for key in box.iterkeys():
            yield email.message_from_bytes(box.get_bytes(key), policy=email.policy.compat32)
    finally:
        box.close()
