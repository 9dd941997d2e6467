# SPDX-License-Identifier: GPL-3.0-or-later
"""A label's room as a browser lays it out (``render.maps.canvas``): DejaVu Sans's own advances
and line box, and the whole pixels a browser rounds them out to on the narrowest screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import ImageFont

from mailbot.render.maps import canvas as cv

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@pytest.mark.skipif(not DEJAVU.exists(), reason="DejaVu Sans is not installed")
def test_the_advances_are_the_fonts_own() -> None:
    font = ImageFont.truetype(str(DEJAVU), cv.UNITS_PER_EM)  # a unit a pixel: advances as stored
    first = ord(" ")
    assert [int(font.getlength(chr(first + i))) for i in range(len(cv.ADVANCES))] == list(cv.ADVANCES)
    ascent, descent = font.getmetrics()
    assert (ascent / cv.UNITS_PER_EM, descent / cv.UNITS_PER_EM) == (cv.ASCENT, cv.DESCENT)


def test_a_label_is_as_wide_as_its_letters_and_an_unknown_letter_counts_widest() -> None:
    # "Port Moresby" is narrower than 12 average letters, "Gasmata" wider than 7
    assert cv.text_width("Port Moresby", 10) < 12 * 10 * cv.CHAR_WIDTH
    assert cv.text_width("Gasmata", 10) > 7 * 10 * cv.CHAR_WIDTH
    assert cv.text_width("Vé", 10) == cv.text_width("V@", 10)


def test_lines_of_a_block_leave_room_for_a_browsers_rounding() -> None:
    pixel = 960 / cv.NARROWEST
    width, height = cv.text_box(["V-E24", "Port Moresby"], 10, pixel)
    assert width == pytest.approx(cv.text_width("Port Moresby", 10) + 2 * cv.ROUND_END * pixel)
    assert height == pytest.approx(2 * cv.line_pitch(10, pixel))
    # at 375 px a 10-unit letter is 3.9 px, whose line box Chromium makes 5 px: more than 1.2 em
    assert cv.line_pitch(10, pixel) * 375 / 960 >= 5
    assert cv.text_box(["V-E24"], 10, 0.0)[1] == pytest.approx((cv.ASCENT + cv.DESCENT) * 10)
