# SPDX-License-Identifier: GPL-3.0-or-later
"""strip_quotes: only the sender's new text is left to read commands from."""

from __future__ import annotations

import pytest

from mailbot.mail.quoting import strip_quotes


def test_plain_text_is_unchanged() -> None:
    assert strip_quotes("ORDERS\nTF1 V-F22 V-F23\nPING") == "ORDERS\nTF1 V-F22 V-F23\nPING"


def test_empty_text() -> None:
    assert strip_quotes("") == ""
    assert strip_quotes("\n\n") == ""


def test_quoted_lines_are_dropped_anywhere() -> None:
    text = "> What are your orders?\nORDERS\n> TF1 V-F10\nTF1 V-F22"
    assert strip_quotes(text) == "ORDERS\nTF1 V-F22"


def test_nested_and_indented_quotes_are_dropped() -> None:
    text = "PING\n>> ORDERS\n> > TF1 V-F10\n>>> HELP\n   > indented quote\n>\nHELP"
    assert strip_quotes(text) == "PING\nHELP"


def test_greater_than_inside_a_line_survives() -> None:
    assert strip_quotes("TF1 V-F22 > V-F23\nA PAR->BUR") == "TF1 V-F22 > V-F23\nA PAR->BUR"


def test_double_dash_inside_a_line_survives() -> None:
    assert strip_quotes("TF1 -- V-F22\n---\nPING --") == "TF1 -- V-F22\n---\nPING --"


@pytest.mark.parametrize("separator", ["-- ", "--", "--\t"])
def test_signature_and_everything_after_is_dropped(separator: str) -> None:
    text = f"ORDERS\nTF1 V-F22\n{separator}\nBob\nPING is my favourite command"
    assert strip_quotes(text) == "ORDERS\nTF1 V-F22"


def test_trailing_blank_lines_are_stripped_leading_kept() -> None:
    assert strip_quotes("\nPING\n\n  \n\t\n") == "\nPING"


def test_crlf_is_normalised() -> None:
    assert strip_quotes("PING\r\nHELP\r\n> old\r\n") == "PING\nHELP"


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 3 Jan 2026 at 10:00, Bob <b@x.example> wrote:",
        "On 3 Jan 2026, at 10:00, Bob wrote:",
        "On 1/3/26 10:00 AM, Bob Example wrote:",
        "On Monday, January 3, 2026 10:00 AM, Bob <b@x.example> wrote:",
        "Am 03.01.26 um 10:00 schrieb Bob:",
        "Am Mo., 3. Jan. 2026 um 10:00 Uhr schrieb Bob Beispiel <b@x.example>:",
        "Le lun. 3 janv. 2026 à 10:00, Bob <b@x.example> a écrit :",
        "Le 03/01/2026 à 10:00, Bob a écrit\u00a0:",
        "El lun, 3 ene 2026 a las 10:00, Bob (<b@x.example>) escribió:",
        "Il giorno lun 3 gen 2026 alle ore 10:00 Bob <b@x.example> ha scritto:",
        "Op ma 3 jan. 2026 om 10:00 schreef Bob <b@x.example>:",
        "Em seg., 3 de jan. de 2026 às 10:00, Bob <b@x.example> escreveu:",
    ],
)
def test_attribution_and_its_quote_are_dropped(attribution: str) -> None:
    # Text below the quote block is the writer's again (bottom-posting, issue 13).
    text = f"ORDERS\nTF1 V-F22\n\n{attribution}\n\n> Turn 5 has started.\n> ORDERS\nmy text below"
    assert strip_quotes(text) == "ORDERS\nTF1 V-F22\n\nmy text below"
    assert strip_quotes(f"ORDERS\nTF1 V-F22\n\n{attribution}\nTurn 5 has started.") == "ORDERS\nTF1 V-F22"


def test_attribution_without_following_quote_is_still_an_attribution() -> None:
    assert strip_quotes("PING\nOn Mon, 3 Jan 2026, Bob <b@x> wrote:\nTurn 5 has started.") == "PING"


