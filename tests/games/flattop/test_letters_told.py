# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 32: what a Flat Top letter must tell, from turns resolved by the engine and rendered.

A search path the weather cuts short says why; a defender whose AA downed nothing is told so;
HELP gives the whole order grammar the hour's letters only point to.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mailbot.core.dice import DiceStream, order_digest
from mailbot.games.flattop.map.weather import Cloud
from mailbot.games.flattop.view import GRAMMAR_POINTER, SYNTAX
from mailbot.games.flattop.view_news import AA_NOTHING, ENEMY_STRIKE
from mailbot.registry import Registry, builtin_modules
from mailbot.render.templates import wrap72
from mailbot.testing import contract
from tests.played import played

from .play import GAME, game_data, new, parse

REGISTRY = Registry(builtin_modules())
PACKAGE = REGISTRY.find("flattop")
ENV = contract.report_env(REGISTRY)


def letter(view: Any) -> str:
    return " ".join(wrap72(contract.render_report(ENV, PACKAGE, view, "txt")).split())


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def test_a_search_path_cut_short_by_a_storm_says_why(data: dict[str, Any]) -> None:
    """The orders are checked against last hour's sky; a storm that lies on the path when the
    searcher flies cuts it short (standard 6.6), and the letter names the reason."""
    state = new(data)
    orders = {
        "allied": parse(state, "allied", "search af1 from tf1 1 wildcat path v-e25 v-e24 v-d24"),
        "japanese": parse(state, "japanese", "hold"),
    }
    assert all(p.problems == () for p in orders.values())
    storm = state.scenario.map.parse("V-D24")
    assert storm is not None
    clouds = tuple(Cloud(n, storm, 5) for n in (1, 2))  # two markers on one hex: a storm (6.5)
    stormy = replace(state, weather=replace(state.weather, clouds=clouds))
    digest = order_digest({seat: list(p.normalised) for seat, p in orders.items()})
    out = GAME.resolve(
        stormy, {s: p.orders for s, p in orders.items()}, dice=DiceStream(b"s" * 32, digest, "T1.orders")
    )
    text = letter(GAME.view(out.state, out.events, "allied"))
    assert "AF1 searched" in text
    assert "(path cut short: " in text and "is a storm hex (standard 6.6)" in text, text


def test_a_defender_whose_aa_downed_nothing_is_told_so() -> None:
    """A strike of the demo game resolved again with other dice until the defender's AA downs no
    plane: the defender's letter says so instead of leaving the AA out."""
    record = next(r for r in played("flattop").steps if r.step.key.endswith(".strike"))
    state = GAME.load(record.before)
    orders = {
        seat: GAME.parse(state, seat, contract.numbered(lines)).orders
        for seat, lines in record.orders.items()
    }
    digest = order_digest(record.orders)
    for n in range(60):
        out = GAME.resolve(state, orders, dice=DiceStream(bytes([n]) * 32, digest, record.step.key))
        told = [e for e in out.events if e.kind == "ft.strike" and e.text.startswith(ENEMY_STRIKE)]
        if told and all("Your AA shot down " not in e.text for e in told):
            (seat,) = told[0].audience
            assert " ".join(AA_NOTHING.split()) in letter(GAME.view(out.state, out.events, seat))
            return
    pytest.fail("no dice of 60 left the AA without a kill")


def test_help_gives_the_whole_grammar_and_the_hours_letters_point_to_it(data: dict[str, Any]) -> None:
    state = new(data)
    assert list(SYNTAX) == GAME.order_help(state, "allied")[: len(SYNTAX)]
    out = GAME.resolve(
        state, {"allied": [], "japanese": []}, dice=DiceStream(b"h" * 32, order_digest({}), "T1.orders")
    )
    later = letter(GAME.view(out.state, out.events, "allied"))
    assert SYNTAX[2].strip() not in later and " ".join(GRAMMAR_POINTER[0].split()) in later
    first = letter(GAME.view(state, (), "allied"))
    assert all(" ".join(line.split()) in first for line in SYNTAX)
