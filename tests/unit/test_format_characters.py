# SPDX-License-Identifier: GPL-3.0-or-later
"""Bidi controls and zero-width characters: never read as part of a command, never echoed raw.

Player trials: a line with a RIGHT-TO-LEFT OVERRIDE (U+202E) was quoted back as written, so the
reply showed it reordered, and "ATTACK <U+2066>2<U+2069>" was refused though it shows "ATTACK 2".
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from mailbot.core.commands import (
    BASIC_COMMANDS,
    CommandSpec,
    index_specs,
    read_commands,
    unformatted,
    visible,
)
from mailbot.mail.quoting import strip_quotes

SPECS = index_specs([*BASIC_COMMANDS, CommandSpec("ORDERS", "ORDERS", "send orders", takes_block=True)])


def test_every_format_character_unicode_knows_is_taken_out() -> None:
    missing = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf" and unformatted(chr(code))
    ]
    assert missing == []
    assert unformatted("ATTACK 2, Grüße, 東京, x\ty") == "ATTACK 2, Grüße, 東京, x\ty"


@pytest.mark.parametrize(
    "line",
    [
        "\u202eATTACK 2",  # an override before the command word
        "ATTACK \u20662\u2069",  # an isolate around the number
        "\u202bATTACK\u202c 2",  # an embedding and its pop
        "\ufeffAT\u200bTACK\u00ad 2\u200f",
        "ATTACK 2\U000e0041\U000e0042",  # tag characters (hidden text for machines)
    ],
)
def test_format_characters_do_not_change_what_a_line_reads(line: str) -> None:
    reading = read_commands("orders", f"ORDERS\n{line}\nEND\n", SPECS)
    assert [line.text for line in reading.commands[0].block] == ["ATTACK 2"]


def test_a_command_word_behind_an_override_is_still_the_command() -> None:
    reading = read_commands("\u202ePING", "\u2067HELP\u2069\n", SPECS)
    assert [command.name for command in reading.commands] == ["HELP"]
    assert [command.name for command in read_commands("\u202ePING", "", SPECS).commands] == ["PING"]


def test_a_quote_marker_behind_an_override_is_still_a_quote() -> None:
    assert strip_quotes("ATTACK 2\n\u202e> RESIGN\n") == "ATTACK 2"


def test_visible_names_format_and_control_characters() -> None:
    assert visible("\u202e1 DNEFED") == "<U+202E>1 DNEFED"
    assert visible("a\u200bb\u2066c\u2069\x1b[2Jd\te") == "a<U+200B>b<U+2066>c<U+2069><U+001B>[2Jd\te"
    assert visible("Grüße, 東京 ✓") == "Grüße, 東京 ✓"
    assert visible(visible("\u202e")) == "<U+202E>"