@pytest.mark.parametrize(
    "wrapped",
    [
        "On Mon, 3 Jan 2026 at 10:00, Bob Example <\nbob@example.com> wrote:",
        "On Mon, 3 Jan 2026 at 10:00, Bob Example <bob@example.com>\nwrote:",
        "Am Mo., 3. Jan. 2026 um 10:00 Uhr schrieb Bob Beispiel <\nbob@example.de>:",
        "On Monday, 3 January 2026 at 10:00:00 CET, a very long display name\n"
        "of the moderator <moderator@games.example>\nwrote:",
    ],
)
def test_wrapped_attribution_is_dropped_from_its_first_line(wrapped: str) -> None:
    assert strip_quotes(f"PING\n\n{wrapped}\n\n> old orders") == "PING"


def test_apple_mail_quote_block_with_quoted_attribution() -> None:
    text = "PING\n\n> On 3 Jan 2026, at 10:00, Bob <b@x.example> wrote:\n> \n> ORDERS\n> TF1 V-F10"
    assert strip_quotes(text) == "PING"


def test_loose_attribution_needs_a_following_quote() -> None:
    assert strip_quotes("PING\nBob <b@x.example> wrote:\n\n> ORDERS") == "PING"
    assert strip_quotes("My ally wrote:\nTF1 V-F22") == "My ally wrote:\nTF1 V-F22"


def test_command_lines_starting_with_on_survive() -> None:
    text = "On turn 5 I attack:\nTF1 V-F22\nOn Mon, 3 Jan 2026, Bob wrote:\n> old"
    assert strip_quotes(text) == "On turn 5 I attack:\nTF1 V-F22"


def test_overlong_line_is_prose_not_attribution() -> None:
    line = "On " + "and then " * 40 + "the admiral wrote:"
    assert strip_quotes(f"{line}\nPING") == f"{line}\nPING"


@pytest.mark.parametrize(
    "marker",
    [
        "-----Original Message-----",
        "----- Original Message -----",
        "-----Ursprüngliche Nachricht-----",
        "-----Message d'origine-----",
        "---------- Forwarded message ---------",
        "-------- Forwarded Message --------",
        "-------- Weitergeleitete Nachricht --------",
        "Begin forwarded message:",
        "Anfang der weitergeleiteten Nachricht:",
        "Sent from my iPhone",
        "Von meinem iPhone gesendet",
        "Get Outlook for Android",
    ],
)
def test_markers_drop_everything_after(marker: str) -> None:
    text = f"PING\n\n{marker}\nFrom: Bob <b@x.example>\nSubject: orders\n\nORDERS\nTF1 V-F10"
    assert strip_quotes(text) == "PING"


@pytest.mark.parametrize(
    "block",
    [
        "From: Bob <b@x.example>\nSent: Monday, January 3, 2026 10:00 AM\nTo: Alice\nSubject: Turn 5",
        "From: Bob <b@x.example>\nDate: Mon, 3 Jan 2026 at 10:00\nTo: Alice\nCc: Carol\nSubject: Turn 5",
        "Von: Bob <b@x.example>\nGesendet: Montag, 3. Januar 2026 10:00\nAn: Alice\nBetreff: Runde 5",
        "De : Bob <b@x.example>\nEnvoyé : lundi 3 janvier 2026 10:00\nÀ : Alice\nObjet : Tour 5",
    ],
)
def test_outlook_header_block_and_rule_are_dropped(block: str) -> None:
    text = f"HELP\nTF1 V-F22\n\n________________________________\n{block}\n\nORDERS\nTF1 V-F10"
    assert strip_quotes(text) == "HELP\nTF1 V-F22"


def test_html_rule_before_header_block_is_dropped() -> None:
    text = "PING\n* * *\nFrom: Bob <b@x.example>\nSent: Monday\nTo: Alice\nSubject: Turn 5\n\nORDERS"
    assert strip_quotes(text) == "PING"


def test_from_line_without_header_block_survives() -> None:
    text = "From: the northern fleet\nTF1 V-F22\nSubject to weather"
    assert strip_quotes(text) == text


def test_marker_inside_a_quote_does_not_cut_later_text() -> None:
    text = "> -----Original Message-----\n> From: x\nPING"
    assert strip_quotes(text) == "PING"


def test_bottom_posted_reply_keeps_text_after_the_quote() -> None:
    text = "On Mon, 3 Jan 2026, Bob wrote:\n> Your orders?\nORDERS\nTF1 V-F22"
    assert strip_quotes(text) == "ORDERS\nTF1 V-F22"
