# SPDX-License-Identifier: GPL-3.0-or-later
"""A report as it was sent, put back from the archive's pages and from a player's mailbox: the
HTML part from its letter's page (stylesheets and swapped tags put back), the text from its
step's page, each part of a received letter hashed as the chain logged it, and the letters
themselves read from an mbox file, a Maildir or a folder of ``.eml`` files."""

from __future__ import annotations

import email
import email.errors
import email.header
import email.policy
import html
import mailbox
import re
from collections.abc import Iterator
from email.message import EmailMessage, Message
from pathlib import Path

from .rules import part_hash, sha

#: where game.json's map names a board layer kept once for the game (``map_layers``)
LAYER_REF = re.compile(
    r'<g data-layer-ref="sha256:([0-9a-f]{64})" data-layer="[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?" />'
)
#: where a page's map shows a board layer as a picture of its own (``steps/layers``)
PICTURED_LAYER = re.compile(
    r'<image href="(?:\.\./)*layers/([0-9a-f]{64})\.svg" x="0" y="0" width="[^"]*" height="[^"]*" />'
)
#: where a letter's page links a stylesheet that stood in its HTML part as a ``<style>`` block
STYLE_LINK = re.compile(r'<link rel="stylesheet" href="(?:\.\./)*styles/([0-9a-f]{64})\.css"([^<>]*)>')
#: a rule of ``steps/styles/attributes.css``: a letter's style attribute, kept once for the site
ATTRIBUTE_RULE = re.compile(r'^\[data-style="([0-9a-f]{8})"\]\{([^{}\n]*)\}$', re.MULTILINE)
#: where a letter's page links that stylesheet, and where a tag names its rule
ATTRIBUTES_LINK = re.compile(
    r'<link rel="stylesheet" href="(?:\.\./)*styles/attributes\.css" data-style-attributes>\n'
)
DATA_STYLE = re.compile(r'(\s)data-style="([0-9a-f]{8})"')
HEAD_LINE = re.compile(r"Game log chain head: ([0-9a-f]{64})")
FINAL_LINE = re.compile(r"Final chain head: ([0-9a-f]{64})")
ENTRIES_LINE = re.compile(r"Entries: (\d+)")
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
GAME_TAG = re.compile(r"\[([A-Za-z]{2}-\d+)[\] ]")
CONTRIBUTES = re.compile(r"^\s*(ORDERS|SEAL|NONCE|JOIN|CHAIN|REVEAL)\b", re.IGNORECASE | re.MULTILINE)


def letter_parts(msg: Message) -> dict[str, str]:
    """Every part of a letter but its plain text, by name (``text/html``, an attachment's file
    name), as ``part_hash`` gives it."""
    found: dict[str, str] = {}
    for part in msg.walk():
        data = part.get_payload(decode=True)
        if part.is_multipart() or not isinstance(data, bytes):
            continue
        attached = part.get_filename() is not None
        if part.get_content_type() == "text/plain" and not attached:
            continue
        found[part.get_filename() or part.get_content_type()] = part_hash(data, part.get_content_maintype())
    return found


def sent_html(folder: Path, name: str, swaps: list[list[str]]) -> str | None:
    """A report's HTML part as sent, from the page that shows it (game.json's ``html_file``):
    each stylesheet under ``steps/styles`` put back as the ``<style>`` block it was (when the
    file is the one its name's digest says), the style attributes kept once for the site too
    (:func:`style_attributes`), then each tag swapped for the page put back as
    sent (``html_swaps``, each shown once on the page); None when the page is missing or
    outside the archive."""
    path = folder / name
    if ".." in Path(name).parts or Path(name).is_absolute() or not path.is_file():
        return None

    def style(found: re.Match[str]) -> str:
        css = folder / "steps" / "styles" / f"{found.group(1)}.css"
        text = css.read_bytes().decode("utf-8", "replace") if css.is_file() else ""
        whole = sha(text.encode("utf-8")) == found.group(1)
        return f"<style{found.group(2)}>{text}</style>" if whole else found.group(0)

    text = style_attributes(folder, STYLE_LINK.sub(style, path.read_bytes().decode("utf-8", "replace")))
    for sent, shown in reversed(swaps):
        if isinstance(sent, str) and isinstance(shown, str) and shown and text.count(shown) == 1:
            text = text.replace(shown, sent)
    return text


def style_attributes(folder: Path, text: str) -> str:
    """A letter's page with each tag's ``data-style`` put back as the ``style`` attribute it was
    sent with: the rule of that key in ``steps/styles/attributes.css`` (each declaration marked
    ``!important`` there), and the page's link to that stylesheet taken out. A page without the
    link is left as it is (format 2 and before)."""
    if ATTRIBUTES_LINK.search(text) is None:
        return text
    css = folder / "steps" / "styles" / "attributes.css"
    sheet = css.read_bytes().decode("utf-8", "replace") if css.is_file() else ""
    rules = {key: value.replace(" !important;", ";") for key, value in ATTRIBUTE_RULE.findall(sheet)}

    def attribute(found: re.Match[str]) -> str:
        value = rules.get(found.group(2))
        return found.group(0) if value is None else f'{found.group(1)}style="{value}"'

    return DATA_STYLE.sub(attribute, ATTRIBUTES_LINK.sub("", text, count=1))


