# SPDX-License-Identifier: GPL-3.0-or-later
"""A game's letters for its archive: which letters belong to it, who they were for, secrets removed.

Letters in (``Inbound``) carry no game; one belongs to a game when the bot's
reply to it was written in that game, when it brought orders or a sealed value
for one of its steps, or when the event chain logged it (an accepted letter's
content hash, a JOIN letter's Message-ID in the set-up entropy). Letters out
(``Outbound``) name their game and seat.

Secrets never leave the database: every seat's secret, invite code and the
GM's secret are cut out of subjects and texts (``[DU-3 k7Q2]`` becomes
``[DU-3]``). Letters that carry another seat's orders or sealed value for the
step still open are withheld (their text is replaced by a note) until that
step is resolved, as ``game.json`` leaves out the orders of open steps.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import mailbox
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import BaseHeader, UnstructuredHeader
from email.message import EmailMessage, Message, MIMEPart
from functools import cached_property
from pathlib import Path
from typing import cast

from sqlmodel import Session, col, or_, select

from mailbot.errors import MessageFormatError
from mailbot.mail.headers import ParsedOnce, mbox_from_line
from mailbot.services.archive.archive_holder import WELCOME, Holder
from mailbot.services.base import queries
from mailbot.services.base.tags import TAG
from mailbot.store.game_tables import ChainRow, Game, OrderSet, Seat, StepRow, StepState
from mailbot.store.models import Inbound, Outbound

REMOVED = "(secret removed)"
_ANGLED = re.compile(r"<([^<>\s]+)>")
# A SEAL line names a value that stays sealed until its opening.
_SEAL_LINE = re.compile(r"^\s*SEAL\s+\S+\s+\S+", re.IGNORECASE | re.MULTILINE)


class Redactor:
    """Cuts known secrets out of a text: from ``[XX-n secret]`` tags, then wherever they stand;
    and puts a stand-in for each of the bot's own Message-IDs (``thread_ids``) wherever it stands.

    A reply naming a letter the bot sent to a seat's address counts like the seat's secret
    (``services.auth``), so those ids are credentials too. Each keeps one stand-in, so the
    archive's letters still thread, but no stand-in is a letter the bot sent.
    """

    def __init__(self, secrets: Iterable[str], thread_ids: Iterable[str] = ()) -> None:
        words = sorted({word for word in secrets if word}, key=len, reverse=True)
        alternatives = "|".join(re.escape(word) for word in words)
        self._tag = re.compile(rf"\[([A-Za-z]{{2}}-\d+)\s+(?:{alternatives})\]") if words else None
        self._word = re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])") if words else None
        ids = sorted({i for i in thread_ids if i}, key=len, reverse=True)
        self._ids = (
            re.compile(rf"(?<![\w.@-])(?:{'|'.join(re.escape(i) for i in ids)})(?![\w.@-])") if ids else None
        )

    def __call__(self, text: str) -> str:
        if self._ids is not None:
            text = self._ids.sub(lambda found: stand_in(found.group()), text)
        if self._tag is None or self._word is None:
            return text
        return self._word.sub(REMOVED, self._tag.sub(r"[\1]", text))


def stand_in(message_id: str) -> str:
    """What an archive shows for one of the bot's Message-IDs: the same each time, never the id."""
    digest = hashlib.sha256(f"mailbot-archived-id:{message_id}".encode()).hexdigest()
    return f"{digest[:32]}@archived.invalid"


def redactor_of(session: Session, game: Game, letters: Sequence[GameLetter]) -> Redactor:
    """The Redactor for an archive of ``letters``: the game's secrets, and every Message-ID of a
    letter the bot sent that these letters carry (their own, and those their replies name).
    Read from each letter parsed once for the export (``GameLetter.parsed``), before its page
    and ``mail.mbox`` read it."""
    named: set[str] = set()
    for letter in letters:
        for name in ("Message-ID", "In-Reply-To", "References"):
            for value in letter.parsed.get_all(name, []):
                named |= set(_ANGLED.findall(str(value)))
    sent: set[str] = set()
    for chunk in _chunks(sorted(named), 500):
        sent |= set(session.exec(select(Outbound.message_id).where(col(Outbound.message_id).in_(chunk))))
    return Redactor(secrets_of(session, game), sent)


