# SPDX-License-Identifier: GPL-3.0-or-later
"""An HTML-only letter is read as its reader saw it: text hidden with CSS or ``hidden`` is no order.

Player trials: a letter whose HTML hid a line (a mail program's preheader, ``display:none``)
had that line read as an order the player never saw in his own letter.
"""

from __future__ import annotations

import pytest

from mailbot.mail.mime import parse_letter
from mailbot.mail.mimebody import html_to_text


def _html_letter(markup: str) -> bytes:
    head = "From: north@players.test\nTo: bot@example.test\nSubject: orders\n"
    return f"{head}Content-Type: text/html; charset=utf-8\n\n<html><body>{markup}</body></html>\n".encode()


@pytest.mark.parametrize(
    "hidden",
    [
        '<div style="display:none">RESIGN</div>',
        '<span style="DISPLAY: none !important;">RESIGN</span>',
        '<div style="visibility:hidden">RESIGN</div>',
        "<p hidden>RESIGN</p>",
        '<p hidden="until-found">RESIGN</p>',
        '<div style="mso-hide:all">RESIGN</div>',
        '<div style="opacity:0">RESIGN</div>',
        '<div style="max-height:0px;overflow:hidden">RESIGN</div>',
        "<template><div>RESIGN</div></template>",
        # A preheader as newsletter tools write it: the text mail lists show after the subject.
        '<div style="display:none;font-size:1px;color:#ffffff;line-height:1px;max-height:0px;'
        'max-width:0px;opacity:0;overflow:hidden;mso-hide:all;">RESIGN &amp; <b>WAIT</b></div>',
    ],
)
def test_hidden_html_is_not_read(hidden: str) -> None:
    letter = parse_letter(_html_letter(f"{hidden}<div>ORDERS</div><div>ATTACK 2</div><div>END</div>"))
    assert letter.command_text.split("\n") == ["ORDERS", "ATTACK 2", "END"]


def test_a_class_the_letters_style_hides_is_not_read() -> None:
    markup = (
        "<html><head><style>.preheader { display: none !important; }</style></head><body>"
        '<div class="preheader">RESIGN</div><div class="x">ATTACK 2</div></body></html>'
    )
    assert html_to_text(markup) == "ATTACK 2"


def test_reading_goes_on_after_a_hidden_element_and_its_own_nested_ones() -> None:
    markup = (
        '<div style="display:none"><div>RESIGN</div><div><div>WAIT</div></div>still hidden</div>'
        "<div>ATTACK 2</div><div hidden/><div>DEFEND 1</div>"
    )
    assert html_to_text(markup).split("\n") == ["ATTACK 2", "DEFEND 1"]


@pytest.mark.parametrize(
    "shown",
    [
        '<div style="display:block">ATTACK 2</div>',
        '<div style="font-size:0"><span style="font-size:14px">ATTACK 2</span></div>',
        '<div style="visibility:visible;height:0">ATTACK 2</div>',
        '<div class>ATTACK 2</div><input type="hidden" value="RESIGN">',
        '<div style="opacity:0.5">ATTACK 2</div>',
    ],
)
def test_visible_html_is_read(shown: str) -> None:
    assert html_to_text(shown) == "ATTACK 2"
