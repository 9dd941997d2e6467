# SPDX-License-Identifier: GPL-3.0-or-later
"""The command reader: subject and body, any case, blocks, unknown lines quoted."""

from __future__ import annotations

import pytest

from mailbot.core.commands import (
    ANONYMOUS_AUTHOR,
    BASIC_COMMANDS,
    OBSERVER_COMMANDS,
    CommandSpec,
    clean_subject,
    game_reference,
    index_specs,
    press_author,
    press_title,
    read_commands,
    reply_press,
)

SPECS = index_specs([*BASIC_COMMANDS, CommandSpec("ORDERS", "ORDERS", "send orders", takes_block=True)])


def test_subject_command_is_read_after_reply_prefixes_and_tags() -> None:
    assert clean_subject("Re: AW: [FT-12 k7Q2] Fwd: ping now") == "ping now"
    reading = read_commands("Re: [game] ping", "", SPECS)
    assert [(c.name, c.line) for c in reading.commands] == [("PING", 0)]


def test_subject_is_free_text_when_the_body_has_commands() -> None:
    reading = read_commands(
        "Re: orders",
        "ORDERS T3\nTF1 V-F22\nEND\nWAIT\n",
        SPECS | index_specs([CommandSpec("WAIT", "WAIT", "")]),
    )
    assert [(c.name, c.line, c.args) for c in reading.commands] == [("ORDERS", 1, ("T3",)), ("WAIT", 4, ())]


def test_free_text_subject_is_not_an_error() -> None:
    reading = read_commands("my orders for tonight", "HELP\n", SPECS)
    assert [c.name for c in reading.commands] == ["HELP"]
    assert reading.unknown == ()


def test_body_commands_any_case_with_line_numbers_and_aliases() -> None:
    reading = read_commands("", "\nhelp\n  Ping  extra words\n?\n", SPECS)
    assert [(c.name, c.line, c.args) for c in reading.commands] == [
        ("HELP", 2, ()),
        ("PING", 3, ("extra", "words")),
        ("HELP", 4, ()),
    ]


def test_unknown_lines_are_kept_with_their_numbers() -> None:
    reading = read_commands("", "PING\nattack Rabaul now\n\nHELP", SPECS)
    assert [(line.number, line.text) for line in reading.unknown] == [(2, "attack Rabaul now")]


def test_block_command_owns_lines_up_to_end() -> None:
    body = "ORDERS\nTF1 V-F22 V-F23\n\nAF3 search V-F20\nEND\nPING\n"
    reading = read_commands("", body, SPECS)
    orders, ping = reading.commands
    assert [(line.number, line.text) for line in orders.block] == [
        (2, "TF1 V-F22 V-F23"),
        (4, "AF3 search V-F20"),
    ]
    assert ping.name == "PING" and reading.unknown == ()


def test_a_block_that_runs_to_the_end_of_the_letter_says_so() -> None:
    (ended,) = read_commands("", "ORDERS\nTF1 V-F22\nEND\n", SPECS).commands
    (unended,) = read_commands("", "Orders\n\nCheers,\nBob\n", SPECS).commands
    assert ended.ended and not unended.ended


def test_an_orders_line_with_more_words_than_its_usage_is_prose() -> None:
    """Player trial: a report's own "ORDERS to END near the end of this letter" in an unquoted
    reply, or "Orders for this turn:", was taken for an ORDERS header naming a step, and the
    real block after it was lost."""
    specs = index_specs([CommandSpec("ORDERS", "ORDERS [step] ... END", "", True, max_args=1)])
    body = (
        "Your orders for Turn 1: edit the block from\n"
        "    ORDERS to END near the end of this letter and reply with it.\n"
        "ORDERS T1.orders\nPLOT TF1 VII-F27\nEND\n"
    )
    reading = read_commands("", body, specs)
    (orders,) = reading.commands
    assert orders.args == ("T1.orders",) and [line.text for line in orders.block] == ["PLOT TF1 VII-F27"]
    assert [line.number for line in reading.unknown] == [1, 2]
    (loose,) = read_commands("", "Orders for this turn:\nATTACK 2\n", specs).unknown[:1]
    assert loose.text == "Orders for this turn:"


def test_a_subject_command_counts_beside_a_body_of_credentials_only() -> None:
    """Player trial: "Subject: STATUS" above "GAME 1 / SECRET x" got an empty answer."""
    specs = SPECS | index_specs(
        [
            CommandSpec("GAME", "GAME <n>", "", credential=True),
            CommandSpec("SECRET", "SECRET <s>", "", credential=True),
        ]
    )
    reading = read_commands(
        "STATUS", "GAME 1\nSECRET jwWFVp\n", specs | index_specs([CommandSpec("STATUS", "STATUS", "")])
    )
    assert [command.name for command in reading.commands] == ["GAME", "SECRET", "STATUS"]
    # A body with a command of its own still makes the subject free text, and an ORDERS subject
    # does not read the credentials as its orders.
    assert [c.name for c in read_commands("PING", "HELP\nSECRET x\n", specs).commands] == ["HELP", "SECRET"]
    assert [c.name for c in read_commands("ORDERS", "GAME 1\nSECRET x\n", specs).commands] == [
        "GAME",
        "SECRET",
    ]


