# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 19: the made-up card list is marked in every letter; the demo plays the whole timeline."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import jinja2

from mailbot.core.dice import DiceStream
from mailbot.core.game import Setup
from mailbot.games.atlantic_storm import AtlanticStormGame
from mailbot.games.atlantic_storm.demo import DEMO

ROOT = Path(__file__).resolve().parents[3]
GAME = AtlanticStormGame()


def _deck() -> dict[str, Any]:
    with (ROOT / "mailbot/games/atlantic_storm/data/decks.toml").open("rb") as handle:
        return tomllib.load(handle) | {"defaults": _defaults()}


def _defaults() -> dict[str, Any]:
    with (ROOT / "mailbot/games/atlantic_storm/data/defaults.toml").open("rb") as handle:
        return tomllib.load(handle)


def _keys(state: Any) -> list[str]:
    return [entry.key for entry in state.defaults]


ALL_KEYS = [
    "deck",
    "below_three",
    "odd_half",
    "hands_kept",
    "played_discarded",
    "reshuffle",
    "deal",
    "silence",
]


def _render(view: Any, name: str) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
    )
    return env.get_template(f"atlantic_storm/templates/{name}").render(r=view)


def _new(data: dict[str, Any]) -> Any:
    return GAME.new_game(Setup("2p", ("P1", "P2"), {}, data), dice=DiceStream(b"s", "0" * 64, "setup"))


def test_the_shipped_deck_is_marked_a_design_default_in_every_letter() -> None:
    state = _new(_deck())
    assert _keys(state) == ALL_KEYS
    for seat in ("P1", "P2", None):
        view = GAME.view(state, (), seat)
        for name in ("report.txt.j2", "report.html.j2"):
            rendered = _render(view, name)
            assert "Design defaults in this game (not in seed 000)" in rendered
            assert "made-up" in rendered


def test_a_real_deck_without_the_default_mark_is_not_called_made_up() -> None:
    data = _deck()
    data.pop("default")
    state = _new(data)
    assert _keys(state) == ALL_KEYS[1:]
    assert GAME.load(GAME.dump(state)).defaults == state.defaults


def test_generated_ids_are_a_default_too() -> None:
    assert "deck" in _keys(_new({"defaults": _defaults()}))


def test_the_demo_plays_to_the_end() -> None:
    assert DEMO.stop_after is None
