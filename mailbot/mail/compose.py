# SPDX-License-Identifier: GPL-3.0-or-later
"""Building outgoing messages: multipart text + HTML, threaded, marked as automatic.

The bytes are those ``EmailMessage(policy=email.policy.SMTP)`` writes for the same message
(``set_content``, ``add_alternative``, ``add_attachment``, ``as_bytes``), only the MIME
boundaries differ (they are random there too). Building that message made a header object
per header and MIME part (a quarter of the time spent handling a letter), so the layout is
written here directly:

* a header the library would write unchanged (short printable ASCII, nothing that looks
  like an encoded word) is written as ``Name: value``; every other header goes through the
  library's own parsing and folding (:func:`_library_header`), so RFC 2047 encoding of
  non-ASCII subjects and names and the folding of long values stay the library's;
* text parts are encoded by the library's rules (7bit, 8bit, quoted-printable or base64,
  whichever ``email.contentmanager`` would choose), with the library's part headers;
* what never changes between messages (the bot's From, an attachment's part headers) is
  built once by the library and kept.

``tests/unit/test_compose_fast.py`` checks the bytes against the library over a corpus.
"""

from __future__ import annotations

import binascii
import email.policy
import email.quoprimime
import re
import secrets
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from functools import lru_cache

from mailbot.render.templates import Rendered

POLICY = email.policy.SMTP
_MAX_LINE = POLICY.max_line_length or 78
_CRLF = b"\r\n"
#: lines kept quoted-printable (:func:`_qp_line`): a letter's style sheet and layout are ~60
QP_LINES_KEPT = 4096

# Values the library's header parsers give back exactly as they came: printable ASCII words
# separated by single spaces, no "=?" (an encoded word would be decoded, then re-encoded).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: what header_text blanks
_PLAIN = re.compile(r"[!-~]+(?: [!-~]+)*")
# Structured headers are re-spelled by their parsers unless they are this simple.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATOM}(?:\.{_ATOM})*"
_STRUCTURED = {
    "to": re.compile(rf"{_DOT_ATOM}@{_DOT_ATOM}"),
    "message-id": re.compile(rf"<{_DOT_ATOM}@{_DOT_ATOM}>"),
    "date": re.compile(
        r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (?:[A-Z][a-z]{2}) \d{4} \d\d:\d\d:\d\d [+-]\d{4}"
    ),
}


@dataclass(frozen=True)
class Attachment:
    filename: str
    content: bytes
    maintype: str
    subtype: str
    #: without angle brackets; set, the part is shown inside the HTML part (``<img src="cid:...">``):
    #: it goes beside that part in a multipart/related, as ``add_related`` puts it
    content_id: str = ""


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
    return _CONTROL.sub(" ", " ".join(value.splitlines()))


def reply_subject(subject: str) -> str:
    clean = header_text(subject).strip()
    return clean if clean.lower().startswith("re:") else f"Re: {clean}" if clean else "Re: your letter"


def compose(out: Outgoing) -> bytes:
    """The message as bytes with CRLF line ends, ready for SMTP.

    The shape is the library's: multipart/alternative of the text and the HTML part; the HTML
    part and the pictures it shows inline (``Attachment.content_id``) in a multipart/related;
    the whole in a multipart/mixed with the other attachments, when there are any.
    """
    headers = b"".join(_headers(out))
    inline = [item for item in out.attachments if item.content_id]
    attached = [item for item in out.attachments if not item.content_id]
    html = _text_part(out.body.html, "html", first=bool(inline))
    if inline:
        # add_related keeps MIME-Version on the part it turns into the multipart/related
        html = b"MIME-Version: 1.0\r\n" + _multipart("related", [html, *map(_inline_part, inline)])
    alternative = _multipart("alternative", [_text_part(out.body.text, "plain", first=True), html])
    if not attached:
        return headers + alternative
    parts = [alternative, *(_attachment_part(item) for item in attached)]
    return headers + _multipart("mixed", parts)