def test_block_in_subject_takes_the_whole_body() -> None:
    reading = read_commands("ORDERS turn 3", "TF1 V-F22\nAF3 search V-F20\n", SPECS)
    (orders,) = reading.commands
    assert orders.args == ("turn", "3")
    assert [line.text for line in orders.block] == ["TF1 V-F22", "AF3 search V-F20"]


def test_keyword_with_colon_is_accepted() -> None:
    reading = read_commands("", "Ping: please", SPECS)
    assert reading.commands[0].name == "PING"


def test_a_letter_headed_surface_bht_number_seals_the_number_in_its_body() -> None:
    """Seed 003, 19: the BHT number "should be sent in a separate message with "Surface BHT
    number" as the header, so the opponent will know not to open it"."""
    from mailbot.core.commands import index_specs, read_commands
    from mailbot.services.play.mailgame import PLAYER_COMMANDS

    specs = index_specs(PLAYER_COMMANDS)
    reading = read_commands("Re: Surface BHT number", "4\n\n> quoted text\n", specs)
    (command,) = reading.commands
    assert (command.name, command.args) == ("SEAL", ("BHT", "4"))
    assert read_commands("Surface BHT number", "SEAL BHT 5\n", specs).commands[0].args == ("BHT", "5")
    assert read_commands("a phone number", "call me\n", specs).commands == ()


def test_full_width_letters_digits_and_spaces_are_read_as_ascii() -> None:
    # A Japanese keyboard in full-width mode (issue 30): "ＡＴＴＡＣＫ　１" was refused.
    reading = read_commands("ＨＥＬＰ", "ＯＲＤＥＲＳ\nＡＴＴＡＣＫ　１\nDEFEND ２\nＥＮＤ\n", SPECS)
    (orders,) = reading.commands
    assert [line.text for line in orders.block] == ["ATTACK 1", "DEFEND 2"]
    assert [c.name for c in read_commands("ＨＥＬＰ", "", SPECS).commands] == ["HELP"]


@pytest.mark.parametrize(
    ("text", "number"),
    [("3", 3), ("DU-3", 3), ("du-12", 12), (" FL-1 ", 1), ("", None), ("DU3", None), ("three", None),
     ("DU-3 extra", None), ("-3", None), ("1234567890", None)],
)  # fmt: skip
def test_observe_takes_a_game_by_number_or_tag(text: str, number: int | None) -> None:
    assert game_reference(text) == number


def test_observe_and_unobserve_are_read_with_their_game() -> None:
    specs = index_specs([*BASIC_COMMANDS, *OBSERVER_COMMANDS])
    found = read_commands("", "observe DU-3\nUNOBSERVE 4\nwatch 5\n", specs)
    assert [(c.name, c.args) for c in found.commands] == [
        ("OBSERVE", ("DU-3",)),
        ("UNOBSERVE", ("4",)),
        ("OBSERVE", ("5",)),
    ]


def test_a_reply_to_a_press_letter_is_not_read_as_press() -> None:
    specs = SPECS | index_specs([CommandSpec("PRESS", "PRESS <seat|ALL> ... END", "", takes_block=True)])
    reading = read_commands("Re: [DU-3 k7Q2] Press from allied", "ok, noted.\n", specs)
    assert reading.commands == () and [line.text for line in reading.unknown] == ["ok, noted."]
    assert [c.name for c in read_commands("press allied", "Meet at dawn.\n", specs).commands] == ["PRESS"]


def test_a_press_letters_subject_names_its_writer() -> None:
    assert press_author(f"Re: [DU-3 k7Q2] {press_title('allied')}") == "allied"
    assert press_author("AW: Re: [FT-12 k7Q2] press FROM Japanese") == "Japanese"
    assert press_author(f"Re: [DU-3 k7Q2] {press_title(ANONYMOUS_AUTHOR)}") == ANONYMOUS_AUTHOR
    for other in ("Re: [DU-3 GM] Press from north to south", "Re: press allied", "Press from", "status"):
        assert press_author(other) is None


def test_a_reply_to_press_is_press_back_to_its_writer() -> None:
    specs = SPECS | index_specs([CommandSpec("PRESS", "PRESS", "", takes_block=True, prose=True)])
    prose = "Hi North,\nAgreed.\n\n\nSee you.\nDraw\nThanks,\nSouth\n"
    specs |= index_specs([CommandSpec("DRAW", "DRAW", "")])
    reading = read_commands("Re: Press from north", "Agreed.\n\n\nSee you.\nDraw\n", specs, prose=prose)
    assert [c.name for c in reading.commands] == ["DRAW"]  # read alone, the line is an offer
    replied = reply_press(reading, "north", prose, specs)
    # ... but in a reply to press it is words to north, never a draw offer made for the writer
    assert replied.unknown == () and [c.name for c in replied.commands] == ["PRESS"]
    press = replied.commands[0]
    assert press.args == ("north",) and press.text == "PRESS north (your reply to north's press)"
    lines = ["Hi North,", "Agreed.", "", "See you.", "Draw", "Thanks,", "South"]
    assert [line.text for line in press.block] == lines
    assert reply_press(reading, ANONYMOUS_AUTHOR, prose, specs) == reading
    own = read_commands("Re: Press from north", "PRESS all\nHello\nEND\nBye\n", specs)
    assert reply_press(own, "north", "PRESS all\nHello\nEND\nBye\n", specs) == own
    empty = read_commands("Re: Press from north", "\n", specs)  # nothing of his own above the quote
    assert reply_press(empty, "north", "\n", specs) == empty
