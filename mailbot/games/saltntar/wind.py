# SPDX-License-Identifier: GPL-3.0-or-later
"""The Wind Roll and the Luck Rolls (seed 001, "Playing the Game").

How personal and shared luck combine (the seed explains it only for sixes):

* A luck die is rolled for one ship, or for every ship of the side
  (``LUCK`` without a ship), and its Wind Speed change applies to those ships
  for this turn only: "Wind Changes due to Luck Rolls usually only apply to
  the ship the die was rolled for."
* When two or more sides roll the same face listed under ``luck.shared``, the
  overall Wind Speed changes for everyone ("increases the overall windspeed
  by 1"). That change lasts like any other overall Wind Speed, until a Wind
  Roll of 2-5 sets a new one; this is how the seed's "cumulation of luck
  rolls" reaches Calm or Storm.
* The sides that rolled that face get no more than their printed result: the
  shared change is part of it. Two sixes: everybody +1 overall, the sixes +1
  more personally, so "those who rolled a six still have the advantage of
  Wind Speed +1 compared to those who didn't roll a 6". Two ones, by the same
  rule: everybody -1, the ones nothing more.
* The Strain of a six is marked whatever the others rolled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from mailbot.core.dice import Dice
from mailbot.core.game import Event
from mailbot.games.saltntar.state import State
from mailbot.games.saltntar.tables import SharedLuck, find_row

WIND_RULE = "Salt'n'Tar: The Wind Roll"
LUCK_RULE = "Salt'n'Tar: The Luck Roll"


def wind_text(state: State) -> str:
    grid, wind = state.grid, state.wind
    name = state.rules.wind_name(wind.speed)
    return f"wind from the {grid.name(wind.direction)} ({wind.direction}), Wind Speed {wind.speed} ({name})"


def wind_roll(state: State, dice: Dice) -> Event:
    """Step 1 of every game turn: "a d6 to determine wind speed and possible change in wind direction"."""
    roll = dice.roll(f"wind/T{state.turn}", 6, rule=WIND_RULE)
    row = find_row(state.rules.wind_roll, roll.total, "wind roll")
    if row.effect == "clockwise":
        state.wind.direction = state.grid.rotate(state.wind.direction, 1)
    elif row.effect == "counter-clockwise":
        state.wind.direction = state.grid.rotate(state.wind.direction, -1)
    else:
        state.wind.speed = row.speed
    state.wind.note = f"Wind Roll {roll.total}: {row.text}"
    text = f"Turn {state.turn}: {state.wind.note}; {wind_text(state)}."
    data = {"roll": roll.total, "direction": state.wind.direction, "speed": state.wind.speed}
    return Event("wind", text, data=data)


def _shared(state: State, faces: Mapping[str, int]) -> list[SharedLuck]:
    counts = Counter(faces.values())
    return [rule for rule in state.rules.shared_luck if counts[rule.face] >= rule.at_least]


def _apply_shared(state: State, rules: Sequence[SharedLuck]) -> list[Event]:
    events = []
    for rule in rules:
        # The overall Wind Speed never drops below Calm.
        state.wind.speed = max(0, state.wind.speed + rule.overall)
        text = f"Shared luck: {rule.text}. The overall Wind Speed is now {state.wind.speed}"
        text += f" ({state.rules.cite('shared_luck')})."
        events.append(Event("luck-shared", text, data={"face": rule.face, "overall": rule.overall}))
    return events


def _apply_luck(
    state: State, seat: str, face: int, ships: Sequence[str], shared: Sequence[SharedLuck]
) -> tuple[int, Event]:
    """One side's result: marks its Strain; returns the personal Wind Speed change and the event."""
    row = find_row(state.rules.luck, face, "luck")
    # The shared part of a result is already in the overall wind (module docstring).
    own = row.wind - sum(rule.overall for rule in shared if rule.face == face)
    for name in ships:
        state.ship(name).strain += row.strain
    names = ", ".join(ships)
    text = f"Luck Roll for {names} ({seat}): {face}, {row.text}."
    if own != row.wind:
        text += f" Shared by two or more sides: {names} keeps {own:+d} on top of the overall change."
    return own, Event("luck", text, data={"seat": seat, "face": face, "ships": list(ships)})


def luck_rolls(
    state: State, requests: Mapping[str, Sequence[str]], dice: Dice
) -> tuple[dict[str, int], list[Event]]:
    """Roll each requesting side's die; returns each ship's personal Wind Speed change and the events.

    ``requests`` maps a seat to the ships its die was rolled for.
    """
    faces = {
        seat: dice.roll(f"luck/T{state.turn}/{seat}", 6, rule=LUCK_RULE).total
        for seat in state.seats
        if seat in requests
    }
    shared = _shared(state, faces)
    events: list[Event] = []
    personal: dict[str, int] = {}
    for seat, face in faces.items():
        own, event = _apply_luck(state, seat, face, requests[seat], shared)
        personal |= {name: personal.get(name, 0) + own for name in requests[seat]}
        events.append(event)
    return personal, events + _apply_shared(state, shared)


def ship_wind(state: State, personal: Mapping[str, int], name: str) -> int:
    """The Wind Speed one ship sails with this turn (never below Calm)."""
    return max(0, state.wind.speed + personal.get(name, 0))
