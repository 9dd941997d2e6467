# SPDX-License-Identifier: GPL-3.0-or-later
"""Seed 004's sealed-envelope number and the hex value chart shipped for it."""

from __future__ import annotations

import hashlib
import string
import tomllib
from pathlib import Path

import pytest

from mailbot.envelope.rules import (
    Attack,
    envelope_number,
    listing_order,
    load_chart,
    load_hex_chart,
    odds_multiplier,
    parse_hex,
)
from mailbot.errors import ConfigError

CHART_FILE = Path(__file__).resolve().parents[2] / "mailbot" / "envelope" / "data" / "hex-values.toml"
CHART = load_chart(CHART_FILE.read_text(encoding="utf-8"))


def test_seed_004_worked_example() -> None:
    """Seed 004, "Example":

    "Suppose you are making three attacks. An attack at 3-1 against F12,
    another at 5-1 on G13 and a soak-off of 1-4 against units on I-11. By
    using the chart, we find the hex value of F12 is 7, G13 is 5 and I-11. is
    9. We now multiply 3×7=21, 5×5=25, and 4×9=36. We add together
    21+25+36=82. We divide 82 by 5 and find we have a remainder of 2. We open
    the envelope marked number 2."
    """
    attacks = [Attack.of("3-1", "F12"), Attack.of("5-1", "G13"), Attack.of("1-4", "I-11")]
    result = envelope_number(attacks, CHART)
    assert [line.hex_value for line in result.lines] == [7, 5, 9]
    assert [line.product for line in result.lines] == [21, 25, 36]
    assert result.total == 82
    assert result.envelope == 2
    assert [line.text for line in result.lines] == [
        "3-1 against F12: 3×7 = 21",
        "5-1 against G13: 5×5 = 25",
        "1-4 against I11: 4×9 = 36",
    ]
    assert result.summary == "21+25+36 = 82; 82 mod 5 = 2: open envelope 2"
    assert result.envelopes() == (2,)  # three combats: one ICRK column is enough


# --- the chart file ---


def test_chart_keeps_the_three_cells_seed_004_prints() -> None:
    assert (CHART["F"][2], CHART["G"][3], CHART["I"][1]) == (7, 5, 9)


def test_chart_is_marked_as_a_design_default() -> None:
    data = tomllib.loads(CHART_FILE.read_text(encoding="utf-8"))
    assert data["default"] is True
    assert "design default, not from the seed" in data["note"]
    assert data["seed_cells"] == {"F2": 7, "G3": 5, "I1": 9}


