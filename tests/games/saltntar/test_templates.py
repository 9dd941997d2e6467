# SPDX-License-Identifier: GPL-3.0-or-later
"""The report templates render a seat's view (``r``) under StrictUndefined with HTML autoescape."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from mailbot.core.dice import FixedDice
from mailbot.core.game import Event, Setup
from mailbot.games.saltntar import SaltNTarGame
from tests.games.saltntar.conftest import ROOT, play


@pytest.fixture(params=[False, True], ids=["plain", "trimmed"])
def env(request: pytest.FixtureRequest) -> Environment:
    """As the brief gives it, and as mailbot.render sets it up (trim_blocks, lstrip_blocks)."""
    trimmed = bool(request.param)
    return Environment(
        loader=FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html"]),
        trim_blocks=trimmed,
        lstrip_blocks=trimmed,
    )


def a_view(data: dict[str, Any], seat: str | None) -> dict[str, Any]:
    game = SaltNTarGame()
    setup = Setup("race", ("red", "blue"), options={"wind_direction": 7, "wind_speed": 2}, data=data)
    state = game.new_game(setup, dice=FixedDice(by_label={"wind/T1": [3]}))
    outcome = play(
        state, {"red": ["TURN Swallow -1", "REEF Swallow"], "blue": ["LUCK"]}, rolls={"luck/T1/blue": [4]}
    )
    events = (*outcome.events, Event("note", "<b>a & b</b>"))
    return dict(game.view(outcome.state, events, seat))


@pytest.mark.parametrize("seat", ["red", None])
def test_text_report(env: Environment, data: dict[str, Any], seat: str | None) -> None:
    text = env.get_template("saltntar/templates/report.txt.j2").render(r=a_view(data, seat))
    assert "Wind: wind from the West (7), Wind Speed 2 (moderate breeze)" in text
    assert ("Swallow (yours)" if seat else "Referee's report") in text
    assert "heading 8 Northwest, Beating (BN 5)" in text
    assert "sails reefed" in text
    assert "red ordered: TURN Swallow -1; REEF Swallow." in text
    assert "<b>a & b</b>" in text  # plain text is not escaped
    if seat:
        assert "ORDERS\nTURN Swallow 0\n" in text.replace("\n\n", "\n")
        assert "TURN Swallow 0\n# LUCK Swallow\n" in text.replace("\n\n", "\n")
        assert "Amazon 0" not in text


def test_html_report(env: Environment, data: dict[str, Any]) -> None:
    html = env.get_template("saltntar/templates/report.html.j2").render(r=a_view(data, "blue"))
    assert "&lt;b&gt;a &amp; b&lt;/b&gt;" in html
    assert "<b>a & b</b>" not in html
    assert "Report for <strong>blue</strong>" in html
    assert "TURN Amazon 0" in html
    assert "<td>Swallow</td>" in html
