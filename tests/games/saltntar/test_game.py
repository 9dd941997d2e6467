# SPDX-License-Identifier: GPL-3.0-or-later
"""The Salt'n'Tar plugin as a whole: registry, steps, whole games, dump/load, view."""

from __future__ import annotations

import json
from typing import Any

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.core.game import EVERYONE, Event, Line, Setup, StepKind
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import State
from mailbot.registry import find_game
from tests.games.saltntar.conftest import new_state, play, race, ship, texts


def test_registered_by_name_with_aliases() -> None:
    assert isinstance(find_game("salt-n-tar"), SaltNTarGame)
    assert {"saltntar", "sailing"} <= set(SaltNTarGame.aliases)
    assert SaltNTarGame.hidden_information is False


def test_seats_come_from_the_scenarios(data: dict[str, Any], game: SaltNTarGame) -> None:
    assert game.seats("race", data) == ("red", "blue")
    assert game.seats("hex-chase", data) == ("merchant", "viking")


def default_race(data: dict[str, Any], **options: Any) -> State:
    """race.toml with the wind the GM set, from the West (7) at Wind Speed 2, for turn 1 (no roll).

    Both cutters head North: two points off downwind (East), Quarter Reaching, 14'' a turn."""
    setup = Setup(
        "race", ("red", "blue"), options={"wind_direction": 7, "wind_speed": 2, **options}, data=data
    )
    return SaltNTarGame().new_game(setup, dice=FixedDice())


def test_new_game_and_first_step(data: dict[str, Any], game: SaltNTarGame) -> None:
    state = default_race(data)
    step = game.step(state)
    assert step is not None
    assert (step.key, step.turn, step.kind, step.owing) == (
        "T1.orders",
        1,
        StepKind.ORDERS,
        frozenset({"red", "blue"}),
    )
    assert "Wind Speed 2" in step.title
    assert (state.wind.direction, state.wind.speed) == (7, 2)
    assert game.default_orders(state, "red") == ()


def test_a_short_race_to_a_winner(data: dict[str, Any], game: SaltNTarGame) -> None:
    """Red takes a luck roll in turn 1 and rolls a 5 ("a fortuitous gust: Wind Speed +1"): 21''
    against Blue's 14''. The finish line is 45'' north (15 cells); Red crosses in turn 3."""
    state = default_race(data)
    first = play(state, {"red": ["LUCK Swallow"], "blue": ["TURN Amazon 0"]}, rolls={"luck/T1/red": [5]})
    assert [ship.cell for ship in first.state.ships] == [(-2, 7), (2, 4)]
    second = play(first.state)
    assert game.step(second.state) is not None
    third = play(second.state)
    assert third.finished
    assert third.result == "Swallow (red) crossed the finish line first in turn 3: red wins the race."
    assert third.state.winners == ("red",)
    assert game.step(third.state) is None
    assert texts(third, "result") == [third.result]
    late = game.parse(third.state, "blue", [Line(1, "TURN Amazon +1")])
    assert late.problems[0].reason == "the game is over"


def test_a_dead_heat(data: dict[str, Any]) -> None:
    state = default_race(data)
    for _ in range(3):
        state = play(state).state
    final = play(state)
    assert final.state.winners == ("red", "blue")
    assert final.result.startswith("Dead heat in turn 4: Swallow (red) and Amazon (blue)")
    # Issue 37: the demo printed "Dead heat" twice in one letter's events.
    said = [text for text in texts(final) if "Dead heat" in text]
    assert said == [final.result]
    # The letter that ends the game closes with the moderator's "The game is over" section: the
    # report itself leaves the result to it; a later STATUS letter (no events) states it.
    view = SaltNTarGame().view(final.state, final.events, "red")
    assert view["result_below"] and not any("Dead heat" in e["text"] for e in view["events"])
    status = SaltNTarGame().view(final.state, (), "red")
    assert not status["result_below"] and status["result"] == final.result
    assert texts(final, "finish") == [
        "Swallow (red) and Amazon (blue) entered the finish line at the same moment, 3/14 of the way"
        " through the move (design default: ships move at the same time)."
    ]


def test_who_crosses_first_is_decided_by_time_not_by_distance(data: dict[str, Any]) -> None:
    """Ann sails 21'' and needs 15'' of it (5/7 of her move); Bea sails 14'' and needs 9'' (9/14)."""
    ships = [ship("Ann", "a", "cutter", at=(0, 0)), ship("Bea", "b", "cutter", at=(3, 2))]
    state = new_state(data, race(*ships, finish={"from": [0, 5], "to": [3, 5]}), wind=(7, 2))
    outcome = play(state, {"a": ["LUCK"]}, rolls={"luck/T1/a": [5]})
    assert outcome.state.winners == ("b",)


