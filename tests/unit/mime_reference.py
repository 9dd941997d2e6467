# SPDX-License-Identifier: GPL-3.0-or-later
"""The MIME parse as it was before the fast path: the reference ``test_mime_fast.py`` compares with.

A copy of ``mailbot/mail/mime.py`` as it stood when parsing moved to ``compat32``: every header
and part read through ``email.policy.default`` objects. Only this docstring, the code it shares
with the moderator (said at its imports) and the way the read fields are put into a ``Letter``
differ. It is test code only. Change it together with ``mailbot.mail.mime`` when the parse is
*meant* to give other letters, never to make the comparison pass.
"""

from __future__ import annotations

import email.policy
import re
from datetime import UTC, datetime
from email.message import EmailMessage, Message, MIMEPart
from email.parser import BytesParser
from email.utils import parseaddr, parsedate_to_datetime
from typing import Any

from mailbot.core.letter import Automatic, Letter
from mailbot.errors import MessageFormatError
from mailbot.mail.autoreply import automatic_kind

# Message ids are read from a header's raw text, as sent: no policy object is involved.
from mailbot.mail.mime import _ADDR_SPEC, _first, _message_ids

# HTML to text is the moderator's own converter: it leaves out what the letter hides
# (``mimebody.hides``, tests/unit/test_html_hidden.py), which this copy predates. What is
# compared here is how a letter's parts are found and decoded; with the old converter, a
# mutated letter whose hidden element no longer closed (``<\x00tyle style="display:none">``,
# read as ``<tyle ...>`` once its NUL was dropped) gave its whole text here, and none in the
# moderator, which hides the rest of the letter as a browser does.
# RFC 3676 unflowing is the moderator's own too: the fast path did not change it, and a copy
# compared with itself would test nothing (tests/unit/test_mime.py tests it on its own).
# So is decoding a part's bytes once the part is found (its charset guesses): the same code on
# either policy's part, tested on its own (tests/unit/test_mime_corpus.py, issue 30).
from mailbot.mail.mimebody import _decode, _param, _unflow, html_to_text
from mailbot.mail.mimebody import part_text as _part_text
from mailbot.mail.phrases import EMAIL
from mailbot.mail.quoting import split_reply

_POLICY = email.policy.default

# Kept verbatim (unfolded) for later checks such as DKIM/SPF results; the first
# occurrence is the one added by our own receiving server, the only trustworthy one.
_KEPT_HEADERS = (
    "Authentication-Results",
    "Auto-Submitted",
    "Precedence",
    "List-Id",
    "X-Mailer",
    "Content-Type",
)


_BOUNCE_LOCAL_PARTS = frozenset({"mailer-daemon", "postmaster"})
_BULK_PRECEDENCE = frozenset({"bulk", "junk", "list"})
_VACATION_SUBJECT = re.compile(
    r"^\s*(?:out of (?:the )?office|automatic reply|automatische antwort|auto:|auto[- ]?reply|"
    r"abwesenheitsnotiz|réponse automatique|vacation)",
    re.IGNORECASE,
)
_MESSAGE_ID = re.compile(r"<([^<>]+)>")
_FOLD = re.compile(r"[\r\n]+")


def parse_letter(raw: bytes, *, max_bytes: int = 256_000, max_text_chars: int = 64_000) -> Letter:
    """Reduce ``raw`` to a :class:`Letter`.

    A message over ``max_bytes`` gets its headers read (so the sender can be
    told) but no body; a body over ``max_text_chars`` is cut. Both set
    ``too_large``. Raises :class:`MessageFormatError` only when ``raw`` has no
    header at all.
    """
    too_large = len(raw) > max_bytes
    msg = _parse(raw, headers_only=too_large)
    body = "" if too_large else _body_text(msg)
    if len(body) > max_text_chars:
        body, too_large = body[:max_text_chars], True
    split = split_reply(body)
    texts = {"body_text": body, "command_text": split.text, "prose_text": split.prose}
    return Letter(**_header_fields(msg), **texts, too_large=too_large)


