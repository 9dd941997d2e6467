# SPDX-License-Identifier: GPL-3.0-or-later
"""The message tree and its readable text, for :mod:`mailbot.mail.mime`.

Speed without a second meaning: ``email.policy.default`` builds a structured
header object (a new class each time) on every header access, and the parser
itself asks for the Content-Type of every part, so a plain letter cost ~0.5 ms.
We parse with ``compat32`` instead, whose accessors work on the raw text.
The two policies read a Content-* header the same way when it is *plain*
(tokens and simple quoted strings, no RFC 2047 or RFC 2231 forms, folded at
most after a ``;``): ``tests/unit/test_mime_fast.py`` checks this property
over generated headers. A letter with any other Content-* header is parsed
again with ``email.policy.default`` and walked exactly as before, so every
input gives the same text either way.
"""

from __future__ import annotations

import codecs
import email.policy
import html
import re
from collections.abc import Mapping
from email.message import EmailMessage, Message, MIMEPart
from email.parser import BytesParser
from email.utils import collapse_rfc2231_value

import html2text
import webencodings
from html2text.utils import element_style

from mailbot.errors import MessageFormatError
from mailbot.mail.headers import parsed_once

_POLICY = parsed_once()  # the default policy, each header value parsed once (mail/headers.py)

# The plain forms: RFC 2045 tokens ('*' left out: RFC 2231 parameters go the exact way) and quoted
# strings of printable ASCII without escapes. "=?" is refused separately (encoded words are decoded
# inside quoted strings by the default policy only). A parameter's name and unquoted value hold no
# "'" either: the default policy reads one as RFC 2231's charset'language'value, so "charset=ut'f"
# has no charset there and "boundary=a''b" the boundary "b", where compat32 reads them as written.
_TOKEN = r"[!#$%&'+\-.0-9A-Z^_`a-z{|}~]+"
_PARAMETER_TOKEN = r"[!#$%&+\-.0-9A-Z^_`a-z{|}~]+"
_QUOTED = r'"[ !#-\[\]-~]*"'
_FOLD = r"[ \t]*(?:(?:\r\n|\n|\r)[ \t]+)?"
_PARAMS = rf"[ \t]*(?:;{_FOLD}{_PARAMETER_TOKEN}=(?:{_PARAMETER_TOKEN}|{_QUOTED})[ \t]*)*(?:;[ \t]*)?"
PLAIN_CONTENT_HEADERS = {
    "content-type": re.compile(rf"{_TOKEN}/{_TOKEN}{_PARAMS}"),
    "content-disposition": re.compile(rf"{_TOKEN}{_PARAMS}"),
    "content-transfer-encoding": re.compile(rf"{_TOKEN}[ \t]*"),
}

# Mislabelled UTF-8 nearly always claims one of these; valid UTF-8 rarely happens by
# accident in other text, so UTF-8 is tried before the declared charset.
_WEAK_CHARSETS = frozenset({"ascii", "iso8859-1", "cp1252"})
# Mail labelled with a legacy charset is often written in its vendor superset.
_SUPERSETS = {"gb2312": "gbk", "shift_jis": "cp932", "euc_kr": "cp949"}
_FALLBACK_CHARSETS = ("utf-8", "cp1252")

# No client nests this deep; hostile trees go the exact way, whose recursion errors are already handled.
_MAX_PLAIN_DEPTH = 24

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_TAG = re.compile(r"<[^>]*>")
_BLANK_RUN = re.compile(r"\n{3,}")


# --- the tree ------------------------------------------------------------------------------------


#: multipart sections one letter may declare (its ``boundary`` parameters). A mail client writes one
#: to three (text and HTML, attachments), a forwarded thread a few more. The e-mail library matches
#: every line against every open section's boundary: a letter nested 600 sections deep took half a
#: second of CPU to read, 2,000 deep a second (and was then found too deep), so a stranger's letter
#: could cost the moderator seconds. A letter with more sections is refused unread.
MAX_SECTIONS = 100
#: a header parameter (after a ";", perhaps folded): "boundary=", "boundary*=", "boundary*0*=" ...
_BOUNDARY_PARAMETER = re.compile(rb";[ \t\r\n]*boundary[ \t]*(?:\*[0-9]*\*?[ \t]*)?=", re.IGNORECASE)


def parse_message(raw: bytes, *, headers_only: bool) -> Message:
    """The message tree: compat32 when its Content-* headers are plain, else the default policy's."""
    if not headers_only:
        _check_sections(raw)
    try:
        msg = BytesParser(policy=email.policy.compat32).parsebytes(raw, headersonly=headers_only)
    except Exception:  # whatever went wrong, the exact parser below decides what it means
        msg = None
    # Headers only: no Content-* header is read, so any tree will do.
    if msg is None or not (headers_only or is_plain_tree(msg)):
        msg = _parse_exact(raw, headers_only=headers_only)
    if not msg.keys():
        raise MessageFormatError("no header lines: not an e-mail message")
    return msg


