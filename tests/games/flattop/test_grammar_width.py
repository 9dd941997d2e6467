# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 32: the order grammar in a letter's text part is laid out in columns that the 72-column
re-wrapping (``render.templates.wrap72``) must never break: every indented grammar line fits."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from mailbot.games.flattop import view
from mailbot.games.flattop.orders.subs import HELP as SUB_HELP

BLOCKS: dict[str, Sequence[str]] = {
    "orders": view.SYNTAX,
    "strike": view.STRIKE_SYNTAX,
    "losses": view.LOSSES_SYNTAX,
    "submarines": SUB_HELP,
    **{f"surface {phase}": lines for phase, lines in view.SURFACE_SYNTAX.items()},
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_every_indented_grammar_line_fits_72_columns(name: str) -> None:
    laid_out = [line for line in BLOCKS[name] if line.startswith(" ")]
    too_wide = [line for line in laid_out if len(line) > view.TEXT_WIDTH]
    assert too_wide == [], too_wide


def test_the_check_reads_the_column_layouts() -> None:
    # The blocks of many orders are laid out in columns: a check of no line would pass anything.
    for name in ("orders", "strike", "losses", "submarines"):
        assert sum(line.startswith("  ") for line in BLOCKS[name]) >= 1, name
