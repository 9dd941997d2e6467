# SPDX-License-Identifier: GPL-3.0-or-later
"""A NONCE line inside ORDERS ... END (as the rollback letter invites) adds to the dice and is no order."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services.game_helpers import Harness, text
from tests.services.test_games_by_mail import NORTH, _started
from tests.services.test_trust import _chain


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def test_a_nonce_inside_orders_is_entropy_not_a_refused_order(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    (answer,) = h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nnonce  blue   moon\nDEFEND 1\nEND\n")
    body = text(answer)
    assert "Orders accepted" in body and "Lines I could not use" not in body
    chain = _chain(h, game_id)
    nonces = [r.payload["nonce"] for r in chain if r.kind == "entropy" and r.payload["step"] == "T1.orders"]
    assert nonces == ["blue moon"]
