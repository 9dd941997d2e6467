# SPDX-License-Identifier: GPL-3.0-or-later
"""The archive's index lists the steps under the game's own name for each turn.

A trial's Atlantic Storm archive read "2. Turn 4 – Convoy C4 ...": a numbered list counting
its groups (the set-up first) beside a "Turn" that was the selected convoy's number. The list
is not numbered; each group is the game's label (``core.game.Labelled``), else "Turn N".
"""

from __future__ import annotations

import re

from mailbot.core.game import Labelled
from mailbot.games.atlantic_storm import AtlanticStormGame
from mailbot.games.wif import WifTurnEndGame
from mailbot.render.archive_pages import Site, StepView, render_site


def _step(key: str, turn: int, title: str) -> StepView:
    return StepView(
        key=key,
        attempt=1,
        turn=turn,
        kind="setup" if turn == 0 else "orders",
        title=title,
        state="resolved",
        page=f"steps/{key}.html",
        commitment="0" * 64,
        seed=None,
    )


def _site(labels: dict[int, str]) -> Site:
    steps = (
        _step("setup", 0, "set-up"),
        _step("C4.play", 4, "Convoy C4 (1940) is selected: report your plays"),
        _step("C6.play", 6, "Convoy C6 (1941) is selected: report your plays"),
    )
    return Site(
        title="Demo",
        tag="AT-1",
        plugin="atlantic-storm",
        scenario="2p",
        status="finished",
        result="",
        viewer=None,
        finished=True,
        seats=(("P1", "active"), ("P2", "active")),
        steps=steps,
        turn_labels=labels,
    )


def _groups(index: str) -> list[str]:
    listed = index[index.index('class="turns"') : index.index("<h2>More</h2>")]
    return re.findall(r"^<li>([^<\n]+)$", listed, re.MULTILINE)


def test_the_index_names_each_turn_as_the_game_does_and_numbers_nothing() -> None:
    labels = {4: "Convoy C4 (1940)", 6: "Convoy C6 (1941)"}
    index = render_site(_site(labels))["index.html"].decode("utf-8")
    assert _groups(index) == ["Set-up", "Convoy C4 (1940)", "Convoy C6 (1941)"]
    assert "Turn 4" not in index and '<ol class="turns">' not in index


def test_a_game_without_labels_lists_turn_numbers() -> None:
    index = render_site(_site({}))["index.html"].decode("utf-8")
    assert _groups(index) == ["Set-up", "Turn 4", "Turn 6"]


def test_atlantic_storm_labels_its_turns_by_convoy() -> None:
    game = AtlanticStormGame()
    assert isinstance(game, Labelled) and not isinstance(WifTurnEndGame(), Labelled)
    assert [game.turn_label(n) for n in (4, 17, 40)] == [
        "Convoy C4 (1940)",
        "Convoy C17 (1942)",
        "Convoy C40 (1943)",
    ]
