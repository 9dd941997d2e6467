# SPDX-License-Identifier: GPL-3.0-or-later
"""Verifiable dice: determinism, independence, verification and the byte-exact spec."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Mapping, Sequence

import pytest

from mailbot.core.dice import (
    Dice,
    DiceStream,
    FixedDice,
    Roll,
    commitment,
    order_digest,
    order_hash,
    parse_spec,
    verify_log,
    verify_roll,
)
from mailbot.errors import GameError

SEED = bytes(range(32))
ORDERS = {"japan": ["TF1 MOVE 1207", "CAP 12 READY"], "usa": ["AF3 SEARCH 0912-1012"]}
DIGEST = order_digest(ORDERS)


# --- an independent re-implementation, written from the module docstring only ---


def _s(text: str) -> bytes:
    raw = text.encode()
    return len(raw).to_bytes(4, "big") + raw


def spec_digest(orders: Mapping[str, Sequence[str]]) -> str:
    data = _s("mailbot-orders-v1")
    for seat in sorted(orders):
        data += _s(seat) + len(orders[seat]).to_bytes(4, "big")
        data += b"".join(hashlib.sha256(line.encode()).digest() for line in orders[seat])
    return hashlib.sha256(data).hexdigest()


def spec_faces(
    seed: bytes, digest: str, step: str, label: str, *, sides: int, count: int, counter: int
) -> list[int]:
    faces: list[int] = []
    limit = 2**32 - 2**32 % sides
    while len(faces) < count:
        msg = _s("mailbot-dice-v1") + _s(step) + _s(digest) + _s(label) + counter.to_bytes(8, "big")
        block = hmac.digest(seed, msg, "sha256")
        counter += 1
        for i in range(0, 32, 4):
            x = int.from_bytes(block[i : i + 4], "big")
            if x < limit and len(faces) < count:
                faces.append(x % sides + 1)
    return faces


def stream(orders: Mapping[str, Sequence[str]] = ORDERS, step: str = "T1.orders") -> DiceStream:
    return DiceStream(SEED, order_digest(orders), step)


# --- commitments and digests ---


def test_commitment_is_sha256_hex_of_the_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_order_digest_matches_the_documented_bytes() -> None:
    assert spec_digest(ORDERS) == DIGEST
    assert order_hash("CAP 12 READY") == hashlib.sha256(b"CAP 12 READY").hexdigest()


def test_order_digest_ignores_mapping_order_but_not_line_order() -> None:
    assert order_digest(dict(reversed(list(ORDERS.items())))) == DIGEST
    swapped = {**ORDERS, "japan": list(reversed(ORDERS["japan"]))}
    assert order_digest(swapped) != DIGEST


def test_order_digest_counts_a_seat_that_sent_nothing() -> None:
    assert order_digest({"usa": ["X"]}) != order_digest({"usa": ["X"], "japan": []})


def test_known_answer_vector() -> None:
    # Frozen outputs: if these change, every published game becomes unverifiable.
    assert order_digest({}) == "a988a7b7260d2f885a2054b32cc416d6f4c671748527df057ac268977275220c"
    dice = DiceStream(SEED, order_digest({}), "T1.orders")
    assert dice.roll("search", 6, 8).faces == (5, 4, 6, 1, 1, 3, 2, 4)
    assert dice.roll("search", 20, 3).faces == (12, 5, 18)


# --- determinism and independence ---


def test_same_seed_orders_and_labels_give_the_same_rolls() -> None:
    first, second = stream(), stream()
    for dice in (first, second):
        dice.roll("search", 6, 2)
        dice.roll("sink", 10)
        dice.roll("search", 6, 2)
    assert first.log == second.log


def test_faces_match_the_documented_derivation() -> None:
    dice = stream()
    for label, sides, count in [("search", 6, 2), ("sink", 10, 1), ("search", 6, 12), ("survivors", 100, 3)]:
        roll = dice.roll(label, sides, count)
        assert list(roll.faces) == spec_faces(
            SEED, DIGEST, "T1.orders", label, sides=sides, count=count, counter=roll.counter
        )


def test_a_changed_order_changes_the_rolls_of_that_step() -> None:
    changed = {**ORDERS, "usa": ["AF3 SEARCH 0912-1013"]}
    assert stream().roll("search", 6, 20).faces != stream(changed).roll("search", 6, 20).faces


def test_the_step_key_separates_steps_with_identical_orders() -> None:
    assert stream(step="T1.orders").roll("x", 6, 20).faces != stream(step="T2.orders").roll("x", 6, 20).faces


def test_a_label_does_not_shift_when_other_labels_are_rolled_more() -> None:
    busy, quiet = stream(), stream()
    for _ in range(7):
        busy.roll("weather", 6, 3)
    busy.roll("search", 6)
    quiet.roll("search", 6)
    assert busy.roll("search", 6, 2).faces == quiet.roll("search", 6, 2).faces


def test_each_roll_starts_a_fresh_block_and_the_counter_follows_the_label() -> None:
    dice = stream()
    counters = [dice.roll("a", 6, count).counter for count in (1, 8, 9, 1)]
    assert counters == [0, 1, 2, 4]  # 9 faces of a d6 need two blocks
    assert dice.roll("b", 6).counter == 0


def test_rejection_sampling_spans_blocks_and_stays_in_range() -> None:
    # With 2**31 + 1 sides about half the 32-bit values are rejected.
    sides = 2**31 + 1
    roll = stream().roll("wide", sides, 40)
    assert all(1 <= face <= sides for face in roll.faces)
    assert list(roll.faces) == spec_faces(SEED, DIGEST, "T1.orders", "wide", sides=sides, count=40, counter=0)
    assert stream().roll("one", 1, 5).faces == (1, 1, 1, 1, 1)


# --- the Roll record ---


def test_roll_records_rule_modifiers_and_total() -> None:
    roll = stream().roll("search", 6, 2, rule="7.3 search chart", modifiers={"weather": -1, "radar": 2})
    assert roll.total == sum(roll.faces) + 1
    assert (roll.step, roll.label, roll.sides, roll.count, roll.rule) == (
        "T1.orders",
        "search",
        6,
        2,
        "7.3 search chart",
    )
    assert dict(roll.modifiers) == {"weather": -1, "radar": 2}
    assert roll.text.startswith("search: 2d6 ")
    assert roll.text.endswith(f"-1 weather +2 radar = {roll.total} (7.3 search chart)")
    assert Roll.from_dict(roll.as_dict()) == roll


def test_stream_keeps_every_roll_in_order() -> None:
    dice = stream()
    made = [dice.d6("a"), dice.d10("b"), dice.dice("c", "3d6+1"), dice.d6("a")]
    assert dice.log == made


def test_repr_never_shows_the_seed() -> None:
    shown = repr(stream())
    assert SEED.hex() not in shown
    assert repr(SEED) not in shown


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("2d6", (2, 6, 0)),
        ("d8", (1, 8, 0)),
        ("3d6+1", (3, 6, 1)),
        (" 3D6 - 2 ", (3, 6, -2)),
        ("1d10", (1, 10, 0)),
    ],
)
def test_parse_spec(spec: str, expected: tuple[int, int, int]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["2x6", "", "d", "2d", "3d6+", "d6 d6"])
def test_a_bad_spec_is_a_plugin_bug(spec: str) -> None:
    with pytest.raises(GameError, match="not a dice spec"):
        parse_spec(spec)


def test_dice_spec_records_its_constant_as_a_modifier() -> None:
    roll = stream().dice("gunnery", "3d6+1", rule="19", modifiers={"night": -2})
    assert (roll.count, roll.sides, dict(roll.modifiers)) == (3, 6, {"night": -2, "spec": 1})
    assert roll.total == sum(roll.faces) - 1


@pytest.mark.parametrize(
    ("label", "sides", "count"), [("", 6, 1), ("x", 0, 1), ("x", 2**32 + 1, 1), ("x", 6, 0)]
)
def test_impossible_rolls_are_refused(label: str, sides: int, count: int) -> None:
    with pytest.raises(GameError):
        stream().roll(label, sides, count)


# --- verification ---


def test_verify_roll_accepts_honest_rolls() -> None:
    dice = stream()
    rolls = [dice.roll("search", 6, 2, modifiers={"x": 1}), dice.roll("search", 6, 30), dice.d10("sink")]
    assert all(verify_roll(SEED, DIGEST, roll) for roll in rolls)
    assert verify_log(SEED, DIGEST, rolls) is None


def test_verify_roll_detects_a_changed_face_total_seed_or_orders() -> None:
    roll = stream().roll("search", 6, 2)
    other = 1 if roll.faces[0] != 1 else 2
    assert not verify_roll(SEED, DIGEST, dataclasses.replace(roll, faces=(other, roll.faces[1])))
    assert not verify_roll(SEED, DIGEST, dataclasses.replace(roll, total=roll.total + 1))
    assert not verify_roll(bytes(32), DIGEST, roll)
    assert not verify_roll(SEED, order_digest({"usa": []}), roll)
    assert not verify_roll(SEED, DIGEST, dataclasses.replace(roll, sides=0))


def test_verify_log_finds_a_hidden_reroll() -> None:
    dice = stream()
    first, _hidden, kept = dice.d6("search"), dice.d6("search"), dice.d6("search")
    assert verify_log(SEED, DIGEST, [first, kept]) == 1
    assert verify_log(SEED, DIGEST, [first, first]) == 1
    assert verify_log(SEED, DIGEST, [kept]) == 0


# --- FixedDice and the protocol ---


def take_dice(dice: Dice) -> int:
    return dice.d6("a").total + dice.dice("b", "2d6").total


def test_both_implementations_serve_the_dice_protocol() -> None:
    assert take_dice(FixedDice([1, 2, 3])) == 6
    assert take_dice(stream()) >= 3


def test_fixed_dice_replay_a_sequence_and_per_label_faces() -> None:
    dice = FixedDice([4, 2, 6], by_label={"sink": [9, 1]})
    assert dice.d10("sink").faces == (9,)
    assert dice.roll("search", 6, 2, modifiers={"wx": 1}).total == 7
    assert dice.d10("sink").total == 1
    assert dice.leftover() == {"*": (6,)}
    assert dice.d6("other").total == 6
    assert dice.leftover() == {}
    assert [roll.label for roll in dice.log] == ["sink", "search", "sink", "other"]


def test_fixed_dice_say_clearly_when_they_run_out() -> None:
    dice = FixedDice([3], by_label={"sink": []})
    with pytest.raises(GameError, match=r"FixedDice exhausted: roll 'search' \(2d6.*has 1 left of 1"):
        dice.roll("search", 6, 2, rule="7.3")
    with pytest.raises(GameError, match="the faces for 'sink'"):
        dice.d10("sink")


def test_fixed_dice_refuse_a_face_the_die_cannot_show() -> None:
    with pytest.raises(GameError, match="does not fit a d6"):
        FixedDice([7]).d6("search")