def _chunks(items: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    return (items[n : n + size] for n in range(0, len(items), size))


def secrets_of(session: Session, game: Game) -> list[str]:
    """Every secret a letter of ``game`` may carry: seat secrets, invite codes, the GM's secret,
    and the void secrets of seats handed to another player (REPLACE, EJECT): the seat holds a
    new one, but the letters its earlier player wrote and got still carry his."""
    seats = session.exec(select(Seat).where(Seat.game_id == game.id)).all()
    current = [game.gm_secret, *(s.secret for s in seats), *(s.invite_code for s in seats)]
    return [*current, *_handed_out(session, game)]


def _handed_out(session: Session, game: Game) -> list[str]:
    """Each secret a welcome letter gave a seat, from its subject's tag (the bot wrote it there)."""
    query = select(Outbound.subject).where(Outbound.game_id == game.id, Outbound.kind == WELCOME)
    found = (TAG.search(subject) for subject in session.exec(query))
    return [tagged.group(3) for tagged in found if tagged is not None]


@dataclass(frozen=True)
class Attached:
    """One attachment of a letter (a map, a calendar entry), or an inline image."""

    filename: str
    content_type: str
    data: bytes
    content_id: str = ""  # without angle brackets; an HTML part refers to it as cid:<id>


@dataclass(frozen=True)
class ReadLetter:
    """What a page shows of a letter: its headers, text and HTML parts and its attachments."""

    subject: str
    sender: str
    recipient: str
    date: datetime | None
    text: str
    html: str
    attachments: tuple[Attached, ...]


def _lenient_ids() -> email.policy.EmailPolicy[EmailMessage]:
    """The default policy, with Message-ID read as plain text: its structured parser raises
    IndexError on ids a sender may write (``<@evil.test>``, ``<>``), and the archive only copies
    and redacts an id, it never takes one apart. Each header value is parsed once (``ParsedOnce``)."""
    registry = ParsedOnce()
    # the registry mixes BaseHeader in itself; the stubs want the mixed class
    registry.map_to_type("message-id", cast("type[BaseHeader]", UnstructuredHeader))
    return email.policy.default.clone(header_factory=registry)


_POLICY = _lenient_ids()


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw.replace(b"\r\n", b"\n"), policy=_POLICY)
    if not isinstance(msg, EmailMessage):
        raise MessageFormatError("a stored letter could not be read as a message")
    return msg


def _part_text(part: MIMEPart) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, "replace").replace("\r\n", "\n")
    except LookupError:  # a charset Python does not know: the bytes as UTF-8, bad ones marked
        return payload.decode("utf-8", "replace").replace("\r\n", "\n")


def _body(msg: EmailMessage, subtype: str) -> str:
    part = msg.get_body(preferencelist=(subtype,))
    return _part_text(part) if part is not None and part.get_content_subtype() == subtype else ""


def _attachments(msg: EmailMessage) -> tuple[Attached, ...]:
    found = []
    for part in msg.walk():
        if part.is_multipart() or _is_text(part):
            continue
        data = part.get_payload(decode=True)
        if isinstance(data, bytes):
            name = part.get_filename() or f"part.{part.get_content_subtype()}"
            cid = str(part.get("Content-ID", "")).strip().strip("<>")
            found.append(Attached(name, part.get_content_type(), data, cid))
    return tuple(found)


def read_letter(msg: EmailMessage, redact: Callable[[str], str]) -> ReadLetter:
    """A stored letter's parts (``GameLetter.parsed``), with ``redact`` applied to the subject and
    both texts; the letter is only read."""
    date = email.utils.parsedate_to_datetime(str(msg["Date"])) if msg["Date"] else None
    return ReadLetter(
        subject=redact(str(msg.get("Subject", ""))).strip(),  # a folded subject starts with a space
        sender=str(msg.get("From", "")),
        recipient=str(msg.get("To", "")),
        date=date,
        text=redact(_body(msg, "plain")),
        html=redact(_body(msg, "html")),
        attachments=_attachments(msg),
    )


def redacted_message(
    msg: EmailMessage,
    redact: Callable[[str], str],
    withheld: str = "",
    *,
    attachments: bool = True,
    pages: bool = True,
) -> EmailMessage:
    """The letter for ``mail.mbox``: secrets cut from every header and text part; with ``withheld``
    (the reason) its texts are replaced by that note. Attachments (maps, calendar entries) are
    dropped from a withheld letter, and from every letter without ``attachments``; without
    ``pages``, what an archive's pages show of it (the maps' pictures, the HTML part, the
    calendar entries) too. ``msg`` (``GameLetter.parsed``) is changed so, in place."""
    _redact_headers(msg, redact)
    if withheld or not attachments:
        _drop_attachments(msg)
    if not pages:
        _drop_shown_parts(msg)
    for part in msg.walk():
        if _is_text(part):
            text = _part_text(part)
            new = f"[{withheld}]\n" if withheld else redact(text)
            if new != text:
                MIMEPart.set_content(part, new, subtype=part.get_content_subtype(), charset="utf-8")
    return msg


