# SPDX-License-Identifier: GPL-3.0-or-later
"""MIME to letter: one inbound e-mail's raw bytes reduced to a :class:`Letter`.

Parsing is lenient on purpose. Real mail lies about its charset, breaks its
headers and nests its parts oddly; all of that is data for the moderator to
answer, not an exception. Only bytes that are no e-mail message at all raise
:class:`MessageFormatError`.

Headers are read from their raw text; only From (or Sender) and Subject are
decoded, by the same ``email.headerregistry`` parsers ``email.policy.default``
uses, called directly (the policy builds a new header class per access), with
shortcuts for plain values that the tests check give the very same result.
The message tree and its text are :mod:`mailbot.mail.mimebody`'s.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.headerregistry import Address, AddressHeader, UnstructuredHeader
from email.message import Message
from email.utils import parseaddr, parsedate_to_datetime
from typing import Any

from mailbot.core.letter import Automatic, Letter
from mailbot.mail.autoreply import automatic_kind, first_token
from mailbot.mail.mimebody import body_text, clean, find_body, html_to_text, parse_message, part_text
from mailbot.mail.phrases import EMAIL
from mailbot.mail.quoting import split_reply

log = logging.getLogger(__name__)

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
_MESSAGE_ID = re.compile(r"<([^<>]+)>")
_FOLD = re.compile(r"[\r\n]+")
#: the longest From, Sender or Subject value given to the e-mail library's structured parsers. They
#: cost about 10 us a character and more for nested comments: a From of 20,000 addresses took 3.7 s
#: of CPU, a Subject of 15,000 encoded words 1.4 s. No mail client writes a sender a tenth this long;
#: a longer From or Sender is read only in its plain forms (else the letter has no sender: nobody to
#: answer), a longer Subject is cut at a space before this many characters and then decoded.
MAX_PARSED_HEADER = 2_000

# A From the address parser reads as written: "a@b", "<a@b>", "Words <a@b>" or "\"Quoted\" <a@b>", with
# dot-atoms only and no encoded word (checked apart). Anything else goes through the parser.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_ADDR_SPEC = rf"{_ATEXT}+(?:\.{_ATEXT}+)*@{_ATEXT}+(?:\.{_ATEXT}+)*"
_NAME_WORD = r"[^\s\x00-\x1f\x7f-\x9f()<>@,:;.\"\[\]\\\ud800-\udfff]+"
_NAME_QTEXT = r"[^\"\\\x00-\x1f\x7f-\x9f\ud800-\udfff]*"
_BARE_ADDRESS = re.compile(_ADDR_SPEC)


def bare_address(text: str) -> str | None:
    """``text`` as one plain address, ``local@domain`` of dot-atoms, lower-cased as the moderator
    keeps a player's address; None for anything else ("not an address", a name and brackets)."""
    candidate = text.strip()
    return candidate.lower() if _BARE_ADDRESS.fullmatch(candidate) else None


PLAIN_ADDRESS = re.compile(
    rf"(?P<bare>{_ADDR_SPEC})"
    rf"|(?:(?:(?P<words>{_NAME_WORD}(?: {_NAME_WORD})*)|\"(?P<quoted>{_NAME_QTEXT})\") ?)?"
    rf"<(?P<angle>{_ADDR_SPEC})>"
)


# "alice@players.test <mallory@elsewhere.test>": one address in brackets after a name with an "@"
# (no comma or second bracket: a list of addresses goes to the parser).
# The name is matched whole and looked in for its "@" afterwards: "[^<>,]*@[^<>,]*?" backtracked
# over every "@" of a name without a bracket (a From of "a@" 16,000 times took 6.9 s to refuse).
_NAME_THEN_ANGLE = re.compile(rf"(?P<name>[^<>,]*)<(?P<angle>{_ADDR_SPEC})>\s*")
_EMAIL_IN_NAME = re.compile(EMAIL)


def parse_letter(raw: bytes, *, max_bytes: int = 256_000, max_text_chars: int = 64_000) -> Letter:
    """Reduce ``raw`` to a :class:`Letter`.

    A message over ``max_bytes`` gets its headers read (so the sender can be
    told) but no body; a body over ``max_text_chars`` is cut. Both set
    ``too_large``. Raises :class:`MessageFormatError` only when ``raw`` has no
    header at all.
    """
    too_large = len(raw) > max_bytes
    msg = parse_message(raw, headers_only=too_large)
    body = "" if too_large else body_text(msg)
    if len(body) > max_text_chars:
        body, too_large = body[:max_text_chars], True
    return _letter(msg, body, too_large=too_large)


