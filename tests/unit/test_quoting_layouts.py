# SPDX-License-Identifier: GPL-3.0-or-later
"""split_reply on the layouts of issue 13: structure, the bot's own text, client lines."""

from __future__ import annotations

import pytest

from mailbot.core.commands import BASIC_COMMANDS, Command, Reading, index_specs, read_commands, reply_orders
from mailbot.core.game import Line
from mailbot.mail.known import Known, clean_text
from mailbot.mail.quoting import split_reply, strip_quotes

REPORT = """== Test duel: report for north ==
Turn 1: orders. Your hit points: 10 of 10; south: 10 of 10, and a long line that a client re-wraps.
How to send orders:
ORDERS
ATTACK 2
DEFEND 1
END
--\x20
mailbot, the game moderator. Send HELP for the list of commands."""
KNOWN = Known.from_texts([REPORT])


def test_known_text_holds_the_template_and_its_lines() -> None:
    assert KNOWN.templates == (("orders", "attack 2", "defend 1", "end"),)
    assert KNOWN.has("== Test duel: report for north ==") and KNOWN.has("### Test duel: report for north")
    assert KNOWN.has("10 of 10, and a long line that a client")  # a re-wrapped piece
    assert not KNOWN.has("ATTACK 3") and not KNOWN.has("")


def test_an_unmarked_copy_of_a_known_letter_is_dropped_and_text_below_it_kept() -> None:
    copy = "\n".join(REPORT.splitlines())
    text = f"ORDERS\nATTACK 3\nEND\n\nFrom: mailbot\nSent: Monday\nSubject: report\n\n{copy}\n\nPS: STATUS"
    assert split_reply(text, KNOWN).text == "ORDERS\nATTACK 3\nEND\n\nPS: STATUS"
    assert strip_quotes(text) == "ORDERS\nATTACK 3\nEND"  # without knowing the letter: nothing below


def test_a_known_letter_appended_unmarked_with_its_template_unchanged_is_no_text() -> None:
    # A vacation responder's layout: its text, then the original, no quote mark, no attribution.
    split = split_reply(f"Away until Monday.\n\n{REPORT}", KNOWN)
    assert "ATTACK 2" not in split.text and split.text.startswith("Away until Monday.")
    assert split.edited_template is None
    # The template by itself stays the writer's, and so does an edited copy.
    assert split_reply("ORDERS\nATTACK 2\nDEFEND 1\nEND", KNOWN).text == "ORDERS\nATTACK 2\nDEFEND 1\nEND"
    edited = REPORT.replace("ATTACK 2", "ATTACK 3")
    assert "ATTACK 3" in split_reply(f"Here.\n\n{edited}", KNOWN).text


def test_a_template_edited_inside_the_quote_is_returned_with_its_line_numbers() -> None:
    quoted = "\n".join(f"> {line}" for line in REPORT.splitlines()).replace("> ATTACK 2", "> ATTACK 3")
    split = split_reply(f"On Mon, 23 Nov 2026, mailbot <b@x.example> wrote:\n{quoted}", KNOWN)
    assert split.text == ""
    assert split.edited_template == ((6, "ATTACK 3"), (7, "DEFEND 1"))


def test_an_unedited_or_rewrapped_template_is_no_edit() -> None:
    quoted = "\n".join(f"> {line}" for line in REPORT.splitlines())
    assert split_reply(f"mailbot wrote:\n{quoted}", KNOWN).edited_template is None
    rewrapped = quoted.replace("> ATTACK 2\n> DEFEND 1", "> ATTACK\n> 2 DEFEND 1")
    assert split_reply(f"mailbot wrote:\n{rewrapped}", KNOWN).edited_template is None


def test_an_edit_typed_between_quoted_template_lines_takes_the_whole_block() -> None:
    quoted = [f"> {line}" for line in REPORT.splitlines()]
    quoted[4] = "ATTACK 3"  # the player took the ">" off the line he changed
    split = split_reply("\n".join(["mailbot wrote:", *quoted]), KNOWN)
    assert split.text == ""
    assert split.edited_template == ((6, "ATTACK 3"), (7, "DEFEND 1"))


def test_a_wrapped_quote_line_without_its_marker_is_dropped_when_known() -> None:
    text = (
        "STATUS\n\nmailbot wrote:\n> Turn 1: orders. Your hit points: 10 of 10; south:\n"
        "10 of 10, and a long line that a client re-wraps.\n> How"
    )
    assert split_reply(text, KNOWN).text == "STATUS"


@pytest.mark.parametrize(
    "block",
    [
        "Date: Mon, 23 Nov 2026 14:05\nSubject: Turn 5\nFrom: bot@x.example\nTo: north@x.example",
        "Fra: mailbot <b@x.example>\nDato: mandag den 23. november 2026 kl. 14:05\nTil: n@x\nEmne: Tur 5",
        "От: mailbot\nОтправлено: понедельник, 23 ноября 2026 г. 14:05\nКому: Саша",
        "De : mailbot <b@x.example>\nÀ : Jean\nEnvoyé le : lundi 23 novembre 2026 14h05\nObjet : Tour 5",
        "*From:* mailbot\n*Sent:* Monday\n*To:* North\n*Subject:* Turn 5",
    ],
)
def test_header_blocks_in_any_order_and_language(block: str) -> None:
    assert strip_quotes(f"PING\n\n{block}\n\nORDERS\nATTACK 1\nEND") == "PING"


