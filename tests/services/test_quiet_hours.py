# SPDX-License-Identifier: GPL-3.0-or-later
"""Quiet steps played without mail (``core.lifecycle``, "Quiet steps"; ``services.turns``).

Flat Top by mail through the whole moderator: the night hours after nightfall are played at
once on standing orders and reported in one combined letter; the option turns it off, the cap
bounds a run; and the timing of letters reveals nothing: a side gets its letters at the same
hours whatever the other side does at night.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.core import lifecycle
from mailbot.render.maps import painting
from mailbot.services.base.tags import tag
from mailbot.services.play import report_maps
from mailbot.services.play.games import GameSetup
from mailbot.store.game_tables import OrderSet, Report, Seat, StepState
from tests.services.game_helpers import Harness, to
from tests.services.helpers import GM

ALLIED, JAPANESE = "allied@players.test", "japanese@players.test"
ADDRESSES = {"allied": ALLIED, "japanese": JAPANESE}
#: D1 0500 .. D2 0600: a day, its nightfall, a night and dawn (test-small, night 1900-0500)
HOURS = 26
Orders = Callable[[str, int], list[str]]
#: a Flat Top report's subject: its hour first (``[FL-1 abc] T22 0200 D2: orders due ...``)
REPORT = re.compile(r"\] T\d+ \d{4} D\d+")
DUE = re.compile(r"due \w{3} \d+ \w{3} \d\d:\d\d")


def hold(seat: str, turn: int) -> list[str]:
    return ["HOLD"]


def night_raid(seat: str, turn: int) -> list[str]:
    """The Japanese launch at nightfall and plot their TF hours ahead; the Allies only HOLD."""
    if seat == "japanese" and turn == 15:
        return ["SEARCH AF2 FROM TF1 1 Zero PATH I-G18", "PLOT TF1 I-H17 / I-G17 / I-H17"]
    return ["HOLD"]


@pytest.fixture(scope="module", autouse=True)
def _no_map_pictures() -> Iterator[None]:
    """These tests read when letters go and what their subjects and texts say, never a map: the
    pictures are left out. The module took 12.4-13.0 s of CPU so, against 10.0-16.3 s with them
    (three runs each; every game's set-up dice differ). Maps by mail have tests of their own
    (``tests/render``, ``tests/e2e/test_map_process.py``, ``tests/e2e/test_flattop_letters.py``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(painting, "paint", lambda _game, _view: None)
        patch.setattr(report_maps, "paint", lambda _game, _view: None)
        yield


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/q.db")
    yield harness
    harness.bot.engine.dispose()


def start(h: Harness, **options: object) -> int:
    setup = GameSetup(
        plugin="flattop",
        scenario="test-small",
        title="Quiet nights",
        deadline="48h",
        timezone="Europe/Berlin",
        gm_address=GM,
        options=dict(options),
        early=timedelta(minutes=5),
        reminders=(),
    )
    with Session(h.bot.engine) as session, session.begin():
        game_id = int(h.bot.games.create(session, setup).id or 0)
    for seat, address in ADDRESSES.items():
        h.invite(game_id, seat, address)
    h.flush()
    return game_id


def play(h: Harness, game_id: int, orders: Orders, hours: int = HOURS) -> dict[str, list[str]]:
    """Both sides answer every step they are asked for until ``hours`` are resolved.

    Returns, per seat, the subjects of the reports it was sent, in order."""
    subjects: dict[str, list[str]] = {seat: [] for seat in ADDRESSES}
    while True:
        step = h.steps(game_id)[-1]
        if step.state is not StepState.OPEN or step.turn > hours:
            break
        prefix = f"[{tag(h.game(game_id))}"
        for seat, address in ADDRESSES.items():
            secret = h.seat(game_id, seat).secret
            body = "\n".join([f"ORDERS {step.key}", *orders(seat, step.turn), "END"]) + "\n"
            h.mail(address, f"{prefix} {secret}] orders", body)
        for seat, address in ADDRESSES.items():
            for letter in to(h.tick(600), address):
                if REPORT.search(letter["Subject"]):
                    subjects[seat].append(letter["Subject"])
    return subjects


@dataclass(frozen=True)
class Played:
    h: Harness
    game_id: int
    subjects: dict[str, list[str]]  # the reports' subjects, per seat


@pytest.fixture(scope="module")
def calm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """A game of the default options in which both sides HOLD every hour, played once for the
    tests that only read it: Flat Top's hours take seconds of CPU."""
    harness = Harness(f"sqlite:///{tmp_path_factory.mktemp('calm')}/q.db")
    try:
        game_id = start(harness)
        yield Played(harness, game_id, play(harness, game_id, hold))
    finally:
        harness.bot.engine.dispose()


def report_keys(h: Harness, game_id: int, seat: str) -> list[str]:
    with Session(h.bot.engine) as session:
        query = select(Report).where(Report.game_id == game_id, Report.seat == seat).order_by(col(Report.id))
        return [r.step_key for r in session.exec(query)]


def test_night_hours_are_played_without_mail_and_reported_together(calm: Played) -> None:
    h, game_id = calm.h, calm.game_id
    keys = report_keys(h, game_id, "allied")
    resolved = [s for s in h.steps(game_id) if s.state is StepState.RESOLVED and s.turn > 0]
    assert len(resolved) >= HOURS
    # Default cap 6: 2000 .. 0100 quiet, a letter at 0200, 0300 .. 0500 quiet, dawn at 0600.
    quiet = {f"T{n}.orders" for n in (*range(16, 22), 23, 24, 25)}
    assert quiet.isdisjoint(keys)
    assert {"T15.orders", "T22.orders"} <= set(keys)
    assert len(keys) - 1 < HOURS  # fewer letters (the opening one too) than game hours
    with Session(h.bot.engine) as session:
        combined = session.exec(
            select(Report).where(Report.game_id == game_id, Report.step_key == "T15.orders")
        ).first()
        seats = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
    assert combined is not None
    # The subject names the hour now owed (issue 32); the letter tells the six quiet hours.
    assert combined.subject.startswith("T22 0200 D2: orders due ")
    assert "Played without mail" in combined.text and "Turn 21 (0100, day 2)" in combined.text
    assert "Turn 16 (2000, day 1): Initiative" in combined.text  # each hour's events, titled
    assert all(seat.missed_in_row == 0 for seat in seats)  # standing orders are no miss


def test_quiet_hours_can_be_turned_off(h: Harness) -> None:
    game_id = start(h, quiet_hours="off")
    play(h, game_id, hold, hours=18)
    keys = report_keys(h, game_id, "allied")
    assert {f"T{n}.orders" for n in range(1, 18)} <= set(keys)


def test_the_cap_bounds_a_quiet_run(h: Harness) -> None:
    game_id = start(h, quiet_max=2)
    play(h, game_id, hold, hours=22)
    keys = set(report_keys(h, game_id, "allied"))
    assert {"T15.orders", "T18.orders", "T21.orders"} <= keys
    assert keys.isdisjoint({"T16.orders", "T17.orders", "T19.orders", "T20.orders"})


def test_letter_timing_reveals_nothing_the_side_has_not_observed(calm: Played, tmp_path: Path) -> None:
    """Two worlds that differ only in what the Japanese do at night (a launch, a plot running
    hours ahead): the Allies get their letters at the same hours, with the same subjects."""
    h = Harness(f"sqlite:///{tmp_path}/raid.db")
    try:
        game_id = start(h)
        raid = Played(h, game_id, play(h, game_id, night_raid))
        with Session(h.bot.engine) as session:
            held = session.exec(select(OrderSet).where(OrderSet.seat == "japanese")).all()
        sent = [line for row in held for line in row.lines]
        # The worlds do differ (the search may be refused when the set-up weather puts a storm on
        # its path; the plot running hours ahead always stands).
        assert "PLOT TF1 I-H17 / I-G17 / I-H17" in sent
        # the raiding side's own timing is the calm world's too
        assert report_keys(h, game_id, "japanese") == report_keys(calm.h, calm.game_id, "allied")
        assert _allied_timing(raid) == _allied_timing(calm)
    finally:
        h.bot.engine.dispose()


def _allied_timing(world: Played) -> tuple[list[str], list[str]]:
    """The Allies' reports, by step, and their subjects. The deadline in a subject is left out: it
    is the one every letter's "Now open" gives (when the step before closed: a letter held back
    for CONFIRM can delay that)."""
    subjects = [DUE.sub("due <deadline>", s.split("] ", 1)[1]) for s in world.subjects["allied"]]
    return report_keys(world.h, world.game_id, "allied"), subjects


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, lifecycle.Quiet(True, lifecycle.QUIET_MAX)),
        ({"quiet_hours": False}, lifecycle.Quiet(False, lifecycle.QUIET_MAX)),
        ({"quiet_hours": "off", "quiet_max": "3"}, lifecycle.Quiet(False, 3)),
        ({"quiet_hours": "yes", "quiet_max": 0}, lifecycle.Quiet(True, 0)),
        ({"quiet_hours": "maybe", "quiet_max": -1}, lifecycle.Quiet(True, lifecycle.QUIET_MAX)),
        ({"quiet_max": True}, lifecycle.Quiet(True, lifecycle.QUIET_MAX)),
    ],
)
def test_quiet_settings_are_read_from_the_game_options(options: dict[str, object], expected: object) -> None:
    assert lifecycle.quiet_settings(options) == expected


def test_play_quietly_needs_the_game_the_option_and_room_under_the_cap() -> None:
    on = lifecycle.Quiet(True, 2)
    assert lifecycle.play_quietly(True, 0, on) and lifecycle.play_quietly(True, 1, on)
    assert not lifecycle.play_quietly(True, 2, on)  # the cap: a letter now
    assert not lifecycle.play_quietly(False, 0, on)  # the game says something is due
    assert not lifecycle.play_quietly(True, 0, lifecycle.Quiet(False, 2))  # the option is off


def test_stored_reports_keep_no_seat_secret_in_their_subject(calm: Played) -> None:
    """Issue 18: "stored report subjects carry each seat's secret": the letter's subject has the
    seat's [XX-n secret] tag (it proves the reply); the report row kept for the archive has not."""
    h, game_id = calm.h, calm.game_id
    with Session(h.bot.engine) as session:
        rows = list(session.exec(select(Report).where(Report.game_id == game_id)))
        secrets = {s.secret for s in session.exec(select(Seat).where(Seat.game_id == game_id))}
    assert rows and all(not any(secret in r.subject for secret in secrets) for r in rows)