def parse_headers(raw: bytes) -> Letter:
    """The letter's headers only, with no text: for a letter whose body :func:`parse_letter`
    cannot read (nested thousands of parts deep), so that its sender can be told.

    Raises :class:`MessageFormatError` when ``raw`` has no header at all.
    """
    return _letter(parse_message(raw, headers_only=True), "", too_large=False)


def _letter(msg: Message, body: str, *, too_large: bool) -> Letter:
    heads = _first_headers(msg)
    split = split_reply(body)
    sender_name, sender = _from_address(heads)
    return_path = _return_path(heads)
    subject = _subject(heads)
    return Letter(
        sender=sender,
        sender_name=sender_name,
        subject=subject,
        date=_date(heads),
        message_id=_first(_message_ids(_raw_header(heads, "Message-ID"))),
        in_reply_to=_first(_message_ids(_raw_header(heads, "In-Reply-To"))),
        references=tuple(_message_ids(_raw_header(heads, "References"))),
        return_path=return_path,
        body_text=body,
        command_text=split.text,
        automatic=_automatic(heads, sender, return_path, subject),
        too_large=too_large,
        headers=_selected_headers(heads),
        prose_text=split.prose,
    )


def letter_texts(raw: bytes) -> tuple[str, ...]:
    """Every readable version of a letter's text: the text/plain part and the HTML part converted.

    A mail client may quote either, so both are what a reply can hold a copy of.
    """
    msg = parse_message(raw, headers_only=False)
    texts = []
    for subtype in ("plain", "html"):
        part = find_body(msg, subtype)
        if part is not None:
            text = part_text(part)
            texts.append(clean(html_to_text(text) if subtype == "html" else text))
    return tuple(texts)


# --- headers -------------------------------------------------------------------------------------


def _first_headers(msg: Message) -> dict[str, str]:
    """Each header's first occurrence as sent, by lower-cased name: looked up some twenty times."""
    heads: dict[str, str] = {}
    for key, value in msg.raw_items():
        heads.setdefault(key.lower(), value)
    return heads


def _raw_header(heads: Mapping[str, str], name: str) -> str | None:
    """The first ``name`` header as sent, unfolded; None when absent."""
    value = heads.get(name.lower())
    return None if value is None else clean(_FOLD.sub("", str(value))).strip()


def _decoded(parser: type[AddressHeader | UnstructuredHeader], raw: str) -> dict[str, Any] | None:
    """What ``email.policy.default`` makes of a header (None where it fails): the same parser, called
    the way ``BaseHeader.__new__`` calls it, without building a header class."""
    kwds: dict[str, Any] = {"defects": []}
    try:
        parser.parse(raw, kwds)
        if _has_surrogates(kwds["decoded"]):
            kwds["decoded"] = kwds["decoded"].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except Exception:  # the structured header parsers have crashed on hostile input: use the raw text
        return None
    return kwds