def _is_text(part: MIMEPart) -> bool:
    return part.get_content_maintype() == "text" and not part.is_attachment()


def _drop_attachments(msg: EmailMessage) -> None:
    """Keep the letter's text parts only (an attachment's bytes cannot be cut of secrets anyway)."""
    for part in list(msg.walk()):
        if part.is_multipart():
            kept: list[Message[str, str] | str] = [
                sub for sub in part.iter_parts() if sub.is_multipart() or _is_text(sub)
            ]
            part.set_payload(kept)


def _drop_shown_parts(msg: EmailMessage) -> None:
    """Leave out what the archive's pages show: the pictures (a map's PNG: the pages show the map
    it was painted from) and the HTML alternative of the text (saved beside its page)."""
    for part in reversed(list(msg.walk())):  # inner parts first: a multipart left empty goes too
        if part.is_multipart():
            kept: list[Message[str, str] | str] = [sub for sub in part.iter_parts() if not _shown(sub)]
            part.set_payload(kept)


def _shown(part: Message[str, str]) -> bool:
    """A picture, HTML part or calendar entry the pages show, or a multipart that held only such
    parts (the multipart/related of an HTML part and the map it shows inline). A deadline's
    calendar entry is a file beside its letter's page (0.15 MB of a Flat Top game's mbox)."""
    if part.is_multipart():
        return not part.get_payload()
    attached = part.get_content_disposition() == "attachment"
    kind = part.get_content_type()
    return (
        part.get_content_maintype() == "image"
        or kind == "text/calendar"
        or (kind == "text/html" and not attached)
    )


def _redact_headers(msg: EmailMessage, redact: Callable[[str], str]) -> None:
    """Secrets out of every header, each kept in its place and spelling where it stands once."""
    for name in {key.lower() for key in msg}:
        values = [str(value) for value in msg.get_all(name, [])]
        if all(redact(value) == value for value in values):
            continue
        if len(values) == 1:
            msg.replace_header(name, redact(values[0]).strip())
            continue
        del msg[name]
        for value in values:
            msg[name] = redact(value).strip()


# -- which letters belong to a game ---------------------------------------------------------


@dataclass(frozen=True)
class GameLetter:
    """One letter of a game, in or out, with the seat it was from or for ("" for the GM)."""

    raw: bytes
    when: datetime
    seat: str
    inbound_id: int | None = None  # set for a letter in
    outbound: Outbound | None = None  # set for a letter out
    withheld: str = ""  # why its text is not shown yet ("" when it is)

    @cached_property
    def parsed(self) -> EmailMessage:
        """The letter parsed, once for an export: its page reads it (``read_letter``), then
        ``mail.mbox``, its last reader, redacts it in place (a Flat Top letter, with its map and
        HTML part, took a tenth of an archive's time to parse each time)."""
        return parse(self.raw)


def _inbound_seats(session: Session, game_id: int, steps: Sequence[StepRow]) -> dict[int, str]:
    """Every letter in that belongs to the game, by id, with the seat it came from."""
    seats: dict[int, str] = {}
    replies = session.exec(
        select(Outbound).where(Outbound.game_id == game_id, col(Outbound.inbound_id).is_not(None))
    )
    for reply in replies:
        seats.setdefault(int(reply.inbound_id or 0), reply.seat)
    step_ids = [step.id for step in steps]
    sets = session.exec(
        select(OrderSet).where(col(OrderSet.step_id).in_(step_ids), col(OrderSet.inbound_id).is_not(None))
    )
    for held in sets:
        seats.setdefault(int(held.inbound_id or 0), held.seat)
    chain = session.exec(
        select(ChainRow).where(ChainRow.game_id == game_id, col(ChainRow.kind).in_(["letter", "entropy"]))
    ).all()
    by_hash = {str(r.payload["message"]): str(r.payload["seat"]) for r in chain if r.kind == "letter"}
    by_id = {str(r.payload["message_id"]): str(r.payload["seat"]) for r in chain if r.kind == "entropy"}
    if by_hash:
        for row in session.exec(select(Inbound).where(col(Inbound.content_hash).in_(list(by_hash)))):
            seats.setdefault(int(row.id or 0), by_hash[row.content_hash])
    wanted = [mid for mid in by_id if mid]
    if wanted:
        for row in session.exec(select(Inbound).where(col(Inbound.message_id).in_(wanted))):
            seats.setdefault(int(row.id or 0), by_id[str(row.message_id)])
    return seats


