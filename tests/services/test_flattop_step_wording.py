# SPDX-License-Identifier: GPL-3.0-or-later
"""The refusal for orders addressed to another step says whether it is past or still to come
(issue 15: "that step is closed" was said of a step not yet open)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services.game_helpers import Harness, text, to

NORTH, SOUTH = "north@players.test", "south@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _north_tag(h: Harness) -> str:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    code = h.seat(game_id, "south").invite_code
    h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n")
    h.flush()
    return f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"


@pytest.mark.parametrize(
    ("named", "said"), [("T7.orders", "that step is not open yet"), ("T0.orders", "that step is closed")]
)
def test_orders_for_a_later_step_are_not_called_closed(h: Harness, named: str, said: str) -> None:
    tag = _north_tag(h)
    (reply,) = to(h.mail(NORTH, f"{tag} orders", f"ORDERS {named}\nATTACK 1\nEND\n"), NORTH)
    assert f"{said}; the open step is T1.orders" in text(reply)