def _headers(out: Outgoing) -> list[bytes]:
    # The order is the one the library wrote: ours first, then MIME-Version (set_content).
    lines = [
        _from_header(out.sender_name, out.sender),
        _header("To", out.recipient),
        _header("Subject", header_text(out.subject)),
        _header("Date", format_datetime(out.date)),
        _header("Message-ID", f"<{out.message_id}>"),
        # RFC 3834: tells vacation responders and other bots not to answer us (no mail loops).
        _header("Auto-Submitted", "auto-replied" if out.is_reply or out.in_reply_to else "auto-generated"),
        b"X-Auto-Response-Suppress: All\r\n",
    ]
    parent, references = thread_ids(out.in_reply_to, out.references)
    if parent is not None:
        lines.append(_id_header("In-Reply-To", [parent]))
    if references:
        lines.append(_id_header("References", references))
    lines.append(b"MIME-Version: 1.0\r\n")
    return lines


# -- threading -------------------------------------------------------------------------------

# A msg-id as RFC 5322 (3.6.4) writes it, without its brackets: dot-atom-text "@" dot-atom-text
# or a domain literal. A letter's Message-ID is the writer's to choose, so one that is not this
# (spaces, NUL, 8-bit bytes, obsolete forms) is dropped, not copied: the e-mail library would
# write it as an RFC 2047 encoded word, which no client threads on.
_MSG_ID = re.compile(rf"{_DOT_ATOM}@(?:{_DOT_ATOM}|\[[!-Z^-~]*\])")
#: a msg-id longer than this is dropped (real ones are under 100 characters; 1,000 is a line's limit)
MAX_MSG_ID = 250
#: msg-ids kept in References: the thread's first and the latest (RFC 5322 3.6.4 allows trimming)
MAX_REFERENCES = 20


def well_formed_msg_id(value: str) -> bool:
    """Whether ``value`` (without brackets) may stand in In-Reply-To or References as it is."""
    return len(value) <= MAX_MSG_ID and _MSG_ID.fullmatch(value) is not None


def thread_ids(in_reply_to: str | None, references: Sequence[str]) -> tuple[str | None, list[str]]:
    """The In-Reply-To and References of a reply: only well-formed msg-ids, References bounded."""
    parent = in_reply_to if in_reply_to is not None and well_formed_msg_id(in_reply_to) else None
    kept = [ref for ref in (*references, *([parent] if parent else [])) if well_formed_msg_id(ref)]
    if len(kept) > MAX_REFERENCES:
        kept = [kept[0], *kept[-(MAX_REFERENCES - 1) :]]
    return parent, kept


def _id_header(name: str, ids: Sequence[str]) -> bytes:
    """``Name: <a> <b>`` folded between msg-ids only, never encoded.

    Written by the library's rule (:func:`_header`) wherever that rule writes the ids as they
    are; a msg-id too long for a folded line of 78 then stands on a line of its own, which
    RFC 5322 allows up to 998 characters (the library would encode it).
    """
    words = [f"<{value}>" for value in ids]
    value = " ".join(words)
    if "=?" not in value and all(len(word) + 1 <= _MAX_LINE for word in words):
        return _header(name, value)  # the library's folding leaves such words alone
    lines, line = [], f"{name}:"
    for word in words:
        if len(line) + 1 + len(word) > _MAX_LINE and line != f"{name}:":
            lines.append(line)
            line = ""
        line += " " + word
    lines.append(line)
    return ("\r\n".join(lines) + "\r\n").encode("ascii")


def _header(name: str, value: str) -> bytes:
    """``Name: value`` as the library folds it; written directly when the library would not change it."""
    if "=?" not in value and _PLAIN.fullmatch(value):
        key = name.lower()
        if len(name) + 2 + len(value) <= _MAX_LINE:
            pattern = _STRUCTURED.get(key)
            if pattern is None or pattern.fullmatch(value):
                return f"{name}: {value}\r\n".encode("ascii")
        elif key in _UNSTRUCTURED:
            folded = _fold_words(name, value)
            if folded is not None:
                return folded
    return _library_header(name, value)


# Headers the library parses as unstructured text; a long subject (a game's title and step)
# was the one header of a report the library still folded, a twentieth of a deadline tick.
_UNSTRUCTURED = frozenset({"subject", "in-reply-to", "references"})


def _fold_words(name: str, value: str) -> bytes | None:
    """A long unstructured header of plain words, folded as the library folds it; None when a
    word is too long for a line of its own (the library then encodes it).

    The library's rule for such a value: all of it on a line of its own if it fits there,
    otherwise word by word, each word that does not fit on the current line starting the
    next (with the space before it). ``tests/unit/test_compose_fast.py`` holds it to the library.
    """
    words = value.split(" ")
    if any(len(word) + 1 > _MAX_LINE for word in words):
        return None
    if len(value) + 1 <= _MAX_LINE:
        return f"{name}:\r\n {value}\r\n".encode("ascii")
    lines, line = [], f"{name}:"
    for word in words:
        if len(line) + 1 + len(word) > _MAX_LINE:
            lines.append(line)
            line = ""
        line += " " + word
    lines.append(line)
    return ("\r\n".join(lines) + "\r\n").encode("ascii")


