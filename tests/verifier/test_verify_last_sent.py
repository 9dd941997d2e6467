# SPDX-License-Identifier: GPL-3.0-or-later
"""verify.py holds the moderator to each seat's LAST orders and seal (issue 31, items 2 and 6).

A moderator who flips which stored order set (or sealed value) is current makes the bot resolve
a seat's first orders or open its first seal instead of the replacement; the archive he exports
then holds that first version, with its own salt, and each of those was logged once. verify must
take the last one logged before the step resolved, and must find every logged seal opened.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.store.game_tables import OrderSet, StepRow
from tests.services.game_helpers import Harness
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.verifier.test_verify_tampering import (
    Data,
    _export,
    _run,
    _summary_counts_every_problem,
    play_duel,
)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/v.db")
    yield harness
    harness.bot.engine.dispose()


def _first_made_current(h: Harness, step: StepRow, seat: str) -> None:
    """The cheat: one stored flag, and the seat's superseded letter counts again."""
    with Session(h.bot.engine) as session, session.begin():
        query = select(OrderSet).where(OrderSet.step_id == step.id, OrderSet.seat == seat)
        first, *_, last = session.exec(query.order_by(col(OrderSet.id))).all()
        first.current, last.current = True, False


def _play(h: Harness, cheat: str = "") -> int:
    """A duel in which north changes his mind each step; ``cheat`` names the step kind to cheat."""

    def send(step: StepRow, north_tag: str, south_tag: str) -> None:
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 3\n")
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 1\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 2\n")
        else:
            h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
            h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
            h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
        if cheat == step.kind and step.turn == 1:
            _first_made_current(h, step, "north")

    return play_duel(h, send)


def test_an_honest_game_with_replaced_orders_and_seals_verifies(h: Harness, tmp_path: Path) -> None:
    game_id = _play(h)
    _export(h, game_id, tmp_path / "clean")
    done = _run(tmp_path / "clean")
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize(
    ("cheat", "expected"),
    [
        ("orders", "the orders of north are not the last ones he sent before it resolved"),
        ("sealed", "the receipt for north's bid is not the one logged when sealed (the last"),
    ],
)
def test_resolving_a_superseded_order_set_or_seal_is_caught(
    h: Harness, tmp_path: Path, cheat: str, expected: str
) -> None:
    game_id = _play(h, cheat)
    data = _export(h, game_id, tmp_path / "cheat")
    step = next(s for s in data["steps"] if s["key"] == f"T1.{'bid' if cheat == 'sealed' else 'orders'}")
    assert step["orders"]["north"][0] == ("BID 3" if cheat == "sealed" else "ATTACK 3")  # the cheat worked
    done = _run(tmp_path / "cheat")
    assert done.returncode == 1, done.stdout
    assert expected in done.stdout
    _summary_counts_every_problem(done.stdout)


def _without_norths_seal(data: Data) -> None:
    step = next(s for s in data["steps"] if s["sealed"])
    del step["sealed"]["north"]


def _without_norths_orders(data: Data) -> None:
    step = next(s for s in data["steps"] if s["salts"])
    del step["salts"]["north"]
    del step["orders"]["north"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (_without_norths_seal, "north sealed a bid (logged) that the archive never opens"),
        (_without_norths_orders, "the last orders logged for north are not among the orders the dice used"),
    ],
)
def test_a_deleted_seal_or_order_record_is_caught(
    h: Harness, tmp_path: Path, edit: object, expected: str
) -> None:
    game_id = _play(h)
    folder = tmp_path / "deleted"
    data = _export(h, game_id, folder)
    assert callable(edit)
    edit(data)
    (folder / "game.json").write_text(json.dumps(data))
    done = _run(folder)
    assert done.returncode == 1, done.stdout
    assert expected in done.stdout
    _summary_counts_every_problem(done.stdout)
