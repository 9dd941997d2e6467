# SPDX-License-Identifier: GPL-3.0-or-later
"""The scripted Flat Top player of the by-mail demo: its orders parse and the sides find each other."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Line, Setup
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.demo import flattop_orders, read_report
from mailbot.games.flattop.map.hexes import parse_hex_id

from .conftest import load_scenario_data, load_tables

GAME = FlatTopGame()
ROOT = Path(__file__).resolve().parents[3]
SEED = b"demo".ljust(32, b"-")
ENV = Environment(
    loader=FileSystemLoader(str(ROOT / "mailbot" / "games")),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def test_three_scripted_turns_parse_cleanly_and_give_contacts() -> None:
    data = {"tables": load_tables(), "scenarios": {"coral-sea-demo": load_scenario_data("coral-sea-demo")}}
    state = GAME.new_game(
        Setup("coral-sea-demo", ("allied", "japanese"), data=data), dice=DiceStream(SEED, "", "s")
    )
    events: tuple[Event, ...] = ()
    for turn in (1, 2, 3):
        step = GAME.step(state)
        assert step is not None
        parsed = {}
        for seat in ("allied", "japanese"):
            report = ENV.get_template("flattop/templates/report.txt.j2").render(
                r=GAME.view(state, events, seat)
            )
            texts = flattop_orders(seat, step.key, report, turn)
            parsed[seat] = GAME.parse(state, seat, [Line(i + 1, t) for i, t in enumerate(texts)])
            assert parsed[seat].problems == (), parsed[seat].problems
            assert list(parsed[seat].normalised) == texts  # the script writes the normalised syntax
            assert any(t.startswith("SEARCH") for t in texts) or turn == 3
        digest = order_digest({seat: list(p.normalised) for seat, p in parsed.items()})
        outcome = GAME.resolve(
            state, {s: p.orders for s, p in parsed.items()}, dice=DiceStream(SEED, digest, step.key)
        )
        state, events = outcome.state, outcome.events
    views = {seat: GAME.view(state, events, seat) for seat in ("allied", "japanese")}
    assert any(f["contacts"] for v in views.values() for f in v["forces"])
    assert views["allied"] != views["japanese"]


def test_the_report_reader_finds_own_units_and_storms() -> None:
    text = "Storms: VI-H33 VI-H34\n  TF1 at VI-N36, speed 2, plot HOLD\n"
    text += "  AF2 at VII-E34, low, 2 Dauntless (GP), MF 9, range left 4 turn(s), from TF1\n"
    text += "  D1 0700 VII-E34 ships condition 3 by aircraft: TF: 2 carrier\n"
    report = read_report(text)
    assert report.tfs == {1: parse_hex_id("VI-N36")}
    assert report.air == {2: (parse_hex_id("VII-E34"), 9, 4)}
    assert report.ships == [parse_hex_id("VII-E34")] and len(report.storms) == 2


def test_other_steps_and_seats_hold() -> None:
    assert flattop_orders("referee", "T1.orders", "", 1) == ["HOLD"]
