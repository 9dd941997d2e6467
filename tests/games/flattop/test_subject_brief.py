# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 32: subjects that fit a mail index. A surface battle's sub-step in the subject
(``view.brief``) is one short word, so that what is due still starts within the 40 characters a
mail index shows: "[FL-1 NWvfFY] T83 1500 D4 surface engage: orders due ..." put it at 40."""

from __future__ import annotations

from mailbot.games.flattop import view
from mailbot.games.flattop.combat.battle import BHT, BREAKTHROUGH, ENGAGE, GUNNERY, TORPEDO

#: the longest tag and hour of a real game: game 99's tag, turn 100 (the full Coral Sea has 116)
HEAD = "[FL-99 NWvfFY] T100 1500 D5 "


def test_every_surface_sub_step_has_a_short_word_in_the_subject() -> None:
    phases = {ENGAGE, BHT, GUNNERY, TORPEDO, BREAKTHROUGH}
    assert set(view.SURFACE_SYNTAX) == phases == set(view.SURFACE_BRIEF)
    for phase in phases:
        head = f"{HEAD}{view.SURFACE_BRIEF[phase]}: orders due Mon 30 Nov 08:50"
        assert head.index(": ") < 38, head