def _header_fields(msg: Message) -> dict[str, Any]:
    """What the headers say, as the letter's fields: the part of the parse that is compared."""
    sender_name, sender = _from_address(msg)
    return_path = _return_path(msg)
    subject = _header_text(msg, "Subject")
    message_ids, replied_to, referenced = (
        _message_ids(_raw_header(msg, name)) for name in ("Message-ID", "In-Reply-To", "References")
    )
    return {
        "sender": sender,
        "sender_name": sender_name,
        "subject": subject,
        "date": _date(msg),
        "message_id": _first(message_ids),
        "in_reply_to": _first(replied_to),
        "references": tuple(referenced),
        "return_path": return_path,
        "automatic": _automatic(msg, sender, return_path, subject),
        "headers": _selected_headers(msg),
    }


def letter_texts(raw: bytes) -> tuple[str, ...]:
    """Every readable version of a letter's text: the text/plain part and the HTML part converted.

    A mail client may quote either, so both are what a reply can hold a copy of.
    """
    msg = _parse(raw, headers_only=False)
    plain, html = (_find_body(msg, subtype) for subtype in ("plain", "html"))
    texts = [_part_text(plain)] if plain is not None else []
    if html is not None:
        texts.append(html_to_text(_part_text(html)))
    return tuple(_clean(text) for text in texts)


# --- parsing and headers ---------------------------------------------------------------


def _parse(raw: bytes, *, headers_only: bool) -> EmailMessage:
    try:
        msg = BytesParser(EmailMessage, policy=_POLICY).parsebytes(raw, headersonly=headers_only)
    except Exception as exc:  # the parser is lenient by design: anything escaping it is unreadable input
        raise MessageFormatError(f"unreadable message: {exc}") from exc
    if not msg.keys():
        raise MessageFormatError("no header lines: not an e-mail message")
    return msg


def _raw_header(msg: Message, name: str) -> str | None:
    """The first ``name`` header as sent, unfolded; None when absent."""
    wanted = name.lower()
    for key, value in msg.raw_items():
        if key.lower() == wanted:
            return _clean(_FOLD.sub("", str(value))).strip()
    return None


def _header(msg: Message, name: str) -> Any:
    """The first ``name`` header as a policy header object (decoded), or its raw text."""
    raw = _raw_header(msg, name)
    if raw is None:
        return None
    try:
        return _POLICY.header_factory(name, raw)
    except Exception:  # the structured header parsers have crashed on hostile input: use the raw text
        return raw


def _header_text(msg: Message, name: str) -> str:
    value = _header(msg, name)
    return "" if value is None else _clean(str(value)).strip()


_NAME_THEN_ANGLE = re.compile(rf"(?P<name>[^<>,]*@[^<>,]*?)\s*<(?P<angle>{_ADDR_SPEC})>\s*")


def _from_address(msg: Message) -> tuple[str, str]:
    """(display name, bare address) of the first address in From (or Sender)."""
    for name in ("From", "Sender"):
        found = _from_value(msg, name)
        if found is not None:
            return _no_address_as_name(*found)
    return "", ""


def _from_value(msg: Message, name: str) -> tuple[str, str] | None:
    raw = _raw_header(msg, name)
    # Issue 30: "alice@players.test <mallory@elsewhere.test>" is mallory, as mail clients show it.
    angle = _NAME_THEN_ANGLE.fullmatch(raw) if raw is not None and "=?" not in raw else None
    if angle is not None:
        return angle["name"].strip().strip('"').strip(), _normalise_address(angle["angle"])
    header = _header(msg, name)
    for address in getattr(header, "addresses", ()):
        if address.username or address.domain:  # an empty address's addr_spec is "<>"
            return _clean(address.display_name), _normalise_address(address.addr_spec)
    # Too broken for the structured parser: try the old, forgiving address splitter.
    display_name, addr_spec = parseaddr(str(header or ""))
    return (display_name, _normalise_address(addr_spec)) if "@" in addr_spec else None


