# SPDX-License-Identifier: GPL-3.0-or-later
"""The hash chain: append, verify, and each kind of tampering found at the right index."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from itertools import pairwise

import pytest

from mailbot.core.chain import GENESIS, ChainEntry, append, entry_hash, head, verify_chain


def build(count: int = 5) -> list[ChainEntry]:
    entries: list[ChainEntry] = []
    for n in range(count):
        entries.append(
            append(entries, "roll", {"label": f"search-{n}", "faces": [n % 6 + 1], "note": "Zuikaku ä"})
        )
    return entries


def test_entry_hash_is_sha256_of_the_documented_canonical_json() -> None:
    payload = {"b": 1, "a": ["ä", None, True]}
    text = '[3,"roll","' + GENESIS + '",{"a":["ä",null,true],"b":1}]'
    assert entry_hash(3, "roll", payload, GENESIS) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert json.loads(text)[3] == payload


def test_append_links_entries_from_genesis() -> None:
    entries = build()
    assert entries[0].prev_hash == GENESIS == head([])
    assert [e.index for e in entries] == list(range(5))
    assert all(later.prev_hash == earlier.hash for earlier, later in pairwise(entries))
    assert head(entries) == entries[-1].hash
    assert verify_chain(entries) is None
    assert verify_chain([]) is None


def test_append_copies_the_payload() -> None:
    payload = {"faces": [3]}
    entry = append([], "roll", payload)
    payload["faces"].append(4)
    assert entry.payload == {"faces": [3]}
    assert verify_chain([entry]) is None


def test_a_payload_that_is_not_json_is_refused_at_append() -> None:
    with pytest.raises(TypeError):
        append([], "roll", {"when": object()})
    with pytest.raises(ValueError, match="JSON compliant"):
        append([], "roll", {"x": float("nan")})


def test_editing_one_payload_is_found_at_that_entry() -> None:
    entries = build()
    entries[2].payload["faces"] = [6]
    assert verify_chain(entries) == 2


def test_replacing_a_payload_with_non_json_is_found_too() -> None:
    entries = build()
    entries[1] = dataclasses.replace(entries[1], payload={"x": object()})
    assert verify_chain(entries) == 1


def test_editing_one_hash_is_found_at_that_entry() -> None:
    entries = build()
    entries[3] = dataclasses.replace(entries[3], hash="f" * 64)
    assert verify_chain(entries) == 3


def test_rehashing_an_edited_entry_is_found_at_the_next() -> None:
    entries = build()
    forged = dataclasses.replace(entries[1], payload={"faces": [6]})
    entries[1] = dataclasses.replace(
        forged, hash=entry_hash(1, forged.kind, forged.payload, forged.prev_hash)
    )
    assert verify_chain(entries) == 2


def test_deleting_an_entry_is_found_where_it_was() -> None:
    entries = build()
    del entries[2]
    assert verify_chain(entries) == 2
    assert verify_chain(build()[1:]) == 0


def test_swapping_two_entries_is_found_at_the_first() -> None:
    entries = build()
    entries[1], entries[3] = entries[3], entries[1]
    assert verify_chain(entries) == 1


def test_a_cut_tail_needs_the_published_head() -> None:
    entries = build()
    published = head(entries)
    cut = entries[:-1]
    assert verify_chain(cut) is None  # the chain alone cannot tell ...
    assert head(cut) != published  # ... the published head can


def test_export_round_trip() -> None:
    entries = build()
    lines = [json.dumps(entry.as_dict(), ensure_ascii=False) for entry in entries]
    assert [ChainEntry.from_dict(json.loads(line)) for line in lines] == entries