def hex_chase(data: dict[str, Any], **options: Any) -> State:
    """hex-chase.toml, the wind from the South (4): both ships head North, Running."""
    opts = {"wind_direction": 4, "wind_speed": 2, **options}
    setup = Setup("hex-chase", ("merchant", "viking"), options=opts, data=data)
    return SaltNTarGame().new_game(setup, dice=FixedDice())


def test_the_chaser_catches_the_quarry(data: dict[str, Any]) -> None:
    """Cog running 8 x 2 = 16'', longship running 11 x 2 = 22'': she closes 6'' a turn."""
    state = hex_chase(data, catch_within=21)
    first = play(state)
    assert not first.finished
    second = play(first.state)
    assert second.finished
    assert second.state.winners == ("viking",)
    assert second.result.startswith("Wavewolf (viking) came within 21'' of Goodwife in turn 2")


def test_the_quarry_escapes_after_n_turns(data: dict[str, Any]) -> None:
    state = hex_chase(data, escape_after=2)
    second = play(play(state).state)
    assert second.finished
    assert second.result == "The quarry is still free after 2 turns: merchant escapes."


def test_dump_and_load_round_trip_through_json(data: dict[str, Any], game: SaltNTarGame) -> None:
    state = default_race(data)
    state.ships[0].strain = 6  # her Strain Roll of 6 makes 12: sinking
    state = play(
        state, {"red": ["REEF Swallow"]}, rolls={"strain/T1/Swallow": [6], "sinking/T1/Swallow": [4]}
    ).state
    dumped = game.dump(state)
    loaded = game.load(json.loads(json.dumps(dumped)))
    assert game.dump(loaded) == dumped
    assert loaded.ships[0].sinks_after == 4
    assert loaded.ships[1].progress == 2
    # The loaded state plays on exactly as the original.
    a = play(state, {"blue": ["LUCK"]}, rolls={"luck/T2/blue": [2], "strain/T2/Swallow": [1]})
    b = play(loaded, {"blue": ["LUCK"]}, rolls={"luck/T2/blue": [2], "strain/T2/Swallow": [1]})
    assert game.dump(a.state) == game.dump(b.state)
    assert [e.text for e in a.events] == [e.text for e in b.events]


def test_new_games_from_the_shipped_scenarios_with_real_dice(
    data: dict[str, Any], game: SaltNTarGame
) -> None:
    for scenario in ("race", "hex-chase"):
        seats = game.seats(scenario, data)
        made = [
            game.new_game(Setup(scenario, seats, data=data), dice=DiceStream(b"k" * 32, "", "new"))
            for _ in "ab"
        ]
        assert game.dump(made[0]) == game.dump(made[1])
        step = game.step(made[0])
        assert step is not None
        orders = {seat: game.parse(made[0], seat, [Line(1, "LUCK")]).orders for seat in seats}
        outcome = game.resolve(made[0], orders, dice=DiceStream(b"k" * 32, "", step.key))
        assert outcome.state.turn == 2
        assert made[0].turn == 1  # resolve never changes the state it was given


def test_view_for_a_seat(data: dict[str, Any], game: SaltNTarGame) -> None:
    state = default_race(data)
    outcome = play(state, {"red": ["TURN Swallow -1"]})
    secret = Event("note", "for blue only", audience=frozenset({"blue"}))
    events = (*outcome.events, secret)
    view = game.view(outcome.state, events, "red")
    assert view["seat"] == "red"
    assert view["turn"] == 2
    assert [s["name"] for s in view["ships"] if s["mine"]] == ["Swallow"]
    swallow = view["ships"][0]
    assert (swallow["heading_name"], swallow["bearing"], swallow["speed"]) == ("Northwest", "Beating", "10")
    assert "for blue only" not in [e["text"] for e in view["events"]]
    assert "for blue only" in [e["text"] for e in game.view(outcome.state, events, None)["events"]]
    assert view["orders"][0] == "TURN Swallow 0"
    assert "# LUCK Swallow" in view["orders"]
    assert all(event.audience == EVERYONE for event in outcome.events)
    help_lines = game.order_help(outcome.state, "red")
    assert help_lines[-len(view["orders"]) :] == view["orders"]
    assert any("TURN <ship> +2 | -2" in line for line in help_lines)
    assert all(game.parse(outcome.state, "red", [Line(1, line)]).problems == () for line in view["orders"])


def test_orders_are_revealed_to_all_at_resolution(data: dict[str, Any]) -> None:
    outcome = play(default_race(data), {"red": ["TURN Swallow +1"]})
    assert texts(outcome, "orders") == [
        "red ordered: TURN Swallow +1.",
        "blue sent no orders (design default: a silent side holds course).",
    ]