def _no_address_as_name(display_name: str, address: str) -> tuple[str, str]:
    """Issue 30: a display name that looks like an address is no name."""
    return ("", address) if re.search(EMAIL, display_name) else (display_name, address)


def _normalise_address(addr_spec: str) -> str:
    # Domains are case-insensitive; local parts may not be (RFC 5321), so only the domain is lowered.
    local, at, domain = _clean(addr_spec).strip().rpartition("@")
    return f"{local}@{domain.lower()}" if at else domain


def _local_part(address: str) -> str:
    return address.rpartition("@")[0].lower() if "@" in address else address.lower()


def _return_path(msg: Message) -> str | None:
    raw = _raw_header(msg, "Return-Path")
    if raw is None:
        return None
    match = _MESSAGE_ID.search(raw)
    if match is None:  # the null path "<>", or an address some MTA wrote without brackets
        return "" if "<>" in raw else _normalise_address(raw)
    return _normalise_address(match.group(1))


def _date(msg: Message) -> datetime | None:
    raw = _raw_header(msg, "Date")
    if not raw:
        return None
    try:
        value = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError, OverflowError):  # a bad Date is the sender's problem
        return None
    # "-0000" means UTC with the sender's zone unknown (RFC 5322); keep every date aware.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _selected_headers(msg: Message) -> dict[str, str]:
    kept = {name: value for name in _KEPT_HEADERS if (value := _raw_header(msg, name)) is not None}
    if _raw_header(msg, "DKIM-Signature") is not None:
        kept["DKIM-Signature"] = "present"
    return kept


# --- machine mail ------------------------------------------------------------------------


def _automatic(msg: Message, sender: str, return_path: str | None, subject: str) -> Automatic:
    """Why the letter is machine mail, most specific reason first; NO for a person (issue 30: the
    header and subject rules are data, ``mailbot/mail/data/auto-replies.toml``, read alike)."""
    if _is_bounce(msg, sender, return_path):
        return Automatic.BOUNCE
    return automatic_kind(lambda name: _raw_header(msg, name), subject)


def _token(msg: Message, name: str) -> str | None:
    """A header's leading keyword, lower-cased, without parameters or comments."""
    raw = _raw_header(msg, name)
    if raw is None:
        return None
    return re.sub(r"\([^)]*\)", " ", raw).split(";")[0].strip().lower()


def _is_bounce(msg: Message, sender: str, return_path: str | None) -> bool:
    if return_path == "":  # the null reverse path <> is reserved for delivery reports
        return True
    if _local_part(sender) in _BOUNCE_LOCAL_PARTS:
        return True
    if return_path and _local_part(return_path) in _BOUNCE_LOCAL_PARTS:
        return True
    return _token(msg, "Content-Type") == "multipart/report"


# --- body text ---------------------------------------------------------------------------


def _body_text(msg: EmailMessage) -> str:
    """The readable text: the first text/plain part, else the HTML part converted."""
    text = ""
    plain = _find_body(msg, "plain")
    if plain is not None:
        text = _part_text(plain)
        if _param(plain, "format") == "flowed":
            text = _unflow(text, delsp=_param(plain, "delsp") == "yes")
    if not text.strip():  # some clients send an empty text/plain next to the real HTML
        html_part = _find_body(msg, "html")
        text = html_to_text(_part_text(html_part)) if html_part is not None else ""
    return _clean(text).rstrip()


def _find_body(msg: EmailMessage, subtype: str) -> MIMEPart | None:
    # get_body skips attachments and descends alternative/mixed/related the way clients do.
    try:
        return msg.get_body(preferencelist=(subtype,))
    except Exception:  # header parsing inside get_body; a message we cannot walk has no body
        return None


def _clean(text: str) -> str:
    """Undo the parser's surrogate escapes of raw 8-bit bytes; drop NULs a database refuses."""
    if not any("\ud800" <= char <= "\udfff" for char in text):
        return text.replace("\x00", "")
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # lone surrogates that are not escaped bytes: nothing to recover
        data = text.encode("utf-8", "replace")
    return _decode(data, None).replace("\x00", "")
