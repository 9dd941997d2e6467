# SPDX-License-Identifier: GPL-3.0-or-later
"""The hash chains of the dice (``core.hashchain``) and verify.py's own copy of them agree."""

from __future__ import annotations

import hashlib

from mailbot.core import hashchain
from mailbot.verifier import rules

ROOT = hashlib.sha256(b"root").digest()


def test_each_element_is_the_preimage_of_the_one_before() -> None:
    anchor = hashchain.anchor(ROOT, 50)
    assert hashchain.element(ROOT, 0, 50).hex() == anchor
    for k in range(1, 6):
        here, before = hashchain.element(ROOT, k, 50), hashchain.element(ROOT, k - 1, 50)
        assert hashlib.sha256(here).digest() == before
        assert hashchain.hashed(here, k) == bytes.fromhex(anchor)


def test_links_accepts_only_the_round_s_own_value() -> None:
    root = hashchain.seat_root("a passphrase of words", "7", "North")
    assert root == rules.seat_root("a passphrase of words", "7", "north")  # seat in any case
    anchor = hashchain.anchor(root)
    v3, v5 = hashchain.element(root, 3).hex(), hashchain.element(root, 5).hex()
    assert hashchain.links(v3, 3, anchor, 0) and hashchain.links(v5, 5, v3, 3)
    assert rules.links(v5, 5, anchor, 0)
    assert not hashchain.links(v5, 4, anchor, 0)  # another round's value
    assert not hashchain.links(v3, 3, v3, 3)  # the same round twice
    assert not hashchain.links("00" * 32, 1, anchor, 0)
    assert not hashchain.links("not hex", 1, anchor, 0) and not rules.links("x", 1, anchor, 0)
    other = hashchain.seat_root("a passphrase of words", "8", "north")
    assert other != root  # another game, another chain


def test_the_reveals_digest_is_the_same_in_verify() -> None:
    reveals = {"south": "", "north": "ab" * 32}
    assert hashchain.reveals_digest(reveals) == rules.reveals_digest(reveals)
    assert hashchain.reveals_digest(reveals) != hashchain.reveals_digest({"north": "ab" * 32, "south": "cd"})
    assert hashchain.SEED_TAG == rules.SEED_TAG
    assert hashchain.CHAIN_LENGTH == rules.CHAIN_LENGTH
    assert hashchain.PBKDF2_ROUNDS == rules.PBKDF2_ROUNDS


def test_checkpoints_give_every_element_the_long_way_gives() -> None:
    root = bytes(range(32))
    kept = hashchain.checkpoints(root, 1000)
    assert len(kept) == 11 and kept[0] == root
    for k in (0, 1, 99, 100, 101, 555, 999, 1000):
        assert hashchain.element_from(kept, k, 1000) == hashchain.element(root, k, 1000)