def _library_header(name: str, value: str | Address) -> bytes:
    """What ``msg[name] = value`` then ``msg.as_bytes()`` writes for this header."""
    return POLICY.fold_binary(*POLICY.header_store_parse(name, value))


@lru_cache(maxsize=64)
def _from_header(display_name: str, address: str) -> bytes:
    """The bot's own From: the same for every letter, so the library builds it once."""
    return _library_header("From", Address(display_name=display_name, addr_spec=address))


# -- bodies ----------------------------------------------------------------------------------


def _text_part(text: str, subtype: str, *, first: bool = False) -> bytes:
    """A text part as ``set_content`` (first) or ``add_alternative`` (later: adds MIME-Version) make it."""
    cte, payload = encode_text(text)
    head = f'Content-Type: text/{subtype}; charset="utf-8"\r\nContent-Transfer-Encoding: {cte}\r\n'
    if not first:
        head += "MIME-Version: 1.0\r\n"
    return head.encode("ascii") + _CRLF + payload


def encode_text(text: str) -> tuple[str, bytes]:
    """The transfer encoding and CRLF body ``email.contentmanager.set_text_content`` would pick.

    Its rule (CPython ``_encode_text`` with the SMTP policy): 7bit when every line is ASCII and
    at most 78 bytes long, 8bit when only ASCII fails, otherwise whichever of quoted-printable
    and base64 is shorter over the first ten lines.
    """
    lines = text.encode("utf-8").splitlines()
    if max(map(len, lines), default=0) <= _MAX_LINE:
        body = b"\r\n".join(lines) + _CRLF
        return ("7bit" if body.isascii() else "8bit"), body
    sniff = _CRLF.join(lines[:10]) + _CRLF
    sniff_qp = list(map(_qp_line, lines[:10]))
    # The library's sniff is one string with "\n" after each line (and each soft break).
    if sum(len(line) - line.count("\r\n") + 1 for line in sniff_qp) > len(binascii.b2a_base64(sniff)):
        return "base64", base64_lines(_CRLF.join(lines) + _CRLF)
    encoded = [*sniff_qp, *map(_qp_line, lines[10:])]
    return "quoted-printable", ("\r\n".join(encoded) + "\r\n").encode("ascii")


@lru_cache(maxsize=QP_LINES_KEPT)
def _qp_line(line: bytes) -> str:
    """One line as ``email.quoprimime.body_encode`` writes it (soft breaks as CRLF).

    That function quotes character by character and then breaks each line on its own, so a
    body is the join of its lines: a letter's HTML repeats most of its lines (the style sheet,
    the layout) from one letter to the next, and quoting them was a tenth of handling one.
    """
    return email.quoprimime.body_encode(line.decode("latin-1"), _MAX_LINE, eol="\r\n")


#: base64 characters a line: 57 bytes encoded, as ``base64.encodebytes`` (and so the library) breaks them
_BASE64_LINE = 76


def base64_lines(data: bytes) -> bytes:
    """``data`` in base64 as the library writes a part: lines of 76 characters, each ending in
    CRLF. Encoded in one piece and cut, where ``base64.encodebytes`` encodes 57 bytes at a time
    in Python and the line ends are then rewritten: a Flat Top map's 55 kB took a fifth longer."""
    encoded = binascii.b2a_base64(data, newline=False)
    if not encoded:
        return b""
    lines = [encoded[at : at + _BASE64_LINE] for at in range(0, len(encoded), _BASE64_LINE)]
    return _CRLF.join(lines) + _CRLF


def _attachment_part(item: Attachment) -> bytes:
    head = _attachment_head(item.maintype, item.subtype, item.filename)
    return head + base64_lines(item.content)


def _inline_part(item: Attachment) -> bytes:
    """A picture the HTML part shows by its Content-ID, as ``add_related`` writes it (inline, named)."""
    return _inline_head(item) + base64_lines(item.content)


