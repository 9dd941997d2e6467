# SPDX-License-Identifier: GPL-3.0-or-later
"""A tamper-evident log: game events in a hash chain.

Each entry's hash covers its index, kind, payload and the previous entry's
hash, so changing, removing or reordering any entry breaks every hash from
there on. What the chain cannot show on its own is a cut-off tail: publish
:func:`head` (the last hash) in each turn's report so players hold a
checkpoint the moderator can no longer rewrite.

Byte-exact specification::

    entry_hash = hex(SHA-256(utf8(canonical_json([index, kind, prev_hash, payload]))))
    canonical_json = json.dumps(value, sort_keys=True, separators=(",", ":"),
                                ensure_ascii=False, allow_nan=False)

``prev_hash`` of the first entry is :data:`GENESIS` (64 zeros); hashes are
lower-case hex.

Hidden content never enters a payload as a bare hash: where the space of
possible contents is small (a seat's orders, a short report), a player
holding chain heads could test guesses against it. It enters salted::

    salted(content, salt) = hex(SHA-256( s("mailbot-salted-v1") || salt || utf8(content) ))

with ``s()`` as in ``mailbot.core.dice`` and a 32-byte ``salt`` that is
revealed (in the archive) when the content itself becomes public. Salts of a
step's own results (its orders digest, its roll log) are derived from the
step's seed, which opens when they may be known::

    step_salt(seed, step) = HMAC-SHA256(key = seed, msg = s("mailbot-step-salt-v1") || s(step))
    roll_log = hex(SHA-256(utf8(canonical_json([roll.as_dict() for each roll, in order]))))

A report's every part as sent is in its chain entry too (``parts``: the HTML
part under ``text/html``, each attachment under its file name, the map kept
for the archive under ``map.svg``), each as ``salted(part_hash, salt)`` with the
report's salt, where::

    part_hash = hex(SHA-256(data))    (a text/* part: its lines joined by "\n", no last line end)

Payloads are JSON objects; keep them to strings, integers,
booleans, null, lists and objects, because float formatting differs between
JSON libraries and a verifier in another language should get the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64
SALT_TAG = "mailbot-salted-v1"
STEP_SALT_TAG = "mailbot-step-salt-v1"


def _s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def salted(content: str, salt: bytes) -> str:
    """A commitment to hidden content that cannot be tested by guessing without the salt."""
    return hashlib.sha256(_s(SALT_TAG) + salt + content.encode("utf-8")).hexdigest()


def part_hash(data: bytes, maintype: str) -> str:
    """The hash of one part of a letter; a text part's line ends do not count (mail rewrites them)."""
    return hashlib.sha256(b"\n".join(data.splitlines()) if maintype == "text" else data).hexdigest()


def step_salt(seed: bytes, step: str) -> bytes:
    """The salt of a step's own results, opened with its seed (module docstring)."""
    return hmac.new(seed, _s(STEP_SALT_TAG) + _s(step), hashlib.sha256).digest()


def roll_log(rolls: Sequence[Mapping[str, Any]]) -> str:
    """The digest of a step's roll log: every roll, in the order rolled."""
    return hashlib.sha256(canonical_json([dict(roll) for roll in rolls]).encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    """The one JSON spelling hashed here; rejects NaN/Infinity and anything not JSON."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def entry_hash(index: int, kind: str, payload: Mapping[str, Any], prev_hash: str) -> str:
    data = canonical_json([index, kind, prev_hash, payload]).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ChainEntry:
    """One link. ``payload`` is a private copy taken at append time: do not mutate it."""

    index: int
    kind: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str

    def as_dict(self) -> dict[str, Any]:
        """The export form (one JSON object per line makes a file a verifier can read)."""
        return {
            "index": self.index,
            "kind": self.kind,
            "payload": self.payload,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChainEntry:
        return cls(
            int(data["index"]),
            str(data["kind"]),
            dict(data["payload"]),
            str(data["prev_hash"]),
            str(data["hash"]),
        )


def head(entries: Sequence[ChainEntry]) -> str:
    """The hash a new entry would chain to: the last hash, or GENESIS for an empty chain."""
    return entries[-1].hash if entries else GENESIS


def append(entries: Sequence[ChainEntry], kind: str, payload: Mapping[str, Any]) -> ChainEntry:
    """The entry that follows ``entries``; the caller stores it (nothing is mutated here).

    The payload is copied through canonical JSON, which both proves it
    serialisable and keeps later changes to the caller's dict out of the log.
    """
    copy: dict[str, Any] = json.loads(canonical_json(dict(payload)))
    index, prev = len(entries), head(entries)
    return ChainEntry(index, kind, copy, prev, entry_hash(index, kind, copy, prev))


def verify_chain(entries: Sequence[ChainEntry]) -> int | None:
    """The position of the first entry that does not fit, or None if the chain is intact.

    An entry fits when its index is its position, its ``prev_hash`` is the
    previous entry's stored hash (GENESIS first) and its stored hash is the
    one recomputed from its contents.
    """
    prev = GENESIS
    for position, entry in enumerate(entries):
        if entry.index != position or entry.prev_hash != prev:
            return position
        try:
            recomputed = entry_hash(entry.index, entry.kind, entry.payload, entry.prev_hash)
        except (TypeError, ValueError):  # a payload edited into something that is not JSON
            return position
        if recomputed != entry.hash:
            return position
        prev = entry.hash
    return None
