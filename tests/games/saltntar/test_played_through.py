# SPDX-License-Identifier: GPL-3.0-or-later
"""Gale, calm, dismasting, sinking and ramming played through the game (issue 37).

The hand-played games never reached these; here each comes about as it would by mail:
from ``new_game``, turn after turn, by orders and dice only (no state set by hand), and
the letter each seat would read is rendered and checked against seed 001's words.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from mailbot.core.dice import FixedDice
from mailbot.core.game import Outcome, Setup
from mailbot.games.saltntar import SaltNTarGame
from mailbot.games.saltntar.state import State
from tests.games.saltntar.conftest import ROOT, play, race, ship, texts, ways

GAME = SaltNTarGame()
NORTH, EAST, SOUTH = 1, 3, 5
ENV = Environment(
    loader=FileSystemLoader(str(ROOT / "mailbot" / "games")),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def start(data: dict[str, Any], scenario: dict[str, Any], wind: tuple[int, int], **options: Any) -> State:
    """A new game as the moderator opens it: the first Wind Roll (a 3: Wind Speed 2) included,
    the wind then fixed by the scenario's options."""
    seats = tuple(dict.fromkeys(entry["seat"] for entry in scenario["ships"]))
    opts = {"wind_direction": wind[0], "wind_speed": wind[1], **options}
    setup = Setup("test", seats, options=opts, data={**data, "scenarios": {"test": scenario}})
    roll = {1: 2, 2: 3, 3: 5}[wind[1]]  # the Wind Roll that keeps that speed
    state = GAME.new_game(setup, dice=FixedDice(by_label={"wind/T1": [roll]}))
    assert (state.wind.direction, state.wind.speed) == wind
    return state


def letter(outcome: Outcome[State], seat: str) -> str:
    view = GAME.view(outcome.state, outcome.events, seat)
    return ENV.get_template("saltntar/templates/report.txt.j2").render(r=view)


def happened(outcome: Outcome[State], ship_name: str) -> str:
    return next(text for text in texts(outcome, "move") if text.startswith(f"{ship_name}:"))


def cutters(*more: dict[str, Any]) -> dict[str, Any]:
    return race(
        ship("Kite", "a", "cutter", heading=EAST), ship("Tern", "b", "cutter", at=(0, 9), heading=EAST), *more
    )