def _inline_head(item: Attachment) -> bytes:
    """The part's headers: a frame the library built once for values of this shape, filled in
    (a map's Content-ID and name change every hour, and building the headers with the library
    took 0.7 ms, four times a Flat Top hour). Values of another alphabet, and frames in which
    the library folded or encoded a value, are built by the library each time."""
    if _PLAIN_CID.fullmatch(item.content_id) and _PLAIN_NAME.fullmatch(item.filename):
        cid, name = _shape(item.content_id, _CID_MARK), _shape(item.filename, _NAME_MARK)
        frame = _inline_frame(item.maintype, item.subtype, cid, name)
        if frame is not None:
            return _fill(frame, {cid: item.content_id, name: item.filename})
    return _library_inline_head(item.maintype, item.subtype, item.content_id, item.filename)


#: the values a frame is filled with: what the library writes as they are, unquoted and unencoded
_PLAIN_CID = re.compile(r"[A-Za-z0-9._@-]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]+")
_CID_MARK, _NAME_MARK = "Q", "Z"
_ALNUM = re.compile(r"[A-Za-z0-9]")


def _shape(value: str, mark: str) -> str:
    """``value`` with each letter and digit ``mark``: the same tokens to the library's parser."""
    return _ALNUM.sub(mark, value)


@lru_cache(maxsize=64)
def _inline_frame(maintype: str, subtype: str, cid: str, name: str) -> bytes | None:
    """The headers built for the shapes ``cid`` and ``name``; None unless each stands once,
    whole, and its mark nowhere else (then it is filled in where it stands)."""
    head = _library_inline_head(maintype, subtype, cid, name)
    whole = head.count(cid.encode()) == 1 and head.count(name.encode()) == 1
    alone = head.count(_CID_MARK.encode()) == cid.count(_CID_MARK)
    alone = alone and head.count(_NAME_MARK.encode()) == name.count(_NAME_MARK)
    return head if whole and alone else None


def _fill(frame: bytes, values: dict[str, str]) -> bytes:
    """``frame`` with each shape (a key of ``values``) replaced, where it stands, by its value."""
    spots = sorted((frame.index(shape.encode()), len(shape), value) for shape, value in values.items())
    pieces, at = [], 0
    for start, length, value in spots:
        pieces += [frame[at:start], value.encode()]
        at = start + length
    return b"".join([*pieces, frame[at:]])


def _library_inline_head(maintype: str, subtype: str, content_id: str, filename: str) -> bytes:
    part = EmailMessage(policy=POLICY)
    cid = f"<{content_id}>"
    part.set_content(
        b"", maintype=maintype, subtype=subtype, cid=cid, filename=filename, disposition="inline"
    )
    return part.as_bytes().partition(b"\r\n\r\n")[0] + b"\r\n\r\n"


@lru_cache(maxsize=256)
def _attachment_head(maintype: str, subtype: str, filename: str) -> bytes:
    """The part headers ``add_attachment`` writes; they depend on the type and name only."""
    part = EmailMessage(policy=POLICY)
    part.set_content(b"", maintype=maintype, subtype=subtype, filename=filename)
    return part.as_bytes().partition(b"\r\n\r\n")[0] + b"\r\n\r\n"


def _multipart(subtype: str, parts: Sequence[bytes]) -> bytes:
    """``Content-Type`` with a fresh boundary, a blank line, then the parts between boundaries."""
    boundary = _boundary(parts)
    head = _multipart_head(subtype).replace(_BOUNDARY_MARK, boundary)
    delimiter = b"--" + boundary
    body = delimiter + _CRLF + (_CRLF + delimiter + _CRLF).join(parts) + _CRLF + delimiter + b"--" + _CRLF
    return head + _CRLF + body


# The library's boundary: 15 "=", a 19-digit random number, "==". Its folding depends only on
# the length, so the header is folded once with this stand-in and the real number put in.
_BOUNDARY_MARK = b"=" * 15 + b"0" * 19 + b"=="


@lru_cache(maxsize=8)
def _multipart_head(subtype: str) -> bytes:
    return _library_header("Content-Type", f'multipart/{subtype}; boundary="{_BOUNDARY_MARK.decode()}"')


def _boundary(parts: Sequence[bytes]) -> bytes:
    """A boundary that occurs in none of the parts (the library checks this the same way)."""
    while True:
        boundary = b"=" * 15 + b"%019d" % secrets.randbelow(sys.maxsize) + b"=="
        if not any(boundary in part for part in parts):
            return boundary
