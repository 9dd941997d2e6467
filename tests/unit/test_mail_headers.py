# SPDX-License-Identifier: GPL-3.0-or-later
"""``mail.headers.parsed_once``: a policy that parses each header value once reads every letter
as ``email.policy.default`` does, and a copied letter shares the registry instead of copying it."""

from __future__ import annotations

import copy
import email
import email.policy
import mailbox
from email.message import EmailMessage
from pathlib import Path

from mailbot.mail.headers import ParsedOnce, parsed_once

TESTS = Path(__file__).resolve().parents[1]
EML_FILES = sorted(TESTS.rglob("*.eml"))


def _read(raw: bytes, policy: email.policy.EmailPolicy[EmailMessage]) -> list[object]:
    """What a reader asks of a letter: every header (value, class, parameters, addresses, defects),
    every part's type, disposition, file name, charset and body, and the letter written out."""
    msg = email.message_from_bytes(raw, policy=policy)
    seen: list[object] = []
    for part in msg.walk():
        for name, value in part.items():
            params = getattr(value, "params", None)
            groups = getattr(value, "addresses", None)
            seen.append((name, str(value), type(value).__name__, dict(params or {}), repr(groups)))
            seen.append([type(defect).__name__ for defect in getattr(value, "defects", ())])
        seen.append((part.get_content_type(), part.get_content_disposition(), part.get_filename()))
        seen.append((part.get_content_charset(), part.get_payload(decode=True)))
    seen.append(msg.as_bytes())
    return seen


def test_the_corpus_reads_as_the_default_policy_reads_it_twice_over() -> None:
    assert len(EML_FILES) >= 29
    policy = parsed_once()
    for path in EML_FILES:
        raw = path.read_bytes()
        expected = _read(raw, email.policy.default)
        assert _read(raw, policy) == expected, path  # the first reading makes the headers
        assert _read(raw, policy) == expected, path  # the second is given the same ones


def test_a_value_is_parsed_once_and_the_store_starts_afresh_when_full() -> None:
    registry = ParsedOnce()
    first = registry("Content-Type", "image/png; name=map.png")
    assert registry("Content-Type", "image/png; name=map.png") is first
    assert registry("content-type", "image/png; name=map.png") is not first  # as the letter spells it
    for n in range(ParsedOnce.LIMIT):
        registry("Subject", f"hour {n}")
    assert registry("Content-Type", "image/png; name=map.png") is not first
    assert str(registry("Content-Type", "image/png; name=map.png")) == str(first)
    long = "x" * (ParsedOnce.LONGEST + 1)
    assert registry("Subject", long) is not registry("Subject", long)  # not kept
    assert registry("Subject", long[1:]) is registry("Subject", long[1:])


def test_a_copied_letter_shares_the_registry(tmp_path: Path) -> None:
    policy = parsed_once()
    msg = email.message_from_bytes(EML_FILES[0].read_bytes(), policy=policy)
    for n in range(200):
        policy.header_factory("Subject", f"letter {n}")
    copied = copy.deepcopy(msg)
    assert copied.policy.header_factory is policy.header_factory
    box = mailbox.mbox(tmp_path / "box.mbox", create=True)
    box.add(mailbox.mboxMessage(msg))  # mailbox deep-copies each letter it is given
    box.close()
    assert (tmp_path / "box.mbox").read_bytes().count(b"\nFrom ") + 1 == 1