def _check_sections(raw: bytes) -> None:
    """Refuse a letter that declares more than :data:`MAX_SECTIONS` multipart sections."""
    if raw.lower().count(b"boundary") <= MAX_SECTIONS:  # every usual letter: one pass, in C
        return
    if sum(1 for _ in _BOUNDARY_PARAMETER.finditer(raw)) > MAX_SECTIONS:
        raise MessageFormatError(f"unreadable message: it has more than {MAX_SECTIONS} multipart sections")


def _parse_exact(raw: bytes, *, headers_only: bool) -> EmailMessage:
    try:
        return BytesParser(EmailMessage, policy=_POLICY).parsebytes(raw, headersonly=headers_only)
    except RecursionError as exc:  # its text tells where the stack ran out, which varies from call to call
        raise MessageFormatError("unreadable message: its parts are nested too deeply") from exc
    except Exception as exc:  # the parser is lenient by design: anything escaping it is unreadable input
        raise MessageFormatError(f"unreadable message: {exc}") from exc


def is_plain_tree(msg: Message, depth: int = 0) -> bool:
    """Whether both policies build and read this tree alike (see the module docstring)."""
    if depth > _MAX_PLAIN_DEPTH:
        return False
    for name, value in msg.raw_items():
        grammar = PLAIN_CONTENT_HEADERS.get(name.lower())
        if grammar is not None and ("=?" in value or grammar.fullmatch(value) is None):
            return False
    if msg.get_content_type() == "multipart/related" and not _plain_related(msg):
        return False
    return all(is_plain_tree(part, depth + 1) for part in _subparts(msg))


def _subparts(part: Message) -> list[Message]:
    payload = part.get_payload()  # a multipart's is the list of its parts (what is_multipart tests)
    return [sub for sub in payload if isinstance(sub, Message)] if isinstance(payload, list) else []


def _plain_related(part: Message) -> bool:
    # get_body looks a start part up by its Content-ID header object, and fails on a related part
    # that has text instead of parts: both rare, both left to the exact path.
    payload = part.get_payload()
    return not part.get_param("start") and not (isinstance(payload, str) and payload)


def find_body(msg: Message, subtype: str) -> Message | None:
    """The first ``text/<subtype>`` part the way a mail client shows it: attachments skipped."""
    if isinstance(msg, MIMEPart):
        try:
            return msg.get_body(preferencelist=(subtype,))
        except Exception:  # header parsing inside get_body; a message we cannot walk has no body
            return None
    return _first_text_part(msg, msg, subtype)


def _first_text_part(root: Message, part: Message, subtype: str) -> Message | None:
    """``MIMEPart.get_body`` for one preferred subtype on a plain compat32 tree: same order, same quirks."""
    if part.get_content_disposition() == "attachment":
        return None
    maintype, found = part.get_content_type().split("/")
    if maintype == "text":
        return part if found == subtype else None
    if maintype != "multipart" or not root.is_multipart():  # get_body asks the root, not the part
        return None
    subparts = _subparts(part)
    if found == "related":  # only the root part of a related set is a body candidate
        subparts = subparts[:1]
    for subpart in subparts:
        if (body := _first_text_part(root, subpart, subtype)) is not None:
            return body
    return None


# --- text ----------------------------------------------------------------------------------------


def body_text(msg: Message) -> str:
    """The readable text: the first text/plain part, else the HTML part converted."""
    text = ""
    plain = find_body(msg, "plain")
    if plain is not None:
        text = part_text(plain)
        if _param(plain, "format") == "flowed":
            text = _unflow(text, delsp=_param(plain, "delsp") == "yes")
    if not text.strip():  # some clients send an empty text/plain next to the real HTML
        html_part = find_body(msg, "html")
        text = html_to_text(part_text(html_part)) if html_part is not None else ""
    return clean(text).rstrip()


def _param(part: Message, name: str) -> str:
    value = part.get_param(name, "")
    return str(collapse_rfc2231_value(value) if isinstance(value, tuple) else value).strip().lower()


def part_text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    text = _decode(payload, part.get_content_charset())
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _decode(data: bytes, declared: str | None) -> str:
    for charset in _charset_candidates(declared):
        try:
            return data.decode(charset)
        except (LookupError, ValueError):  # unknown or wrong declared charset: try the next guess
            continue
    return data.decode("latin-1")  # maps every byte: the last resort never fails


def _charset_candidates(declared: str | None) -> tuple[str, ...]:
    name = _codec_name(declared) if declared else None
    if name is None or name in _WEAK_CHARSETS:
        return _FALLBACK_CHARSETS
    return (_SUPERSETS.get(name, name), *_FALLBACK_CHARSETS)


def _codec_name(declared: str) -> str | None:
    """Python's codec for a declared charset, or for one of the names browsers know and
    Python does not (WHATWG labels: "iso-8859-8-i" from Hebrew clients, "x-sjis", "windows-874")."""
    try:
        return codecs.lookup(declared).name
    except (LookupError, ValueError, TypeError):
        found = webencodings.lookup(declared) if isinstance(declared, str) else None
        return None if found is None else found.codec_info.name