def test_gale_played_through(data: dict[str, Any]) -> None:
    """Seed 001: "Two or more rolls of a 6: ... increases the overall windspeed by 1 for everyone"
    and "Gale Wind Speed of four or more (4+) ... Ships with their sails still up may sail
    downwind at Wind Speed plus (!) Bearing Number for Running, but have to mark 1 Strain every
    round." Two sixes at WS 3 make a gale: both cutters swing downwind (South) and run at
    WS 4 + Running BN 6 = 10'' (the sixes' own +1 is theirs only: "still have the advantage of
    Wind Speed +1"), marking the six's Strain and the gale's."""
    state = start(data, cutters(), (NORTH, 3))
    rolls = {"luck/T1/a": [6], "luck/T1/b": [6], "strain/T1/Kite": [1], "strain/T1/Tern": [1]}
    outcome = play(state, {"a": ["LUCK", "TURN Kite -1"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert outcome.state.wind.speed == 4
    assert ways(outcome, "Kite") == [("gale", "11")] and ways(outcome, "Tern") == [("gale", "11")]
    kite = outcome.state.ship("Kite")
    assert (kite.heading, kite.strain) == (SOUTH, 2)
    assert "turn -1 lapses" in happened(outcome, "Kite")
    text = letter(outcome, "a")
    assert "Gale: ships with sails up run downwind at Wind Speed + Running BN and mark 1 Strain" in text
    # The next turn: the gale's Strain must be rolled ("Each vessel that has marked Strain must").
    second = play(outcome.state, rolls={"strain/T2/Kite": [2], "strain/T2/Tern": [2]}, next_wind=3)
    assert [event.data["ship"] for event in second.events if event.kind == "strain"] == ["Kite", "Tern"]
    assert second.state.ship("Kite").strain == 3  # 2 + the gale's 1 for this round


def test_calm_played_through(data: dict[str, Any]) -> None:
    """Seed 001: "Two or more rolls of a 1: Sails luff ... cause the wind to reduce by 1 for
    everyone"; at WS 1 that is 0, "Calm no sailing is possible, ships drift. Oared movement ...
    may be possible." The cutter lies still, keeping her inches; the small galley rows 4''
    (ships.toml oars, a design default)."""
    scenario = race(
        ship("Kite", "a", "cutter", heading=EAST), ship("Oars", "b", "small-galley", at=(0, 9), heading=EAST)
    )
    state = start(data, scenario, (NORTH, 1))
    first = play(state, next_wind=2)  # WS 1: the cutter 7'' (2 cells, 1'' over); Wind Roll 2: WS 1
    assert (first.state.ship("Kite").cell, first.state.wind.speed) == ((2, 0), 1)
    rolls = {"luck/T2/a": [1], "luck/T2/b": [1]}
    # the next Wind Roll, a 1, turns the wind and keeps the calm for the letter
    calm = play(first.state, {"a": ["LUCK"], "b": ["LUCK"]}, rolls=rolls, next_wind=1)
    assert ways(calm, "Kite") == [("drift", "0")]
    assert ways(calm, "Oars") == [("row", "4")]
    kite = calm.state.ship("Kite")
    assert (kite.cell, kite.progress, kite.progress_way) == ((2, 0), 1, EAST)  # still 1'' east
    assert "Calm: no sailing is possible" in happened(calm, "Kite")
    assert "rowing 4''" in happened(calm, "Oars")
    assert "Calm: no sailing is possible, ships drift." in letter(calm, "b")


def _strained_cutter(data: dict[str, Any]) -> State:
    """Kite sails into trouble: two-point turns and sixes on her luck die, turn after turn."""
    state = start(data, cutters(), (NORTH, 2))
    one = play(state, {"a": ["TURN Kite +2", "LUCK"]}, rolls={"luck/T1/a": [6], "strain/T1/Kite": [1]})
    assert one.state.ship("Kite").strain == 2  # the six's Strain (rolled at once: 1 + 1, nothing) + turning
    rolls = {"strain/T2/Kite": [3], "luck/T2/a": [6]}
    two = play(one.state, {"a": ["TURN Kite -2", "LUCK"]}, rolls=rolls)
    # the six marks the third point before the roll: 3 + 3 = 6, "spars and stays creak: mark 1
    # extra strain" (4); the two-point turn marks the fifth
    assert two.state.ship("Kite").strain == 5
    return two.state


def test_dismasting_played_through(data: dict[str, Any]) -> None:
    """Seed 001, Strain Roll "11 & a mast breaks, reduce all speed by 3'' or drift"; "Naturally
    one masted ships without a mast can only drift." A cutter has one mast: 6 + 5 = 11 leaves her
    adrift downwind at Wind Speed from that very turn, and the letter says so."""
    state = _strained_cutter(data)
    outcome = play(state, rolls={"strain/T3/Kite": [6]})
    kite = outcome.state.ship("Kite")
    assert (kite.masts, kite.sunk) == (0, False)
    assert (
        "a mast breaks" in texts(outcome, "strain")[0]
        and "dismasted, she can only drift" in texts(outcome, "strain")[0]
    )
    assert ways(outcome, "Kite") == [("drift", "2")]
    assert "dismasted: adrift downwind at Wind Speed, 2''" in happened(outcome, "Kite")
    text = letter(outcome, "a")
    assert "masts 0, sails none (dismasted)" in text


def test_sinking_played_through(data: dict[str, Any]) -> None:
    """Seed 001, "12+ & it's over, ship's sinking in 1d6 turns". Kite, Strain 5, rolls a 6 and a
    six on her luck die marks the sixth point first: 6 + 6 = 12. The 1d6 (2) counts this turn:
    she goes down at the end of the next one, and the race goes on without her."""
    state = _strained_cutter(data)
    rolls = {"luck/T3/a": [6], "strain/T3/Kite": [6], "sinking/T3/Kite": [2]}
    three = play(state, {"a": ["LUCK"]}, rolls=rolls)
    kite = three.state.ship("Kite")
    assert (kite.sinks_after, kite.masts) == (4, 0)
    assert "(design default: Strain 12+ also breaks a mast)" in texts(three, "strain")[0]
    assert "sinking: goes down at the end of turn 4" in letter(three, "b")
    four = play(three.state, rolls={"strain/T4/Kite": [1]})
    assert four.state.ship("Kite").sunk
    assert texts(four, "sunk") == ["Kite (a) goes down."]
    assert not four.finished  # Tern sails on
    assert GAME.step(four.state) is not None and GAME.step(four.state).owing == frozenset({"b"})


def test_ramming_played_through(data: dict[str, Any]) -> None:
    """Seed 001, naval combat step 8: "Roll for ramming, boarding and any kind of other actions
    allowed by the combat system being used." The moderator records RAM in the order of
    initiative and the RESULT the players' combat system gave; the letters of all show both."""
    state = start(data, cutters(), (NORTH, 2), combat=True)
    opening = play(state, rolls={"initiative/T1/a": [2], "initiative/T1/b": [5]}, next_wind=None)
    fire = play(opening.state, next_wind=None)
    close = play(
        fire.state, {"a": ["RAM Kite Tern"], "b": ["RAM Tern Kite", "RESULT Kite rammed, no damage"]}
    )
    assert texts(close, "declaration") == [
        "b: RAM Tern Kite (recorded; the group's combat system resolves it).",
        "a: RAM Kite Tern (recorded; the group's combat system resolves it).",
    ]
    assert texts(close, "result") == ["Result recorded for b: Kite rammed, no damage."]
    for seat in ("a", "b"):
        text = letter(close, seat)
        assert (
            "a: RAM Kite Tern (recorded" in text and "Result recorded for b: Kite rammed, no damage." in text
        )