def test_every_other_cell_follows_the_documented_formula() -> None:
    assert sorted(CHART) == list(string.ascii_uppercase)
    for row, values in CHART.items():
        for digit, value in enumerate(values):
            if f"{row}{digit}" in ("F2", "G3", "I1"):
                continue
            h = hashlib.sha256(f"mailbot hex value {row}{digit}".encode()).digest()
            assert value == 1 + int.from_bytes(h[:4], "big") % 9, (row, digit)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rows = [", "not TOML"),
        ("x = 1", "no \\[rows\\] table"),
        ("[rows]\nA = [1, 2, 3]", "row A must list ten"),
        ("[rows]\nA = [1, 2, 3, 4, 5, 6, 7, 8, 9, true]", "row A must list ten"),
        ("[seed_cells]\nA2 = 7\n[rows]\nA = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]", "cell A2 must keep"),
        ("[seed_cells]\nF12 = 7\n[rows]\nA = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]", "cell F12 must keep"),
    ],
)
def test_a_broken_chart_is_a_config_error(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_chart(text)


# --- hex ids and odds ---


@pytest.mark.parametrize(
    ("hex_id", "row", "number", "canonical"),
    [
        ("F12", "F", 12, "F12"),
        ("I-11", "I", 11, "I11"),
        ("I-11.", "I", 11, "I11"),  # as printed in seed 004
        ("i 11", "I", 11, "I11"),
        ("0824", "H", 24, "0824"),  # 08 -> H, the eighth letter
        ("08-24", "H", 24, "0824"),
        ("2701", "A", 1, "2701"),  # 27 wraps to A
        ("0013", "Z", 13, "0013"),  # 00 is Z
    ],
)
def test_parse_hex(hex_id: str, row: str, number: int, canonical: str) -> None:
    ref = parse_hex(hex_id)
    assert ref is not None
    assert (ref.row, ref.number, ref.text, ref.digit) == (row, number, canonical, number % 10)


@pytest.mark.parametrize("hex_id", ["", "F", "12F", "082", "F12345", "F1.2"])
def test_not_a_hex_id(hex_id: str) -> None:
    assert parse_hex(hex_id) is None


@pytest.mark.parametrize(
    ("odds", "multiplier"),
    [
        ("3-1", 3),
        ("1-3", 3),
        ("1-4", 4),
        ("3:1", 3),
        ("3 to 1", 3),
        ("10–1", 10),
        ("x", None),
        ("1.5-1", None),
    ],
)
def test_the_highest_number_of_the_odds(odds: str, multiplier: int | None) -> None:
    # Seed 004: "3 against the hex value would multiply both 3-1 and 1-3 odds".
    assert odds_multiplier(odds) == multiplier


# --- the computation ---


def test_several_target_hexes_add_their_values() -> None:
    # Seed 004: "Should one of your attacks be made against two or more hexes just add this hex
    # value together".
    line = envelope_number([Attack.of("2-1", "F12", "G13")], CHART).lines[0]
    assert (line.hex_values, line.product) == ((7, 5), 24)
    assert line.text == "2-1 against F12+G13: 2×(7+5) = 24"


def test_listing_order_is_alphanumeric_by_hex() -> None:
    # Seed 004: "an attack on E12 before ... G3, ... 0824 before ... 0913".
    attacks = [
        Attack.of("1-1", "G3"),
        Attack.of("1-1", "F12"),
        Attack.of("1-1", "E12"),
        Attack.of("1-1", "F3"),
    ]
    assert [a.hexes[0] for a in listing_order(attacks)] == ["E12", "F3", "F12", "G3"]
    numeric = [Attack.of("1-1", "0913"), Attack.of("1-1", "0824")]
    assert [a.hexes[0] for a in listing_order(numeric)] == ["0824", "0913"]


def test_the_order_given_does_not_change_the_envelope() -> None:
    attacks = [Attack.of("1-4", "I-11"), Attack.of("3-1", "F12"), Attack.of("5-1", "G13")]
    result = envelope_number(attacks, CHART)
    assert [line.hexes for line in result.lines] == [("F12",), ("G13",), ("I11",)]
    assert result.envelope == 2


def test_other_numbers_of_envelopes() -> None:
    # Seed 004: "any number can be used as long as you remember to divide by the number you are using".
    attacks = [Attack.of("3-1", "F12"), Attack.of("5-1", "G13"), Attack.of("1-4", "I-11")]
    assert envelope_number(attacks, CHART, modulus=7).envelope == 82 % 7
    assert envelope_number(attacks, CHART, modulus=41).envelope == 0  # no remainder: envelope 0


def test_more_than_ten_combats_move_on_to_the_next_envelope() -> None:
    # Seed 004: "(If you use number 4, the next to be opened would be 0)".
    attacks = [Attack.of("1-1", "F12")] * 10 + [Attack.of("2-1", "F12"), Attack.of("1-1", "A0")]
    result = envelope_number(attacks, CHART)
    assert result.total == 10 * 7 + 14 + 7
    assert result.envelope == 91 % 5 == 1
    assert result.envelopes() == (1, 2)
    assert len(envelope_number(attacks[:1] * 11, CHART).envelopes()) == 2
    wrap = envelope_number([Attack.of("1-1", "F12")] * 12, CHART)  # 84: envelope 4
    assert wrap.envelopes() == (4, 0)


def test_problems_are_data_not_exceptions() -> None:
    attacks = [
        Attack.of("3-1", "F12"),
        Attack.of("three to one", "G13"),
        Attack.of("1-4", "12F"),
        Attack.of("2-1", "AA12"),
        Attack.of("2-1"),
    ]
    result = envelope_number(attacks, CHART)
    assert result.envelope is None
    assert result.envelopes() == ()
    assert [p.attack for p in result.problems] == [2, 3, 4, 5]
    assert "not odds" in result.problems[0].reason
    assert "not a hex id" in result.problems[1].reason
    assert "no row AA" in result.problems[2].reason
    assert "at least one target hex" in result.problems[3].reason
    assert "not odds" in result.summary


def test_an_empty_list_or_bad_modulus_is_a_problem() -> None:
    assert envelope_number([], CHART).problems[0].reason == "no attacks listed"
    assert envelope_number([Attack.of("1-1", "F12")], CHART, modulus=0).envelope is None


def test_default_chart_values_are_marked_and_the_seed_cells_are_not() -> None:
    chart = load_hex_chart(CHART_FILE.read_text(encoding="utf-8"))
    assert chart.default and chart.known == frozenset({"F2", "G3", "I1"})
    seed = envelope_number([Attack.of("3-1", "F12"), Attack.of("1-4", "I-11")], chart.rows, 5, chart.known)
    assert not seed.defaulted
    assert [line.text for line in seed.lines] == ["3-1 against F12: 3×7 = 21", "1-4 against I11: 4×9 = 36"]
    mixed = envelope_number([Attack.of("2-1", "F12", "A0")], chart.rows, 5, chart.known)
    assert mixed.defaulted
    assert mixed.lines[0].defaulted == (False, True)
    assert mixed.lines[0].text.endswith(f"2×(7+{chart.rows['A'][0]}*) = {mixed.total}")


def test_a_real_chart_marks_nothing() -> None:
    text = "[rows]\n" + "\n".join(f"{row} = [1,2,3,4,5,6,7,8,9,1]" for row in "ABC")
    chart = load_hex_chart(text)
    assert chart.known is None
    assert not envelope_number([Attack.of("1-1", "A3")], chart.rows, 5, chart.known).defaulted


def test_more_than_ten_combats_name_each_envelope_in_the_summary() -> None:
    wrap = envelope_number([Attack.of("1-1", "F12")] * 12, CHART)  # 84: envelope 4, then 0
    assert wrap.batches() == ((4, 1, 10), (0, 11, 12))
    assert wrap.summary.endswith("open envelope 4 for combats 1-10, then envelope 0 for combats 11-12")
    assert envelope_number([Attack.of("1-1", "F12")] * 10, CHART).summary.endswith("open envelope 0")


def test_defaults_used_names_what_shaped_a_result() -> None:
    """Issue 37: the 0 envelope (seed 004's "marked 101"), the chart, numeric ids and the full sum."""
    from mailbot.envelope.rules import defaults_used

    chart = {"F": (0, 0, 7, 0, 0, 0, 0, 0, 0, 0), "G": (0, 0, 0, 5, 0, 0, 0, 0, 0, 0)}
    assert defaults_used(envelope_number([Attack.of("5-1", "G13")], chart)) == ("zero",)
    assert defaults_used(envelope_number([Attack.of("3-1", "F12")], chart)) == ()
    numeric = envelope_number([Attack.of("3-1", "0612")], chart, modulus=3)  # 06 = F: 21 mod 3 = 0
    assert defaults_used(numeric) == ("zero", "numeric_ids", "full_sum")
    assert defaults_used(envelope_number([Attack.of("3-1", "F12")], chart, known={"G3"})) == ("chart",)