def clean(text: str) -> str:
    """Undo the parser's surrogate escapes of raw 8-bit bytes; drop NULs a database refuses."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text.replace("\x00", "")
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # lone surrogates that are not escaped bytes: nothing to recover
        data = text.encode("utf-8", "replace")
    return _decode(data, None).replace("\x00", "")


def _unflow(text: str, *, delsp: bool) -> str:
    """Join RFC 3676 format=flowed soft line breaks (a line ending in a space continues)."""
    out: list[str] = []
    pending: tuple[int, str] | None = None  # a flowed line waiting for its continuation
    for line in text.split("\n"):
        depth, content = _unstuff(line)
        if pending is not None and pending[0] != depth:  # a quote depth change ends a paragraph
            out.append(_requote(*pending))
            pending = None
        flowed = content.endswith(" ") and content != "-- "  # the signature separator never flows
        if flowed and delsp:
            content = content[:-1]
        if pending is not None:
            content = pending[1] + content
        pending = (depth, content) if flowed else None
        if not flowed:
            out.append(_requote(depth, content))
    if pending is not None:
        out.append(_requote(*pending))
    return "\n".join(out)


def _unstuff(line: str) -> tuple[int, str]:
    """Quote depth and content of a flowed line, space-stuffing removed."""
    depth = len(line) - len(line.lstrip(">"))
    content = line[depth:]
    return depth, content.removeprefix(" ")


def _requote(depth: int, content: str) -> str:
    return f"{'>' * depth} {content}".rstrip() if depth else content


#: elements with no end tag: hidden or not, they hold no text and open nothing to skip
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
#: elements whose content is never shown, whatever their style
_NEVER_SHOWN = frozenset({"template"})


class _PlainText(html2text.HTML2Text):
    """html2text without Markdown escaping (``1. TF1`` must not become ``1\\. TF1``), and without
    the text the letter's reader never saw: an element hidden by its ``hidden`` attribute or its
    CSS (a mail program's preheader, text hidden on purpose) is skipped whole, tags and text.

    What the player saw is what he wrote: hidden text read as order lines would act on words
    nobody can see in the letter (:func:`hides` says what counts as hidden).
    """

    def __init__(self) -> None:
        super().__init__()
        self._hidden_tag = ""  # the element being skipped ("" when none)
        self._hidden_depth = 0  # open elements of that name inside it, itself included

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._hidden_depth:
            self._hidden_depth += tag == self._hidden_tag
            return
        if tag not in _VOID and (tag in _NEVER_SHOWN or hides(dict(attrs), self.style_def)):
            self._hidden_tag, self._hidden_depth = tag, 1
            return
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._hidden_depth:
            self._hidden_depth -= tag == self._hidden_tag
            return
        super().handle_endtag(tag)

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        if self._hidden_depth:
            return
        # In html2text, entity_char does nothing but switch the escaping off.
        super().handle_data(data, entity_char=True)


def hides(attrs: Mapping[str, str | None], style_def: dict[str, dict[str, str]]) -> bool:
    """Whether an element with ``attrs`` is hidden with all it holds: the ``hidden`` attribute, or
    its style (inline, or a ``.class`` rule of the letter's ``<style>``, as html2text reads them):
    ``display: none``, ``visibility: hidden``, Outlook's ``mso-hide: all``, opacity 0, or no
    height with its overflow hidden (the tricks of preheaders). A font size of 0 is not among
    them: templates set it on a box whose children set their own size again."""
    if "hidden" in attrs:
        return True
    given: dict[str, str | None] = {name: value or "" for name, value in attrs.items()}  # bare: None
    style = element_style(given, style_def, {})
    first = {name: (value.split() or [""])[0] for name, value in style.items()}  # "none !important"
    flat = first.get("overflow") == "hidden" and any(
        _zero(first.get(name, "")) for name in ("height", "max-height")
    )
    return (
        first.get("display") == "none"
        or first.get("visibility") in ("hidden", "collapse")
        or first.get("mso-hide") == "all"
        or _zero(first.get("opacity", ""))
        or flat
    )


_ZERO = re.compile(r"^[+-]?0*\.?0*(?:px|pt|em|rem|%|ex|ch|vh|vw)?$")


def _zero(value: str) -> bool:
    """Whether a CSS length or number is zero ("0", "0px", "0.0em"); "" is no value."""
    return bool(value) and any(ch == "0" for ch in value) and _ZERO.match(value) is not None


def html_to_text(markup: str) -> str:
    converter = _PlainText()
    converter.body_width = 0  # never wrap: an order line must stay one line
    converter.ignore_images = True
    converter.ignore_links = True  # keep a link's text, drop the Markdown URL syntax around it
    converter.ignore_emphasis = True  # <b>ORDERS</b> is ORDERS, not **ORDERS**
    converter.unicode_snob = True
    converter.single_line_break = True  # one <div> per typed line (Gmail, Outlook): keep them one line each
    try:
        text = converter.handle(markup)
    except Exception:  # html.parser asserts on some malformed markup: strip the tags instead
        text = html.unescape(_TAG.sub(" ", markup))
    # html2text marks <br> with two trailing spaces (a Markdown hard break); empty blocks pile up blank lines.
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUN.sub("\n\n", text).strip("\n")