@pytest.mark.parametrize(
    "attribution",
    [
        "In data lunedì 23 novembre 2026 14:05:20 CET, mailbot <b@x.example> ha scritto:",
        "mailbot kirjoitti 23.11.2026 klo 14.05:",
        "пн, 23 нояб. 2026 г. в 14:05, mailbot <b@x.example>:",
        '23.11.2026, 14:05, "mailbot" <b@x.example>:',
        "Понедельник, 23 ноября 2026, 14:05 +03:00 от mailbot <b@x.example>:",
        "man. 23. nov. 2026 kl. 14:05 skrev mailbot <b@x.example>:",
        "* mailbot <b@x.example> [2026-11-23 14:05]:",
        "W dniu 23.11.2026 o 14:05, mailbot pisze:",
    ],
)
def test_attributions_without_a_following_quote_end_the_text(attribution: str) -> None:
    assert strip_quotes(f"PING\n\n{attribution}\n\nORDERS\nATTACK 1\nEND") == "PING"


def test_an_order_line_above_an_attribution_stays_the_writers() -> None:
    text = "ORDERS\nPLOT TF1 VI-M35 VI-L34@HIGH\nEND\n23.11.2026, 14:05, mailbot <b@x.example>:\n> old"
    assert strip_quotes(text) == "ORDERS\nPLOT TF1 VI-M35 VI-L34@HIGH\nEND"


def test_a_mailing_list_named_by_the_writer_is_no_footer() -> None:
    """Only under a rule is "<name> mailing list" a footer: the writer's own line stays."""
    text = "PING\nI read the pbem mailing list\nSTATUS\n____\nPbem mailing list\nhttps://x.example/listinfo"
    assert strip_quotes(text) == "PING\nI read the pbem mailing list\nSTATUS"


def test_bottom_posting_and_interleaving_keep_the_writers_lines() -> None:
    text = "On Mon, mailbot <b@x.example> wrote:\n> Turn 1\n\nSTATUS\n\n> more\nHELP\n> end of quote"
    assert strip_quotes(text) == "STATUS\n\nHELP"


def test_tab_indented_quote_after_an_attribution_is_a_quote() -> None:
    text = (
        "PING\n\nOn 23 Nov 2026, at 14:05, mailbot wrote:\n\n\tOrders:\n\tORDERS\n\tATTACK 1\n\tEND\n\nHELP"
    )
    assert strip_quotes(text) == "PING\n\nHELP"


def test_pgp_armour_is_removed_and_dash_escaping_undone() -> None:
    text = (
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nSTATUS\n- -- not a signature\n- -- \n"
        "Bob\n-----BEGIN PGP SIGNATURE-----\n\niHUEARYKAB0WIQ\n=Qk3a\n-----END PGP SIGNATURE-----"
    )
    assert strip_quotes(text) == "\n\n\nSTATUS\n-- not a signature"


def test_client_lines_greetings_and_signoffs_are_skipped() -> None:
    text = (
        "Hi mailbot,\n\nSTATUS\nGet Outlook for iOS<https://aka.ms/o0ukef>\nSent from my iPhone\n"
        "Отправлено из мобильной Почты Mail.ru\nBest regards,\nBob Example\nAdmiral of the Blue"
    )
    assert strip_quotes(text).strip() == "STATUS"


def test_a_signoff_in_the_middle_keeps_the_lines_below_it() -> None:
    assert strip_quotes("Thanks!\nORDERS\nATTACK 3\nEND") == "ORDERS\nATTACK 3\nEND"
    assert strip_quotes("STATUS\nCheers,\nHELP") == "STATUS\nHELP"


def test_invisible_characters_are_normalised() -> None:
    assert clean_text("\ufeffATTACK\u200b 3\u00a0\r\nDEFEND\u2060 0") == "ATTACK 3 \nDEFEND 0"
    specs = index_specs(BASIC_COMMANDS)
    reading = read_commands("\u200bPING", "", specs)
    assert [c.name for c in reading.commands] == ["PING"]


def test_reply_orders_takes_the_edited_template_then_loose_lines() -> None:
    unknown = (Line(1, "ATTACK 3"), Line(2, "DEFEND 0"))
    reading = reply_orders(Reading((), unknown), "T1.orders", None)
    (orders,) = reading.commands
    assert (orders.name, orders.args, orders.block, reading.unknown) == (
        "ORDERS",
        ("T1.orders",),
        unknown,
        (),
    )
    template = (Line(6, "ATTACK 1"), Line(7, "DEFEND 2"))
    reading = reply_orders(Reading((), unknown), "T1.orders", template)
    assert reading.commands[0].block == template and reading.unknown == unknown
    own = Reading((Command("ORDERS", (), 1, "ORDERS", unknown),), ())
    assert reply_orders(own, "T1.orders", template) is own


def test_uncommenting_a_template_line_is_an_edit() -> None:
    known = Known.from_texts(["ORDERS\nDECEPTION RANDOM\n# READY TF1 2 Devastator\nEND"])
    assert known.templates == (("orders", "deception random", "# ready tf1 2 devastator", "end"),)
    quoted = "mailbot wrote:\n> ORDERS\n> DECEPTION RANDOM\n> READY TF1 2 Devastator\n> END"
    assert split_reply(quoted, known).edited_template == (
        (3, "DECEPTION RANDOM"),
        (4, "READY TF1 2 Devastator"),
    )