def page_text(folder: Path, ref: str) -> str | None:
    """A report's text as its step's page shows it (game.json's ``text_file``: the page and the
    letter's anchor, ``steps/T3.orders.html#letter-12``): the first ``<pre>`` of that letter,
    its HTML escapes undone; None when the page or the letter is not there."""
    name, _, anchor = ref.partition("#")
    path = folder / name
    if ".." in Path(name).parts or Path(name).is_absolute() or not path.is_file():
        return None
    page = path.read_bytes().decode("utf-8", "replace")
    start = page.find(f'<article class="letter" id="{anchor}">')
    end = page.find("</article>", start)
    opened = page.find("<pre>", start, end)
    closed = page.find("</pre>", opened, end)
    if min(start, end, opened, closed) < 0:
        return None
    return html.unescape(page[opened + len("<pre>") : closed])


def normal_text(text: str) -> str:
    """A letter's text as compared: line ends and trailing blanks do not count."""
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n"))


def angled(value: str) -> list[str]:
    return re.findall(r"<([^<>\s]+)>", value)


def message_id(msg: Message) -> str:
    found = angled(str(msg.get("Message-ID", "")))
    return found[0] if found else ""


def letter_text(msg: Message) -> str:
    """A letter's plain text: its body as ``get_body(("plain",))`` finds it, decoded as
    ``get_content()`` decodes it; for a letter read with the compat32 policy (the archive's own
    mbox, see :mod:`.archived_mail`), :func:`plain_body` finds the same part."""
    if isinstance(msg, EmailMessage):
        part = msg.get_body(preferencelist=("plain",))
        if part is not None and isinstance(part, EmailMessage):
            return str(part.get_content())
    else:
        found = plain_body(msg)
        if found is not None:
            return text_content(found)
    payload = msg.get_payload(decode=True)
    return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


def plain_body(part: Message) -> Message | None:
    """The first ``text/plain`` part, depth first, that is no attachment, as the standard
    library's ``EmailMessage.get_body(preferencelist=("plain",))`` finds it (the root part alone
    of a ``multipart/related``), for a message parsed with the compat32 policy: that policy
    keeps headers as text instead of parsing each one as it is read, which made reading the
    archive's mbox most of verify.py's time."""
    if part.get_content_disposition() == "attachment":
        return None
    maintype, subtype = part.get_content_maintype(), part.get_content_subtype()
    if maintype == "text":
        return part if subtype == "plain" else None
    payload = part.get_payload()
    if maintype != "multipart" or not isinstance(payload, list):
        return None
    subparts = [sub for sub in payload if isinstance(sub, Message)]
    if subtype == "related":
        start = part.get_param("start")
        root = [sub for sub in subparts if start and sub["content-id"] == start]
        subparts = (root or subparts)[:1]
    for sub in subparts:
        found = plain_body(sub)
        if found is not None:
            return found
    return None


def text_content(part: Message) -> str:
    """A text part's content as ``get_content()`` gives it: its transfer encoding undone, its
    charset (ASCII when it names none) decoded, what does not decode replaced."""
    payload = part.get_payload(decode=True)
    data = payload if isinstance(payload, bytes) else b""
    return data.decode(part.get_content_charset("ascii") or "ascii", "replace")


def decoded_header(msg: Message, name: str) -> str:
    """A header's text with its RFC 2047 encoded words decoded (compat32 keeps them as sent);
    as written when they do not decode (a charset Python does not know, broken base64)."""
    value = msg.get(name)
    if value is None:
        return ""
    try:
        return str(email.header.make_header(email.header.decode_header(str(value))))
    except (email.errors.HeaderParseError, LookupError, UnicodeError):
        return str(value)


def read_letters(path: Path) -> Iterator[Message]:
    """The messages of an mbox file, a Maildir, or a folder of .eml files."""

    def parse(raw: bytes) -> Message:
        return email.message_from_bytes(raw, policy=email.policy.default)

    if path.is_dir() and (path / "cur").is_dir():
        box = mailbox.Maildir(path, factory=None, create=False)
        for key in box.iterkeys():
            yield parse(box.get_bytes(key))
    elif path.is_dir():
        for file in sorted(path.glob("*.eml")):
            yield parse(file.read_bytes())
    else:
        mbox = mailbox.mbox(path, create=False)
        for key in mbox.iterkeys():
            yield parse(mbox.get_bytes(key))