def _has_surrogates(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


def _subject(heads: Mapping[str, str]) -> str:
    raw = _raw_header(heads, "Subject")
    if raw is None:
        return ""
    if len(raw) > MAX_PARSED_HEADER:
        cut = raw.rfind(" ", 0, MAX_PARSED_HEADER)
        raw = raw[: cut if cut > 0 else MAX_PARSED_HEADER]
    if "=?" in raw:  # without an encoded word the unstructured parser gives the text back unchanged
        kwds = _decoded(UnstructuredHeader, raw)
        raw = raw if kwds is None else kwds["decoded"]
    return clean(raw).strip()


def _from_address(heads: Mapping[str, str]) -> tuple[str, str]:
    """(display name, bare address) of the first address in From (or Sender)."""
    for name in ("From", "Sender"):
        raw = _raw_header(heads, name)
        found = None if raw is None else read_sender(raw)
        if found is not None:
            return found
    return "", ""


def read_sender(raw: str) -> tuple[str, str] | None:
    """(display name, bare address) of a From value as a mail client shows it; None when it has none.

    The address in angle brackets is the sender, whatever the name before it says; a display
    name that looks like an address is no name (``alice@players.test <mallory@elsewhere.test>``
    is mallory, and a reply must not greet him as alice). When it names another address than
    the sender's it is logged as suspicious.
    """
    plain = PLAIN_ADDRESS.fullmatch(raw) if "=?" not in raw else None
    if plain is not None:
        found: tuple[str, str] | None = (
            plain["words"] or plain["quoted"] or "",
            _normalise_address(plain["bare"] or plain["angle"]),
        )
    elif len(raw) > MAX_PARSED_HEADER:
        found = _angle_address(raw)
    else:
        found = _angle_address(raw) or _parsed_address(raw)
    return None if found is None else _no_address_as_name(*found)


def _angle_address(raw: str) -> tuple[str, str] | None:
    """``name <addr>`` where the name holds an ``@`` the address parser reads as an address of its own."""
    match = _NAME_THEN_ANGLE.fullmatch(raw)
    if match is None or "@" not in match["name"] or "=?" in match["name"]:
        return None
    return match["name"].strip().strip('"').strip(), _normalise_address(match["angle"])


def _no_address_as_name(display_name: str, address: str) -> tuple[str, str]:
    named = _EMAIL_IN_NAME.search(display_name)
    if named is None:
        return display_name, address
    if _normalise_address(named.group(0)).lower() != address.lower():
        log.warning(
            "suspicious From: the display name names %s, the address is %s; the address counts",
            named.group(0),
            address,
        )
    return "", address


def _parsed_address(raw: str) -> tuple[str, str] | None:
    kwds = _decoded(AddressHeader, raw)
    addresses: list[Address] = [] if kwds is None else [a for g in kwds["groups"] for a in g.addresses]
    for address in addresses:
        if address.username or address.domain:  # an empty address's addr_spec is "<>"
            return clean(address.display_name), _normalise_address(address.addr_spec)
    # Too broken for the structured parser: try the old, forgiving address splitter.
    try:
        display_name, addr_spec = parseaddr(raw if kwds is None else kwds["decoded"])
    except RecursionError:  # comments nested past the stack: no address can be read from it
        return None
    if "@" in addr_spec:
        return display_name, _normalise_address(addr_spec)
    return None


def _normalise_address(addr_spec: str) -> str:
    # Domains are case-insensitive; local parts may not be (RFC 5321), so only the domain is lowered.
    local, at, domain = clean(addr_spec).strip().rpartition("@")
    return f"{local}@{domain.lower()}" if at else domain


def _local_part(address: str) -> str:
    return address.rpartition("@")[0].lower() if "@" in address else address.lower()


def _return_path(heads: Mapping[str, str]) -> str | None:
    raw = _raw_header(heads, "Return-Path")
    if raw is None:
        return None
    match = _MESSAGE_ID.search(raw)
    if match is None:  # the null path "<>", or an address some MTA wrote without brackets
        return "" if "<>" in raw else _normalise_address(raw)
    return _normalise_address(match.group(1))


def _date(heads: Mapping[str, str]) -> datetime | None:
    raw = _raw_header(heads, "Date")
    if not raw:
        return None
    try:
        value = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError, OverflowError):  # a bad Date is the sender's problem
        return None
    # "-0000" means UTC with the sender's zone unknown (RFC 5322); keep every date aware.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _message_ids(raw: str | None) -> list[str]:
    if not raw:
        return []
    # Broken clients fold inside an id; white space is never part of one.
    found = ["".join(found.split()) for found in _MESSAGE_ID.findall(raw)]
    return [value for value in found if value] or [word for word in raw.split() if "@" in word]


def _first(values: list[str]) -> str | None:
    return values[0] if values else None


def _selected_headers(heads: Mapping[str, str]) -> dict[str, str]:
    kept = {name: value for name in _KEPT_HEADERS if (value := _raw_header(heads, name)) is not None}
    if "dkim-signature" in heads:
        kept["DKIM-Signature"] = "present"
    return kept


# --- machine mail ------------------------------------------------------------------------


def _automatic(heads: Mapping[str, str], sender: str, return_path: str | None, subject: str) -> Automatic:
    """Why the letter is machine mail, most specific reason first; NO for a person."""
    if _is_bounce(heads, sender, return_path):
        return Automatic.BOUNCE
    return automatic_kind(lambda name: _raw_header(heads, name), subject)


def _is_bounce(heads: Mapping[str, str], sender: str, return_path: str | None) -> bool:
    if return_path == "":  # the null reverse path <> is reserved for delivery reports
        return True
    if _local_part(sender) in _BOUNCE_LOCAL_PARTS:
        return True
    if return_path and _local_part(return_path) in _BOUNCE_LOCAL_PARTS:
        return True
    content_type = _raw_header(heads, "Content-Type")
    return content_type is not None and first_token(content_type) == "multipart/report"