def _open_input(session: Session, steps: Sequence[StepRow]) -> tuple[StepRow | None, set[int]]:
    """The open step and the letters in that brought orders or sealed values for it."""
    step = next((s for s in steps if s.state is StepState.OPEN and s.key != "setup"), None)
    if step is None:
        return None, set()
    sets = session.exec(select(OrderSet).where(OrderSet.step_id == step.id))
    return step, {int(held.inbound_id) for held in sets if held.inbound_id is not None}


def game_letters(session: Session, game: Game, holder: Holder | None = None) -> list[GameLetter]:
    """Every letter in and out of ``game``, oldest first; given a ``holder``, only his: his seat's
    letters from and to his address (an earlier player of the seat wrote and got his own).

    Another seat's letter that brought orders or a sealed value for the open step, and the
    bot's reply to it (which echoes them), are marked withheld; a viewer's own never are.
    """
    viewer = holder.seat if holder is not None else None
    game_id = int(game.id or 0)
    steps = queries.game_steps(session, game_id)
    seats = _inbound_seats(session, game_id, steps)
    open_step, carrying = _open_input(session, steps)
    query_in = select(Inbound).where(col(Inbound.id).in_(list(seats))).order_by(col(Inbound.id))
    inbound = session.exec(query_in).all() if seats else []
    found: list[GameLetter] = []
    for row in inbound:
        seat = seats[int(row.id or 0)]
        if holder is None or (seat == holder.seat and holder.owns_address(row.sender)):
            reason = _withheld(row, seat, viewer, open_step, carrying)
            found.append(GameLetter(row.raw, row.received_at, seat, inbound_id=row.id, withheld=reason))
    withheld_ids = {letter.inbound_id for letter in found if letter.withheld}
    query = select(Outbound).where(
        or_(col(Outbound.game_id) == game_id, col(Outbound.inbound_id).in_(list(seats) or [-1]))
    )
    for out in session.exec(query.order_by(col(Outbound.id))):
        seat = out.seat if out.game_id == game_id else seats.get(int(out.inbound_id or 0), "")
        if holder is None or (seat == holder.seat and holder.owns_address(out.recipient)):
            reason = _reply_withheld(out, seat, viewer, withheld_ids, open_step)
            found.append(GameLetter(out.raw, out.created_at, seat, outbound=out, withheld=reason))
    # Letters in before letters out at the same instant: a reply never precedes its letter.
    return sorted(found, key=lambda item: (item.when, item.outbound is not None))


def _withheld(row: Inbound, seat: str, viewer: str | None, step: StepRow | None, carrying: set[int]) -> str:
    if step is None or seat == viewer:
        return ""
    sealing = row.received_at >= step.opened_at and bool(_SEAL_LINE.search(_body(parse(row.raw), "plain")))
    if row.id in carrying or sealing:
        return f"withheld until {step.title} is resolved: it holds orders or a sealed value for it"
    return ""


def _reply_withheld(
    out: Outbound, seat: str, viewer: str | None, withheld: set[int | None], step: StepRow | None
) -> str:
    if step is None or seat == viewer or out.inbound_id not in withheld:
        return ""
    return f"withheld until {step.title} is resolved: it answers a letter with orders or a sealed value"


def write_mbox(
    path: Path,
    letters: Sequence[GameLetter],
    redact: Callable[[str], str],
    *,
    attachments: bool = True,
    pages: bool = True,
) -> int:
    """Write ``letters`` as an mbox file (secrets removed, withheld texts replaced; attachments
    only with ``attachments``, what the archive's pages show only with ``pages``); returns the count."""
    path.unlink(missing_ok=True)
    box = mailbox.mbox(path, create=True)
    box.lock()
    try:
        for letter in letters:
            box.add(_mbox_message(letter, redact, attachments, pages))
        box.flush()
    finally:
        box.unlock()
        box.close()
    return len(letters)


def _mbox_message(
    letter: GameLetter, redact: Callable[[str], str], attachments: bool, pages: bool
) -> EmailMessage:
    """The letter as ``mail.mbox`` holds it, behind its "From " line (what ``mboxMessage.set_from``
    writes; the mailbox takes the letter itself, where an ``mboxMessage`` made of it was a deep copy)."""
    msg = redacted_message(letter.parsed, redact, letter.withheld, attachments=attachments, pages=pages)
    msg.set_unixfrom(mbox_from_line(msg.get("From"), letter.when))
    return msg
