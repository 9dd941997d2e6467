# SPDX-License-Identifier: GPL-3.0-or-later
"""``WAKE``: a side asks for letters in night hours the game would play without mail.

Night hours after the first are played on standing orders, with no letters
(``quiet.py``: "a night hour after a night hour", decided by the clock alone so
that a letter's timing tells nobody anything). A side that wants to act in the
night (a night strike timed for 0300, a TF to turn at 0200) asks for letters
then::

    WAKE 0300 0500     letters at 0300 and at 0500 (the next such hours)
    WAKE ALL           letters every hour of the coming night
    WAKE NONE          no more night letters (the earlier requests are dropped)

A letter's WAKE replaces the side's requests for the hours to come. Asking is
seen, as it would be face to face where every hour is played by both players:
that hour is played with letters for BOTH sides (waking one side only would
make the other wait for its round of mail, which tells the same), and both are
told that a side asked for it, not which one nor why. Hours that have a letter
anyway (day, the first night hour, dawn) are refused by name, so a WAKE never
silently does nothing.
"""

from __future__ import annotations

import re

from mailbot.core.game import ProblemKind
from mailbot.games.flattop.map.scenario import GameTime, Scenario
from mailbot.games.flattop.orders.checks import OrderError, Own, illegal
from mailbot.games.flattop.orders.types import Wake

HELP = "WAKE reads WAKE <hour> ... (e.g. WAKE 0300 0500), WAKE ALL or WAKE NONE"
_HOUR = re.compile(r"^(\d{1,2})(?:00)?$")
#: how far ahead a WAKE hour is looked for: the next day at most
AHEAD = 24


def night_after_night(scenario: Scenario, turn: int) -> bool:
    """Turn ``turn`` is a night hour after a night hour: played without mail unless woken."""
    if turn <= 1:
        return False
    hour = scenario.start.plus(turn - 1)
    return scenario.is_night(hour) and scenario.is_night(scenario.start.plus(turn - 2))


def clock(time: GameTime) -> str:
    """An hour as a letter writes it: 0300; the day's last turn is 2400 (reference A.2)."""
    return f"{time.hour:02d}00"


def read_wake(own: Own, words: list[str]) -> Wake:
    if words == ["NONE"]:
        return Wake((), "NONE")
    if words == ["ALL"]:
        return Wake(_coming_night(own), "ALL")
    if not words:
        raise OrderError(ProblemKind.INVALID, HELP)
    turns = sorted({_next_turn(own, word) for word in words})
    return Wake(tuple(turns), " ".join(clock(own.scenario.start.plus(t - 1)) for t in turns))


def _next_turn(own: Own, word: str) -> int:
    match = _HOUR.match(word)
    hour = int(match[1]) if match else -1
    if not 0 <= hour <= 24:
        raise OrderError(ProblemKind.INVALID, f"{word!r} is not an hour like 0300: {HELP}")
    hour = hour or 24  # 0000 is the day's last turn, 2400 (reference A.2)
    start = own.scenario.start
    turn = next(t for t in range(own.turn + 1, own.turn + AHEAD + 1) if start.plus(t - 1).hour == hour)
    if turn > _last_turn(own):
        raise illegal(f"WAKE {word}: the game ends before then")
    if not night_after_night(own.scenario, turn):
        raise illegal(f"WAKE {word}: there is a letter at {clock(start.plus(turn - 1))} anyway")
    return turn


def _last_turn(own: Own) -> int:
    return own.scenario.end.turns_since(own.scenario.start) + 1


def _coming_night(own: Own) -> tuple[int, ...]:
    """The quiet hours of the coming night: the next run of night-after-night turns."""
    turns: list[int] = []
    for t in range(own.turn + 1, min(own.turn + AHEAD, _last_turn(own)) + 1):
        if night_after_night(own.scenario, t):
            turns.append(t)
        elif turns:
            break
    if not turns:
        raise illegal("WAKE ALL: no night hour without letters is coming")
    return tuple(turns)
