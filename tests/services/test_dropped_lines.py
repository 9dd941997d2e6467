# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter with refused lines does not make its seat "in" (issue 36, item 10): the reply says
which lines were dropped, when the step runs and how to CONFIRM or correct; the report lists
them again, to that seat alone. Games by mail on both stores, on the harness clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mailbot.store.game_tables import StepState
from tests.services.game_helpers import Harness, text, to
from tests.services.test_games_by_mail import NORTH, SOUTH, _started


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _open(h: Harness, game_id: int) -> list[str]:
    return [s.key for s in h.steps(game_id) if s.state is StepState.OPEN]


def test_orders_with_a_refused_line_hold_early_processing_until_confirmed(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    (reply,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nCHARGE 9\nEND\n"), NORTH)
    said = text(reply)
    assert "some lines dropped" in said and "CHARGE 9" in said
    assert "not run early on your account" in said and "Send CONFIRM" in said
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    assert h.tick(600) == []  # every seat sent, but north's letter had a refused line
    assert _open(h, game_id) == ["T1.orders"]
    (confirmed,) = to(h.mail(NORTH, f"{north_tag} as is", "CONFIRM\n"), NORTH)
    assert "used as they stand" in text(confirmed) and "CHARGE 9" in text(confirmed)
    assert h.tick(60) == []  # the correction delay starts again at the CONFIRM
    reports = h.tick(300)
    assert _open(h, game_id) == ["T1.bid"]
    (north_report,), (south_report,) = to(reports, NORTH), to(reports, SOUTH)
    assert "Lines dropped from your orders" in text(north_report) and "CHARGE 9" in text(north_report)
    assert "CHARGE" not in text(south_report) and "dropped" not in text(south_report)


def test_corrected_orders_count_at_once(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nCHARGE 9\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    (reply,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n"), NORTH)
    assert "some lines dropped" not in text(reply)
    assert h.tick(301) != [] and _open(h, game_id) == ["T1.bid"]


def test_the_deadline_runs_the_step_on_the_orders_that_stand(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nCHARGE 9\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    reports = h.tick(48 * 3600)
    assert _open(h, game_id) == ["T1.bid"]
    (north_report,) = to(reports, NORTH)
    assert "You sent no orders" not in text(north_report) and "CHARGE 9" in text(north_report)


def test_confirm_with_nothing_to_confirm_says_so(h: Harness) -> None:
    _game_id, north_tag, _south_tag = _started(h)
    (reply,) = to(h.mail(NORTH, f"{north_tag} confirm", "CONFIRM\n"), NORTH)
    assert "nothing to confirm" in text(reply)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    (again,) = to(h.mail(NORTH, f"{north_tag} confirm", "CONFIRM\n"), NORTH)
    assert "already count as they stand" in text(again)


def test_the_gm_hears_who_holds_early_processing_back(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nCHARGE 9\nEND\n")
    (status,) = to(h.mail(SOUTH, f"{south_tag} status", "STATUS\n"), SOUTH)
    assert "north" not in text(status).split("Early processing")[1].splitlines()[0]
    del game_id
