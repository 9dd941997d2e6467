# SPDX-License-Identifier: GPL-3.0-or-later
"""What an observer reads in each built-in game (issue 33): the opening and each step's public
letter, never a seat's report, map, secret or orders. Duel, WiF and Salt'n'Tar have a public
report (``core.game.Spectated``; Salt'n'Tar's with its map, every ship being in plain sight);
Flat Top and Atlantic Storm, whose reports are a side's own view, give observers the public
events alone, and each of those lines is one that every seat was told too."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlmodel import Session

from mailbot.core.game import Spectated
from mailbot.registry import find_game
from mailbot.services.base.gamedata import load_game_data
from mailbot.services.play import observers
from mailbot.services.play.games import GameSetup
from mailbot.store.game_tables import Game
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import GM

WATCHER = "watcher@elsewhere.test"
GAMES = [
    ("duel", "standard"),
    ("wif-turn-end", "standard"),
    ("salt-n-tar", "race"),
    ("atlantic-storm", "3p"),
    ("flattop", "test-small"),
]


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url, max_missed_share=1.0)  # silent seats play their defaults, no pause
    yield harness
    harness.bot.engine.dispose()


def _address(seat: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", seat.lower()) + "@players.test"


def _started_with_an_observer(h: Harness, plugin: str, scenario: str) -> tuple[int, list[str]]:
    setup = GameSetup(
        plugin=plugin, scenario=scenario, title="Watched", deadline="48h", timezone="UTC",
        gm_address=GM, early=timedelta(minutes=5), reminders=(),
    )  # fmt: skip
    with Session(h.bot.engine) as session, session.begin():
        game = h.bot.games.create(session, setup)
        change = observers.add(session, game, WATCHER, by="gm", now=h.clock.now)
        assert change is observers.Change.ADDED
        h.bot.reports.observers.welcome(session, game, WATCHER)
        game_id = int(game.id or 0)
    seats = list(find_game(plugin).seats(scenario, load_game_data(find_game(plugin).name)))
    for seat in seats:
        h.invite(game_id, seat, _address(seat))
    return game_id, seats


def _section(letter: EmailMessage, title: str) -> list[str]:
    lines, inside = [], False
    for line in text(letter).splitlines():
        if line.startswith("== "):
            inside = line == f"== {title} =="
        elif inside and line.strip():
            lines.append(" ".join(line.split()))
    return lines


def _flat(letters: list[EmailMessage]) -> str:
    return " ".join(" ".join(text(m) for m in letters).split())


@pytest.mark.parametrize(("plugin", "scenario"), GAMES)
def test_an_observer_reads_what_every_seat_is_told_and_nothing_more(
    h: Harness, plugin: str, scenario: str
) -> None:
    game_id, seats = _started_with_an_observer(h, plugin, scenario)
    opening = h.flush()
    opening += h.tick(49 * 3600)  # the first step at its deadline, on every seat's defaults
    watched = to(opening, WATCHER)
    assert len(watched) >= 3, [m["Subject"] for m in watched]  # welcome, the opening, a step
    with Session(h.bot.engine) as session:
        game = session.get_one(Game, game_id)
        secrets = [h.seat(game_id, seat).secret for seat in seats]
        spectated = isinstance(find_game(game.plugin), Spectated)
    for letter in watched:
        assert re.match(rf"\s*\[[A-Z]{{2}}-{game_id}\] Watched: .*\(observer\)$", letter["Subject"])
        said = text(letter)
        assert not any(secret in said for secret in secrets)
        assert "You owe" not in said and "Send: " not in said
    steps = watched[1:]
    maps = [
        part.get_filename()
        for m in steps
        for part in m.iter_attachments()
        if part.get_content_maintype() == "image"
    ]
    assert bool(maps) == (plugin == "salt-n-tar"), maps
    if spectated:
        reports = [m for m in steps if "resolved" in m["Subject"] or "begins" in m["Subject"]]
        assert len(reports) >= 2 and all("bservers" in text(m) for m in reports), [
            m["Subject"] for m in steps
        ]
        return
    # No public report: the public events alone, each one a line every seat was told as well.
    reports = {
        seat: _flat([m for m in to(opening, _address(seat)) if "(observer)" not in m["Subject"]])
        for seat in seats
    }
    told = [line for m in steps for line in _section(m, "What every player was told")]
    assert told
    for line in told:
        if line == "Nothing that every player is told.":
            continue
        # A game may tell an event under a heading of its own (Flat Top: "Initiative last turn:
        # japanese (...)" for the event "Initiative: japanese (...)"): what follows the label counts.
        said = line.partition(": ")[2] or line
        assert all(line in report or said in report for report in reports.values()), line
