# SPDX-License-Identifier: GPL-3.0-or-later
"""A saved Flat Top state is read once: later loads of the same content find the state kept.

What makes that safe is checked here with the real reader: a state read back from its saved
form equals the state that was saved, so handing out the kept one changes nothing.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.state import dump_state, load_state
from mailbot.games.flattop.units import AirFactors, Altitude, Ship, load

from .conftest import load_scenario_data, load_tables
from .play import game_data, new, play

#: states saved by the code of STATE_VERSION 1 (from two demo games played by mail and from hours
#: played in tests: a surface battle, a strike's choice with a submarine attack waiting, survivors
#: offloaded, a tow), each without its raw data: its "config" names the shipped scenario
SAVED = Path(__file__).parent / "data" / "saved-states-v1.json"


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def _saved(data: dict[str, Any], hours: int) -> tuple[FlatTopGame, Any, dict[str, Any]]:
    game = FlatTopGame()
    state = new(data, "coral-sea-demo", clear=False)
    for _ in range(hours):
        state = play(state, {"allied": ["hold"], "japanese": ["deception truthful"]}).state
    return game, state, json.loads(json.dumps(game.dump(state)))


def test_the_real_reader_gives_back_the_state_that_was_saved(data: dict[str, Any]) -> None:
    _, state, saved = _saved(data, 2)
    assert load_state(saved) == state  # equal in every field: the kept state is what reading gives


def test_a_dumped_state_is_found_by_content_without_reading(
    data: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, state, saved = _saved(data, 1)

    def no_reading(_data: object) -> None:
        raise AssertionError("the saved state was read again")

    monkeypatch.setattr("mailbot.games.flattop.game.load_state", no_reading)
    assert game.load(saved) is state  # another dict, same content (as from the database)
    reordered = dict(reversed(list(copy.deepcopy(saved).items())))  # PostgreSQL JSONB orders keys
    assert game.load(reordered) is state


def test_other_content_is_read_and_never_mistaken(data: dict[str, Any]) -> None:
    game, state, saved = _saved(data, 1)
    later = json.loads(json.dumps(dump_state(play(state, {"allied": ["hold"], "japanese": ["hold"]}).state)))
    assert game.load(later).turn == state.turn + 1
    assert game.load(saved) is state
    assert game.load(copy.deepcopy(later)) is game.load(later)  # read once, then found


def test_a_form_no_digest_can_spell_is_read_the_long_way(
    data: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys that are not strings and integers past 64 bits are no saved form (the store keeps
    neither): such data is handed to the reader, never mistaken for a kept state."""
    game, state, saved = _saved(data, 1)
    assert game.load(saved) is state
    read: list[object] = []
    monkeypatch.setattr("mailbot.games.flattop.game.load_state", read.append)
    for odd in ({**saved, 7: "a key that is not a string"}, {**saved, "turn": 2**70}):
        assert game.load(odd) is None  # what the (stand-in) reader gave
    assert len(read) == 2


def _stored() -> dict[str, dict[str, Any]]:
    """Each saved state as the database holds it: the raw data back in its place, keys in order."""
    tables, saved = load_tables(), json.loads(SAVED.read_text("utf-8"))

    def config(scenario: str) -> dict[str, Any]:
        return {"scenario": load_scenario_data(scenario), "tables": tables}

    return {name: {k: config(v) if k == "config" else v for k, v in d.items()} for name, d in saved.items()}


@pytest.mark.parametrize("name", list(json.loads(SAVED.read_text("utf-8"))))
def test_a_state_saved_by_an_earlier_version_loads_and_saves_back_byte_identical(name: str) -> None:
    """Games saved before the state was grouped into sub-records go on: the saved form is unchanged."""
    stored = _stored()[name]
    state = load_state(stored)
    assert json.dumps(dump_state(state)) == json.dumps(stored)
    assert load_state(json.loads(json.dumps(dump_state(state)))) == state


def test_the_saved_states_hold_every_part_of_the_state() -> None:
    """The fixture is worth its size: each stored key is filled in at least one of its states."""
    stored = _stored().values()
    empty: tuple[object, ...] = (None, [], False, "", 0, [0, 0], {"fired": []})
    unfilled = {k for k in next(iter(stored)) if all(s[k] in empty for s in stored)}
    assert unfilled == {"rescuing"}  # a rescue's anchoring ends with its hour: never saved filled


def test_malformed_saved_units_are_game_errors() -> None:
    ship = {"name": "Yorktown", "type": "CV", "gunnery": 1, "aa": 2, "torpedo": 0, "movement": 3, "damage": 9}
    assert load(Ship, ship).name == "Yorktown"
    with pytest.raises(GameError, match="unknown field"):
        load(Ship, {**ship, "colour": "grey"})
    with pytest.raises(GameError, match=r"Ship.gunnery: expected <class 'int'>, got True"):
        load(Ship, {**ship, "gunnery": True})
    with pytest.raises(GameError, match="expected a list"):
        load(Ship, {**ship, "fires": "all of them"})
    stack = load(AirFactors, {"plane": "SBD", "count": 4, "armament": None, "altitude": "high"})
    assert (stack.armament, stack.altitude) == (None, Altitude.HIGH)
