# SPDX-License-Identifier: GPL-3.0-or-later
"""A PRESS block is a message to people: read as written, greetings, sign-offs and paragraphs kept.

Player trials: "Dear Japan,", "Yours is the east." and "Best regards," were dropped from press
without a word, because the press was cut from the text commands are read from, which leaves out
greetings and sign-offs (they are no commands), and every blank line between paragraphs.
"""

from __future__ import annotations

from mailbot.core.commands import BASIC_COMMANDS, CommandSpec, index_specs, read_commands
from mailbot.mail.quoting import split_reply

PRESS = CommandSpec("PRESS", "PRESS <seat|ALL> ... END", "", takes_block=True, prose=True)
SPECS = index_specs(
    [*BASIC_COMMANDS, PRESS, CommandSpec("ORDERS", "ORDERS", "send orders", takes_block=True)]
)
LETTER = (
    "Hi GM,\n"
    "PRESS japan\n"
    "Dear Japan,\n"
    "Let us split the board.\n"
    "\n"
    "Yours is the east.\n"
    "Best regards,\n"
    "Yamamoto\n"
    "END\n"
    "ORDERS\n"
    "Hello,\n"
    "ATTACK 2\n"
    "END\n"
    "Thanks,\n"
    "Yamamoto\n"
    "-- \n"
    "Admiral I. Yamamoto, +81 3 1234 5678\n"
    "\n"
    "On Monday, 23 Nov 2026 at 10:00, bot <bot@example.test> wrote:\n"
    "> Press from japan\n"
)
WRITTEN = [
    "Dear Japan,",
    "Let us split the board.",
    "",
    "Yours is the east.",
    "Best regards,",
    "Yamamoto",
]


def _read(text: str) -> dict[str, list[str]]:
    split = split_reply(text)
    reading = read_commands("news", split.text, SPECS, prose=split.prose)
    return {command.name: [line.text for line in command.block] for command in reading.commands}


def test_press_keeps_greetings_sign_offs_and_paragraphs_and_orders_do_not() -> None:
    blocks = _read(LETTER)
    assert blocks["PRESS"] == WRITTEN
    assert blocks["ORDERS"] == ["ATTACK 2"]


def test_the_prose_text_leaves_out_quotes_and_the_signature() -> None:
    prose = split_reply(LETTER).prose
    assert "Admiral" not in prose and "wrote:" not in prose and "> Press" not in prose
    assert prose.startswith("Hi GM,\nPRESS japan\nDear Japan,") and prose.endswith("Thanks,\nYamamoto")
    assert split_reply(LETTER).text.startswith("PRESS japan\nLet us split the board.")


def test_press_in_the_subject_takes_the_letter_as_written() -> None:
    body = "Dear Japan,\n\nLet us split the board.\nBest regards,\nYamamoto\n\nSent from my iPhone\n"
    split = split_reply(body)
    reading = read_commands("Re: press japan", split.text, SPECS, prose=split.prose)
    (press,) = reading.commands
    assert [line.text for line in press.block] == [
        "Dear Japan,",
        "",
        "Let us split the board.",
        "Best regards,",
        "Yamamoto",
    ]


def test_a_courtesy_line_that_is_a_command_word_takes_no_block() -> None:
    # The name "Ping" under a sign-off is a command in the prose text only: it is not read.
    text = "PRESS japan\nBye for now.\nEND\nPRESS all\nHi all,\nPeace.\nEND\nThanks,\nPing\n"
    split = split_reply(text)
    reading = read_commands("news", split.text, SPECS, prose=split.prose)
    assert [c.name for c in reading.commands] == ["PRESS", "PRESS"]
    assert [[line.text for line in c.block] for c in reading.commands] == [
        ["Bye for now."],
        ["Hi all,", "Peace."],
    ]


def test_without_prose_text_a_press_block_is_read_from_the_command_text() -> None:
    reading = read_commands("news", "PRESS japan\n\nMeet at dawn.\n\nBring ships.\n\nEND\n", SPECS)
    assert [line.text for line in reading.commands[0].block] == ["Meet at dawn.", "", "Bring ships."]
