# SPDX-License-Identifier: GPL-3.0-or-later
"""The byte-exact mixing of the players' entropy and the salted chain commitments (issue 14)."""

from __future__ import annotations

import hashlib
import hmac

from mailbot.core.chain import roll_log, salted, step_salt
from mailbot.core.dice import DiceStream, dice_key, order_digest, player_entropy, verify_log
from mailbot.verifier import rules

SEED = bytes(range(32))
DIGEST = order_digest({"north": ["ATTACK 2"], "south": []})
LETTERS = [("north", "1@players.test", "sunrise"), ("south", "2@players.test", "")]


def _s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def test_entropy_is_the_documented_hash_of_the_sorted_contributions() -> None:
    data = _s("mailbot-entropy-v2") + (2).to_bytes(4, "big")
    data += b"".join(_s(seat) + _s(mid) + _s(nonce) for seat, mid, nonce in LETTERS)
    assert player_entropy(LETTERS) == hashlib.sha256(data).hexdigest()
    assert player_entropy([]) == hashlib.sha256(_s("mailbot-entropy-v2") + bytes(4)).hexdigest()


def test_the_order_letters_were_read_in_does_not_change_the_entropy() -> None:
    """Which player's letter the server delivered first is nobody's choice: the same letters read in
    another order (another worker, another poll) give the same dice; another letter does not."""
    assert player_entropy(LETTERS[::-1]) == player_entropy(LETTERS)
    assert rules.player_entropy(LETTERS[::-1]) == player_entropy(LETTERS)
    assert player_entropy([LETTERS[0], ("south", "3@players.test", "")]) != player_entropy(LETTERS)


def test_the_dice_key_mixes_seed_and_entropy() -> None:
    entropy = player_entropy(LETTERS)
    expected = hmac.new(SEED, _s("mailbot-entropy-v2") + _s(entropy), hashlib.sha256).digest()
    assert dice_key(SEED, entropy) == expected
    assert dice_key(SEED, None) == SEED  # the plugin fixtures' plain v1 streams


def test_one_nonce_changes_every_roll_and_the_log_verifies_only_with_it() -> None:
    plain = DiceStream(SEED, DIGEST, "T1.orders", player_entropy(LETTERS))
    other = DiceStream(
        SEED, DIGEST, "T1.orders", player_entropy([*LETTERS[:1], ("south", "2@players.test", "x")])
    )
    a = [plain.roll("r", 2**32 - 5, 4) for _ in range(3)]
    b = [other.roll("r", 2**32 - 5, 4) for _ in range(3)]
    assert [r.faces for r in a] != [r.faces for r in b]
    assert verify_log(SEED, DIGEST, a, player_entropy(LETTERS)) is None
    assert verify_log(SEED, DIGEST, a, player_entropy([])) == 0


def test_the_standalone_verifier_agrees() -> None:
    entropy = player_entropy(LETTERS)
    assert rules.player_entropy(LETTERS) == entropy
    assert rules.dice_key(SEED, entropy) == dice_key(SEED, entropy)
    stream = DiceStream(SEED, DIGEST, "T1.orders", entropy)
    roll = stream.roll("hit", 10, 3)
    derived, _ = rules.faces(dice_key(SEED, entropy), ("T1.orders", DIGEST, "hit"), 10, 3, 0)
    assert tuple(derived) == roll.faces
    salt = bytes(32)
    assert rules.salted("abc", salt) == salted("abc", salt)
    assert rules.step_salt(SEED, "T1.orders") == step_salt(SEED, "T1.orders")
    rolls = [r.as_dict() for r in stream.log]
    assert hashlib.sha256(rules.canonical(rolls).encode()).hexdigest() == roll_log(rolls)


def test_salted_commitment_is_the_documented_hash() -> None:
    salt = bytes(range(32))
    assert (
        salted("ATTACK 1", salt) == hashlib.sha256(_s("mailbot-salted-v1") + salt + b"ATTACK 1").hexdigest()
    )
    assert salted("ATTACK 1", salt) != salted("ATTACK 1", bytes(32))
