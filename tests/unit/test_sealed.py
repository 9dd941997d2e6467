# SPDX-License-Identifier: GPL-3.0-or-later
"""Sealed secrets: receipts, replacement, refusal after opening, defaults."""

from __future__ import annotations

import hashlib

import pytest

from mailbot.core.sealed import (
    Receipt,
    Refusal,
    RefusalKind,
    SealBox,
    check_receipt,
    seal,
)
from mailbot.errors import GameError

SALT_J = bytes(range(32))
SALT_U = bytes(range(32, 64))


def box() -> SealBox:
    # seed 003, 19: both sides send a BHT number, revealed only when both are in.
    return SealBox.new("T3.surface", ["usa", "japan"], ["BHT"])


def sealed(
    current: SealBox, seat: str, value: str, salt: bytes, label: str = "BHT"
) -> tuple[SealBox, Receipt]:
    new_box, answer = current.put(seat, label, value, salt)
    assert isinstance(answer, Receipt), answer
    return new_box, answer


def test_receipt_is_sha256_of_value_then_salt() -> None:
    assert seal("4", SALT_J) == hashlib.sha256(b"4" + SALT_J).hexdigest()
    assert seal("Zuikaku ä", b"") == hashlib.sha256("Zuikaku ä".encode()).hexdigest()


def test_check_receipt() -> None:
    receipt = seal("4", SALT_J)
    assert check_receipt("4", SALT_J.hex(), receipt)
    assert check_receipt("4", SALT_J.hex().upper(), receipt.upper())
    assert not check_receipt("5", SALT_J.hex(), receipt)
    assert not check_receipt("4", SALT_U.hex(), receipt)
    assert not check_receipt("4", "not hex", receipt)


def test_put_gives_a_receipt_and_leaves_the_old_box_alone() -> None:
    empty = box()
    one, receipt = sealed(empty, "japan", "4", SALT_J)
    assert receipt == Receipt("japan", "BHT", seal("4", SALT_J), replaced=False)
    assert empty.entries == {}
    assert one.receipt("japan", "bht") == receipt.receipt


def test_replacement_before_opening_gives_a_new_receipt() -> None:
    first_box, first = sealed(box(), "japan", "4", SALT_J)
    second_box, second = sealed(first_box, "japan", "2", SALT_U)
    assert second.replaced
    assert second.receipt != first.receipt
    assert check_receipt("2", SALT_U.hex(), second.receipt)
    assert second_box.entries["japan", "BHT"].value == "2"


def test_labels_are_matched_leniently_and_reported_canonically() -> None:
    _, receipt = sealed(box(), "usa", "3", SALT_U, label=" bht ")
    assert receipt.label == "BHT"


def test_opening_waits_for_all_seats() -> None:
    one, _ = sealed(box(), "japan", "4", SALT_J)
    assert not one.is_complete()
    assert one.owing() == (("usa", "BHT"),)
    with pytest.raises(GameError, match="owing usa/BHT"):
        one.open({"BHT": "1"})
    both, _ = sealed(one, "usa", "6", SALT_U)
    assert both.is_complete()
    opening = both.open({})
    assert (opening.value("japan", "BHT"), opening.value("usa", "BHT")) == ("4", "6")
    assert opening.defaulted == frozenset()
    revealed = opening.values["usa"]["BHT"]
    assert check_receipt(revealed.value, revealed.salt_hex, revealed.receipt)


def test_refusal_after_opening() -> None:
    one, _ = sealed(box(), "japan", "4", SALT_J)
    opened = sealed(one, "usa", "6", SALT_U)[0].open({}).box
    after, answer = opened.put("usa", "BHT", "1", SALT_U)
    assert isinstance(answer, Refusal)
    assert answer.kind is RefusalKind.OPENED
    assert after is opened
    assert opened.open({}).value("usa", "BHT") == "6"  # opening again reveals the same


def test_other_refusals_are_data_too() -> None:
    current = box()
    _, stranger = current.put("germany", "BHT", "3", SALT_J)
    _, unknown = current.put("usa", "speed", "3", SALT_J)
    assert isinstance(stranger, Refusal)
    assert stranger.kind is RefusalKind.NOT_SEALING
    assert isinstance(unknown, Refusal)
    assert unknown.kind is RefusalKind.UNKNOWN_LABEL
    assert "BHT" in unknown.reason


def test_defaults_for_silent_seats_after_the_deadline() -> None:
    one, _ = sealed(box(), "japan", "4", SALT_J)
    opening = one.open({"BHT": "1"}, deadline_passed=True)
    assert opening.value("usa", "BHT") == "1"
    assert opening.values["usa"]["BHT"].defaulted
    assert not opening.values["japan"]["BHT"].defaulted
    assert opening.defaulted == frozenset({"usa"})
    assert opening.box.opened


def test_a_missing_default_is_a_plugin_bug() -> None:
    with pytest.raises(GameError, match="no default for label 'BHT'"):
        box().open({}, deadline_passed=True)


def test_a_box_needs_seats_and_labels() -> None:
    with pytest.raises(GameError):
        SealBox.new("T1", [], ["BHT"])


def test_dump_and_load_round_trip() -> None:
    one, _ = sealed(box(), "japan", "4", SALT_J)
    assert SealBox.load(one.dump()) == one
    opened = one.open({"BHT": "1"}, deadline_passed=True).box
    assert SealBox.load(opened.dump()) == opened
