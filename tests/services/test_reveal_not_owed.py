# SPDX-License-Identifier: GPL-3.0-or-later
"""A chained seat that owes nothing in a step is told what it may send, and only that.

A trial's World in Flames letter to the side not moving said "Nothing is owed by you in this
step", then "With your orders send the line that python3 verify.py reveal ... prints", and
under it how to edit an ORDERS template it did not hold. What the moderator does: the step
waits only for the moving side's orders, while the dice count every chained seat's reveal
(``dicechain.Links.chained``), so the other side's REVEAL, sent alone, counts if it comes in
time, and its seat is listed as withheld when it does not.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.core import hashchain
from mailbot.services.play.games import GameSetup
from mailbot.store.game_tables import ChainRow, GameStatus, StepRow
from mailbot.verifier.rules import seat_root
from tests.services.game_helpers import Harness, tag_of, text, to
from tests.services.helpers import GM
from tests.services.test_dice_chains import _open, _round

AXIS, ALLIES = "axis@players.test", "allies@players.test"
PHRASES = {"Axis": "the axis keeps four words", "Allies": "the allies have six words of theirs"}


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/w.db")
    yield harness
    harness.bot.engine.dispose()


@functools.cache
def _kept(game_id: int, seat: str) -> tuple[bytes, ...]:
    return tuple(hashchain.checkpoints(seat_root(PHRASES[seat], str(game_id), seat)))


def _value(game_id: int, seat: str, k: int) -> str:
    return hashchain.element_from(_kept(game_id, seat), k).hex()


def _anchor(game_id: int, seat: str) -> str:
    return _value(game_id, seat, 0)


def _started(h: Harness) -> tuple[int, str, str, list[EmailMessage]]:
    """A World in Flames game, the Axis moving first, both sides with a dice chain: the Axis
    invited by the GM, the Allies joining by mail; returns the game, both tags and the letters
    that opened the first impulse."""
    setup = GameSetup(
        plugin="wif-turn-end",
        scenario="standard",
        title="Test turn end",
        deadline="48h",
        timezone="Europe/Berlin",
        gm_address=GM,
        options={"first": "Axis"},
        early=timedelta(minutes=5),
        reminders=(),
    )
    with Session(h.bot.engine) as session, session.begin():
        game_id = int(h.bot.games.create(session, setup).id or 0)
    h.invite(game_id, "Axis", AXIS)
    axis_tag = f"[WI-{game_id} {h.seat(game_id, 'Axis').secret}]"
    h.mail(AXIS, f"{axis_tag} chain", f"CHAIN {_anchor(game_id, 'Axis')}\n")
    code = h.seat(game_id, "Allies").invite_code
    joining = f"JOIN {game_id} Allies {code}\nCHAIN {_anchor(game_id, 'Allies')}\n"
    replies = h.mail(ALLIES, "joining", joining + f"REVEAL 1 {_value(game_id, 'Allies', 1)}\n")
    allies_tag = tag_of(next(m for m in replies if m["To"] == ALLIES and "Welcome" in m["Subject"]))
    opened = h.mail(AXIS, f"{axis_tag} reveal", f"REVEAL 1 {_value(game_id, 'Axis', 1)}\n")
    assert h.game(game_id).status is GameStatus.RUNNING
    return game_id, axis_tag, allies_tag, opened


def _flat(msg: EmailMessage) -> str:
    return " ".join(text(msg).split())


def _resolved(h: Harness, step: StepRow) -> dict[str, object]:
    with Session(h.bot.engine) as session:
        rows = session.exec(
            select(ChainRow).where(ChainRow.game_id == step.game_id).order_by(col(ChainRow.position))
        )
        wanted = (step.key, step.attempt)
        return next(
            dict(r.payload)
            for r in rows
            if r.kind == "step-resolved" and (r.payload["step"], r.payload["attempt"]) == wanted
        )


def test_the_side_not_moving_is_told_it_may_reveal_and_not_to_send_orders(h: Harness) -> None:
    game_id, _, _, opened = _started(h)
    step = _open(h, game_id)
    k = _round(h, step)
    moving = _flat(next(m for m in to(opened, AXIS) if "Now open" in text(m)))
    waiting = _flat(next(m for m in to(opened, ALLIES) if "Now open" in text(m)))
    assert "You owe orders for this step." in moving
    assert f"Dice round: {k}. With your orders send the line that python3 verify.py reveal" in moving
    assert "To play, reply to this letter" in moving
    assert "Nothing is owed by you in this step." in waiting
    assert f"python3 verify.py reveal {game_id} Allies {k}" in waiting
    assert "You send no orders now, but you may send the line that" in waiting
    assert "alone in a letter" in waiting and "shows as withheld" in waiting
    allies = text(next(m for m in to(opened, ALLIES) if "Now open" in text(m)))
    dice = allies[allies.index("Dice round:") : allies.index("withheld.") + len("withheld.")]
    prose = [line for line in dice.splitlines() if "verify.py" not in line]
    assert all(len(line) <= 72 and not line.startswith("  ") for line in prose), dice  # none rewrapped
    for said in ("With your orders", "To play, reply to this letter", "ORDERS and END", "Send: ORDERS"):
        assert said not in waiting, said
    assert "No orders from you now: the Axis end impulse 1." in waiting


def test_a_reveal_from_the_side_not_moving_counts_for_the_dice(h: Harness) -> None:
    game_id, axis_tag, allies_tag, _ = _started(h)
    step = _open(h, game_id)
    k = _round(h, step)
    answer = h.mail(ALLIES, f"Re: {allies_tag} reveal", f"REVEAL {k} {_value(game_id, 'Allies', k)}\n")
    assert "counts for the dice of this step" in text(to(answer, ALLIES)[-1])
    orders = f"ORDERS {step.key}\nWEATHER 2\nEND\nREVEAL {k} {_value(game_id, 'Axis', k)}\n"
    h.mail(AXIS, f"Re: {axis_tag} orders", orders)
    h.tick(3600)
    resolved = _resolved(h, step)
    assert resolved["dice"] == 3 and resolved["withheld"] == [], resolved
